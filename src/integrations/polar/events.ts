import {
  baseEvent,
  bool,
  type EventNormalisation,
  first,
  initialOf,
  isoDate,
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
