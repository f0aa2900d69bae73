import {
  baseEvent,
  bool,
  type EventNormalisation,
  isoDate,
  type Json,
  LIVE_SUBSCRIPTION,
  lowerCurrency,
  num,
  obj,
  type PaymentEvent,
  type PaymentEventType,
  payloadId,
  sponsorAdMetadata,
  str,
} from '../payments/contract/events.ts'

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
