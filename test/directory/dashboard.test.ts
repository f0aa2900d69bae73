import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type DirectoryHarness, signUp, startDirectory, uniqueEmail, until } from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

let h: DirectoryHarness
let admin: string
/** The admin's requests, as the web app sends them. */
let api: Requests
let member: string

before(async () => {
  h = await startDirectory()
  admin = await h.adminCookie()
  api = siteRequests(h, { cookie: admin })
  member = await signUp(h, 'Dash Board')
})
after(() => h.close())

async function stats(app = h, cookie = admin) {
  const res = await api.on(app).get('/api/admin/dashboard/stats', { cookie })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data
}

describe('dashboard stats', () => {
  it('counts items, reviews, comments, clients and unread notices, and follows each write at once', async () => {
    const start = await stats()
    assert.deepEqual(start.items, { total: 0, published: 0, pending: 0, rejected: 0, draft: 0 })
    assert.equal(start.clients.newThisWeek, start.clients.total, 'every client is new this week')
    assert.equal(start.notifications.unread, 0)

    const published = await api.post(
      '/api/admin/items',
      { name: 'Shown', status: 'published' },
      { cookie: admin },
    )
    const { slug } = published.json().data
    await api.post('/api/submit', { name: 'Proposed', url: 'https://example.com' }, { cookie: member })
    await api.post('/api/comments', { itemSlug: slug, body: 'Nice' }, { cookie: member })
    const after = await stats()
    assert.deepEqual(after.items, { total: 2, published: 1, pending: 1, rejected: 0, draft: 0 })
    assert.equal(after.pendingReviews, 1)
    assert.deepEqual(after.comments, { total: 1, awaitingModeration: 1 })
    assert.equal(after.notifications.unread, 2, 'the submission and the comment')

    await api.post('/api/admin/notifications/mark-all-read')
    assert.equal((await stats()).notifications.unread, 0)
    const registered = await api.post(
      '/api/auth/register',
      {
        email: uniqueEmail('dash'),
        password: 'a good password',
        name: 'Newcomer',
      },
      { cookie: null },
    )
    assert.equal(registered.statusCode, 201)
    // A sign-up reaches the clients' figures through their table's trigger notification, a moment later.
    await until(
      async () => (await stats()).clients.total === start.clients.total + 1,
      'the newcomer is counted',
    )
  })

  it('is for admins only', async () => {
    assert.equal((await api.get('/api/admin/dashboard/stats', { cookie: null })).statusCode, 401)
    assert.equal((await api.get('/api/admin/dashboard/stats', { cookie: member })).statusCode, 403)
  })
})

describe('dashboard stats across instances', () => {
  let other: DirectoryHarness
  before(async () => {
    other = await startDirectory({ databases: h.databases, clockStart: h.clock.nowMs() })
  })
  after(() => other.close())

  it('a write on one instance shows in the other’s figures', async () => {
    const otherAdmin = await other.adminCookie()
    const before = await stats(other, otherAdmin)
    await api.post('/api/admin/items', { name: 'Elsewhere', status: 'draft' }, { cookie: admin })
    await until(
      async () => (await stats(other, otherAdmin)).items.draft === before.items.draft + 1,
      'the draft is counted',
    )
    await api.post('/api/submit', { name: 'Proposed again', url: 'https://example.com' }, { cookie: member })
    await until(
      async () => (await stats(other, otherAdmin)).notifications.unread === before.notifications.unread + 1,
      'the new notice is counted',
    )
  })
})

describe('dashboard activity over time', () => {
  async function activity(query = '') {
    const res = await api.get(`/api/admin/dashboard/activity${query}`, { cookie: admin })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

  it('counts each day’s changes, comments and new clients, names the most favorited items and the latest changes', async () => {
    const today = day(h.clock.nowMs())
    const before = await activity('?days=7')
    assert.equal(before.days, 7)
    assert.equal(before.series.length, 7, 'every day, zeros included')
    assert.equal(before.to, today)
    assert.equal(before.series.at(-1).date, today)
    assert.equal(before.series[0].date, before.from)
    const todayBefore = before.series.at(-1)

    const created = await api.post(
      '/api/admin/items',
      { name: 'Counted', status: 'published' },
      { cookie: admin },
    )
    const item = created.json().data
    // A second between changes, as between a person's clicks: the latest change is the last one made.
    h.clock.advance(1000)
    const submitted = await api.post(
      '/api/submit',
      { name: 'Proposed daily', url: 'https://example.org' },
      { cookie: member },
    )
    assert.equal(submitted.statusCode, 201, submitted.body)
    const proposal = submitted.json().data ?? submitted.json().item
    h.clock.advance(1000)
    await api.post(
      `/api/admin/items/${proposal.id}/review`,
      { action: 'reject', note: 'Not a fit' },
      { cookie: admin },
    )
    await api.post('/api/comments', { itemSlug: item.slug, body: 'Counted too' }, { cookie: member })
    const favorite = await api.post(
      '/api/favorites',
      { itemSlug: item.slug, itemName: item.name },
      { cookie: member },
    )
    assert.equal(favorite.statusCode, 201, favorite.body)

    const after = await activity('?days=7')
    const todayAfter = after.series.at(-1)
    assert.equal(todayAfter.created, todayBefore.created + 1)
    assert.equal(todayAfter.submissions, todayBefore.submissions + 1)
    assert.equal(todayAfter.rejected, todayBefore.rejected + 1)
    assert.equal(todayAfter.comments, todayBefore.comments + 1)
    assert.deepEqual(after.topItems[0], {
      id: item.id,
      slug: item.slug,
      name: 'Counted',
      status: 'published',
      favorites: 1,
      comments: 1,
    })
    const [latest] = after.recent
    assert.equal(latest.action, 'rejected')
    assert.equal(latest.note, 'Not a fit')
    assert.equal(latest.item.id, proposal.id)
    assert.equal(latest.item.deleted, false)
    assert.ok(latest.actor?.email, 'the admin who rejected it')

    // Two days later the same changes are two days back, and a deleted item is still named by its id.
    h.clock.advance(2 * 86_400_000)
    await api.delete(`/api/admin/items/${proposal.id}`, { cookie: admin })
    const later = await activity('?days=7')
    assert.equal(later.to, day(h.clock.nowMs()))
    assert.equal(later.series.at(-3).date, today)
    assert.equal(later.series.at(-3).created, todayAfter.created)
    assert.equal(later.series.at(-1).deleted, 1)
    assert.equal(later.recent[0].action, 'deleted')
    assert.equal(later.recent[0].item.deleted, true)
    assert.equal(later.recent[0].item.name, null)
  })

  it('takes 7 to 365 days (30 by default), and is for admins only', async () => {
    assert.equal((await activity()).series.length, 30)
    const tooMany = await api.get('/api/admin/dashboard/activity?days=400', { cookie: admin })
    assert.equal(tooMany.statusCode, 400)
    assert.equal(tooMany.json().details[0].field, 'query.days')
    assert.equal((await api.get('/api/admin/dashboard/activity', { cookie: null })).statusCode, 401)
    assert.equal((await api.get('/api/admin/dashboard/activity', { cookie: member })).statusCode, 403)
  })
})
