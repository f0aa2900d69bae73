/**
 * SPEC.md's payment event, what every provider's event mapping turns its webhook body into, and the readers
 * those mappings share. Provider folders import this file; it knows no provider.
 */
import { sha256Hex } from '../../../lib/crypto.ts'

export type PaymentEventType =
  | 'payment_succeeded'
  | 'payment_failed'
  | 'refund_succeeded'
  | 'subscription_created'
  | 'subscription_updated'
  | 'subscription_cancelled'
  | 'subscription_trial_ending'
  | 'subscription_payment_succeeded'
  | 'subscription_payment_failed'
  | 'ignored'

/** CONTRACT.md: every checkout carries `{type:'sponsor_ad', sponsorAdId, itemSlug}`. */
export interface SponsorAdMetadata {
  type: 'sponsor_ad'
  sponsorAdId: string
  itemSlug: string | null
}

export interface SubscriptionDetails {
  subscriptionId: string | null
  customerId: string | null
  status: string | null
  priceId: string | null
  interval: string | null
  currentPeriodEnd: Date | null
  cancelAtPeriodEnd: boolean | null
  cancelledAt: Date | null
  trialEnd: Date | null
}

/**
 * The payment an event reports: what names the payment itself, so the several events a provider sends for
 * one payment (Stripe's `checkout.session.completed`, `customer.subscription.created` and `invoice.paid` for
 * a subscription's first payment) record and apply it once; and whether it is a subscription's first
 * payment (a checkout) or a renewal cycle.
 */
export interface PaymentReference {
  reference: string
  kind: 'initial' | 'renewal'
}

export interface PaymentEvent {
  /** The registered provider's id (`stripe`, …): the `{provider}` of its webhook route. */
  provider: string
  /** The provider's event id, or `<provider>:sha256:<hex of the payload>` when it sends none. */
  id: string
  type: PaymentEventType
  providerType: string
  metadata: SponsorAdMetadata | null
  customerId: string | null
  /** Minor units. */
  amount: number | null
  currency: string | null
  subscription: SubscriptionDetails | null
  /** Set on the event types that report money received; null when the event says it is not paid yet. */
  payment: PaymentReference | null
}

export type EventNormalisation = { ok: true; event: PaymentEvent } | { ok: false; message: string }

export type Json = Record<string, unknown>

export const obj = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null
export const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null
export const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null
export const bool = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null)
export const first = (value: unknown): Json | null => (Array.isArray(value) ? obj(value[0]) : null)
export const lowerCurrency = (value: unknown): string | null => str(value)?.toLowerCase() ?? null

export function unixDate(value: unknown): Date | null {
  const seconds = num(value)
  return seconds === null ? null : new Date(seconds * 1000)
}

export function isoDate(value: unknown): Date | null {
  const text = str(value)
  if (text === null) return null
  const date = new Date(text)
  return Number.isNaN(date.getTime()) ? null : date
}

/** The sponsor-ad metadata of the first candidate that carries it; anything else is not ours. */
export function sponsorAdMetadata(...candidates: unknown[]): SponsorAdMetadata | null {
  for (const candidate of candidates) {
    const metadata = obj(candidate)
    const sponsorAdId = str(metadata?.sponsorAdId)
    if (metadata?.type === 'sponsor_ad' && sponsorAdId) {
      return { type: 'sponsor_ad', sponsorAdId, itemSlug: str(metadata.itemSlug) }
    }
  }
  return null
}

/** A delivery retried by the provider carries the same body, so it keeps the same id. */
export function payloadId(provider: string, payload: Json): string {
  return `${provider}:sha256:${sha256Hex(JSON.stringify(payload))}`
}

/** An event of `providerType` with nothing known yet but its id and type. */
export const baseEvent = (provider: string, id: string, providerType: string, type: PaymentEventType) => ({
  provider,
  id,
  providerType,
  type,
  metadata: null,
  customerId: null,
  amount: null,
  currency: null,
  subscription: null,
  payment: null,
})

/** A subscription's first payment, named by the subscription so every event reporting it agrees. */
export const initialOf = (subscriptionId: string | null, fallback: string): PaymentReference => ({
  reference: subscriptionId ? `initial:${subscriptionId}` : fallback,
  kind: 'initial',
})

/** Statuses of a subscription whose first payment went through (or that starts with a trial). */
export const LIVE_SUBSCRIPTION = new Set(['active', 'trialing', 'on_trial', 'past_due'])
