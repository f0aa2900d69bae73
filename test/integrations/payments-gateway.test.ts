import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, it, type TestContext } from 'node:test'
import type { CheckoutRequest } from '../../src/integrations/payments/contract/checkout.ts'
import {
  type CheckoutProvider,
  createPaymentGateways,
  type PaymentGatewaysConfig,
  PaymentNotConfiguredError,
  PaymentProviderError,
} from '../../src/integrations/payments/gateway.ts'
import { startLemonSqueezyFake } from '../fakes/lemonsqueezy.ts'
import { startPolarFake } from '../fakes/polar.ts'
import { startStripeFake } from '../fakes/stripe.ts'

const PROVIDERS: CheckoutProvider[] = ['stripe', 'lemonsqueezy', 'polar']
/** The provider timeout of the tests that wait one out; the others allow a loaded machine's answers. */
const TIMEOUT_MS = 150
const ANSWER_TIMEOUT_MS = 10_000

/** The three fakes, seeded with a weekly and a monthly price each, and settings pointing at them. */
async function setup(t: TestContext, overrides: Partial<PaymentGatewaysConfig> = {}) {
  const [stripe, lemonsqueezy, polar] = await Promise.all([
    startStripeFake(),
    startLemonSqueezyFake(),
    startPolarFake(),
  ])
  t.after(() => Promise.all([stripe.close(), lemonsqueezy.close(), polar.close()]))
  const store = lemonsqueezy.addStore()
  const prices = {
    stripe: {
      weekly: stripe.addPrice({ interval: 'week' }).id,
      monthly: stripe.addPrice({ interval: 'month' }).id,
    },
    lemonsqueezy: {
      weekly: lemonsqueezy.addVariant({ storeId: store.id, name: 'Weekly' }).id,
      monthly: lemonsqueezy.addVariant({ storeId: store.id, name: 'Monthly' }).id,
    },
    polar: {
      weekly: polar.addProduct({ interval: 'week' }).id,
      monthly: polar.addProduct({ interval: 'month' }).id,
    },
  }
  const config: PaymentGatewaysConfig = {
    stripeSecretKey: stripe.apiKey,
    stripeApiUrl: stripe.url,
    lemonsqueezyApiKey: lemonsqueezy.apiKey,
    lemonsqueezyApiUrl: lemonsqueezy.url,
    lemonsqueezyStoreId: store.id,
    polarAccessToken: polar.accessToken,
    polarApiUrl: polar.url,
    stripeSponsorWeeklyPriceId: prices.stripe.weekly,
    stripeSponsorMonthlyPriceId: prices.stripe.monthly,
    lemonsqueezySponsorWeeklyVariantId: prices.lemonsqueezy.weekly,
    lemonsqueezySponsorMonthlyVariantId: prices.lemonsqueezy.monthly,
    polarSponsorWeeklyPriceId: prices.polar.weekly,
    polarSponsorMonthlyPriceId: prices.polar.monthly,
    paymentTimeoutMs: ANSWER_TIMEOUT_MS,
    stripeMaxNetworkRetries: 0,
    ...overrides,
  }
  const fakes = { stripe, lemonsqueezy, polar }
  return { fakes, prices, store, config, gateways: createPaymentGateways(config) }
}

function checkoutRequest(overrides: Partial<CheckoutRequest> = {}): CheckoutRequest {
  return {
    sponsorAdId: randomUUID(),
    itemSlug: 'acme-widgets',
    itemName: 'Acme Widgets',
    interval: 'weekly',
    userId: randomUUID(),
    customerEmail: 'ada@example.com',
    successUrl: 'https://dir.example/sponsor/success?sponsorAdId=1',
    cancelUrl: 'https://dir.example/sponsor/cancel?sponsorAdId=1',
    renewal: false,
    ...overrides,
  }
}

