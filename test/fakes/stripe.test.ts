import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Stripe from 'stripe'
import { decodeForm, startStripeFake } from './stripe.ts'

async function setup(t: { after: (fn: () => Promise<void>) => void }, options: { timeout?: number } = {}) {
  const fake = await startStripeFake()
  t.after(() => fake.close())
  const { port } = new URL(fake.url)
  const stripe = new Stripe(fake.apiKey, {
    host: '127.0.0.1',
    port,
    protocol: 'http',
    maxNetworkRetries: 0,
    telemetry: false,
    ...(options.timeout ? { timeout: options.timeout } : {}),
  })
  return { fake, stripe }
}

/** The Stripe SDK error a call fails with. */
async function stripeError(call: () => Promise<unknown>) {
  try {
    await call()
  } catch (error) {
    assert.ok(error instanceof Stripe.errors.StripeError, `expected a StripeError, got ${error}`)
    return error
  }
  assert.fail('expected the call to fail')
}

const METADATA = { type: 'sponsor_ad', sponsorAdId: '6f1c2d4e-0000-4000-8000-000000000001', itemSlug: 'acme' }

describe('Stripe fake, through the official SDK', () => {
  it('creates a subscription checkout session and keeps its parameters as received', async (t) => {
    const { fake, stripe } = await setup(t)
    const price = fake.addPrice({ interval: 'week', unitAmount: 10_000 })

    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: 'https://dir.example/sponsor/success',
      cancel_url: 'https://dir.example/sponsor/cancel',
      customer_email: 'ada@example.com',
      client_reference_id: METADATA.sponsorAdId,
      metadata: METADATA,
      subscription_data: { metadata: METADATA },
    })

    assert.match(session.id, /^cs_test_/)
    assert.ok(session.url?.startsWith('https://checkout.stripe.com/c/pay/cs_test_'))
    assert.equal(session.object, 'checkout.session')
    assert.equal(session.status, 'open')
    assert.equal(session.mode, 'subscription')
    assert.deepEqual(session.metadata, METADATA)
    assert.equal(session.amount_total, 10_000)
    const [checkout] = fake.checkouts
    assert.equal(checkout?.id, session.id)
    assert.deepEqual(checkout?.lineItems, [{ price: price.id, quantity: 1 }])
    assert.deepEqual(checkout?.metadata, METADATA)
    assert.deepEqual(checkout?.subscriptionMetadata, METADATA)
    assert.equal(checkout?.customerEmail, 'ada@example.com')
    assert.equal(checkout?.clientReferenceId, METADATA.sponsorAdId)
    const [request] = fake.requests
    assert.equal(request?.authorization, `Bearer ${fake.apiKey}`)
    assert.ok(request?.idempotencyKey, 'the SDK keys every POST')
    assert.ok(request?.stripeVersion)

    const again = await stripe.checkout.sessions.retrieve(session.id)
    assert.equal(again.url, session.url)
  })

  it('refuses an unknown price, a one-time price in subscription mode and an unknown parameter', async (t) => {
    const { fake, stripe } = await setup(t)
    const unknown = await stripeError(() =>
      stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: 'price_nope', quantity: 1 }],
      }),
    )
    assert.ok(unknown instanceof Stripe.errors.StripeInvalidRequestError)
    assert.equal(unknown.statusCode, 400)
    assert.equal(unknown.code, 'resource_missing')
    assert.equal(unknown.param, 'line_items[0][price]')

    const oneTime = fake.addPrice({ interval: null })
    const notRecurring = await stripeError(() =>
      stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: oneTime.id, quantity: 1 }],
      }),
    )
    assert.equal(notRecurring.statusCode, 400)

    const recurring = fake.addPrice()
    const unknownParam = await stripeError(() =>
      stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: recurring.id, quantity: 1 }],
        nonsense: 'x',
      } as Stripe.Checkout.SessionCreateParams),
    )
    assert.equal(unknownParam.code, 'parameter_unknown')
    assert.equal(fake.checkouts.length, 0)
  })

  it('refuses a missing or wrong key with 401', async (t) => {
    const { fake } = await setup(t)
    const { port } = new URL(fake.url)
    const wrong = new Stripe('sk_test_wrong_key_000000000000', {
      host: '127.0.0.1',
      port,
      protocol: 'http',
      maxNetworkRetries: 0,
    })
    const error = await stripeError(() => wrong.subscriptions.cancel('sub_1'))
    assert.ok(error instanceof Stripe.errors.StripeAuthenticationError)
    assert.equal(error.statusCode, 401)
    assert.doesNotMatch(error.message, /sk_test_wrong_key_000000000000/)

    const none = await fetch(`${fake.url}/v1/subscriptions/sub_1`, { method: 'DELETE' })
    assert.equal(none.status, 401)
    const body = (await none.json()) as { error: { type: string; message: string } }
    assert.equal(body.error.type, 'invalid_request_error')
    assert.match(body.error.message, /did not provide an API key/)
  })

  it('cancels a subscription at once; a cancelled or unknown one is 404 resource_missing', async (t) => {
    const { fake, stripe } = await setup(t)
    const subscription = fake.addSubscription({ metadata: METADATA })

    const cancelled = await stripe.subscriptions.cancel(subscription.id)
    assert.equal(cancelled.status, 'canceled')
    assert.ok(cancelled.canceled_at)
    assert.equal(fake.subscriptions.get(subscription.id)?.status, 'canceled')

    for (const id of [subscription.id, 'sub_unknown']) {
      const error = await stripeError(() => stripe.subscriptions.cancel(id))
      assert.equal(error.statusCode, 404)
      assert.equal(error.code, 'resource_missing')
      assert.equal(error.message, `No such subscription: '${id}'`)
    }
    assert.deepEqual(
      fake.requests.map((request) => `${request.method} ${request.path} ${request.status}`),
      [
        `DELETE /v1/subscriptions/${subscription.id} 200`,
        `DELETE /v1/subscriptions/${subscription.id} 404`,
        'DELETE /v1/subscriptions/sub_unknown 404',
      ],
    )
  })

  it('answers an injected status as Stripe words it, and holds a request until released', async (t) => {
    const { fake, stripe } = await setup(t, { timeout: 50 })
    fake.fail({ method: 'DELETE' }, { status: 500 })
    const failed = await stripeError(() => stripe.subscriptions.cancel('sub_1'))
    assert.ok(failed instanceof Stripe.errors.StripeAPIError)
    assert.equal(failed.statusCode, 500)

    fake.fail({ path: /^\/v1\/subscriptions\// }, { hang: true })
    const held = await stripeError(() => stripe.subscriptions.cancel('sub_1'))
    assert.ok(held instanceof Stripe.errors.StripeConnectionError)
    assert.match(held.message, /timeout/)
    assert.equal(fake.held, 1)
    fake.release()
    assert.equal(fake.held, 0)
  })

  it('reads nested form bodies as Stripe does', () => {
    assert.deepEqual(
      decodeForm(
        'mode=subscription&line_items[0][price]=p1&line_items[0][quantity]=1&line_items[1][price]=p2&metadata[a]=1',
      ),
      {
        mode: 'subscription',
        line_items: [{ price: 'p1', quantity: '1' }, { price: 'p2' }],
        metadata: { a: '1' },
      },
    )
  })
})
