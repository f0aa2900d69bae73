import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { Webhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { PAYMENT_EVENTS_SWEEP_JOB } from '../../src/directory/payments/processing.ts'
import { paymentWebhookEvents } from '../../src/directory/payments/tables.ts'
import { type SmtpFake, startSmtpFake } from '../fakes/smtp.ts'
import {
  type DirectoryHarness,
  type SiteMethod,
  signUp,
  siteRequest,
  startDirectory,
  until,
} from '../helpers/apps.ts'

const SECRETS = {
  stripe: 'whsec_webhooks_test',
  lemonsqueezy: 'lemon-signing-secret',
  // Standard Webhooks' form: whsec_ and the base64 key.
  polar: `whsec_${Buffer.from('polar-signing-key-0123456789abcdef').toString('base64')}`,
  solidgate: 'solidgate-signing-secret',
}

let smtp: SmtpFake
let h: DirectoryHarness
let admin: string

before(async () => {
  smtp = await startSmtpFake()
  h = await startDirectory({
    env: {
      STRIPE_WEBHOOK_SECRET: SECRETS.stripe,
      LEMONSQUEEZY_WEBHOOK_SECRET: SECRETS.lemonsqueezy,
      POLAR_WEBHOOK_SECRET: SECRETS.polar,
      SOLIDGATE_WEBHOOK_SECRET: SECRETS.solidgate,
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Coffee Atlas <no-reply@coffee-atlas.test>',
    },
  })
  admin = await h.adminCookie()
})
after(async () => {
  await h?.close()
  await smtp?.close()
})

async function ok(method: SiteMethod, url: string, cookie: string | null, payload?: unknown) {
  const res = await siteRequest(h, method, url, { cookie, payload })
  assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`)
  return res.json()
}

let counter = 0
const unique = (prefix: string) => `${prefix}_${++counter}_${Math.random().toString(36).slice(2, 8)}`

interface Ad {
  id: string
  status: string
  itemSlug: string
  endDate: string | null
}

async function submit(cookie: string, interval: 'weekly' | 'monthly' = 'monthly'): Promise<Ad> {
  return (
    await ok('POST', '/api/sponsor-ads/user', cookie, {
      itemSlug: unique('item').toLowerCase().replace(/_/g, '-'),
      itemName: 'Webhook Coffee',
      interval,
    })
  ).data
}

const read = async (cookie: string, id: string): Promise<Ad> =>
  (await ok('GET', `/api/sponsor-ads/user/${id}`, cookie)).data

const metadata = (ad: Ad) => ({ type: 'sponsor_ad', sponsorAdId: ad.id, itemSlug: ad.itemSlug })
const now = () => Math.floor(h.clock.now().getTime() / 1000)

type Signed = { payload: string; headers: Record<string, string> }

const sign = {
  stripe(event: object, secret = SECRETS.stripe): Signed {
    const payload = JSON.stringify(event)
    return {
      payload,
      headers: {
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: now() }),
      },
    }
  },
  lemonsqueezy(event: object, secret = SECRETS.lemonsqueezy): Signed {
    const payload = JSON.stringify(event)
    return { payload, headers: { 'x-signature': createHmac('sha256', secret).update(payload).digest('hex') } }
  },
  polar(event: object, secret = SECRETS.polar, id = unique('msg')): Signed {
    const payload = JSON.stringify(event)
    const timestamp = h.clock.now()
    const signature = new Webhook(secret).sign(id, timestamp, payload)
    return {
      payload,
      headers: {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
    }
  },
  solidgate(event: object, secret = SECRETS.solidgate): Signed {
    const payload = JSON.stringify(event)
    return { payload, headers: { 'x-signature': createHmac('sha512', secret).update(payload).digest('hex') } }
  },
}

function post(provider: keyof typeof sign, signed: Signed, app = h.app, address = '198.51.100.20') {
  return app.inject({
    method: 'POST',
    url: `/api/${provider}/webhook`,
    payload: signed.payload,
    headers: { 'content-type': 'application/json', ...signed.headers },
    remoteAddress: address,
  })
}

const stripeCheckout = (ad: Ad, id = unique('evt'), subscription = unique('sub'), amount = 30000) => ({
  id,
  object: 'event',
  type: 'checkout.session.completed',
  data: {
    object: {
      object: 'checkout.session',
      id: unique('cs'),
      mode: 'subscription',
      payment_status: 'paid',
      subscription,
      customer: 'cus_1',
      amount_total: amount,
      currency: 'usd',
      metadata: metadata(ad),
    },
  },
})

describe('each provider’s scheme, through the routes', () => {
  it('LemonSqueezy: a signed order moves the ad; a wrong, truncated or non-hex signature is refused', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada)
    const order = {
      meta: { event_name: 'order_created', custom_data: metadata(ad) },
      data: {
        type: 'orders',
        id: unique('o'),
        attributes: { status: 'paid', total: 30000, currency: 'USD' },
      },
    }
    const good = sign.lemonsqueezy(order)
    for (const signature of [
      sign.lemonsqueezy(order, 'another-secret').headers['x-signature'] as string,
      (good.headers['x-signature'] as string).slice(0, 40),
      'z'.repeat(64),
    ]) {
      const res = await post('lemonsqueezy', { payload: good.payload, headers: { 'x-signature': signature } })
      assert.equal(res.statusCode, 400)
      assert.deepEqual(res.json(), { error: 'Invalid signature' })
    }
    const tampered = await post('lemonsqueezy', {
      payload: good.payload.replace('30000', '1'),
      headers: good.headers,
    })
    assert.equal(tampered.statusCode, 400)
    assert.equal((await read(ada, ad.id)).status, 'pending_payment')
    const res = await post('lemonsqueezy', good)
    assert.deepEqual([res.statusCode, res.json()], [200, { received: true }])
    assert.equal((await read(ada, ad.id)).status, 'pending')
    // LemonSqueezy sends no event id: the same body again is the same event, acknowledged, not applied.
    assert.equal((await post('lemonsqueezy', good)).statusCode, 200)
    const detail = await ok('GET', `/api/admin/sponsor-ads/${ad.id}`, admin)
    assert.equal(detail.data.payments.length, 1)
  })

  it('Polar: Standard Webhooks signatures checked with the timestamp; a replayed id is applied once', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada)
    const subscription = unique('psub')
    const paid = {
      type: 'order.paid',
      data: {
        id: unique('ord'),
        billing_reason: 'subscription_create',
        subscription_id: subscription,
        metadata: metadata(ad),
        total_amount: 30000,
        currency: 'usd',
      },
    }
    const signed = sign.polar(paid)
    const forged = await post(
      'polar',
      sign.polar(paid, `whsec_${Buffer.from('another key').toString('base64')}`),
    )
    assert.equal(forged.statusCode, 400)
    const noTimestamp = { ...signed.headers }
    delete noTimestamp['webhook-timestamp']
    assert.equal((await post('polar', { payload: signed.payload, headers: noTimestamp })).statusCode, 400)
    const stale = sign.polar(paid)
    h.clock.advance(6 * 60 * 1000)
    const late = await post('polar', stale)
    assert.deepEqual(
      [late.statusCode, late.json()],
      [400, { error: 'Signature timestamp outside the tolerance' }],
    )
    const fresh = sign.polar(paid, SECRETS.polar, 'msg_polar_once')
    assert.equal((await post('polar', fresh)).statusCode, 200)
    assert.equal((await post('polar', fresh)).statusCode, 200)
    assert.equal((await read(ada, ad.id)).status, 'pending')
    // subscription.created for the same subscription reports the same first payment: nothing more.
    await post(
      'polar',
      sign.polar({
        type: 'subscription.created',
        data: { id: subscription, status: 'active', metadata: metadata(ad) },
      }),
    )
    const detail = await ok('GET', `/api/admin/sponsor-ads/${ad.id}`, admin)
    assert.equal(detail.data.payments.length, 1)
    assert.equal(detail.data.subscriptions[0].subscriptionId, subscription)
  })

  it('Solidgate: HMAC-SHA512 hex in x-signature or solidgate-signature; the id is the body’s or x-request-id', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada)
    const event = {
      type: 'payment.succeeded',
      data: { order_id: unique('sg'), amount: 30000, currency: 'USD', metadata: metadata(ad) },
    }
    const signed = sign.solidgate(event)
    const sha256 = createHmac('sha256', SECRETS.solidgate).update(signed.payload).digest('hex')
    assert.equal(
      (await post('solidgate', { payload: signed.payload, headers: { 'x-signature': sha256 } })).statusCode,
      400,
    )
    const upper = (signed.headers['x-signature'] as string).toUpperCase()
    // Hex compares as bytes, whatever its case.
    const res = await post('solidgate', {
      payload: signed.payload,
      headers: { 'solidgate-signature': upper, 'x-request-id': 'req-sg-1' },
    })
    assert.equal(res.statusCode, 200)
    assert.equal((await read(ada, ad.id)).status, 'pending')
    const events = await ok('GET', '/api/admin/payments/events?provider=solidgate&limit=100', admin)
    assert.ok(events.data.some((e: { eventId: string }) => e.eventId === 'req-sg-1'))
  })

  it('answers the diagnostic GET, and 400 to a provider whose secret is not set', async () => {
    const diagnostic = await ok('GET', '/api/polar/webhook', null)
    assert.equal(diagnostic.method, 'POST')
    assert.match(diagnostic.instructions, /POLAR_WEBHOOK_SECRET/)
    assert.match(diagnostic.instructions, /order\.paid/)
    const bare = await startDirectory({ databases: h.databases })
    try {
      const res = await post(
        'stripe',
        sign.stripe({ id: 'evt_x', type: 'invoice.paid', data: { object: {} } }),
        bare.app,
      )
      assert.equal(res.statusCode, 400)
      assert.match(res.json().error, /not configured/)
    } finally {
      await bare.close()
    }
  })
})

describe('durability', () => {
  it('applies one event once when two instances receive it at the same time', async () => {
    const second = await startDirectory({
      databases: h.databases,
      env: { STRIPE_WEBHOOK_SECRET: SECRETS.stripe },
      clockStart: h.clock.now(),
    })
    try {
      const ada = await signUp(h)
      const ads = await Promise.all(Array.from({ length: 5 }, () => submit(ada, 'weekly')))
      const answers = await Promise.all(
        ads.flatMap((ad) => {
          const signed = sign.stripe(stripeCheckout(ad))
          return [
            post('stripe', signed, h.app),
            post('stripe', signed, second.app),
            post('stripe', signed, second.app),
          ]
        }),
      )
      assert.deepEqual(
        answers.filter((a) => a.statusCode !== 200).map((a) => a.body),
        [],
      )
      for (const ad of ads) {
        const detail = await ok('GET', `/api/admin/sponsor-ads/${ad.id}`, admin)
        assert.equal(detail.data.status, 'pending')
        assert.equal(detail.data.unusedPeriods, 1)
        assert.equal(detail.data.payments.length, 1)
      }
    } finally {
      await second.close()
    }
  })

  it('repairs an event stored but not applied (its instance died) at the provider’s retry, or by the sweep', async () => {
    const ada = await signUp(h)
    const [first, second] = [await submit(ada), await submit(ada)]
    const stored = async (ad: Ad) => {
      const event = stripeCheckout(ad)
      const signed = sign.stripe(event)
      // What a dead instance leaves behind: the event stored, its effects never run.
      await h.databases.directory.db.insert(paymentWebhookEvents).values({
        provider: 'stripe',
        eventId: event.id,
        type: 'payment_succeeded',
        providerType: event.type,
        rawBody: Buffer.from(signed.payload),
        status: 'received',
        receivedAt: h.clock.now(),
        nextAttemptAt: new Date(h.clock.now().getTime() + 60_000),
      })
      return signed
    }
    const retry = await stored(first)
    await stored(second)
    assert.equal((await read(ada, first.id)).status, 'pending_payment')
    // Stripe delivers it again: the stored copy is applied now.
    assert.equal((await post('stripe', retry)).statusCode, 200)
    assert.equal((await read(ada, first.id)).status, 'pending')
    // Nobody delivers the second again: the sweep applies it once its retry is due.
    h.clock.advance(2 * 60_000)
    await h.jobs.send(PAYMENT_EVENTS_SWEEP_JOB, {})
    await until(async () => (await read(ada, second.id)).status === 'pending', 'the sweep applied the event')
  })

  it('acknowledges an event whose handling fails, keeps it with the error, and retries it later', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada)
    // An amount no payment record can hold: the handler fails in the database.
    const event = stripeCheckout(ad, unique('evt'), unique('sub'), 99_999_999_999)
    const res = await post('stripe', sign.stripe(event))
    assert.deepEqual([res.statusCode, res.json()], [200, { received: true }])
    const [row] = await h.databases.directory.db
      .select()
      .from(paymentWebhookEvents)
      .where(eq(paymentWebhookEvents.eventId, event.id))
    assert.equal(row?.status, 'received')
    assert.equal(row?.attempts, 1)
    assert.ok(row?.lastError)
    assert.ok((row?.nextAttemptAt?.getTime() ?? 0) > h.clock.now().getTime())
    assert.equal((await read(ada, ad.id)).status, 'pending_payment')
    // The stored events list shows it to the admins.
    const listed = await ok('GET', '/api/admin/payments/events?status=received&limit=100', admin)
    assert.ok(
      listed.data.some(
        (e: { eventId: string; attempts: number }) => e.eventId === event.id && e.attempts === 1,
      ),
    )
  })

  it('limits each client to 1,000 webhook calls a minute, with the headers', async () => {
    const address = '192.0.2.55'
    const body = { payload: '{}', headers: {} }
    const first = await post('stripe', body, h.app, address)
    assert.equal(first.headers['x-ratelimit-limit'], '1000')
    for (let i = 1; i < 1000; i++) await post('solidgate', body, h.app, address)
    const denied = await post('polar', body, h.app, address)
    assert.equal(denied.statusCode, 429)
    assert.ok(Number(denied.headers['retry-after']) > 0)
    assert.equal(denied.headers['x-ratelimit-remaining'], '0')
    // Another client is not affected.
    assert.equal((await post('polar', body, h.app, '192.0.2.56')).statusCode, 400)
  })
})

describe('what the handlers record and send', () => {
  it('sends an email an earlier version queued finished in payment-mail, as it is', async () => {
    const to = `queued-${Math.random().toString(36).slice(2, 8)}@example.com`
    await h.jobs.send('payment-mail', {
      to,
      subject: '[Coffee Atlas] Payment received',
      text: 'Queued before the upgrade.\n\n-- Coffee Atlas',
    })
    await until(
      async () => smtp.messages.some((m) => m.envelope.to.includes(to)),
      `the queued email reached ${to}`,
    )
    const sent = smtp.messages.find((m) => m.envelope.to.includes(to))
    assert.equal(sent?.headers.subject, '[Coffee Atlas] Payment received')
    assert.match(sent?.body ?? '', /Queued before the upgrade\./)
  })

  it('emails the payment’s confirmation, marks a failed renewal past due and tells the user, records refunds', async () => {
    const email = `sponsor-${Math.random().toString(36).slice(2, 8)}@example.com`
    const registered = await siteRequest(h, 'POST', '/api/auth/register', {
      payload: { email, password: 'a good password', name: 'Mail Sponsor' },
    })
    const cookie = String(registered.headers['set-cookie']).split(';')[0] as string
    const ad = await submit(cookie)
    const subscription = unique('sub')
    const mailTo = async (count: number) => {
      const mine = () => smtp.messages.filter((m) => m.envelope.to.includes(email))
      await until(async () => mine().length >= count, `${count} emails reached ${email}`)
      return mine().at(-1)
    }
    const checkout = sign.stripe(stripeCheckout(ad, unique('evt'), subscription))
    assert.equal((await post('stripe', checkout)).statusCode, 200)
    const confirmation = await mailTo(1)
    assert.match(confirmation?.headers.subject ?? '', /Payment received/)
    assert.match(confirmation?.body ?? '', /waiting for review/)
    assert.match(confirmation?.body ?? '', /300\.00 USD/)

    const failed = {
      id: unique('evt'),
      type: 'invoice.payment_failed',
      data: {
        object: {
          object: 'invoice',
          id: unique('in'),
          billing_reason: 'subscription_cycle',
          subscription,
          amount_due: 30000,
          currency: 'usd',
          parent: { subscription_details: { metadata: metadata(ad), subscription } },
        },
      },
    }
    assert.equal((await post('stripe', sign.stripe(failed))).statusCode, 200)
    assert.match((await mailTo(2))?.headers.subject ?? '', /Payment failed/)
    const subscriptions = await ok('GET', `/api/admin/payments/subscriptions?sponsorAdId=${ad.id}`, admin)
    assert.equal(subscriptions.data[0].status, 'past_due')

    const trial = {
      id: unique('evt'),
      type: 'customer.subscription.trial_will_end',
      data: {
        object: {
          object: 'subscription',
          id: subscription,
          status: 'trialing',
          trial_end: now() + 3 * 86400,
          metadata: metadata(ad),
        },
      },
    }
    assert.equal((await post('stripe', sign.stripe(trial))).statusCode, 200)
    assert.match((await mailTo(3))?.headers.subject ?? '', /trial ends soon/)

    const refund = {
      id: unique('evt'),
      type: 'charge.refunded',
      data: {
        object: {
          object: 'charge',
          id: unique('ch'),
          amount_refunded: 30000,
          currency: 'usd',
          metadata: metadata(ad),
        },
      },
    }
    assert.equal((await post('stripe', sign.stripe(refund))).statusCode, 200)
    const kinds = (await ok('GET', `/api/admin/payments?sponsorAdId=${ad.id}`, admin)).data
      .map((p: { kind: string }) => p.kind)
      .sort()
    assert.deepEqual(kinds, ['failed', 'initial', 'refund'])
    const { stats } = await ok('GET', '/api/sponsor-ads/user/stats', cookie)
    assert.equal(stats.revenue.totalRevenue, 0)
  })
})
