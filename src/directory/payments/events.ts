import { createHash } from 'node:crypto'
import type { PaymentProvider } from './signatures.ts'

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
  provider: PaymentProvider
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

type Json = Record<string, unknown>

const obj = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null
const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null
const bool = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null)
const first = (value: unknown): Json | null => (Array.isArray(value) ? obj(value[0]) : null)
const lowerCurrency = (value: unknown): string | null => str(value)?.toLowerCase() ?? null

function unixDate(value: unknown): Date | null {
  const seconds = num(value)
  return seconds === null ? null : new Date(seconds * 1000)
}

function isoDate(value: unknown): Date | null {
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
function payloadId(provider: PaymentProvider, payload: Json): string {
  return `${provider}:sha256:${createHash('sha256').update(JSON.stringify(payload)).digest('hex')}`
}

const baseEvent = (provider: PaymentProvider, id: string, providerType: string, type: PaymentEventType) => ({
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

const initialOf = (subscriptionId: string | null, fallback: string): PaymentReference => ({
  reference: subscriptionId ? `initial:${subscriptionId}` : fallback,
  kind: 'initial',
})

// CONTRACT.md "Inbound payment webhooks" gives this mapping.
const STRIPE_TYPES: Record<string, PaymentEventType> = {
  'checkout.session.completed': 'payment_succeeded',
  'payment_intent.succeeded': 'payment_succeeded',
  'payment_intent.payment_failed': 'payment_failed',
  'customer.subscription.created': 'subscription_created',
  'customer.subscription.updated': 'subscription_updated',
  'customer.subscription.deleted': 'subscription_cancelled',
  'customer.subscription.trial_will_end': 'subscription_trial_ending',
  'invoice.paid': 'subscription_payment_succeeded',
  'invoice.payment_succeeded': 'subscription_payment_succeeded',
  'invoice.payment_failed': 'subscription_payment_failed',
  'charge.refunded': 'refund_succeeded',
}

export function normaliseStripeEvent(payload: unknown): EventNormalisation {
  const body = obj(payload)
  const id = str(body?.id)
  const providerType = str(body?.type)
  if (!body || !id || !providerType) return { ok: false, message: 'Stripe event needs an id and a type' }
  const event: PaymentEvent = {
    ...baseEvent('stripe', id, providerType, STRIPE_TYPES[providerType] ?? 'ignored'),
  }
  const object = obj(obj(body.data)?.object)
  if (!object) return { ok: true, event }
  const kind = str(object.object)
  // Invoices carry their subscription's metadata in `subscription_details` (or `parent.…` since 2025 API versions).
  const parentSubscription = obj(obj(object.parent)?.subscription_details)
  const subscriptionDetails = obj(object.subscription_details) ?? parentSubscription
  event.metadata = sponsorAdMetadata(
    object.metadata,
    subscriptionDetails?.metadata,
    first(obj(object.lines)?.data)?.metadata,
  )
  event.customerId = str(object.customer) ?? str(obj(object.customer)?.id)
  event.currency = lowerCurrency(object.currency)
  event.amount =
    kind === 'checkout.session'
      ? num(object.amount_total)
      : kind === 'invoice'
        ? (num(object.amount_paid) ?? num(object.amount_due))
        : kind === 'charge' && event.type === 'refund_succeeded'
          ? num(object.amount_refunded)
          : num(object.amount)
  if (kind === 'subscription') {
    // Since the 2025-03 API version the period lives on the subscription's items.
    const item = first(obj(object.items)?.data)
    const price = obj(item?.price)
    event.subscription = {
      subscriptionId: str(object.id),
      customerId: event.customerId,
      status: str(object.status),
      priceId: str(price?.id),
      interval: str(obj(price?.recurring)?.interval),
      currentPeriodEnd: unixDate(object.current_period_end) ?? unixDate(item?.current_period_end),
      cancelAtPeriodEnd: bool(object.cancel_at_period_end),
      cancelledAt: unixDate(object.canceled_at),
      trialEnd: unixDate(object.trial_end),
    }
    event.currency = lowerCurrency(object.currency) ?? lowerCurrency(price?.currency)
    event.amount = num(price?.unit_amount)
  } else if (kind === 'invoice' || (kind === 'checkout.session' && object.mode === 'subscription')) {
    const line = first(obj(object.lines)?.data)
    event.subscription = {
      subscriptionId: str(object.subscription) ?? str(subscriptionDetails?.subscription),
      customerId: event.customerId,
      status: null,
      priceId: str(obj(line?.price)?.id) ?? str(obj(obj(line?.pricing)?.price_details)?.price),
      interval: null,
      currentPeriodEnd: unixDate(obj(line?.period)?.end),
      cancelAtPeriodEnd: null,
      cancelledAt: null,
      trialEnd: null,
    }
  }
  event.payment = stripePayment(event, object, kind)
  return { ok: true, event }
}

/** Statuses of a subscription whose first payment went through (or that starts with a trial). */
const LIVE_SUBSCRIPTION = new Set(['active', 'trialing', 'on_trial', 'past_due'])

function stripePayment(event: PaymentEvent, object: Json, kind: string | null): PaymentReference | null {
  const subscriptionId = event.subscription?.subscriptionId ?? null
  switch (event.type) {
    case 'payment_succeeded':
      if (kind === 'checkout.session') {
        // An asynchronous payment method completes the session unpaid; its payment comes later.
        if (object.payment_status === 'unpaid') return null
        return initialOf(subscriptionId, `checkout:${str(object.id)}`)
      }
      return { reference: `payment:${str(object.id)}`, kind: 'initial' }
    case 'subscription_created':
      return subscriptionId && LIVE_SUBSCRIPTION.has(event.subscription?.status ?? '')
        ? initialOf(subscriptionId, '')
        : null
    case 'subscription_payment_succeeded':
      // The invoice of a subscription's creation is its first payment, which its checkout also reports.
      return object.billing_reason === 'subscription_create'
        ? initialOf(subscriptionId, `invoice:${str(object.id)}`)
        : { reference: `invoice:${str(object.id)}`, kind: 'renewal' }
    default:
      return null
  }
}

// LemonSqueezy's documented event names (docs.lemonsqueezy.com/help/webhooks/event-types).
const LEMONSQUEEZY_TYPES: Record<string, PaymentEventType> = {
  order_refunded: 'refund_succeeded',
  subscription_created: 'subscription_created',
  subscription_updated: 'subscription_updated',
  subscription_resumed: 'subscription_updated',
  subscription_paused: 'subscription_updated',
  subscription_unpaused: 'subscription_updated',
  // A cancelled LemonSqueezy subscription runs to the end of its paid period (`ends_at`): only its
  // expiry ends it, so the sponsor ad keeps the time its user paid for.
  subscription_cancelled: 'subscription_updated',
  subscription_expired: 'subscription_cancelled',
  subscription_payment_success: 'subscription_payment_succeeded',
  subscription_payment_recovered: 'subscription_payment_succeeded',
  subscription_payment_failed: 'subscription_payment_failed',
  subscription_payment_refunded: 'refund_succeeded',
}

/** LemonSqueezy sends no event id, so the id is built from the payload (see `PaymentEvent.id`). */
export function normaliseLemonSqueezyEvent(payload: unknown): EventNormalisation {
  const body = obj(payload)
  const meta = obj(body?.meta)
  const providerType = str(meta?.event_name)
  if (!body || !providerType) return { ok: false, message: 'LemonSqueezy event needs meta.event_name' }
  const data = obj(body.data)
  const attributes = obj(data?.attributes)
  let type = LEMONSQUEEZY_TYPES[providerType] ?? 'ignored'
  // `order_created` fires for every order; its status says whether it was paid.
  if (providerType === 'order_created') {
    type =
      attributes?.status === 'paid'
        ? 'payment_succeeded'
        : attributes?.status === 'failed'
          ? 'payment_failed'
          : 'ignored'
  }
  const event: PaymentEvent = {
    ...baseEvent('lemonsqueezy', payloadId('lemonsqueezy', body), providerType, type),
  }
  event.metadata = sponsorAdMetadata(meta?.custom_data)
  event.customerId = str(attributes?.customer_id)
  event.currency = lowerCurrency(attributes?.currency)
  event.amount = num(attributes?.total)
  const dataType = str(data?.type)
  if (dataType === 'subscriptions' || dataType === 'subscription-invoices') {
    const isSubscription = dataType === 'subscriptions'
    event.subscription = {
      subscriptionId: isSubscription ? str(data?.id) : str(attributes?.subscription_id),
      customerId: event.customerId,
      status: str(attributes?.status),
      priceId: isSubscription ? str(attributes?.variant_id) : null,
      interval: null,
      currentPeriodEnd: isSubscription
        ? (isoDate(attributes?.renews_at) ?? isoDate(attributes?.ends_at))
        : null,
      cancelAtPeriodEnd: isSubscription ? bool(attributes?.cancelled) : null,
      cancelledAt: isSubscription && attributes?.cancelled === true ? isoDate(attributes?.updated_at) : null,
      trialEnd: isSubscription ? isoDate(attributes?.trial_ends_at) : null,
    }
  }
  event.payment = lemonSqueezyPayment(event, data, attributes)
  return { ok: true, event }
}

function lemonSqueezyPayment(event: PaymentEvent, data: Json | null, attributes: Json | null) {
  switch (event.type) {
    case 'payment_succeeded':
      return { reference: `order:${str(data?.id)}`, kind: 'initial' } as const
    case 'subscription_created':
      // The subscription names the order that paid for it, which `order_created` reports too.
      return LIVE_SUBSCRIPTION.has(event.subscription?.status ?? '') && str(attributes?.order_id)
        ? ({ reference: `order:${str(attributes?.order_id)}`, kind: 'initial' } as const)
        : null
    case 'subscription_payment_succeeded':
      // The first invoice is the order `order_created` reported; the others are renewals.
      return attributes?.billing_reason === 'initial'
        ? null
        : ({ reference: `invoice:${str(data?.id)}`, kind: 'renewal' } as const)
    default:
      return null
  }
}

// Polar's documented event names (docs.polar.sh/api-reference/webhooks); orders go by billing_reason below.
const POLAR_TYPES: Record<string, PaymentEventType> = {
  'subscription.created': 'subscription_created',
  'subscription.updated': 'subscription_updated',
  'subscription.active': 'subscription_updated',
  'subscription.uncanceled': 'subscription_updated',
  // Set below: a cancellation at the period's end keeps the subscription (and the ad) until then.
  'subscription.canceled': 'subscription_cancelled',
  'subscription.revoked': 'subscription_cancelled',
  'order.refunded': 'refund_succeeded',
}

/**
 * Polar's body has no event id: the Standard Webhooks `webhook-id` header is the id, and the routes
 * pass it here; without it the id is built from the payload.
 */
export function normalisePolarEvent(payload: unknown, webhookId?: string): EventNormalisation {
  const body = obj(payload)
  const providerType = str(body?.type)
  if (!body || !providerType) return { ok: false, message: 'Polar event needs a type' }
  const data = obj(body.data)
  let type = POLAR_TYPES[providerType] ?? 'ignored'
  // A renewal is an order with billing_reason `subscription_cycle`; a first purchase is a payment.
  if (providerType === 'order.paid') {
    type =
      data?.billing_reason === 'subscription_cycle' ? 'subscription_payment_succeeded' : 'payment_succeeded'
  }
  if (providerType === 'subscription.canceled' && data?.cancel_at_period_end === true) {
    type = 'subscription_updated'
  }
  const event: PaymentEvent = {
    ...baseEvent('polar', webhookId || payloadId('polar', body), providerType, type),
  }
  if (!data) return { ok: true, event }
  event.metadata = sponsorAdMetadata(data.metadata, obj(data.subscription)?.metadata)
  event.customerId = str(data.customer_id)
  event.currency = lowerCurrency(data.currency)
  event.amount = num(data.total_amount) ?? num(data.amount)
  if (providerType.startsWith('subscription.')) {
    event.subscription = {
      subscriptionId: str(data.id),
      customerId: event.customerId,
      status: str(data.status),
      priceId: str(first(data.prices)?.id) ?? str(data.price_id),
      interval: str(data.recurring_interval),
      currentPeriodEnd: isoDate(data.current_period_end),
      cancelAtPeriodEnd: bool(data.cancel_at_period_end),
      cancelledAt: isoDate(data.canceled_at),
      trialEnd: isoDate(data.trial_end),
    }
  } else if (str(data.subscription_id)) {
    event.subscription = {
      subscriptionId: str(data.subscription_id),
      customerId: event.customerId,
      status: null,
      priceId: null,
      interval: null,
      currentPeriodEnd: isoDate(obj(data.subscription)?.current_period_end),
      cancelAtPeriodEnd: null,
      cancelledAt: null,
      trialEnd: null,
    }
  }
  const subscriptionId = event.subscription?.subscriptionId ?? null
  if (event.type === 'payment_succeeded') {
    event.payment = initialOf(subscriptionId, `order:${str(data.id)}`)
  } else if (event.type === 'subscription_payment_succeeded') {
    event.payment = { reference: `order:${str(data.id)}`, kind: 'renewal' }
  } else if (
    event.type === 'subscription_created' &&
    subscriptionId &&
    LIVE_SUBSCRIPTION.has(event.subscription?.status ?? '')
  ) {
    event.payment = initialOf(subscriptionId, '')
  }
  return { ok: true, event }
}

// SPEC.md "Inbound payment webhook events" gives this provider's mapping.
const SOLIDGATE_TYPES: Record<string, PaymentEventType> = {
  'payment.succeeded': 'payment_succeeded',
  'payment.completed': 'payment_succeeded',
  'payment.failed': 'payment_failed',
  'payment.declined': 'payment_failed',
  'subscription.created': 'subscription_created',
  'subscription.updated': 'subscription_updated',
  'subscription.cancelled': 'subscription_cancelled',
  'subscription.canceled': 'subscription_cancelled',
  'refund.processed': 'refund_succeeded',
  'refund.completed': 'refund_succeeded',
}

/** SPEC.md: the id is the body `id`, else the `x-request-id` header (passed by the route), else built from the payload. */
export function normaliseSolidgateEvent(payload: unknown, requestId?: string): EventNormalisation {
  const body = obj(payload)
  const providerType = str(body?.type) ?? str(body?.event)
  if (!body || !providerType) return { ok: false, message: 'Solidgate event needs a type' }
  const id = str(body.id) ?? (requestId || payloadId('solidgate', body))
  const event: PaymentEvent = {
    ...baseEvent('solidgate', id, providerType, SOLIDGATE_TYPES[providerType] ?? 'ignored'),
  }
  const data = obj(body.data) ?? body
  event.metadata = sponsorAdMetadata(data.metadata, body.metadata)
  event.customerId = str(data.customer_id)
  event.currency = lowerCurrency(data.currency)
  event.amount = num(data.amount)
  if (providerType.startsWith('subscription.') || str(data.subscription_id)) {
    event.subscription = {
      subscriptionId:
        str(data.subscription_id) ?? (providerType.startsWith('subscription.') ? str(data.id) : null),
      customerId: event.customerId,
      status: str(data.status),
      priceId: str(data.product_id),
      interval: null,
      currentPeriodEnd: isoDate(data.expired_at) ?? isoDate(data.next_charge_at),
      cancelAtPeriodEnd: bool(data.cancel_at_period_end),
      cancelledAt: isoDate(data.cancelled_at),
      trialEnd: null,
    }
  }
  const subscriptionId = event.subscription?.subscriptionId ?? null
  if (event.type === 'payment_succeeded') {
    event.payment = initialOf(subscriptionId, `order:${str(data.order_id) ?? event.id}`)
  } else if (event.type === 'subscription_created' && subscriptionId) {
    event.payment = initialOf(subscriptionId, '')
  }
  return { ok: true, event }
}
