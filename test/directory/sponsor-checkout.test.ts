/**
 * The whole life of a sponsor ad through each checkout provider's local stand-in: submit, checkout (the
 * official SDK against the stand-in), the provider's signed webhook, approval, expiry, renewal, and a cancel
 * that cancels the provider's subscription through the retried job.
 */
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { SPONSOR_EXPIRY_JOB } from '../../src/directory/sponsor-ads/closing.ts'
import { type LemonSqueezyFake, startLemonSqueezyFake } from '../fakes/lemonsqueezy.ts'
import { type PolarFake, startPolarFake } from '../fakes/polar.ts'
import { type StripeFake, startStripeFake } from '../fakes/stripe.ts'
import {
  APP_ORIGIN,
  type DirectoryHarness,
  type SiteMethod,
  signUp,
  siteRequest,
  startDirectory,
  until,
} from '../helpers/apps.ts'

const DAY = 24 * 60 * 60 * 1000
const SECRETS = {
  stripe: 'whsec_checkout_test',
  lemonsqueezy: 'lemon-checkout-secret',
  polar: `whsec_${Buffer.from('polar-checkout-key-0123456789').toString('base64')}`,
}

let stripe: StripeFake
let lemonsqueezy: LemonSqueezyFake
let polar: PolarFake
let settings: Record<string, string>

before(async () => {
  ;[stripe, lemonsqueezy, polar] = await Promise.all([
    startStripeFake(),
    startLemonSqueezyFake(),
    startPolarFake(),
  ])
  const store = lemonsqueezy.addStore()
  settings = {
    STRIPE_SECRET_KEY: stripe.apiKey,
    STRIPE_API_URL: stripe.url,
    STRIPE_WEBHOOK_SECRET: SECRETS.stripe,
    STRIPE_SPONSOR_WEEKLY_PRICE_ID: stripe.addPrice({ interval: 'week' }).id,
    STRIPE_SPONSOR_MONTHLY_PRICE_ID: stripe.addPrice({ interval: 'month' }).id,
    LEMONSQUEEZY_API_KEY: lemonsqueezy.apiKey,
    LEMONSQUEEZY_API_URL: lemonsqueezy.url,
    LEMONSQUEEZY_STORE_ID: store.id,
    LEMONSQUEEZY_WEBHOOK_SECRET: SECRETS.lemonsqueezy,
    LEMONSQUEEZY_SPONSOR_WEEKLY_VARIANT_ID: lemonsqueezy.addVariant({ storeId: store.id, name: 'Weekly' }).id,
    LEMONSQUEEZY_SPONSOR_MONTHLY_VARIANT_ID: lemonsqueezy.addVariant({ storeId: store.id, name: 'Monthly' })
      .id,
    POLAR_ACCESS_TOKEN: polar.accessToken,
    POLAR_API_URL: polar.url,
    POLAR_WEBHOOK_SECRET: SECRETS.polar,
    POLAR_SPONSOR_WEEKLY_PRICE_ID: polar.addProduct({ interval: 'week' }).id,
    POLAR_SPONSOR_MONTHLY_PRICE_ID: polar.addProduct({ interval: 'month' }).id,
    SUBSCRIPTION_CANCEL_RETRY_SECONDS: '1',
  }
})
after(() => Promise.all([stripe?.close(), lemonsqueezy?.close(), polar?.close()]))

type Provider = 'stripe' | 'lemonsqueezy' | 'polar'
type Metadata = { type: 'sponsor_ad'; sponsorAdId: string; itemSlug: string }

interface Ad {
  id: string
  status: string
  itemSlug: string
  startDate: string | null
  endDate: string | null
}

function harnessFor(provider: Provider, env: Record<string, string | undefined> = {}) {
  return startDirectory({ env: { ...settings, PAYMENT_PROVIDER: provider, ...env } })
}

/** What each provider sends when the buyer has paid a checkout's first period, signed its way. */
const firstPayment: Record<
  Provider,
  (
    h: DirectoryHarness,
    metadata: Metadata,
    subscriptionId: string,
  ) => { payload: string; headers: Record<string, string> }[]
