import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { normalisePolarEvent } from '../../../src/integrations/polar/events.ts'
import { eventOf, SPONSOR } from '../payments/event-cases.ts'

describe('Polar event normalisation', () => {
  const polar = (type: string, data: Record<string, unknown>) =>
    eventOf(normalisePolarEvent({ type, timestamp: '2026-03-01T00:00:00Z', data }, 'msg_1'))

  it('maps its documented event names', () => {
    const cases: [string, string][] = [
      ['subscription.created', 'subscription_created'],
      ['subscription.updated', 'subscription_updated'],
      ['subscription.active', 'subscription_updated'],
      ['subscription.uncanceled', 'subscription_updated'],
      ['subscription.canceled', 'subscription_cancelled'],
      ['subscription.revoked', 'subscription_cancelled'],
      ['order.refunded', 'refund_succeeded'],
      ['checkout.created', 'ignored'],
    ]
    for (const [name, type] of cases) assert.equal(polar(name, {}).type, type, name)
  })
  it('maps a paid order by billing reason', () => {
    assert.equal(polar('order.paid', { billing_reason: 'purchase' }).type, 'payment_succeeded')
    assert.equal(polar('order.paid', { billing_reason: 'subscription_create' }).type, 'payment_succeeded')
    assert.equal(
      polar('order.paid', { billing_reason: 'subscription_cycle' }).type,
      'subscription_payment_succeeded',
    )
  })
  it('reads an order: metadata, amount, subscription', () => {
    const event = polar('order.paid', {
      billing_reason: 'subscription_cycle',
      metadata: SPONSOR,
      total_amount: 10000,
      currency: 'usd',
      customer_id: 'c_1',
      subscription_id: 's_1',
    })
    assert.equal(event.id, 'msg_1')
    assert.deepEqual(event.metadata, SPONSOR)
    assert.equal(event.amount, 10000)
    assert.equal(event.subscription?.subscriptionId, 's_1')
  })
  it('reads a subscription', () => {
    const event = polar('subscription.canceled', {
      id: 's_1',
      status: 'active',
      customer_id: 'c_1',
      metadata: SPONSOR,
      recurring_interval: 'month',
      current_period_end: '2026-04-01T00:00:00Z',
      cancel_at_period_end: true,
      canceled_at: '2026-03-01T00:00:00Z',
      amount: 30000,
      currency: 'usd',
    })
    assert.deepEqual(event.metadata, SPONSOR)
    assert.equal(event.subscription?.subscriptionId, 's_1')
    assert.equal(event.subscription?.interval, 'month')
    assert.equal(event.subscription?.cancelAtPeriodEnd, true)
    assert.deepEqual(event.subscription?.currentPeriodEnd, new Date('2026-04-01T00:00:00Z'))
    // Cancelled at the period's end: the subscription (and its ad) runs until then.
    assert.equal(event.type, 'subscription_updated')
    assert.equal(
      polar('subscription.canceled', { id: 's_1', cancel_at_period_end: false }).type,
      'subscription_cancelled',
    )
  })
  it('names each payment once, whichever event reports it', () => {
    const first = polar('order.paid', {
      id: 'o_1',
      billing_reason: 'subscription_create',
      subscription_id: 's_1',
    })
    const created = polar('subscription.created', { id: 's_1', status: 'active' })
    assert.deepEqual(first.payment, { reference: 'initial:s_1', kind: 'initial' })
    assert.deepEqual(created.payment, first.payment)
    assert.equal(polar('subscription.created', { id: 's_1', status: 'incomplete' }).payment, null)
    assert.deepEqual(
      polar('order.paid', { id: 'o_2', billing_reason: 'subscription_cycle', subscription_id: 's_1' })
        .payment,
      {
        reference: 'order:o_2',
        kind: 'renewal',
      },
    )
  })
  it('falls back to a payload id without webhook-id', () => {
    assert.match(eventOf(normalisePolarEvent({ type: 'order.paid', data: {} })).id, /^polar:sha256:/)
    assert.equal(normalisePolarEvent({ data: {} }).ok, false)
  })
})