/** The error a call is rejected with, checked to be of `type`. */
async function rejection<T extends Error>(
  call: () => Promise<unknown>,
  type: new (...args: never[]) => T,
): Promise<T> {
  try {
    await call()
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${error}`)
    return error
  }
  assert.fail(`expected ${type.name}`)
}

/** Whichever fake stands in for `provider`, seen through what every fake has. */
function fakeOf(fakes: Awaited<ReturnType<typeof setup>>['fakes'], provider: CheckoutProvider) {
  return fakes[provider] as {
    requests: { method: string; path: string; status: number | null }[]
    fail(
      match: { method?: string; path?: string | RegExp },
      behaviour: { status: number; body?: unknown } | { hang: true },
      times?: number,
    ): void
    release(): void
    readonly held: number
  }
}

describe('payment gateways: checkout', () => {
  for (const interval of ['weekly', 'monthly'] as const) {
    it(`Stripe: a ${interval} subscription session with the exact metadata on session and subscription`, async (t) => {
      const { fakes, prices, gateways } = await setup(t)
      const request = checkoutRequest({ interval })

      const session = await gateways.createCheckout('stripe', request)

      const [checkout] = fakes.stripe.checkouts
      const metadata = { type: 'sponsor_ad', sponsorAdId: request.sponsorAdId, itemSlug: request.itemSlug }
      assert.deepEqual(session, { provider: 'stripe', checkoutId: checkout?.id, checkoutUrl: checkout?.url })
      assert.equal(checkout?.mode, 'subscription')
      assert.deepEqual(checkout?.lineItems, [{ price: prices.stripe[interval], quantity: 1 }])
      assert.deepEqual(checkout?.metadata, metadata)
      assert.deepEqual(checkout?.subscriptionMetadata, metadata)
      assert.equal(checkout?.successUrl, request.successUrl)
      assert.equal(checkout?.cancelUrl, request.cancelUrl)
      assert.equal(checkout?.customerEmail, request.customerEmail)
      assert.equal(checkout?.clientReferenceId, request.sponsorAdId)
    })

    it(`LemonSqueezy: a ${interval} checkout of the store with the exact custom data`, async (t) => {
      const { fakes, prices, store, gateways } = await setup(t)
      const request = checkoutRequest({ interval })

      const session = await gateways.createCheckout('lemonsqueezy', request)

      const [checkout] = fakes.lemonsqueezy.checkouts
      assert.deepEqual(session, {
        provider: 'lemonsqueezy',
        checkoutId: checkout?.id,
        checkoutUrl: checkout?.checkout.data.attributes.url,
      })
      assert.equal(checkout?.storeId, store.id)
      assert.equal(checkout?.variantId, prices.lemonsqueezy[interval])
      // camelCase as CONTRACT.md names it, not the SDK's snake_case rewrite.
      assert.deepEqual(checkout?.custom, {
        type: 'sponsor_ad',
        sponsorAdId: request.sponsorAdId,
        itemSlug: request.itemSlug,
      })
      assert.equal(checkout?.email, request.customerEmail)
      assert.equal(checkout?.redirectUrl, request.successUrl)
    })

    it(`Polar: a ${interval} checkout of the interval's product with the exact metadata`, async (t) => {
      const { fakes, prices, gateways } = await setup(t)
      const request = checkoutRequest({ interval })

      const session = await gateways.createCheckout('polar', request)

      const [checkout] = fakes.polar.checkouts
      assert.deepEqual(session, {
        provider: 'polar',
        checkoutId: checkout?.id,
        checkoutUrl: checkout?.checkout.url,
      })
      assert.deepEqual(checkout?.products, [prices.polar[interval]])
      assert.deepEqual(checkout?.metadata, {
        type: 'sponsor_ad',
        sponsorAdId: request.sponsorAdId,
        itemSlug: request.itemSlug,
      })
      assert.equal(checkout?.successUrl, request.successUrl)
      assert.equal(checkout?.returnUrl, request.cancelUrl)
      assert.equal(checkout?.customerEmail, request.customerEmail)
      assert.equal(checkout?.externalCustomerId, request.userId)
    })
  }

  it('a renewal carries the same metadata as a first checkout', async (t) => {
    const { fakes, gateways } = await setup(t)
    const request = checkoutRequest({ renewal: true })
    for (const provider of PROVIDERS) await gateways.createCheckout(provider, request)
    const metadata = { type: 'sponsor_ad', sponsorAdId: request.sponsorAdId, itemSlug: request.itemSlug }
    assert.deepEqual(fakes.stripe.checkouts[0]?.metadata, metadata)
    assert.deepEqual(fakes.lemonsqueezy.checkouts[0]?.custom, metadata)
    assert.deepEqual(fakes.polar.checkouts[0]?.metadata, metadata)
  })
})

