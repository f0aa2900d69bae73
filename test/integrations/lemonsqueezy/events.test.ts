import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { normaliseLemonSqueezyEvent } from '../../../src/integrations/lemonsqueezy/events.ts'
import { eventOf, SPONSOR } from '../payments/event-cases.ts'

describe('LemonSqueezy event normalisation', () => {
  const lemon = (eventName: string, data: Record<string, unknown>, customData: unknown = SPONSOR) =>
    eventOf(normaliseLemonSqueezyEvent({ meta: { event_name: eventName, custom_data: customData }, data }))

  it('maps its documented event names', () => {
    const cases: [string, string][] = [
      ['order_refunded', 'refund_succeeded'],
      ['subscription_created', 'subscription_created'],
      ['subscription_updated', 'subscription_updated'],
      ['subscription_resumed', 'subscription_updated'],
      // Cancelled runs to the end of the paid period; only its expiry ends the subscription.
      ['subscription_cancelled', 'subscription_updated'],
      ['subscription_expired', 'subscription_cancelled'],
      ['subscription_payment_success', 'subscription_payment_succeeded'],
      ['subscription_payment_recovered', 'subscription_payment_succeeded'],
      ['subscription_payment_failed', 'subscription_payment_failed'],
      ['subscription_payment_refunded', 'refund_succeeded'],
      ['license_key_created', 'ignored'],
    ]
    for (const [name, type] of cases)
      assert.equal(lemon(name, { type: 'subscriptions', id: '1' }).type, type, name)
  })
  it('names the order once across order_created and subscription_created; renewals by invoice', () => {
    const order = lemon('order_created', { type: 'orders', id: '7', attributes: { status: 'paid' } })
    const created = lemon('subscription_created', {
      type: 'subscriptions',
      id: '99',
      attributes: { status: 'active', order_id: 7 },
    })
    assert.deepEqual(order.payment, { reference: 'order:7', kind: 'initial' })
    assert.deepEqual(created.payment, order.payment)
    const invoice = (billing_reason: string) =>
      lemon('subscription_payment_success', {
        type: 'subscription-invoices',
        id: '5',
        attributes: { subscription_id: 99, billing_reason },
      })
    assert.equal(invoice('initial').payment, null)
    assert.deepEqual(invoice('renewal').payment, { reference: 'invoice:5', kind: 'renewal' })
  })
  it('maps order_created by its status', () => {
    assert.equal(
      lemon('order_created', { type: 'orders', attributes: { status: 'paid' } }).type,
      'payment_succeeded',
    )
    assert.equal(
      lemon('order_created', { type: 'orders', attributes: { status: 'failed' } }).type,
      'payment_failed',
    )
    assert.equal(
      lemon('order_created', { type: 'orders', attributes: { status: 'pending' } }).type,
      'ignored',
    )
  })
  it('reads an order: custom_data, amount, currency', () => {
    const event = lemon('order_created', {
      type: 'orders',
      id: '7',
      attributes: { status: 'paid', total: 30000, currency: 'USD', customer_id: 42 },
    })
    assert.deepEqual(event.metadata, SPONSOR)
    assert.equal(event.amount, 30000)
    assert.equal(event.currency, 'usd')
    assert.equal(event.customerId, '42')
    assert.equal(event.subscription, null)
  })
  it('reads a subscription', () => {
    const event = lemon('subscription_cancelled', {
      type: 'subscriptions',
      id: '99',
      attributes: {
        status: 'cancelled',
        customer_id: 42,
        variant_id: 5,
        cancelled: true,
        ends_at: '2026-04-01T00:00:00.000000Z',
        renews_at: null,
        updated_at: '2026-03-01T00:00:00Z',
        trial_ends_at: null,
      },
    })
    assert.equal(event.subscription?.subscriptionId, '99')
    assert.equal(event.subscription?.status, 'cancelled')
    assert.equal(event.subscription?.priceId, '5')
    assert.equal(event.subscription?.cancelAtPeriodEnd, true)
    assert.deepEqual(event.subscription?.currentPeriodEnd, new Date('2026-04-01T00:00:00Z'))
    assert.deepEqual(event.subscription?.cancelledAt, new Date('2026-03-01T00:00:00Z'))
  })
  it('reads a subscription invoice', () => {
    const event = lemon('subscription_payment_success', {
      type: 'subscription-invoices',
      id: '5',
      attributes: { subscription_id: 99, total: 10000, currency: 'usd', status: 'paid' },
    })
    assert.equal(event.subscription?.subscriptionId, '99')
    assert.equal(event.amount, 10000)
  })
  it('builds a stable id from the payload, the same for a redelivery', () => {
    const body = { meta: { event_name: 'subscription_updated' }, data: { type: 'subscriptions', id: '1' } }
    const a = eventOf(normaliseLemonSqueezyEvent(body)).id
    assert.match(a, /^lemonsqueezy:sha256:[0-9a-f]{64}$/)
    assert.equal(eventOf(normaliseLemonSqueezyEvent(structuredClone(body))).id, a)
    assert.notEqual(eventOf(normaliseLemonSqueezyEvent({ ...body, data: { ...body.data, id: '2' } })).id, a)
  })
  it('ignores custom_data that is not a sponsor ad, and refuses a body without event_name', () => {
    assert.equal(lemon('subscription_created', { type: 'subscriptions' }, { type: 'other' }).metadata, null)
    assert.equal(normaliseLemonSqueezyEvent({ meta: {} }).ok, false)
  })
})
