import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { normaliseSolidgateEvent } from '../../../src/integrations/solidgate/events.ts'
import { eventOf, SPONSOR } from '../payments/event-cases.ts'

describe('Solidgate event normalisation (SPEC.md mapping)', () => {
  it('maps every SPEC.md name', () => {
    const cases: [string, string][] = [
      ['payment.succeeded', 'payment_succeeded'],
      ['payment.completed', 'payment_succeeded'],
      ['payment.failed', 'payment_failed'],
      ['payment.declined', 'payment_failed'],
      ['subscription.created', 'subscription_created'],
      ['subscription.updated', 'subscription_updated'],
      ['subscription.cancelled', 'subscription_cancelled'],
      ['subscription.canceled', 'subscription_cancelled'],
      ['refund.processed', 'refund_succeeded'],
      ['refund.completed', 'refund_succeeded'],
      ['card.updated', 'ignored'],
    ]
    for (const [name, type] of cases)
      assert.equal(eventOf(normaliseSolidgateEvent({ id: 'e', type: name })).type, type, name)
  })
  it('reads metadata, amount and subscription', () => {
    const event = eventOf(
      normaliseSolidgateEvent({
        id: 'sg_1',
        type: 'subscription.created',
        data: { id: 'sub_1', status: 'active', metadata: SPONSOR, amount: 10000, currency: 'USD' },
      }),
    )
    assert.equal(event.id, 'sg_1')
    assert.deepEqual(event.metadata, SPONSOR)
    assert.equal(event.subscription?.subscriptionId, 'sub_1')
    assert.equal(event.currency, 'usd')
  })
  it('takes the id from the body, then x-request-id, then the payload', () => {
    assert.equal(eventOf(normaliseSolidgateEvent({ type: 'payment.succeeded' }, 'req_1')).id, 'req_1')
    assert.match(eventOf(normaliseSolidgateEvent({ type: 'payment.succeeded' })).id, /^solidgate:sha256:/)
  })
})