describe('payment gateways: settings', () => {
  it('a missing price id is PaymentNotConfiguredError naming the setting, and nothing is sent', async (t) => {
    const { fakes, gateways } = await setup(t, {
      stripeSponsorMonthlyPriceId: undefined,
      lemonsqueezySponsorWeeklyVariantId: undefined,
      polarSponsorMonthlyPriceId: undefined,
    })
    const cases = [
      ['stripe', 'monthly', 'STRIPE_SPONSOR_MONTHLY_PRICE_ID is not set'],
      ['lemonsqueezy', 'weekly', 'LEMONSQUEEZY_SPONSOR_WEEKLY_VARIANT_ID is not set'],
      ['polar', 'monthly', 'POLAR_SPONSOR_MONTHLY_PRICE_ID is not set'],
    ] as const
    for (const [provider, interval, message] of cases) {
      const error = await rejection(
        () => gateways.createCheckout(provider, checkoutRequest({ interval })),
        PaymentNotConfiguredError,
      )
      assert.equal(error.message, message)
      assert.equal(gateways.configured(provider), true, 'credentials are set; only a price is missing')
    }
    for (const provider of PROVIDERS) assert.equal(fakeOf(fakes, provider).requests.length, 0)
  })

  it('missing credentials are PaymentNotConfiguredError naming each, and configured() says so', async (t) => {
    const { gateways } = await setup(t, {
      stripeSecretKey: undefined,
      lemonsqueezyApiKey: undefined,
      lemonsqueezyStoreId: undefined,
      polarAccessToken: undefined,
    })
    const expected = {
      stripe: 'STRIPE_SECRET_KEY is not set',
      lemonsqueezy: 'LEMONSQUEEZY_API_KEY and LEMONSQUEEZY_STORE_ID are not set',
      polar: 'POLAR_ACCESS_TOKEN is not set',
    }
    for (const provider of PROVIDERS) {
      assert.equal(gateways.configured(provider), false)
      const checkout = await rejection(
        () => gateways.createCheckout(provider, checkoutRequest()),
        PaymentNotConfiguredError,
      )
      assert.equal(checkout.message, expected[provider])
      const cancel = await rejection(
        () => gateways.cancelSubscription(provider, '1'),
        PaymentNotConfiguredError,
      )
      assert.equal(cancel.message, expected[provider])
    }
  })

  it('LemonSqueezy needs its store id too, and takes its ids only as numbers', async (t) => {
    const noStore = (await setup(t, { lemonsqueezyStoreId: undefined })).gateways
    assert.equal(noStore.configured('lemonsqueezy'), false)
    const missing = await rejection(
      () => noStore.createCheckout('lemonsqueezy', checkoutRequest()),
      PaymentNotConfiguredError,
    )
    assert.equal(missing.message, 'LEMONSQUEEZY_STORE_ID is not set')

    const { fakes, gateways } = await setup(t, { lemonsqueezySponsorWeeklyVariantId: 'pro-weekly' })
    const malformed = await rejection(
      () => gateways.createCheckout('lemonsqueezy', checkoutRequest()),
      PaymentNotConfiguredError,
    )
    assert.match(malformed.message, /^LEMONSQUEEZY_SPONSOR_WEEKLY_VARIANT_ID must be a number/)
    assert.equal(fakes.lemonsqueezy.requests.length, 0)
  })
})