> = {
  stripe: (h, metadata, subscriptionId) => {
    const payload = JSON.stringify({
      id: `evt_${subscriptionId}`,
      object: 'event',
      type: 'checkout.session.completed',
      data: {
        object: {
          object: 'checkout.session',
          id: `cs_${subscriptionId}`,
          mode: 'subscription',
          payment_status: 'paid',
          subscription: subscriptionId,
          customer: 'cus_fake',
          amount_total: 10000,
          currency: 'usd',
          metadata,
        },
      },
    })
    const timestamp = Math.floor(h.clock.now().getTime() / 1000)
    return [
      {
        payload,
        headers: {
          'stripe-signature': Stripe.webhooks.generateTestHeaderString({
            payload,
            secret: SECRETS.stripe,
            timestamp,
          }),
        },
      },
    ]
  },
  lemonsqueezy: (_h, metadata, subscriptionId) => {
    const orderId = `9${subscriptionId}`
    const events = [
      {
        meta: { event_name: 'order_created', custom_data: metadata },
        data: { type: 'orders', id: orderId, attributes: { status: 'paid', total: 10000, currency: 'USD' } },
      },
      {
        meta: { event_name: 'subscription_created', custom_data: metadata },
        data: {
          type: 'subscriptions',
          id: subscriptionId,
          attributes: { status: 'active', order_id: Number(orderId), variant_id: 1, customer_id: 7 },
        },
      },
    ]
    return events.map((event) => {
      const payload = JSON.stringify(event)
      return {
        payload,
        headers: { 'x-signature': createHmac('sha256', SECRETS.lemonsqueezy).update(payload).digest('hex') },
      }
    })
  },
  polar: (h, metadata, subscriptionId) => {
    const payload = JSON.stringify({
      type: 'order.paid',
      data: {
        id: `ord_${subscriptionId}`,
        billing_reason: 'subscription_create',
        subscription_id: subscriptionId,
        metadata,
        total_amount: 10000,
        currency: 'usd',
      },
    })
    const id = `msg_${subscriptionId}`
    const at = h.clock.now()
    return [
      {
        payload,
        headers: {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(SECRETS.polar).sign(id, at, payload),
        },
      },
    ]
  },
}

/** What the provider's stand-in received as the checkout's metadata, and the subscription the buyer got. */
const providers: Record<
  Provider,
  {
    lastMetadata(): unknown
    subscribe(metadata: Metadata): string
    cancelled(id: string): boolean
    failCancel(): void
  }
