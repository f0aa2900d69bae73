import assert from 'node:assert/strict'
import { describe, it, type TestContext } from 'node:test'
import {
  cancelSubscription,
  createCheckout,
  getCheckout,
  getSubscription,
  lemonSqueezySetup,
} from '@lemonsqueezy/lemonsqueezy.js'
import { startLemonSqueezyFake } from './lemonsqueezy.ts'

/**
 * The fake, with the SDK's requests (it always calls https://api.lemonsqueezy.com through the global
 * `fetch`) sent to it for this test only.
 */
async function setup(t: TestContext, apiKey?: string) {
  const fake = await startLemonSqueezyFake()
  t.after(() => fake.close())
  const original = globalThis.fetch
  t.mock.method(globalThis, 'fetch', (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.origin !== 'https://api.lemonsqueezy.com') return original(input, init)
    return original(`${fake.url}${url.pathname}${url.search}`, init)
  })
  lemonSqueezySetup({ apiKey: apiKey ?? fake.apiKey })
  const store = fake.addStore()
  const variant = fake.addVariant({ storeId: store.id })
  return { fake, store, variant }
}

const METADATA = { type: 'sponsor_ad', sponsorAdId: '6f1c2d4e-0000-4000-8000-000000000001', itemSlug: 'acme' }

describe('LemonSqueezy fake, through the official SDK', () => {
  it('creates a checkout the SDK reads, and keeps what it received', async (t) => {
    const { fake, store, variant } = await setup(t)

    const answer = await createCheckout(store.id, variant.id, {
      checkoutData: { email: 'ada@example.com', custom: METADATA },
      productOptions: { redirectUrl: 'https://dir.example/sponsor/success' },
    })

    assert.equal(answer.error, null)
    assert.equal(answer.statusCode, 201)
    const checkout = answer.data?.data
    assert.match(checkout?.id ?? '', /^[0-9a-f-]{36}$/)
    assert.match(
      checkout?.attributes.url ?? '',
      /^https:\/\/store-\d+\.lemonsqueezy\.com\/checkout\/custom\//,
    )
    assert.equal(checkout?.attributes.store_id, Number(store.id))
    assert.equal(checkout?.attributes.variant_id, Number(variant.id))
    assert.equal(checkout?.attributes.product_options.redirect_url, 'https://dir.example/sponsor/success')
    const [received] = fake.checkouts
    assert.equal(received?.email, 'ada@example.com')
    assert.equal(received?.redirectUrl, 'https://dir.example/sponsor/success')
    // The SDK turns every key of a plain object into snake_case, custom data included.
    assert.deepEqual(received?.custom, {
      type: 'sponsor_ad',
      sponsor_ad_id: METADATA.sponsorAdId,
      item_slug: 'acme',
    })
    const [request] = fake.requests
    assert.equal(request?.contentType, 'application/vnd.api+json')
    assert.equal(request?.authorization, `Bearer ${fake.apiKey}`)

    const again = await getCheckout(checkout!.id)
    assert.equal(again.data?.data.attributes.url, checkout?.attributes.url)
  })

  it('refuses a variant of another store and a bad email with 422 and a pointer', async (t) => {
    const { fake, store } = await setup(t)
    const otherStore = fake.addStore()
    const otherVariant = fake.addVariant({ storeId: otherStore.id })

    const mismatch = await createCheckout(store.id, otherVariant.id)
    assert.equal(mismatch.statusCode, 422)
    assert.ok(mismatch.error)
    const errors = (mismatch.data as unknown as { errors: { status: string; source: { pointer: string } }[] })
      .errors
    assert.equal(errors[0]?.status, '422')
    assert.equal(errors[0]?.source.pointer, '/data/relationships/variant/data/id')

    const variant = fake.addVariant({ storeId: store.id })
    const badEmail = await createCheckout(store.id, variant.id, { checkoutData: { email: 'not-an-address' } })
    assert.equal(badEmail.statusCode, 422)
    assert.equal(fake.checkouts.length, 0)
  })

  it('refuses a wrong key with 401 Unauthenticated', async (t) => {
    const { fake, store, variant } = await setup(t, 'lmsq-wrong-key')
    const answer = await createCheckout(store.id, variant.id)
    assert.equal(answer.statusCode, 401)
    assert.ok(answer.error)
    assert.deepEqual(answer.data, {
      jsonapi: { version: '1.0' },
      errors: [{ detail: 'Unauthenticated.', status: '401', title: 'Unauthorized' }],
    })
    assert.equal(fake.checkouts.length, 0)
  })

  it('cancels a subscription; a cancelled one answers the same, an unknown one 404', async (t) => {
    const { fake } = await setup(t)
    const subscription = fake.addSubscription({ custom: METADATA })

    const cancelled = await cancelSubscription(subscription.id)
    assert.equal(cancelled.error, null)
    assert.equal(cancelled.data?.data.attributes.status, 'cancelled')
    assert.equal(cancelled.data?.data.attributes.cancelled, true)
    assert.ok(cancelled.data?.data.attributes.ends_at)
    assert.equal(fake.subscriptions.get(subscription.id)?.status, 'cancelled')

    const again = await cancelSubscription(subscription.id)
    assert.equal(again.statusCode, 200)
    assert.equal(again.data?.data.attributes.status, 'cancelled')

    const unknown = await cancelSubscription('999999')
    assert.equal(unknown.statusCode, 404)
    assert.ok(unknown.error)
    assert.equal((await getSubscription(subscription.id)).data?.data.id, subscription.id)
  })

  it('answers an injected status, and holds a request until released', async (t) => {
    const { fake } = await setup(t)
    fake.fail({ method: 'DELETE' }, { status: 500 })
    const failed = await cancelSubscription('1')
    assert.equal(failed.statusCode, 500)
    assert.ok(failed.error)

    // A proxy's HTML page: the SDK cannot read it and reports no status at all.
    fake.fail({ method: 'DELETE' }, { status: 502 })
    const proxy = await cancelSubscription('1')
    assert.equal(proxy.statusCode, null)
    assert.ok(proxy.error instanceof SyntaxError)

    fake.fail({ path: /^\/v1\/subscriptions\// }, { hang: true })
    const pending = cancelSubscription('1')
    await t.waitFor(() => assert.equal(fake.held, 1))
    fake.release()
    assert.equal((await pending).statusCode, 404)
  })
})