describe('payment gateways: provider failures', () => {
  for (const provider of PROVIDERS) {
    it(`${provider}: 500, 502 (a proxy's page) and 429 may pass (retry), 400 may not`, async (t) => {
      const { fakes, gateways } = await setup(t)
      const fake = fakeOf(fakes, provider)
      for (const [status, retry] of [
        [500, true],
        [502, true],
        [429, true],
        [400, false],
      ] as const) {
        fake.fail({ method: 'POST' }, { status })
        const error = await rejection(
          () => gateways.createCheckout(provider, checkoutRequest()),
          PaymentProviderError,
        )
        assert.equal(error.provider, provider)
        // Stripe's SDK keeps no status for an answer that is not JSON: no usable answer, as a timeout.
        assert.equal(error.status, provider === 'stripe' && status === 502 ? null : status)
        assert.equal(error.retry, retry, `${provider} ${status}`)
      }
    })

    it(`${provider}: a refused key is 401 without retry, and the message never carries a key`, async (t) => {
      const wrongKey = `${provider}-wrong-key-0123456789abcdef`
      const { gateways } = await setup(t, {
        stripeSecretKey: wrongKey,
        lemonsqueezyApiKey: wrongKey,
        polarAccessToken: wrongKey,
      })
      const error = await rejection(
        () => gateways.createCheckout(provider, checkoutRequest()),
        PaymentProviderError,
      )
      assert.equal(error.status, 401)
      assert.equal(error.retry, false)
      assert.ok(!error.message.includes(wrongKey), error.message)
    })

    it(`${provider}: an answer that never comes is a timeout that may pass`, async (t) => {
      const { fakes, gateways } = await setup(t, { paymentTimeoutMs: TIMEOUT_MS })
      const fake = fakeOf(fakes, provider)
      fake.fail({ method: 'POST' }, { hang: true })
      const error = await rejection(
        () => gateways.createCheckout(provider, checkoutRequest()),
        PaymentProviderError,
      )
      assert.equal(error.status, null)
      assert.equal(error.retry, true)
      assert.match(error.message, new RegExp(`did not answer within ${TIMEOUT_MS} ms`))
      assert.equal(fake.held, 1)
      fake.release()
    })
  }

  it('a provider that cannot be reached is a failure that may pass', async (t) => {
    const { port } = await new Promise<AddressInfo>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address() as AddressInfo
        server.close(() => resolve(address))
      })
    })
    const closed = `http://127.0.0.1:${port}`
    const { gateways } = await setup(t, {
      stripeApiUrl: closed,
      lemonsqueezyApiUrl: closed,
      polarApiUrl: closed,
    })
    for (const provider of PROVIDERS) {
      const error = await rejection(
        () => gateways.createCheckout(provider, checkoutRequest()),
        PaymentProviderError,
      )
      assert.equal(error.status, null)
      assert.equal(error.retry, true)
    }
  })

  it('a key the provider echoes in its reason is taken out of the message', async (t) => {
    const { fakes, config, gateways } = await setup(t)
    fakes.stripe.fail(
      { method: 'POST' },
      {
        status: 400,
        body: { error: { type: 'invalid_request_error', message: `Bad key ${config.stripeSecretKey}` } },
      },
    )
    const error = await rejection(
      () => gateways.createCheckout('stripe', checkoutRequest()),
      PaymentProviderError,
    )
    assert.ok(!error.message.includes(config.stripeSecretKey!))
    assert.match(error.message, /\[redacted\]/)
  })
})

describe('payment gateways: cancelling a subscription', () => {
  it('cancels at each provider through its subscription path', async (t) => {
    const { fakes, gateways } = await setup(t)
    const stripe = fakes.stripe.addSubscription()
    const lemonsqueezy = fakes.lemonsqueezy.addSubscription()
    const polar = fakes.polar.addSubscription()

    await gateways.cancelSubscription('stripe', stripe.id)
    await gateways.cancelSubscription('lemonsqueezy', lemonsqueezy.id)
    await gateways.cancelSubscription('polar', polar.id)

    assert.equal(fakes.stripe.subscriptions.get(stripe.id)?.status, 'canceled')
    assert.equal(fakes.lemonsqueezy.subscriptions.get(lemonsqueezy.id)?.status, 'cancelled')
    assert.equal(fakes.polar.subscriptions.get(polar.id)?.status, 'canceled')
    const calls = (provider: CheckoutProvider) =>
      fakeOf(fakes, provider).requests.map((request) => `${request.method} ${request.path} ${request.status}`)
    assert.deepEqual(calls('stripe'), [`DELETE /v1/subscriptions/${stripe.id} 200`])
    assert.deepEqual(calls('lemonsqueezy'), [`DELETE /v1/subscriptions/${lemonsqueezy.id} 200`])
    assert.deepEqual(calls('polar'), [`DELETE /v1/subscriptions/${polar.id} 200`])
  })

  it('an unknown or already cancelled subscription counts as done', async (t) => {
    const { fakes, gateways } = await setup(t)
    await gateways.cancelSubscription('stripe', 'sub_unknown')
    await gateways.cancelSubscription('stripe', fakes.stripe.addSubscription({ status: 'canceled' }).id)
    await gateways.cancelSubscription('lemonsqueezy', '424242')
    await gateways.cancelSubscription(
      'lemonsqueezy',
      fakes.lemonsqueezy.addSubscription({ status: 'cancelled' }).id,
    )
    await gateways.cancelSubscription('polar', randomUUID())
    await gateways.cancelSubscription('polar', fakes.polar.addSubscription({ status: 'canceled' }).id)
    assert.deepEqual(
      fakes.stripe.requests.map((request) => request.status),
      [404, 404],
    )
    assert.deepEqual(
      fakes.polar.requests.map((request) => request.status),
      [404, 403],
    )
  })

  it("a 404 that is not the provider's own answer is not taken as done", async (t) => {
    const { fakes, gateways } = await setup(t)
    for (const provider of PROVIDERS) {
      fakeOf(fakes, provider).fail({ method: 'DELETE' }, { status: 404, body: '<html>Not Found</html>' })
    }
    const ids = { stripe: 'sub_1', lemonsqueezy: '1', polar: randomUUID() }
    for (const provider of PROVIDERS) {
      await rejection(() => gateways.cancelSubscription(provider, ids[provider]), PaymentProviderError)
    }
  })

  it('a failure to cancel says whether it may pass', async (t) => {
    const { fakes, gateways } = await setup(t, { paymentTimeoutMs: TIMEOUT_MS })
    fakes.polar.fail({ method: 'DELETE' }, { status: 503 })
    const unavailable = await rejection(
      () => gateways.cancelSubscription('polar', randomUUID()),
      PaymentProviderError,
    )
    assert.deepEqual([unavailable.status, unavailable.retry], [503, true])
    fakes.lemonsqueezy.fail({ method: 'DELETE' }, { hang: true })
    const held = await rejection(() => gateways.cancelSubscription('lemonsqueezy', '1'), PaymentProviderError)
    assert.deepEqual([held.status, held.retry], [null, true])
    fakes.lemonsqueezy.release()
  })

  it('an empty subscription id is refused before any request', async (t) => {
    const { fakes, gateways } = await setup(t)
    for (const provider of PROVIDERS)
      await rejection(() => gateways.cancelSubscription(provider, ' '), TypeError)
    for (const provider of PROVIDERS) assert.equal(fakeOf(fakes, provider).requests.length, 0)
  })
})

