/** What the event mapping tests of every payment provider share. */
import assert from 'node:assert/strict'
import type { EventNormalisation, PaymentEvent } from '../../../src/integrations/payments/contract/events.ts'

/** CONTRACT.md's checkout metadata, as a provider sends it back. */
export const SPONSOR = { type: 'sponsor_ad', sponsorAdId: 'ad_1', itemSlug: 'my-item' }

/** The event of a normalisation that must have succeeded. */
export function eventOf(result: EventNormalisation): PaymentEvent {
  assert.equal(result.ok, true)
  return (result as { ok: true; event: PaymentEvent }).event
}
