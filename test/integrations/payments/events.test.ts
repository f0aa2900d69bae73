import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { normaliseLemonSqueezyEvent } from '../../../src/integrations/lemonsqueezy/events.ts'
import type { EventNormalisation, PaymentEvent } from '../../../src/integrations/payments/contract/events.ts'
import { normalisePolarEvent } from '../../../src/integrations/polar/events.ts'
import { normaliseSolidgateEvent } from '../../../src/integrations/solidgate/events.ts'
import { normaliseStripeEvent } from '../../../src/integrations/stripe/events.ts'

const SPONSOR = { type: 'sponsor_ad', sponsorAdId: 'ad_1', itemSlug: 'my-item' }

function eventOf(result: EventNormalisation): PaymentEvent {
  assert.equal(result.ok, true)
  return (result as { ok: true; event: PaymentEvent }).event
}

describe('Stripe event normalisation', () => {
  const stripe = (type: string, object: Record<string, unknown>) =>
    eventOf(normaliseStripeEvent({ id: `evt_${type}`, type, data: { object } }))

  it('maps every CONTRACT.md type', () => {
    const cases: [string, string][] = [
      ['checkout.session.completed', 'payment_succeeded'],
      ['payment_intent.succeeded', 'payment_succeeded'],
      ['payment_intent.payment_failed', 'payment_failed'],
      ['customer.subscription.created', 'subscription_created'],
      ['customer.subscription.updated', 'subscription_updated'],
      ['customer.subscription.deleted', 'subscription_cancelled'],
      ['customer.subscription.trial_will_end', 'subscription_trial_ending'],
      ['invoice.paid', 'subscription_payment_succeeded'],
      ['invoice.payment_succeeded', 'subscription_payment_succeeded'],
      ['invoice.payment_failed', 'subscription_payment_failed'],
      ['charge.refunded', 'refund_succeeded'],
      ['customer.created', 'ignored'],
    ]
    for (const [providerType, type] of cases) {
      const event = stripe(providerType, {})
      assert.equal(event.type, type, providerType)
      assert.equal(event.id, `evt_${providerType}`)
      assert.equal(event.providerType, providerType)
    }
  })
  it('reads a checkout session: metadata, amount, currency', () => {
    const event = stripe('checkout.session.completed', {
      object: 'checkout.session',
      mode: 'subscription',
      metadata: SPONSOR,
      amount_total: 30000,
      currency: 'USD',
      customer: 'cus_1',
      subscription: 'sub_1',
    })
    assert.deepEqual(event.metadata, SPONSOR)
    assert.equal(event.amount, 30000)
    assert.equal(event.currency, 'usd')
    assert.equal(event.customerId, 'cus_1')
    assert.equal(event.subscription?.subscriptionId, 'sub_1')
  })
  it('reads a subscription with its period on the item', () => {
    const event = stripe('customer.subscription.updated', {
      object: 'subscription',
      id: 'sub_1',
      customer: 'cus_1',
      status: 'active',
      cancel_at_period_end: true,
      canceled_at: 1_700_000_000,
      metadata: SPONSOR,
      items: {
        data: [
          {
            current_period_end: 1_800_000_000,
            price: { id: 'price_w', unit_amount: 10000, currency: 'usd', recurring: { interval: 'week' } },
          },
        ],
      },
    })
    assert.deepEqual(event.metadata, SPONSOR)
    assert.deepEqual(event.subscription, {
      subscriptionId: 'sub_1',
      customerId: 'cus_1',
      status: 'active',
      priceId: 'price_w',
      interval: 'week',
      currentPeriodEnd: new Date(1_800_000_000_000),
      cancelAtPeriodEnd: true,
      cancelledAt: new Date(1_700_000_000_000),
      trialEnd: null,
    })
    assert.equal(event.amount, 10000)
  })
  it("reads an invoice's subscription and metadata from its parent", () => {
    const event = stripe('invoice.paid', {
      object: 'invoice',
      amount_paid: 10000,
      currency: 'usd',
      customer: 'cus_1',
      metadata: {},
      parent: { subscription_details: { subscription: 'sub_9', metadata: SPONSOR } },
      lines: { data: [{ period: { end: 1_800_000_000 } }] },
    })
    assert.deepEqual(event.metadata, SPONSOR)
    assert.equal(event.subscription?.subscriptionId, 'sub_9')
    assert.deepEqual(event.subscription?.currentPeriodEnd, new Date(1_800_000_000_000))
    assert.equal(event.amount, 10000)
  })
  it('reads the refunded amount of a charge, and ignores foreign metadata', () => {
    const event = stripe('charge.refunded', {
      object: 'charge',
      amount: 30000,
      amount_refunded: 5000,
      currency: 'eur',
      metadata: { type: 'other' },
    })
    assert.equal(event.amount, 5000)
    assert.equal(event.metadata, null)
  })
  it('names a subscription’s first payment once across its checkout, subscription and invoice', () => {
    const checkout = stripe('checkout.session.completed', {
      object: 'checkout.session',
      id: 'cs_1',
      mode: 'subscription',
      payment_status: 'paid',
      subscription: 'sub_1',
    })
    const created = stripe('customer.subscription.created', {
      object: 'subscription',
      id: 'sub_1',
      status: 'active',
    })
    const invoice = stripe('invoice.paid', {
      object: 'invoice',
      id: 'in_1',
      billing_reason: 'subscription_create',
      subscription: 'sub_1',
    })
    const first = { reference: 'initial:sub_1', kind: 'initial' }
    assert.deepEqual(checkout.payment, first)
    assert.deepEqual(created.payment, first)
    assert.deepEqual(invoice.payment, first)
    // Invoice.paid and invoice.payment_succeeded report the same renewal.
    const cycle = {
      object: 'invoice',
      id: 'in_2',
      billing_reason: 'subscription_cycle',
      subscription: 'sub_1',
    }
    assert.deepEqual(stripe('invoice.paid', cycle).payment, { reference: 'invoice:in_2', kind: 'renewal' })
    assert.deepEqual(
      stripe('invoice.payment_succeeded', cycle).payment,
      stripe('invoice.paid', cycle).payment,
    )
    // Not paid yet: an asynchronous payment method, an incomplete subscription.
    assert.equal(
      stripe('checkout.session.completed', {
        object: 'checkout.session',
        id: 'cs_2',
        payment_status: 'unpaid',
      }).payment,
      null,
    )
    assert.equal(
      stripe('customer.subscription.created', { object: 'subscription', id: 'sub_2', status: 'incomplete' })
        .payment,
      null,
    )
    assert.equal(stripe('invoice.payment_failed', cycle).payment, null)
  })
  it('refuses a body without id or type', () => {
    assert.equal(normaliseStripeEvent({ type: 'invoice.paid' }).ok, false)
    assert.equal(normaliseStripeEvent(null).ok, false)
    assert.equal(normaliseStripeEvent([]).ok, false)
  })
})

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