describe("payment gateways: LemonSqueezy's base URL", () => {
  it('does not touch a plain fetch made at the same time, to another origin or to LemonSqueezy itself', async (t) => {
    const { fakes, gateways } = await setup(t)
    const other = createServer((req, res) => res.end(`other ${req.url}`))
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    t.after(() => new Promise<void>((resolve) => other.close(() => resolve())))
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`

    fakes.lemonsqueezy.fail({ method: 'POST' }, { hang: true })
    const checkout = gateways.createCheckout('lemonsqueezy', checkoutRequest())
    await t.waitFor(() => assert.equal(fakes.lemonsqueezy.held, 1))

    // While the SDK's request is in flight: another origin gets its request as sent.
    const plain = await fetch(`${otherUrl}/plain?x=1`)
    assert.equal(await plain.text(), 'other /plain?x=1')
    // And LemonSqueezy's own origin, outside the SDK's call, is not rerouted: what the previous fetch
    // (here a stand-in, so nothing leaves the machine) receives is the URL as given.
    const seen: string[] = []
    const underneath = globalThis.fetch
    t.mock.method(globalThis, 'fetch', (input: string | URL | Request, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input)
      if (url.startsWith('https://api.lemonsqueezy.com')) {
        seen.push(url)
        return Promise.resolve(new Response('not sent'))
      }
      return underneath(input, init)
    })
    const direct = await fetch('https://api.lemonsqueezy.com/v1/users/me')
    assert.equal(await direct.text(), 'not sent')
    assert.deepEqual(seen, ['https://api.lemonsqueezy.com/v1/users/me'])

    fakes.lemonsqueezy.release()
    assert.equal((await checkout).checkoutId, fakes.lemonsqueezy.checkouts[0]?.id)
    assert.equal(fakes.lemonsqueezy.requests.length, 1, 'the fake saw only the SDK request')
  })

  it('keeps concurrent calls of gateways with different settings apart', async (t) => {
    const first = await setup(t)
    const second = await setup(t)
    const [a, b] = await Promise.all([
      first.gateways.createCheckout('lemonsqueezy', checkoutRequest({ itemSlug: 'first' })),
      second.gateways.createCheckout('lemonsqueezy', checkoutRequest({ itemSlug: 'second' })),
    ])
    assert.equal(first.fakes.lemonsqueezy.checkouts[0]?.id, a.checkoutId)
    assert.equal(second.fakes.lemonsqueezy.checkouts[0]?.id, b.checkoutId)
    assert.equal((first.fakes.lemonsqueezy.checkouts[0]?.custom as { itemSlug?: string })?.itemSlug, 'first')
    assert.equal(
      (second.fakes.lemonsqueezy.checkouts[0]?.custom as { itemSlug?: string })?.itemSlug,
      'second',
    )
  })

  it('routes again when the global fetch was replaced after it', async (t) => {
    const { fakes, gateways } = await setup(t)
    await gateways.createCheckout('lemonsqueezy', checkoutRequest())
    const original = globalThis.fetch
    t.mock.method(globalThis, 'fetch', (input: string | URL | Request, init?: RequestInit) =>
      original(input, init),
    )
    await gateways.createCheckout('lemonsqueezy', checkoutRequest())
    assert.equal(fakes.lemonsqueezy.checkouts.length, 2)
  })
})
