import {
  baseEvent,
  bool,
  type EventNormalisation,
  initialOf,
  isoDate,
  lowerCurrency,
  num,
  obj,
  type PaymentEvent,
  type PaymentEventType,
  payloadId,
  sponsorAdMetadata,
  str,
} from '../payments/contract/events.ts'

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
