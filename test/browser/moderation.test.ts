/**
 * Moderation in the admin console, in Chromium: sponsor ads (approve a paid ad, reject with a reason the
 * API refuses then accepts, cancel, delete, and an ad's page with its payments and its edit form),
 * reports (resolved through the review dialog) and comments (approved, rejected, deleted). Everything is
 * arranged as users make it, through the public API (a sponsor ad is paid by a signed Stripe webhook, as
 * docs/payments.md describes), and every result is checked through the API.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Stripe from 'stripe'
import { type ConsoleHarness, fieldError, screenshot, seriousViolations, startConsole } from './console.ts'

const STRIPE_SECRET = 'whsec_console_moderation'

let h: ConsoleHarness

before(async () => {
  h = await startConsole({ env: { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET } })
})
after(async () => {
  await h?.close()
})

let counter = 0
const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 7)}`

interface Member {
  cookie: string
  id: string
  name: string
  email: string
}

/** Calls the API as a signed-in user, as the site would. */
async function as<T>(member: Member, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: {
      cookie: member.cookie,
      origin: h.url,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`)
  return JSON.parse(text) as T
}

/** A registered user (not an admin), signed in. */
async function member(name: string): Promise<Member> {
  const email = `${unique(name.split(' ')[0]?.toLowerCase() ?? 'member')}@example.com`
  const res = await fetch(`${h.url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: h.url },
    body: JSON.stringify({ name, email, password: 'member-password-1' }),
  })
  const body = await res.json()
  assert.equal(res.status, 201, JSON.stringify(body))
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
  return { cookie, id: body.user.id, name, email }
}