> = {
  stripe: {
    lastMetadata: () => {
      const checkout = stripe.checkouts.at(-1)
      assert.deepEqual(checkout?.subscriptionMetadata, checkout?.metadata)
      return checkout?.metadata
    },
    subscribe: (metadata) => stripe.addSubscription({ metadata }).id,
    cancelled: (id) => stripe.subscriptions.get(id)?.status === 'canceled',
    failCancel: () => stripe.fail({ method: 'DELETE', path: /^\/v1\/subscriptions\// }, { status: 503 }),
  },
  lemonsqueezy: {
    lastMetadata: () => lemonsqueezy.checkouts.at(-1)?.custom,
    subscribe: (metadata) => lemonsqueezy.addSubscription({ custom: metadata }).id,
    cancelled: (id) => lemonsqueezy.subscriptions.get(id)?.cancelled === true,
    failCancel: () =>
      lemonsqueezy.fail({ method: 'DELETE', path: /^\/v1\/subscriptions\// }, { status: 503 }),
  },
  polar: {
    lastMetadata: () => polar.checkouts.at(-1)?.metadata,
    subscribe: (metadata) => polar.addSubscription({ metadata }).id,
    cancelled: (id) => polar.subscriptions.get(id)?.status === 'canceled',
    failCancel: () => polar.fail({ method: 'DELETE', path: /^\/v1\/subscriptions\// }, { status: 503 }),
  },
}

for (const provider of ['stripe', 'lemonsqueezy', 'polar'] as const) {
  describe(`the life of a sponsor ad paid through ${provider}`, () => {
    let h: DirectoryHarness
    let admin: string
    before(async () => {
      h = await harnessFor(provider)
      admin = await h.adminCookie()
    })
    after(() => h?.close())

    const request = async (method: SiteMethod, url: string, cookie: string | null, payload?: unknown) =>
      siteRequest(h, method, url, { cookie, payload })
    const ok = async (method: SiteMethod, url: string, cookie: string | null, payload?: unknown) => {
      const res = await request(method, url, cookie, payload)
      assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`)
      return res.json()
    }
    const pay = async (metadata: Metadata) => {
      const subscriptionId = providers[provider].subscribe(metadata)
      for (const delivery of firstPayment[provider](h, metadata, subscriptionId)) {
        const res = await h.app.inject({
          method: 'POST',
          url: `/api/${provider}/webhook`,
          payload: delivery.payload,
          headers: { 'content-type': 'application/json', ...delivery.headers },
        })
        assert.deepEqual([res.statusCode, res.json()], [200, { received: true }])
      }
      return subscriptionId
    }

    it('submit, pay, approve, expire, renew and cancel', async () => {
      const ada = await signUp(h)
      const ad: Ad = (
        await ok('POST', '/api/sponsor-ads/user', ada, {
          itemSlug: `paid-${provider}`,
          itemName: 'Paid Coffee',
          interval: 'weekly',
        })
      ).data
      const metadata: Metadata = { type: 'sponsor_ad', sponsorAdId: ad.id, itemSlug: ad.itemSlug }

      const checkout = await ok('POST', '/api/sponsor-ads/checkout', ada, {
        sponsorAdId: ad.id,
        successUrl: `${APP_ORIGIN}/sponsor/thanks`,
      })
      assert.equal(checkout.data.provider, provider)
      assert.match(checkout.data.checkoutUrl, /^https?:\/\//)
      assert.ok(checkout.data.checkoutId)
      assert.deepEqual(providers[provider].lastMetadata(), metadata)

      const first = await pay(metadata)
      assert.equal((await ok('GET', `/api/sponsor-ads/user/${ad.id}`, ada)).data.status, 'pending')
      // Paid: a second checkout is refused.
      const again = await request('POST', '/api/sponsor-ads/checkout', ada, { sponsorAdId: ad.id })
      assert.equal(again.statusCode, 400)
      assert.equal(again.json().code, 'SPONSOR_AD_INVALID_TRANSITION')

      const approved = await ok('POST', `/api/admin/sponsor-ads/${ad.id}/approve`, admin, {})
      assert.equal(new Date(approved.data.endDate).getTime(), h.clock.now().getTime() + 7 * DAY)
      const shelf = await ok('GET', '/api/sponsor-ads', null)
      assert.ok(shelf.data.some((e: { sponsor: { id: string } }) => e.sponsor.id === ad.id))

      h.clock.advance(8 * DAY)
      await h.jobs.send(SPONSOR_EXPIRY_JOB, {})
      await until(
        async () => (await ok('GET', `/api/sponsor-ads/user/${ad.id}`, ada)).data.status === 'expired',
        'the ad expired',
      )

      // The old subscription ended; a renewal buys a new one.
      const renewal = await ok('POST', `/api/sponsor-ads/user/${ad.id}/renew`, ada, {})
      assert.equal(renewal.data.provider, provider)
      assert.deepEqual(providers[provider].lastMetadata(), metadata)
      assert.equal((await ok('GET', `/api/sponsor-ads/user/${ad.id}`, ada)).data.status, 'expired')
      const second = await pay(metadata)
      const renewed: Ad = (await ok('GET', `/api/sponsor-ads/user/${ad.id}`, ada)).data
      assert.equal(renewed.status, 'active')
      assert.equal(new Date(renewed.endDate as string).getTime(), h.clock.now().getTime() + 7 * DAY)

      // The cancel reaches the provider through the job, which tries again after the provider fails.
      providers[provider].failCancel()
      const cancelled = await ok('POST', `/api/sponsor-ads/user/${ad.id}/cancel`, ada, {
        cancelReason: 'Closing for winter',
      })
      assert.equal(cancelled.data.status, 'cancelled')
      assert.equal(cancelled.data.cancelReason, 'Closing for winter')
      await until(async () => providers[provider].cancelled(second), 'the provider subscription is cancelled')
      assert.equal(providers[provider].cancelled(first), false)
      const renew = await request('POST', `/api/sponsor-ads/user/${ad.id}/renew`, ada, {})
      assert.equal(renew.statusCode, 400)
      assert.equal(renew.json().code, 'SPONSOR_AD_INVALID_TRANSITION')
    })

    it('cancels the provider subscription of a running ad when its account is deleted', async () => {
      const registered = await request('POST', '/api/auth/register', null, {
        email: `leaving-${provider}-${Math.random().toString(36).slice(2, 8)}@example.com`,
        password: 'a good password',
        name: 'Leaving Sponsor',
      })
      assert.equal(registered.statusCode, 201, registered.body)
      const cookie = String(registered.headers['set-cookie']).split(';')[0] as string
      const userId = registered.json().user.id as string
      const ad: Ad = (
        await ok('POST', '/api/sponsor-ads/user', cookie, {
          itemSlug: `leaving-${provider}`,
          itemName: 'L',
          interval: 'monthly',
        })
      ).data
      const subscription = await pay({ type: 'sponsor_ad', sponsorAdId: ad.id, itemSlug: ad.itemSlug })
      await ok('POST', `/api/admin/sponsor-ads/${ad.id}/approve`, admin, {})
      await ok('DELETE', `/api/admin/users/${userId}`, admin)
      await until(
        async () => providers[provider].cancelled(subscription),
        'the provider subscription is cancelled',
      )
      assert.equal((await request('GET', `/api/admin/sponsor-ads/${ad.id}`, admin)).statusCode, 404)
    })

    it('refuses redirect URLs to other hosts, naming each field', async () => {
      const ada = await signUp(h)
      const ad: Ad = (
        await ok('POST', '/api/sponsor-ads/user', ada, {
          itemSlug: `redirect-${provider}`,
          itemName: 'R',
          interval: 'monthly',
        })
      ).data
      const res = await request('POST', '/api/sponsor-ads/checkout', ada, {
        sponsorAdId: ad.id,
        successUrl: 'https://evil.example/thanks',
        cancelUrl: `${APP_ORIGIN}.evil.example/back`,
      })
      assert.equal(res.statusCode, 400)
      assert.deepEqual(
        res.json().details.map((d: { field: string }) => d.field),
        ['body.successUrl', 'body.cancelUrl'],
      )
    })
  })
}

describe('checkout failures', () => {
  it('answers 400 PAYMENT_NOT_CONFIGURED without the interval’s price, and 500 with a safe message when the provider fails', async () => {
    const h = await harnessFor('polar', { POLAR_SPONSOR_MONTHLY_PRICE_ID: undefined })
    try {
      const ada = await signUp(h)
      const create = async (interval: string) =>
        (
          await siteRequest(h, 'POST', '/api/sponsor-ads/user', {
            cookie: ada,
            payload: { itemSlug: `failing-${interval}`, itemName: 'F', interval },
          })
        ).json().data as Ad
      const monthly = await create('monthly')
      const missing = await siteRequest(h, 'POST', '/api/sponsor-ads/checkout', {
        cookie: ada,
        payload: { sponsorAdId: monthly.id },
      })
      assert.equal(missing.statusCode, 400)
      assert.equal(missing.json().code, 'PAYMENT_NOT_CONFIGURED')
      assert.doesNotMatch(missing.body, new RegExp(polar.accessToken))

      const weekly = await create('weekly')
      polar.fail({ method: 'POST', path: /checkouts/ }, { status: 500, body: { detail: 'internal details' } })
      const failed = await siteRequest(h, 'POST', '/api/sponsor-ads/checkout', {
        cookie: ada,
        payload: { sponsorAdId: weekly.id },
      })
      assert.equal(failed.statusCode, 500)
      assert.equal(failed.json().code, 'PAYMENT_PROVIDER_ERROR')
      assert.doesNotMatch(failed.body, /internal details/)
      // The ad waits for its payment still; another try succeeds.
      const retried = await siteRequest(h, 'POST', '/api/sponsor-ads/checkout', {
        cookie: ada,
        payload: { sponsorAdId: weekly.id },
      })
      assert.equal(retried.statusCode, 200, retried.body)
      // Another user's ad: 403; an unknown one: 404.
      const grace = await signUp(h, 'Grace')
      const foreign = await siteRequest(h, 'POST', '/api/sponsor-ads/checkout', {
        cookie: grace,
        payload: { sponsorAdId: weekly.id },
      })
      assert.equal(foreign.statusCode, 403)
      const unknown = await siteRequest(h, 'POST', '/api/sponsor-ads/checkout', {
        cookie: grace,
        payload: { sponsorAdId: '00000000-0000-4000-8000-000000000000' },
      })
      assert.equal(unknown.statusCode, 404)
    } finally {
      await h.close()
    }
  })
})
