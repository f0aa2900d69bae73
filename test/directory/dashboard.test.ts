import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  type DirectoryHarness,
  signUp,
  siteRequest,
  startDirectory,
  uniqueEmail,
  until,
} from '../helpers/apps.ts'

let h: DirectoryHarness
let admin: string
let member: string

before(async () => {
  h = await startDirectory()
  admin = await h.adminCookie()
  member = await signUp(h, 'Dash Board')
})
after(() => h.close())

const call = (
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  cookie: string | null = admin,
  payload?: unknown,
  app = h,
) => siteRequest(app, method, url, { cookie, payload })

async function stats(app = h, cookie = admin) {
  const res = await call('GET', '/api/admin/dashboard/stats', cookie, undefined, app)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data
}

describe('dashboard stats', () => {
  it('counts items, reviews, comments, clients and unread notices, and follows each write at once', async () => {
    const start = await stats()
    assert.deepEqual(start.items, { total: 0, published: 0, pending: 0, rejected: 0, draft: 0 })
    assert.equal(start.clients.newThisWeek, start.clients.total, 'every client is new this week')
    assert.equal(start.notifications.unread, 0)

    const published = await call('POST', '/api/admin/items', admin, { name: 'Shown', status: 'published' })
    const { slug } = published.json().data
    await call('POST', '/api/submit', member, { name: 'Proposed', url: 'https://example.com' })
    await call('POST', '/api/comments', member, { itemSlug: slug, body: 'Nice' })
    const after = await stats()
    assert.deepEqual(after.items, { total: 2, published: 1, pending: 1, rejected: 0, draft: 0 })
    assert.equal(after.pendingReviews, 1)
    assert.deepEqual(after.comments, { total: 1, awaitingModeration: 1 })
    assert.equal(after.notifications.unread, 2, 'the submission and the comment')

    await call('POST', '/api/admin/notifications/mark-all-read')
    assert.equal((await stats()).notifications.unread, 0)
    const registered = await call('POST', '/api/auth/register', null, {
      email: uniqueEmail('dash'),
      password: 'a good password',
      name: 'Newcomer',
    })
    assert.equal(registered.statusCode, 201)
    // A sign-up reaches the clients' figures through their table's trigger notification, a moment later.
    await until(
      async () => (await stats()).clients.total === start.clients.total + 1,
      'the newcomer is counted',
    )
  })

  it('is for admins only', async () => {
    assert.equal((await call('GET', '/api/admin/dashboard/stats', null)).statusCode, 401)
    assert.equal((await call('GET', '/api/admin/dashboard/stats', member)).statusCode, 403)
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
    await call('POST', '/api/admin/items', admin, { name: 'Elsewhere', status: 'draft' })
    await until(
      async () => (await stats(other, otherAdmin)).items.draft === before.items.draft + 1,
      'the draft is counted',
    )
    await call('POST', '/api/submit', member, { name: 'Proposed again', url: 'https://example.com' })
    await until(
      async () => (await stats(other, otherAdmin)).notifications.unread === before.notifications.unread + 1,
      'the new notice is counted',
    )
  })
})
