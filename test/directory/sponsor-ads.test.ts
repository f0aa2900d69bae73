import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Stripe from 'stripe'
import { SPONSOR_EXPIRY_JOB } from '../../src/directory/sponsor-ads/closing.ts'
import { type DirectoryHarness, type SiteMethod, signUp, startDirectory, until } from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

const STRIPE_SECRET = 'whsec_sponsor_ads_test'
const DAY = 24 * 60 * 60 * 1000

let h: DirectoryHarness
let admin: string
/** Requests as the web app sends them; each names its cookie. */
let api: Requests

before(async () => {
  h = await startDirectory({ env: { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET } })
  admin = await h.adminCookie()
  api = siteRequests(h)
})
after(() => h.close())

async function ok(method: SiteMethod, url: string, cookie: string | null, payload?: unknown) {
  const res = await api.request(method, url, { body: payload, cookie })
  assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`)
  return res.json()
}

let counter = 0
const slug = () => `sponsored-${++counter}-${Math.random().toString(36).slice(2, 7)}`

interface Ad {
  id: string
  status: string
  interval: 'weekly' | 'monthly'
  itemSlug: string
  startDate: string | null
  endDate: string | null
  unusedPeriods: number
}

async function submit(cookie: string, body: Record<string, unknown> = {}): Promise<Ad> {
  return (
    await ok('POST', '/api/sponsor-ads/user', cookie, {
      itemSlug: slug(),
      itemName: 'Blue Bottle Coffee',
      interval: 'monthly',
      ...body,
    })
  ).data
}

async function read(cookie: string, id: string): Promise<Ad> {
  return (await ok('GET', `/api/sponsor-ads/user/${id}`, cookie)).data
}

/** A Stripe event, signed as Stripe signs it (with the SDK's own test signer), at the harness's time. */
function stripeDelivery(event: Record<string, unknown>, { secret = STRIPE_SECRET } = {}) {
  const payload = JSON.stringify({ object: 'event', api_version: '2025-10-29.clover', ...event })
  const header = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret,
    timestamp: Math.floor(h.clock.now().getTime() / 1000),
  })
  return { payload, header }
}

async function deliver(event: Record<string, unknown>, options: { secret?: string } = {}) {
  const { payload, header } = stripeDelivery(event, options)
  return h.app.inject({
    method: 'POST',
    url: '/api/stripe/webhook',
    payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
    remoteAddress: '203.0.113.7',
  })
}

const metadata = (ad: Ad) => ({ type: 'sponsor_ad', sponsorAdId: ad.id, itemSlug: ad.itemSlug })

function checkoutCompleted(ad: Ad, id: string, subscription = `sub_${id}`) {
  return {
    id,
    type: 'checkout.session.completed',
    data: {
      object: {
        object: 'checkout.session',
        id: `cs_${id}`,
        mode: 'subscription',
        payment_status: 'paid',
        subscription,
        customer: 'cus_1',
        amount_total: 30000,
        currency: 'usd',
        metadata: metadata(ad),
      },
    },
  }
}

function renewalInvoice(ad: Ad, id: string, subscription: string) {
  return {
    id: `evt_${id}`,
    type: 'invoice.paid',
    data: {
      object: {
        object: 'invoice',
        id: `in_${id}`,
        billing_reason: 'subscription_cycle',
        subscription,
        customer: 'cus_1',
        amount_paid: 30000,
        currency: 'usd',
        parent: { subscription_details: { metadata: metadata(ad), subscription } },
      },
    },
  }
}

async function paid(
  ad: Ad,
  event: Record<string, unknown> = checkoutCompleted(ad, `evt_${ad.id.slice(0, 8)}`),
) {
  const res = await deliver(event)
  assert.equal(res.statusCode, 200, res.body)
  assert.deepEqual(res.json(), { received: true })
}

describe('a user’s sponsor ads', () => {
  it('submits an ad awaiting payment, reads it back and lists it; others see 404', async () => {
    const ada = await signUp(h)
    const grace = await signUp(h, 'Grace Hopper')
    const ad = await submit(ada, {
      itemDescription: 'Fresh coffee.',
      itemIconUrl: 'https://cdn.example.com/i.png',
    })
    assert.equal(ad.status, 'pending_payment')
    assert.equal((await read(ada, ad.id)).id, ad.id)
    const list = await ok('GET', '/api/sponsor-ads/user', ada)
    assert.deepEqual(
      list.data.map((a: Ad) => a.id),
      [ad.id],
    )
    assert.deepEqual(list.pagination, {
      page: 1,
      limit: 10,
      total: 1,
      totalPages: 1,
      hasNext: false,
      hasPrev: false,
    })
    const other = await api.get(`/api/sponsor-ads/user/${ad.id}`, { cookie: grace })
    assert.equal(other.statusCode, 404)
    assert.equal(other.json().code, 'SPONSOR_AD_NOT_FOUND')
    assert.equal((await ok('GET', '/api/sponsor-ads/user', grace)).data.length, 0)
    // Actions on another user's ad are 403.
    const cancel = await api.post(`/api/sponsor-ads/user/${ad.id}/cancel`, undefined, { cookie: grace })
    assert.equal(cancel.statusCode, 403, cancel.body)
    assert.equal((await api.get('/api/sponsor-ads/user', { cookie: null })).statusCode, 401)
  })

  it('refuses a second open ad for the same item, also when eight race', async () => {
    const ada = await signUp(h)
    const itemSlug = slug()
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.post(
          '/api/sponsor-ads/user',
          { itemSlug, itemName: 'Item', interval: 'weekly' },
          { cookie: ada },
        ),
      ),
    )
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 400, 400, 400, 400, 400, 400, 400])
    assert.ok(
      results.filter((r) => r.statusCode === 400).every((r) => r.json().code === 'SPONSOR_AD_DUPLICATE'),
    )
    // Once cancelled, the item may be sponsored again.
    const [created] = results.filter((r) => r.statusCode === 200)
    await ok('POST', `/api/sponsor-ads/user/${created?.json().data.id}/cancel`, ada, {})
    await submit(ada, { itemSlug })
  })

  it('validates the submission, naming every failing field', async () => {
    const ada = await signUp(h)
    const res = await api.post(
      '/api/sponsor-ads/user',
      {
        itemSlug: 'Not A Slug',
        itemName: '',
        interval: 'yearly',
        itemDescription: 'x'.repeat(501),
        itemIconUrl: 'javascript:alert(1)',
      },
      { cookie: ada },
    )
    assert.equal(res.statusCode, 400)
    const fields = res
      .json()
      .details.map((d: { field: string }) => d.field)
      .sort()
    assert.deepEqual(fields, [
      'body.interval',
      'body.itemDescription',
      'body.itemIconUrl',
      'body.itemName',
      'body.itemSlug',
    ])
  })

  it('filters by status (pending covers both waits, approved every approved ad), interval and search', async () => {
    const ada = await signUp(h)
    const waiting = await submit(ada, { itemName: 'Waiting Coffee', interval: 'weekly' })
    const paidAd = await submit(ada, { itemName: 'Paid Tea' })
    await paid(paidAd)
    const running = await submit(ada, { itemName: 'Running Juice' })
    await ok('POST', `/api/admin/sponsor-ads/${running.id}/approve`, admin, { forceApprove: true })
    const ids = async (query: string) =>
      (await ok('GET', `/api/sponsor-ads/user?${query}`, ada)).data.map((a: Ad) => a.id).sort()
    assert.deepEqual(await ids('status=pending'), [waiting.id, paidAd.id].sort())
    assert.deepEqual(await ids('status=pending_payment'), [waiting.id])
    assert.deepEqual(await ids('status=approved'), [running.id])
    assert.deepEqual(await ids('status=active'), [running.id])
    assert.deepEqual(await ids('interval=weekly'), [waiting.id])
    assert.deepEqual(await ids('search=tea'), [paidAd.id])
    assert.equal((await api.get('/api/sponsor-ads/user?status=paid', { cookie: ada })).statusCode, 400)
  })

  it('counts its ads and the money paid, in minor units', async () => {
    const ada = await signUp(h)
    const weekly = await submit(ada, { interval: 'weekly' })
    const monthly = await submit(ada)
    await submit(ada)
    const week = checkoutCompleted(weekly, `evt_w_${weekly.id.slice(0, 6)}`)
    week.data.object.amount_total = 10000
    await paid(weekly, week)
    await paid(monthly)
    const { stats } = await ok('GET', '/api/sponsor-ads/user/stats', ada)
    assert.deepEqual(stats.overview, {
      total: 3,
      pendingPayment: 1,
      pending: 2,
      active: 0,
      rejected: 0,
      expired: 0,
      cancelled: 0,
    })
    assert.deepEqual(stats.byInterval, { weekly: 1, monthly: 2 })
    assert.deepEqual(stats.revenue, {
      totalRevenue: 40000,
      weeklyRevenue: 10000,
      monthlyRevenue: 30000,
      currency: 'usd',
    })
  })
})

describe('admin review', () => {
  it('approves a paid ad from now for its period, and refuses an unpaid one without forceApprove', async () => {
    const ada = await signUp(h)
    const unpaid = await submit(ada)
    const refused = await api.post(`/api/admin/sponsor-ads/${unpaid.id}/approve`, {}, { cookie: admin })
    assert.equal(refused.statusCode, 400)
    assert.equal(refused.json().code, 'PAYMENT_NOT_RECEIVED')
    assert.equal((await read(ada, unpaid.id)).status, 'pending_payment')

    const ad = await submit(ada, { interval: 'weekly' })
    await paid(ad)
    assert.equal((await read(ada, ad.id)).status, 'pending')
    // No body at all is the same as {}.
    const approved = await h.app.inject({
      method: 'POST',
      url: `/api/admin/sponsor-ads/${ad.id}/approve`,
      headers: { cookie: admin, origin: 'http://localhost:3001' },
    })
    assert.equal(approved.statusCode, 200, approved.body)
    const { data } = approved.json()
    assert.equal(data.status, 'active')
    assert.equal(new Date(data.startDate).getTime(), h.clock.now().getTime())
    assert.equal(new Date(data.endDate).getTime() - new Date(data.startDate).getTime(), 7 * DAY)

    const again = await api.post(`/api/admin/sponsor-ads/${ad.id}/approve`, {}, { cookie: admin })
    assert.equal(again.statusCode, 400)
    assert.equal(again.json().code, 'SPONSOR_AD_INVALID_TRANSITION')

    const forced = await ok('POST', `/api/admin/sponsor-ads/${unpaid.id}/approve`, admin, {
      forceApprove: true,
    })
    assert.equal(forced.data.status, 'active')
  })

  it('lets one of two racing admins act: the other is refused', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada)
    await paid(ad)
    const second = await h.adminCookie()
    const [a, b] = await Promise.all([
      api.post(`/api/admin/sponsor-ads/${ad.id}/approve`, {}, { cookie: admin }),
      api.post(
        `/api/admin/sponsor-ads/${ad.id}/reject`,
        {
          rejectionReason: 'Not an item of this directory.',
        },
        { cookie: second },
      ),
    ])
    assert.deepEqual([a.statusCode, b.statusCode].sort(), [200, 400])
    const final = await read(ada, ad.id)
    assert.equal(final.status, a.statusCode === 200 ? 'active' : 'rejected')
  })

  it('rejects with a reason of 10 to 500 characters, only while pending', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada)
    const short = await api.post(
      `/api/admin/sponsor-ads/${ad.id}/reject`,
      {
        rejectionReason: 'Too short',
      },
      { cookie: admin },
    )
    assert.equal(short.statusCode, 400)
    assert.equal(short.json().details[0].field, 'body.rejectionReason')
    const blank = await api.post(
      `/api/admin/sponsor-ads/${ad.id}/reject`,
      {
        rejectionReason: `   ${' '.repeat(10)}`,
      },
      { cookie: admin },
    )
    assert.equal(blank.statusCode, 400)
    const long = await api.post(
      `/api/admin/sponsor-ads/${ad.id}/reject`,
      {
        rejectionReason: 'x'.repeat(501),
      },
      { cookie: admin },
    )
    assert.equal(long.statusCode, 400)
    const rejected = await ok('POST', `/api/admin/sponsor-ads/${ad.id}/reject`, admin, {
      rejectionReason: 'The item is not part of this directory.',
    })
    assert.deepEqual(rejected.data, {
      id: ad.id,
      status: 'rejected',
      rejectionReason: 'The item is not part of this directory.',
    })
    const cancel = await api.post(`/api/sponsor-ads/user/${ad.id}/cancel`, {}, { cookie: ada })
    assert.equal(cancel.statusCode, 400)
    assert.equal(cancel.json().code, 'SPONSOR_AD_INVALID_TRANSITION')
    const renew = await api.post(`/api/sponsor-ads/user/${ad.id}/renew`, {}, { cookie: ada })
    assert.equal(renew.statusCode, 400)
  })

  it('lists with filters, sorts, pagination and stats of all ads; reads one with its user and payments', async () => {
    const ada = await signUp(h, 'Sponsor Listing Person')
    const first = await submit(ada, { itemName: 'Listing Alpha', interval: 'weekly' })
    h.clock.advance(1000)
    const second = await submit(ada, { itemName: 'Listing Beta' })
    await paid(second)
    const page = await ok(
      'GET',
      '/api/admin/sponsor-ads?search=listing%20person&sortBy=createdAt&sortOrder=asc',
      admin,
    )
    assert.deepEqual(
      page.data.map((a: Ad) => a.id),
      [first.id, second.id],
    )
    assert.equal(page.data[0].user.name, 'Sponsor Listing Person')
    assert.equal(page.pagination.total, 2)
    assert.ok(page.stats.total >= 2)
    assert.ok(page.stats.pending >= 2)
    const weekly = await ok('GET', '/api/admin/sponsor-ads?search=listing%20alpha&interval=weekly', admin)
    assert.deepEqual(
      weekly.data.map((a: Ad) => a.id),
      [first.id],
    )
    const limited = await ok('GET', '/api/admin/sponsor-ads?limit=1&page=2&search=listing%20person', admin)
    assert.equal(limited.data.length, 1)
    assert.equal(limited.pagination.hasPrev, true)
    assert.equal((await api.get('/api/admin/sponsor-ads?sortBy=price', { cookie: admin })).statusCode, 400)
    const member = await signUp(h)
    assert.equal((await api.get('/api/admin/sponsor-ads', { cookie: member })).statusCode, 403)
    assert.equal((await api.get('/api/admin/sponsor-ads', { cookie: null })).statusCode, 401)

    const detail = await ok('GET', `/api/admin/sponsor-ads/${second.id}`, admin)
    assert.equal(detail.data.user.name, 'Sponsor Listing Person')
    assert.equal(detail.data.payments.length, 1)
    assert.equal(detail.data.payments[0].effect, 'submitted')
    assert.equal(detail.data.payments[0].amount, 30000)
    assert.equal(detail.data.subscriptionId, `sub_evt_${second.id.slice(0, 8)}`)
  })

  it('edits title, description and dates, refusing an end before the start', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada)
    await ok('POST', `/api/admin/sponsor-ads/${ad.id}/approve`, admin, { forceApprove: true })
    const edited = await ok('PUT', `/api/admin/sponsor-ads/${ad.id}`, admin, {
      title: 'Better title',
      description: null,
    })
    assert.equal(edited.data.title, 'Better title')
    assert.equal(edited.data.description, null)
    const bad = await api.put(
      `/api/admin/sponsor-ads/${ad.id}`,
      {
        endDate: new Date(h.clock.now().getTime() - DAY).toISOString(),
      },
      { cookie: admin },
    )
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().details[0].field, 'body.endDate')
    assert.equal((await api.put(`/api/admin/sponsor-ads/${ad.id}`, {}, { cookie: admin })).statusCode, 400)
  })

  it('deletes an ad for good, keeping its payment records', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada)
    await paid(ad)
    await ok('DELETE', `/api/admin/sponsor-ads/${ad.id}`, admin)
    assert.equal((await api.get(`/api/admin/sponsor-ads/${ad.id}`, { cookie: admin })).statusCode, 404)
    assert.equal((await api.delete(`/api/admin/sponsor-ads/${ad.id}`, { cookie: admin })).statusCode, 404)
    const payments = await ok('GET', '/api/admin/payments?provider=stripe&kind=initial&limit=100', admin)
    const record = payments.data.find(
      (p: { reference: string }) => p.reference === `initial:sub_evt_${ad.id.slice(0, 8)}`,
    )
    assert.ok(record, 'the payment record stays')
    assert.equal(record.sponsorAdId, null)
  })
})

describe('the public shelf and expiry', () => {
  it('shows active ads within their dates with their published item, and hides one past its end at once', async () => {
    const ada = await signUp(h)
    const created = await api.post(
      '/api/admin/items',
      {
        name: 'Shelf Coffee',
        slug: slug(),
        status: 'published',
        description: 'Beans.',
      },
      { cookie: admin },
    )
    assert.equal(created.statusCode, 201, created.body)
    const item = created.json().data
    const withItem = await submit(ada, { itemSlug: item.slug, interval: 'weekly' })
    const withoutItem = await submit(ada)
    const notYet = await submit(ada)
    await ok('POST', `/api/admin/sponsor-ads/${withItem.id}/approve`, admin, { forceApprove: true })
    await ok('POST', `/api/admin/sponsor-ads/${withoutItem.id}/approve`, admin, { forceApprove: true })
    const shelf = await ok('GET', '/api/sponsor-ads?limit=50', null)
    const entry = shelf.data.find((e: { sponsor: { id: string } }) => e.sponsor.id === withItem.id)
    assert.deepEqual(entry, {
      sponsor: { id: withItem.id, itemSlug: item.slug, status: 'active', interval: 'weekly' },
      item: { name: 'Shelf Coffee', slug: item.slug, description: 'Beans.', icon_url: null, category: null },
    })
    const bare = shelf.data.find((e: { sponsor: { id: string } }) => e.sponsor.id === withoutItem.id)
    assert.equal(bare.item, null)
    assert.ok(!shelf.data.some((e: { sponsor: { id: string } }) => e.sponsor.id === notYet.id))
    assert.equal((await api.get('/api/sponsor-ads?limit=51', { cookie: null })).statusCode, 400)

    // Eight days on, the weekly ad is past its end: hidden before the job runs, expired after.
    h.clock.advance(8 * DAY)
    const later = await ok('GET', '/api/sponsor-ads?limit=50', null)
    assert.ok(!later.data.some((e: { sponsor: { id: string } }) => e.sponsor.id === withItem.id))
    assert.equal((await read(ada, withItem.id)).status, 'active')
    await h.jobs.send(SPONSOR_EXPIRY_JOB, {})
    await until(async () => (await read(ada, withItem.id)).status === 'expired', 'the ad expired')
    assert.equal((await read(ada, withoutItem.id)).status, 'active')
  })
})

describe('Stripe webhooks moving ads', () => {
  it('answers 400 without a signature, with a bad one, or with a body that is not JSON', async () => {
    const noSignature = await h.app.inject({ method: 'POST', url: '/api/stripe/webhook', payload: '{}' })
    assert.equal(noSignature.statusCode, 400)
    assert.deepEqual(noSignature.json(), { error: 'No signature provided' })
    const ada = await signUp(h)
    const ad = await submit(ada)
    const forged = await deliver(checkoutCompleted(ad, 'evt_forged'), { secret: 'whsec_someone_else' })
    assert.equal(forged.statusCode, 400)
    assert.deepEqual(forged.json(), { error: 'Invalid signature' })
    const { payload, header } = stripeDelivery(checkoutCompleted(ad, 'evt_tampered'))
    const tampered = await h.app.inject({
      method: 'POST',
      url: '/api/stripe/webhook',
      payload: payload.replace('30000', '1'),
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
    })
    assert.equal(tampered.statusCode, 400)
    const notJson = 'not json'
    const signed = Stripe.webhooks.generateTestHeaderString({
      payload: notJson,
      secret: STRIPE_SECRET,
      timestamp: Math.floor(h.clock.now().getTime() / 1000),
    })
    const garbage = await h.app.inject({
      method: 'POST',
      url: '/api/stripe/webhook',
      payload: notJson,
      headers: { 'content-type': 'text/plain', 'stripe-signature': signed },
    })
    assert.equal(garbage.statusCode, 400)
    assert.deepEqual(garbage.json(), { error: 'Invalid JSON body' })
    // A replay outside the five minutes of tolerance.
    const { payload: old, header: oldHeader } = stripeDelivery(checkoutCompleted(ad, 'evt_old'))
    h.clock.advance(6 * 60 * 1000)
    const replay = await h.app.inject({
      method: 'POST',
      url: '/api/stripe/webhook',
      payload: old,
      headers: { 'content-type': 'application/json', 'stripe-signature': oldHeader },
    })
    assert.equal(replay.statusCode, 400)
    assert.equal((await read(ada, ad.id)).status, 'pending_payment')
  })

  it('applies a payment once across duplicates and the several events of one payment, in any order', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada)
    const subscription = `sub_once_${ad.id.slice(0, 8)}`
    const events = [
      checkoutCompleted(ad, `evt_cs_${ad.id.slice(0, 6)}`, subscription),
      {
        id: `evt_inv_${ad.id.slice(0, 6)}`,
        type: 'invoice.paid',
        data: {
          object: {
            object: 'invoice',
            id: `in_first_${ad.id.slice(0, 6)}`,
            billing_reason: 'subscription_create',
            subscription,
            amount_paid: 30000,
            currency: 'usd',
            parent: { subscription_details: { metadata: metadata(ad), subscription } },
          },
        },
      },
      {
        id: `evt_sub_${ad.id.slice(0, 6)}`,
        type: 'customer.subscription.created',
        data: {
          object: {
            object: 'subscription',
            id: subscription,
            status: 'active',
            customer: 'cus_1',
            metadata: metadata(ad),
            items: {
              data: [
                {
                  price: {
                    id: 'price_m',
                    unit_amount: 30000,
                    currency: 'usd',
                    recurring: { interval: 'month' },
                  },
                  current_period_end: 1900000000,
                },
              ],
            },
          },
        },
      },
    ]
    // The invoice first, then everything twice, concurrently.
    const answers = await Promise.all(
      [events[1], events[2], events[0], events[0], events[1], events[2]].map((e) =>
        deliver(e as Record<string, unknown>),
      ),
    )
    assert.ok(answers.every((a) => a.statusCode === 200 && a.json().received === true))
    const after = await read(ada, ad.id)
    assert.equal(after.status, 'pending')
    assert.equal(after.unusedPeriods, 1)
    const detail = await ok('GET', `/api/admin/sponsor-ads/${ad.id}`, admin)
    assert.equal(detail.data.payments.length, 1)
    assert.equal(detail.data.subscriptions.length, 1)
    assert.equal(detail.data.subscriptions[0].status, 'active')
    assert.equal(detail.data.subscriptions[0].planId, 'sponsor_ad_monthly')

    // Approval, then two renewal cycles (one delivered twice): two more months, exactly.
    const approved = await ok('POST', `/api/admin/sponsor-ads/${ad.id}/approve`, admin, {})
    const end = new Date(approved.data.endDate)
    await Promise.all([
      deliver(renewalInvoice(ad, `r1_${ad.id.slice(0, 6)}`, subscription)),
      deliver(renewalInvoice(ad, `r1_${ad.id.slice(0, 6)}`, subscription)),
      deliver(renewalInvoice(ad, `r2_${ad.id.slice(0, 6)}`, subscription)),
    ])
    const renewed = await read(ada, ad.id)
    const expected = new Date(end)
    expected.setUTCMonth(expected.getUTCMonth() + 2)
    assert.equal(new Date(renewed.endDate as string).getTime(), expected.getTime())
  })

  it('credits a payment that reaches an ad in review, and the approval gives every period', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada, { interval: 'weekly' })
    const subscription = `sub_credit_${ad.id.slice(0, 8)}`
    await paid(ad, checkoutCompleted(ad, `evt_c1_${ad.id.slice(0, 6)}`, subscription))
    await paid(ad, renewalInvoice(ad, `c2_${ad.id.slice(0, 6)}`, subscription))
    assert.equal((await read(ada, ad.id)).unusedPeriods, 2)
    const approved = await ok('POST', `/api/admin/sponsor-ads/${ad.id}/approve`, admin, {})
    assert.equal(
      new Date(approved.data.endDate).getTime() - new Date(approved.data.startDate).getTime(),
      14 * DAY,
    )
  })

  it('renews an expired ad from now, and cancels an ad whose subscription ends', async () => {
    const ada = await signUp(h)
    const ad = await submit(ada, { interval: 'weekly' })
    const subscription = `sub_life_${ad.id.slice(0, 8)}`
    await paid(ad, checkoutCompleted(ad, `evt_l1_${ad.id.slice(0, 6)}`, subscription))
    await ok('POST', `/api/admin/sponsor-ads/${ad.id}/approve`, admin, {})
    h.clock.advance(10 * DAY)
    await h.jobs.send(SPONSOR_EXPIRY_JOB, {})
    await until(async () => (await read(ada, ad.id)).status === 'expired', 'the ad expired')
    await paid(ad, renewalInvoice(ad, `l2_${ad.id.slice(0, 6)}`, subscription))
    const renewed = await read(ada, ad.id)
    assert.equal(renewed.status, 'active')
    assert.equal(new Date(renewed.endDate as string).getTime(), h.clock.now().getTime() + 7 * DAY)

    await paid(ad, {
      id: `evt_del_${ad.id.slice(0, 6)}`,
      type: 'customer.subscription.deleted',
      data: {
        object: { object: 'subscription', id: subscription, status: 'canceled', metadata: metadata(ad) },
      },
    })
    const cancelled = await read(ada, ad.id)
    assert.equal(cancelled.status, 'cancelled')
  })

  it('acknowledges events for unknown ads and event types it does not handle', async () => {
    const unknown = await deliver({
      id: 'evt_unknown_ad',
      type: 'checkout.session.completed',
      data: {
        object: {
          object: 'checkout.session',
          id: 'cs_unknown',
          payment_status: 'paid',
          metadata: {
            type: 'sponsor_ad',
            sponsorAdId: '00000000-0000-4000-8000-000000000000',
            itemSlug: 'x',
          },
        },
      },
    })
    assert.equal(unknown.statusCode, 200)
    const other = await deliver({ id: 'evt_customer', type: 'customer.created', data: { object: {} } })
    assert.equal(other.statusCode, 200)
    const events = await ok('GET', '/api/admin/payments/events?provider=stripe&limit=100', admin)
    const stored = events.data.find((e: { eventId: string }) => e.eventId === 'evt_customer')
    assert.equal(stored.status, 'processed')
    assert.match(stored.outcome, /unhandled/)
  })
})
