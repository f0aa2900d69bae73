import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { normaliseStripeEvent } from '../../../src/integrations/stripe/events.ts'
import { eventOf, SPONSOR } from '../payments/event-cases.ts'

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
