import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, it, type TestContext } from 'node:test'
import { PolarClientError, PolarNetworkError, PolarRateLimitError, PolarServerError } from '@polar-sh/sdk'
import { createPolar, errors } from '@polar-sh/sdk/2026-10'
import { startPolarFake } from './polar.ts'

/**
 * This SDK version (1.x) does not check answers against its models at run time; the fake builds every answer
 * typed with those models, so `tsc` holds it to every field they require.
 */
async function setup(t: TestContext, options: { accessToken?: string; timeout?: number } = {}) {
  const fake = await startPolarFake()
  t.after(() => fake.close())
  const polar = createPolar({
    accessToken: options.accessToken ?? fake.accessToken,
    baseUrl: fake.url,
    ...(options.timeout ? { timeout: options.timeout } : {}),
  })
  return { fake, polar }
}

/** The error a call fails with. */
async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call()
  } catch (error) {
    return error
  }
  assert.fail('expected the call to fail')
}

const METADATA = { type: 'sponsor_ad', sponsorAdId: '6f1c2d4e-0000-4000-8000-000000000001', itemSlug: 'acme' }

describe('Polar fake, through the official SDK', () => {
  it('creates a checkout with every field of the model, and keeps what it received', async (t) => {
    const { fake, polar } = await setup(t)
    const product = fake.addProduct({ interval: 'week', priceAmount: 10_000 })

    const checkout = await polar.checkouts.create({
      products: [product.id],
      success_url: 'https://dir.example/sponsor/success?checkout_id={CHECKOUT_ID}',
      return_url: 'https://dir.example/sponsor/cancel',
      customer_email: 'ada@example.com',
      external_customer_id: 'user-1',
      metadata: METADATA,
    })

    assert.match(checkout.id, /^[0-9a-f-]{36}$/)
    assert.ok(checkout.url.startsWith('https://polar.sh/checkout/polar_c_'))
    assert.equal(checkout.status, 'open')
    assert.equal(checkout.product_id, product.id)
    assert.equal(checkout.product?.recurring_interval, 'week')
    assert.equal(checkout.total_amount, 10_000)
    assert.deepEqual(checkout.metadata, METADATA)
    assert.equal(checkout.external_customer_id, 'user-1')
    const [received] = fake.checkouts
    assert.deepEqual(received?.products, [product.id])
    assert.deepEqual(received?.metadata, METADATA)
    assert.equal(received?.customerEmail, 'ada@example.com')
    assert.equal(received?.returnUrl, 'https://dir.example/sponsor/cancel')
    const [request] = fake.requests
    assert.equal(request?.path, '/v1/checkouts/')
    assert.equal(request?.polarVersion, '2026-10')

    const again = await polar.checkouts.get(checkout.id)
    assert.equal(again.url, checkout.url)
  })

  it('refuses an unknown product and an unknown field with 422', async (t) => {
    const { fake, polar } = await setup(t)
    const unknown = await failure(() => polar.checkouts.create({ products: [randomUUID()] }))
    assert.ok(unknown instanceof errors.HTTPValidationError)
    assert.equal(unknown.statusCode, 422)
    assert.deepEqual(unknown.error.detail?.[0]?.loc, ['body', 'products', 0])

    const product = fake.addProduct()
    const extra = await failure(() =>
      polar.checkouts.create({ products: [product.id], nonsense: true } as Parameters<
        typeof polar.checkouts.create
      >[0]),
    )
    assert.ok(extra instanceof errors.HTTPValidationError)
    assert.equal(extra.error.detail?.[0]?.type, 'extra_forbidden')
    assert.equal(fake.checkouts.length, 0)
  })

  it('refuses a wrong token with 401 Unauthorized', async (t) => {
    const { polar } = await setup(t, { accessToken: 'polar_oat_wrong' })
    const error = await failure(() => polar.subscriptions.revoke(randomUUID()))
    assert.ok(error instanceof PolarClientError)
    assert.equal(error.statusCode, 401)
    assert.deepEqual(JSON.parse(String(error.error)), { error: 'Unauthorized', detail: 'Unauthorized' })
  })

  it('revokes a subscription at once; a revoked one is 403, an unknown one 404, a bad id 422', async (t) => {
    const { fake, polar } = await setup(t)
    const subscription = fake.addSubscription({ metadata: METADATA })

    const revoked = await polar.subscriptions.revoke(subscription.id)
    assert.equal(revoked.status, 'canceled')
    assert.ok(revoked.ended_at)
    assert.deepEqual(revoked.metadata, METADATA)
    assert.equal(fake.subscriptions.get(subscription.id)?.status, 'canceled')

    const again = await failure(() => polar.subscriptions.revoke(subscription.id))
    assert.ok(again instanceof errors.AlreadyCanceledSubscription)
    assert.equal(again.statusCode, 403)
    assert.equal(again.error.error, 'AlreadyCanceledSubscription')

    const unknown = await failure(() => polar.subscriptions.revoke(randomUUID()))
    assert.ok(unknown instanceof errors.ResourceNotFound)
    assert.equal(unknown.statusCode, 404)

    const badId = await failure(() => polar.subscriptions.revoke('sub_1'))
    assert.ok(badId instanceof errors.HTTPValidationError)
  })

  it('answers injected statuses as Polar does, and holds a request until released', async (t) => {
    // Long enough that an answer is never mistaken for the hang on a busy machine (50 ms was not).
    const { fake, polar } = await setup(t, { timeout: 0.5 })
    fake.fail({ method: 'DELETE' }, { status: 500 })
    assert.ok((await failure(() => polar.subscriptions.revoke(randomUUID()))) instanceof PolarServerError)

    fake.fail({ method: 'DELETE' }, { status: 429 })
    const limited = await failure(() => polar.subscriptions.revoke(randomUUID()))
    assert.ok(limited instanceof PolarRateLimitError)
    assert.equal(limited.retryAfter, 1)

    fake.fail({ path: /^\/v1\/subscriptions\// }, { hang: true })
    const held = await failure(() => polar.subscriptions.revoke(randomUUID()))
    assert.ok(held instanceof PolarNetworkError)
    assert.equal(fake.held, 1)
    fake.release()
    assert.equal(fake.held, 0)
  })
})