/** Asserts a 2xx answer of the admin's API call and returns its body. */
async function admin<T = { data: Record<string, unknown> }>(method: string, path: string, body?: unknown) {
  const res = await h.api<T>(method, path, body)
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

interface Ad {
  id: string
  title: string
  status: string
  itemSlug: string
}

/** A user's new sponsor ad, awaiting payment. */
async function submitAd(owner: Member, itemName: string, interval: 'weekly' | 'monthly' = 'monthly') {
  const answer = await as<{ data: Ad }>(owner, 'POST', '/api/sponsor-ads/user', {
    itemSlug: unique(itemName.toLowerCase().replace(/[^a-z0-9]+/g, '-')),
    itemName,
    interval,
    itemCategory: 'coffee-roasters',
    itemDescription: `${itemName}: roasters of fresh coffee.`,
  })
  assert.equal(answer.data.status, 'pending_payment')
  return answer.data
}

/** Stripe reports the ad's first payment (a signed webhook): the ad goes to review, `pending`. */
async function pay(ad: Ad, amount = 30000) {
  const id = unique('evt')
  const payload = JSON.stringify({
    object: 'event',
    api_version: '2025-10-29.clover',
    id,
    type: 'checkout.session.completed',
    data: {
      object: {
        object: 'checkout.session',
        id: `cs_${id}`,
        mode: 'subscription',
        payment_status: 'paid',
        subscription: `sub_${id}`,
        customer: 'cus_console',
        amount_total: amount,
        currency: 'usd',
        metadata: { type: 'sponsor_ad', sponsorAdId: ad.id, itemSlug: ad.itemSlug },
      },
    },
  })
  const header = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: STRIPE_SECRET,
    timestamp: Math.floor(h.directory.clock.now().getTime() / 1000),
  })
  const res = await fetch(`${h.url}/api/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
    body: payload,
  })
  assert.equal(res.status, 200, await res.text())
  const read = await admin<{ data: Ad }>('GET', `/api/admin/sponsor-ads/${ad.id}`)
  assert.equal(read.data.status, 'pending')
}

const readAd = async (id: string) =>
  admin<{ data: Ad & { rejectionReason: string | null; cancelReason: string | null } }>(
    'GET',
    `/api/admin/sponsor-ads/${id}`,
  )

/** An item a member submitted through the site, published by the admin. */
async function publishedItem(owner: Member, name: string) {
  const answer = await as<{ data: { id: string; slug: string; name: string } }>(
    owner,
    'POST',
    '/api/submit',
    {
      name: unique(name),
      url: 'https://example.com',
      description: `${name}, as its owner describes it.`,
    },
  )
  await admin('POST', `/api/admin/items/${answer.data.id}/review`, { action: 'approve' })
  return answer.data
}

async function comment(author: Member, itemId: string, body: string) {
  const answer = await as<{ data: { id: string; status: string } }>(author, 'POST', '/api/comments', {
    itemId,
    body,
  })
  assert.equal(answer.data.status, 'pending')
  return answer.data
}

describe('admin console: sponsor ads', () => {
  it('approves a paid ad in review, with the figures and filters in the address', async () => {
    const ada = await member('Ada Lovelace')
    const grace = await member('Grace Hopper')
    const paid = await submitAd(ada, 'Blue Bottle Coffee')
    await pay(paid)
    await pay(await submitAd(grace, 'Stumptown Roasters', 'weekly'), 10000)
    await submitAd(grace, 'Counter Culture')
    const running = await submitAd(ada, 'Heart Coffee')
    await admin('POST', `/api/admin/sponsor-ads/${running.id}/approve`, { forceApprove: true })

    const page = await h.signedIn('/sponsor-ads')
    const table = page.getByRole('table', { name: 'Sponsor ads' })
    await table.getByRole('link', { name: 'Blue Bottle Coffee' }).waitFor()
    await page
      .getByRole('region', { name: 'All sponsor ads' })
      .getByText('Waiting for payment or review')
      .waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'sponsor-ads')

    await page.getByRole('tab', { name: 'In review' }).click()
    await page.getByLabel('Search').fill(ada.email)
    await page.waitForURL(/status=pending&search=/)
    // The tab and the search each load the list again: wait for the last answer, not the first.
    await table.getByRole('link', { name: 'Heart Coffee' }).waitFor({ state: 'detached' })
    await table.getByRole('link', { name: 'Stumptown Roasters' }).waitFor({ state: 'detached' })
    await page.locator('table[aria-busy="false"]').waitFor()
    await table.getByRole('link', { name: 'Blue Bottle Coffee' }).waitFor()
    assert.equal(await table.getByRole('link', { name: 'Stumptown Roasters' }).count(), 0)

    await page.reload()
    await table.getByRole('button', { name: 'Approve Blue Bottle Coffee' }).click()
    await page.getByText('“Blue Bottle Coffee” approved').waitFor()
    const approved = await readAd(paid.id)
    assert.equal(approved.data.status, 'active')
    // In review and filtered by Ada, the list no longer holds the approved ad.
    await table.getByText('No sponsor ad matches these filters.').waitFor()
  })

  it('rejects with a reason: a too short one is refused next to the field, the form keeps it', async () => {
    const ada = await member('Ada Lovelace')
    const ad = await submitAd(ada, 'Sightglass Coffee')
    await pay(ad)
    const page = await h.signedIn(`/sponsor-ads?search=${encodeURIComponent(ada.email)}`)
    await page.getByRole('button', { name: 'Reject Sightglass Coffee' }).click()
    const dialog = page.getByRole('dialog', { name: 'Reject “Sightglass Coffee”' })
    await dialog.getByLabel('Reason').fill('Too short')
    await dialog.getByRole('button', { name: 'Reject' }).click()
    assert.match(await fieldError(page, page.getByLabel('Reason', { exact: true })), /at least 10 characters/)
    assert.equal(await dialog.getByLabel('Reason').inputValue(), 'Too short')
    assert.deepEqual(await seriousViolations(page), [])
    assert.equal((await readAd(ad.id)).data.status, 'pending')

    await dialog.getByLabel('Reason').fill('The item is not part of this directory.')
    await dialog.getByRole('button', { name: 'Reject' }).click()
    await page.getByText('“Sightglass Coffee” rejected').waitFor()
    await dialog.waitFor({ state: 'hidden' })
    const rejected = await readAd(ad.id)
    assert.equal(rejected.data.status, 'rejected')
    assert.equal(rejected.data.rejectionReason, 'The item is not part of this directory.')
  })

  it('cancels a running ad after asking, approves an unpaid one after asking, and deletes it', async () => {
    const ada = await member('Ada Lovelace')
    const running = await submitAd(ada, 'Onyx Coffee Lab')
    await admin('POST', `/api/admin/sponsor-ads/${running.id}/approve`, { forceApprove: true })
    const unpaid = await submitAd(ada, 'Verve Coffee')
    const page = await h.signedIn(`/sponsor-ads?search=${encodeURIComponent(ada.email)}`)

    await page.getByRole('button', { name: 'Cancel Onyx Coffee Lab' }).click()
    const ask = page.getByRole('dialog', { name: 'Cancel “Onyx Coffee Lab”?' })
    await ask.getByLabel('Reason (optional)').fill('The advertiser asked to stop.')
    assert.deepEqual(await seriousViolations(page), [])
    await ask.getByRole('button', { name: 'Cancel the ad' }).click()
    await page.getByText('“Onyx Coffee Lab” cancelled').waitFor()
    const cancelled = await readAd(running.id)
    assert.equal(cancelled.data.status, 'cancelled')
    assert.equal(cancelled.data.cancelReason, 'The advertiser asked to stop.')

    // Unpaid, it is approved only once the admin says so, for one period.
    await page.getByRole('button', { name: 'Approve Verve Coffee' }).click()
    await page
      .getByRole('dialog', { name: 'Approve without payment?' })
      .getByRole('button', { name: 'Approve without payment' })
      .click()
    await page.getByText('“Verve Coffee” approved').waitFor()
    assert.equal((await readAd(unpaid.id)).data.status, 'active')

    await page.getByRole('button', { name: 'Delete Verve Coffee' }).click()
    await page
      .getByRole('dialog', { name: 'Delete this sponsor ad?' })
      .getByRole('button', { name: 'Delete' })
      .click()
    await page.getByText('“Verve Coffee” deleted').waitFor()
    assert.equal((await h.api('GET', `/api/admin/sponsor-ads/${unpaid.id}`)).status, 404)
  })

  it('shows an ad with its advertiser and payments, and edits it; an end before the start is refused', async () => {
    const ada = await member('Ada Lovelace')
    const ad = await submitAd(ada, 'Ritual Coffee')
    await pay(ad, 30000)
    await admin('POST', `/api/admin/sponsor-ads/${ad.id}/approve`)
    const page = await h.signedIn(`/sponsor-ads/${ad.id}`)
    await page.getByRole('heading', { name: 'Ritual Coffee', level: 1 }).waitFor()
    const payments = page.getByRole('table', { name: 'Payments' })
    await payments.getByRole('cell', { name: 'First payment' }).waitFor()
    await payments.getByRole('cell', { name: /300\.00/ }).waitFor()
    await page.getByRole('region', { name: 'Advertiser' }).getByRole('link', { name: ada.email }).waitFor()
    await page.getByText('Last signed in').waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'sponsor-ad')

    await page.getByLabel('End', { exact: true }).fill('2020-01-01T10:00')
    await page.getByRole('button', { name: 'Save' }).click()
    assert.match(await fieldError(page, page.getByLabel('End', { exact: true })), /after/)
    assert.equal(await page.getByLabel('End', { exact: true }).inputValue(), '2020-01-01T10:00')

    const end = new Date(Date.now() + 60 * 24 * 60 * 60 * 1000)
    const pad = (n: number) => String(n).padStart(2, '0')
    const local = `${end.getFullYear()}-${pad(end.getMonth() + 1)}-${pad(end.getDate())}T10:30`
    await page.getByLabel('End', { exact: true }).fill(local)
    await page.getByLabel('Title').fill('Ritual Coffee Roasters')
    await page.getByLabel('Description').fill('Fresh coffee from San Francisco.')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('“Ritual Coffee Roasters” saved').waitFor()
    const saved = await admin<{ data: { title: string; description: string; endDate: string } }>(
      'GET',
      `/api/admin/sponsor-ads/${ad.id}`,
    )
    assert.equal(saved.data.title, 'Ritual Coffee Roasters')
    assert.equal(saved.data.description, 'Fresh coffee from San Francisco.')
    assert.equal(new Date(saved.data.endDate).getTime(), new Date(local).getTime())
    await page.getByRole('heading', { name: 'Ritual Coffee Roasters', level: 1 }).waitFor()
  })
})

describe('admin console: reports', () => {
  it('resolves a report through the review dialog, which shows the reported item and its owner', async () => {
    const owner = await member('Owen Owner')
    const reader = await member('Rita Reader')
    const item = await publishedItem(owner, 'Phishy Listing')
    const other = await publishedItem(owner, 'Noisy Listing')
    const spam = await comment(owner, other.id, 'Buy cheap pills at example.com')
    const report = await as<{ report: { id: string } }>(reader, 'POST', '/api/reports', {
      contentType: 'item',
      contentId: item.slug,
      reason: 'spam',
      details: 'The listing links to a phishing page.',
    })
    await as(reader, 'POST', '/api/reports', {
      contentType: 'comment',
      contentId: spam.id,
      reason: 'harassment',
      details: 'Spam in the comments.',
    })

    const page = await h.signedIn('/reports?status=pending')
    const table = page.getByRole('table', { name: 'Reports' })
    const review = table.getByRole('button', { name: `Review report on item ${item.slug}` })
    await review.waitFor()
    await page.getByRole('region', { name: 'All reports' }).getByText('Awaiting review').waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'reports')

    await page.getByLabel('Content type').selectOption('comment')
    await page.waitForURL(/contentType=comment/)
    await review.waitFor({ state: 'detached' })
    await table.getByRole('button', { name: `Review report on comment ${spam.id}` }).click()
    const commentDialog = page.getByRole('dialog', { name: `Report on comment ${spam.id}` })
    await commentDialog.getByText('Buy cheap pills at example.com').waitFor()
    await commentDialog.getByRole('button', { name: 'Close' }).click()

    await page.getByLabel('Content type').selectOption('')
    await review.click()
    const dialog = page.getByRole('dialog', { name: `Report on item ${item.slug}` })
    await dialog.getByRole('link', { name: item.name }).waitFor()
    await dialog.getByText(`Submitted by ${owner.name} (${owner.email})`).waitFor()
    await dialog.getByText('The listing links to a phishing page.').waitFor()
    assert.deepEqual(await seriousViolations(page), [])

    await dialog.getByLabel('Action').selectOption({ label: 'Warn the owner' })
    await dialog.getByLabel('Review note').fill('Confirmed: the link is a phishing page.')
    await dialog.getByRole('button', { name: 'Resolve' }).click()
    await page.getByText(/^Report resolved: /).waitFor()
    await dialog.waitFor({ state: 'hidden' })
    const saved = await admin<{ data: { status: string; resolution: string; reviewNote: string } }>(
      'GET',
      `/api/admin/reports/${report.report.id}`,
    )
    assert.equal(saved.data.status, 'resolved')
    assert.equal(saved.data.resolution, 'user_warned')
    assert.equal(saved.data.reviewNote, 'Confirmed: the link is a phishing page.')
    // Resolved, it has left the pending tab.
    await review.waitFor({ state: 'detached' })
  })
})

describe('admin console: comments', () => {
  it('approves, rejects with a note and deletes comments, each checked through the API', async () => {
    const author = await member('Carla Commenter')
    const item = await publishedItem(author, 'Commented Listing')
    const kind = await comment(author, item.id, 'Lovely place, the coffee is great.')
    const rude = await comment(author, item.id, 'Worst service ever, avoid.')
    const junk = await comment(author, item.id, 'Visit my site for free stuff!!!')

    const page = await h.signedIn(`/comments?status=pending&itemId=${item.id}`)
    const table = page.getByRole('table', { name: 'Comments' })
    await table.getByText('Lovely place, the coffee is great.').waitFor()
    await page.getByText(`Comments on ${item.name}`).waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'comments')

    await table.getByRole('button', { name: 'Approve comment “Lovely place, the coffee is great.”' }).click()
    await page.getByText('Comment “Lovely place, the coffee is great.” approved').waitFor()
    const approved = await admin<{ data: { status: string } }>('GET', `/api/admin/comments/${kind.id}`)
    assert.equal(approved.data.status, 'approved')

    await table.getByRole('button', { name: 'Reject comment “Worst service ever, avoid.”' }).click()
    const dialog = page.getByRole('dialog', { name: 'Reject this comment' })
    await dialog.getByLabel('Note (optional)').fill('Abusive.')
    assert.deepEqual(await seriousViolations(page), [])
    await dialog.getByRole('button', { name: 'Reject' }).click()
    await page.getByText('Comment “Worst service ever, avoid.” rejected').waitFor()
    const rejected = await admin<{ data: { status: string; moderationNote: string } }>(
      'GET',
      `/api/admin/comments/${rude.id}`,
    )
    assert.equal(rejected.data.status, 'rejected')
    assert.equal(rejected.data.moderationNote, 'Abusive.')

    await page.getByLabel('Search').fill('free stuff')
    await page.waitForURL(/search=free\+stuff|search=free%20stuff/)
    await table.getByRole('button', { name: 'Delete comment “Visit my site for free stuff!!!”' }).click()
    await page
      .getByRole('dialog', { name: 'Delete this comment?' })
      .getByRole('button', { name: 'Delete' })
      .click()
    await page.getByText('Comment “Visit my site for free stuff!!!” deleted').waitFor()
    assert.equal((await h.api('GET', `/api/admin/comments/${junk.id}`)).status, 404)
    await table.getByText('No comment matches these filters.').waitFor()
  })
})

describe('admin console: moderation screens on a phone', () => {
  it('fits 375 px: no screen is wider than the phone', async () => {
    const ads = await admin<{ data: Ad[] }>('GET', '/api/admin/sponsor-ads?status=active')
    const ad = ads.data[0]
    assert.ok(ad, 'an active ad from the tests above')
    const page = await h.signedIn('/sponsor-ads', { width: 375 })
    for (const [path, heading] of [
      ['/sponsor-ads', 'Sponsor ads'],
      [`/sponsor-ads/${ad.id}`, ad.title],
      ['/reports', 'Reports'],
      ['/comments', 'Comments'],
    ] as const) {
      await page.goto(`/admin${path}`)
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
      await page.getByRole('table').first().locator('tbody tr td').first().waitFor()
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      assert.ok(overflow <= 0, `${path} is ${overflow} px wider than the screen`)
    }
  })
})
