import {
  baseEvent,
  bool,
  type EventNormalisation,
  first,
  initialOf,
  type Json,
  LIVE_SUBSCRIPTION,
  lowerCurrency,
  num,
  obj,
  type PaymentEvent,
  type PaymentEventType,
  type PaymentReference,
  sponsorAdMetadata,
  str,
  unixDate,
} from '../payments/contract/events.ts'

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
