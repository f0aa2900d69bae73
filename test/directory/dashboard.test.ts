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
