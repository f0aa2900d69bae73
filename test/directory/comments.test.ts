import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { count, eq } from 'drizzle-orm'
import { users } from '../../src/directory/accounts/tables.ts'
import { createCommentService } from '../../src/directory/comments/service.ts'
import { comments } from '../../src/directory/comments/tables.ts'
import { adminNotifications } from '../../src/directory/notifications/tables.ts'
import {
  type DirectoryHarness,
  randomAddress,
  sessionCookie,
  startDirectory,
  uniqueEmail,
} from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

let h: DirectoryHarness
let admin: string
/** The admin's requests, as the web app sends them. */
let api: Requests

before(async () => {
  h = await startDirectory()
  admin = await h.adminCookie()
  api = siteRequests(h, { cookie: admin })
})
after(() => h.close())

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

async function ok(method: Method, url: string, payload?: unknown, status = 200) {
  const res = await api.request(method, url, { body: payload })
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`)
  return res.json()
}

let counter = 0
const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 7)}`

async function item(body: Record<string, unknown> = {}) {
  return (await ok('POST', '/api/admin/items', { name: unique('Item'), status: 'published', ...body }, 201))
    .data as { id: string; slug: string; name: string }
}

interface Member {
  cookie: string
  id: string
  email: string
}

async function member(name = 'Ada Lovelace'): Promise<Member> {
  const email = uniqueEmail('comments')
  const res = await api.post(
    '/api/auth/register',
    { email, password: 'a good password', name },
    { cookie: null },
  )
  assert.equal(res.statusCode, 201, res.body)
  return { cookie: sessionCookie(res), id: res.json().user.id, email }
}

async function comment(who: Member, payload: Record<string, unknown>) {
  const res = await api.post('/api/comments', payload, { cookie: who.cookie })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as { id: string; status: string; body: string; itemId: string }
}

const publicComments = async (slug: string, query = '') => {
  const res = await api.get(`/api/items/${slug}/comments${query}`, { cookie: null })
  assert.equal(res.statusCode, 200, res.body)
  return res.json()
}

describe('posting a comment', () => {
  it('takes a signed-in user’s comment as pending, by slug or by id, with a notice for the admins', async () => {
    const ada = await member('Ada Lovelace')
    const target = await item()
    const res = await api.post(
      '/api/comments',
      { itemSlug: target.slug, body: '  Lovely cortado.  ' },
      { cookie: ada.cookie },
    )
    assert.equal(res.statusCode, 201, res.body)
    const { success, data } = res.json()
    assert.equal(success, true)
    assert.deepEqual(data, {
      id: data.id,
      itemId: target.id,
      body: 'Lovely cortado.',
      status: 'pending',
      author: { id: ada.id, name: 'Ada Lovelace' },
      createdAt: h.clock.now().toISOString(),
    })
    const byId = await comment(ada, { itemId: target.id, body: 'Second visit, still good.' })
    assert.equal(byId.itemId, target.id)

    const notices = await h.databases.directory.db
      .select()
      .from(adminNotifications)
      .where(eq(adminNotifications.type, 'comment_pending'))
    const mine = notices.filter((notice) => notice.data.commentId === data.id)
    assert.equal(mine.length, 1)
    assert.equal(mine[0]!.title, `New comment on ${target.name}`)
    assert.match(mine[0]!.message, /Ada Lovelace commented on .*Lovely cortado\./)
    assert.deepEqual(mine[0]!.data, {
      commentId: data.id,
      itemId: target.id,
      itemSlug: target.slug,
      authorId: ada.id,
    })
    assert.equal(mine[0]!.readAt, null)
    const read = await ok('GET', `/api/admin/comments/${data.id}`)
    assert.equal(read.data.status, 'pending')
    assert.deepEqual(read.data.author, { id: ada.id, name: 'Ada Lovelace', email: ada.email })
  })

  it('needs a session', async () => {
    const target = await item()
    const res = await api.post('/api/comments', { itemSlug: target.slug, body: 'Hi' }, { cookie: null })
    assert.equal(res.statusCode, 401)
    assert.equal(res.json().code, 'UNAUTHORIZED')
  })

  it('answers 404 for a missing or unpublished item, and writes nothing', async () => {
    const ada = await member()
    const draft = await item({ status: 'draft' })
    const pending = await item({ status: 'pending' })
    for (const payload of [
      { itemSlug: 'no-such-item' },
      { itemId: '00000000-0000-4000-8000-000000000000' },
      { itemId: 'not-a-uuid' },
      { itemSlug: draft.slug },
      { itemId: pending.id },
    ]) {
      const res = await api.post('/api/comments', { ...payload, body: 'Hello' }, { cookie: ada.cookie })
      assert.equal(res.statusCode, 404, JSON.stringify(payload))
      assert.equal(res.json().code, 'ITEM_NOT_FOUND')
    }
    const stored = await h.databases.directory.db.select().from(comments).where(eq(comments.authorId, ada.id))
    assert.deepEqual(stored, [])
  })

  it('answers 400 naming body.body for an empty, blank or oversized body', async () => {
    const ada = await member()
    const target = await item()
    for (const body of ['', ' \n\t ', 'x'.repeat(2001)]) {
      const res = await api.post('/api/comments', { itemSlug: target.slug, body }, { cookie: ada.cookie })
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().code, 'VALIDATION_ERROR')
      assert.deepEqual(
        res.json().details.map((d: { field: string }) => d.field),
        ['body.body'],
      )
    }
    const longest = await comment(ada, { itemSlug: target.slug, body: 'x'.repeat(2000) })
    assert.equal(longest.body.length, 2000)
  })

  it('needs exactly one of itemId and itemSlug', async () => {
    const ada = await member()
    const target = await item()
    const neither = await api.post('/api/comments', { body: 'Hi' }, { cookie: ada.cookie })
    assert.equal(neither.statusCode, 400)
    assert.equal(neither.json().details[0].field, 'body.itemId')
    const both = await api.post(
      '/api/comments',
      { itemId: target.id, itemSlug: target.slug, body: 'Hi' },
      { cookie: ada.cookie },
    )
    assert.equal(both.statusCode, 400)
    assert.equal(both.json().details[0].field, 'body.itemSlug')
  })

  it('stores markup as text and shows it back as sent', async () => {
    const ada = await member()
    const target = await item()
    const markup = '<script>alert("hi")</script> <b>bold</b> &amp;'
    const posted = await comment(ada, { itemSlug: target.slug, body: markup })
    assert.equal(posted.body, markup)
    await ok('PUT', `/api/admin/comments/${posted.id}`, { status: 'approved' })
    const res = await api.get(`/api/items/${target.slug}/comments`, { cookie: null })
    assert.match(res.headers['content-type'] as string, /^application\/json/)
    assert.equal(res.json().data[0].body, markup)
  })

  it('allows 10 comments per minute per client, with SPEC.md’s headers', async () => {
    const ada = await member()
    const target = await item()
    const address = randomAddress()
    const post = () =>
      api.post('/api/comments', { itemSlug: target.slug, body: 'Again' }, { cookie: ada.cookie, address })
    for (let i = 0; i < 10; i++) {
      const res = await post()
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.headers['x-ratelimit-limit'], '10')
      assert.equal(res.headers['x-ratelimit-remaining'], String(9 - i))
    }
    const denied = await post()
    assert.equal(denied.statusCode, 429)
    assert.equal(denied.json().code, 'RATE_LIMITED')
    assert.equal(denied.headers['x-ratelimit-remaining'], '0')
    assert.equal(denied.headers['retry-after'], '60')
    assert.ok(Number(denied.headers['x-ratelimit-reset']) > 0)
    h.clock.advance(60_000)
    assert.equal((await post()).statusCode, 201)
  })
})

describe('the public read of an item’s comments', () => {
  it('shows only approved comments, oldest first, with the author’s name and never their email', async () => {
    const ada = await member('Ada Lovelace')
    // An account from an identity provider may have no name.
    const nameless = await member()
    await h.databases.directory.db.update(users).set({ name: null }).where(eq(users.id, nameless.id))
    const target = await item()
    const first = await comment(ada, { itemSlug: target.slug, body: 'First' })
    h.clock.advance(1000)
    const hidden = await comment(ada, { itemSlug: target.slug, body: 'Still pending' })
    h.clock.advance(1000)
    const rejected = await comment(nameless, { itemSlug: target.slug, body: 'Spam' })
    h.clock.advance(1000)
    const third = await comment(nameless, { itemSlug: target.slug, body: 'Third' })
    // Approved in the opposite order to show the list follows when they were written.
    await ok('PUT', `/api/admin/comments/${third.id}`, { status: 'approved' })
    await ok('PUT', `/api/admin/comments/${first.id}`, { status: 'approved' })
    await ok('PUT', `/api/admin/comments/${rejected.id}`, { status: 'rejected' })

    const page = await publicComments(target.slug)
    assert.deepEqual(page.data, [
      {
        id: first.id,
        body: 'First',
        author: { id: ada.id, name: 'Ada Lovelace' },
        createdAt: (await ok('GET', `/api/admin/comments/${first.id}`)).data.createdAt,
      },
      {
        id: third.id,
        body: 'Third',
        author: { id: nameless.id, name: null },
        createdAt: (await ok('GET', `/api/admin/comments/${third.id}`)).data.createdAt,
      },
    ])
    assert.deepEqual(page.meta, { page: 1, limit: 20, total: 2, totalPages: 1 })
    assert.ok(!JSON.stringify(page).includes(ada.email))
    assert.ok(!page.data.some((c: { id: string }) => c.id === hidden.id))

    const second = await publicComments(target.slug, '?page=2&limit=1')
    assert.deepEqual(
      second.data.map((c: { id: string }) => c.id),
      [third.id],
    )
    assert.deepEqual(second.meta, { page: 2, limit: 1, total: 2, totalPages: 2 })
  })

  it('answers 404 for an unknown or unpublished item, also once it had comments', async () => {
    const ada = await member()
    const target = await item()
    const posted = await comment(ada, { itemSlug: target.slug, body: 'Nice' })
    await ok('PUT', `/api/admin/comments/${posted.id}`, { status: 'approved' })
    await ok('PUT', `/api/admin/items/${target.id}`, { status: 'draft' })
    const draft = await item({ status: 'draft' })
    for (const slug of [target.slug, draft.slug, 'no-such-item']) {
      const res = await api.get(`/api/items/${slug}/comments`, { cookie: null })
      assert.equal(res.statusCode, 404)
      assert.equal(res.json().code, 'ITEM_NOT_FOUND')
    }
  })

  it('answers 400 for a page or limit out of range', async () => {
    const target = await item()
    for (const query of ['?limit=0', '?limit=101', '?page=0']) {
      const res = await api.get(`/api/items/${target.slug}/comments${query}`, { cookie: null })
      assert.equal(res.statusCode, 400, query)
    }
  })
})

describe('moderation', () => {
  it('approves, rejects and approves again, recording who and when; 409 on a repeat', async () => {
    const ada = await member()
    const target = await item()
    const posted = await comment(ada, { itemSlug: target.slug, body: 'Moderate me' })
    h.clock.advance(5000)
    const approved = (await ok('PUT', `/api/admin/comments/${posted.id}`, { status: 'approved' })).data
    const viewer = await api.get('/api/current-user')
    const adminId = viewer.json().id
    assert.equal(approved.status, 'approved')
    assert.equal(approved.moderatedBy, adminId)
    assert.equal(approved.moderatedAt, h.clock.now().toISOString())
    assert.equal(approved.updatedAt, h.clock.now().toISOString())
    assert.equal(approved.moderationNote, null)
    assert.deepEqual(approved.item, { id: target.id, slug: target.slug, name: target.name })

    const again = await api.put(`/api/admin/comments/${posted.id}`, { status: 'approved' })
    assert.equal(again.statusCode, 409)
    assert.equal(again.json().code, 'COMMENT_ALREADY_APPROVED')

    const rejected = (
      await ok('PUT', `/api/admin/comments/${posted.id}`, { status: 'rejected', note: '  Off topic.  ' })
    ).data
    assert.equal(rejected.status, 'rejected')
    assert.equal(rejected.moderationNote, 'Off topic.')
    assert.equal((await publicComments(target.slug)).meta.total, 0)
    const twice = await api.put(`/api/admin/comments/${posted.id}`, { status: 'rejected' })
    assert.equal(twice.statusCode, 409)
    assert.equal(twice.json().code, 'COMMENT_ALREADY_REJECTED')

    await ok('PUT', `/api/admin/comments/${posted.id}`, { status: 'approved' })
    assert.equal((await publicComments(target.slug)).meta.total, 1)
  })

  it('serves two racing approvals one after the other: one wins, the other is 409', async () => {
    const ada = await member()
    const target = await item()
    const posted = await comment(ada, { itemSlug: target.slug, body: 'Race' })
    const answers = await Promise.all(
      [0, 1].map(() => api.put(`/api/admin/comments/${posted.id}`, { status: 'approved' })),
    )
    assert.deepEqual(
      answers.map((res) => res.statusCode).sort(),
      [200, 409],
      answers.map((res) => res.body).join(),
    )
    assert.equal(answers.find((res) => res.statusCode === 409)!.json().code, 'COMMENT_ALREADY_APPROVED')
  })

  it('refuses a status other than approved or rejected', async () => {
    const ada = await member()
    const posted = await comment(ada, { itemSlug: (await item()).slug, body: 'Hi' })
    const res = await api.put(`/api/admin/comments/${posted.id}`, { status: 'pending' })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().details[0].field, 'body.status')
  })

  it('answers 404 COMMENT_NOT_FOUND for unknown and non-uuid ids on every route', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      for (const [method, payload] of [
        ['GET', undefined],
        ['PUT', { status: 'approved' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await api.request(method, `/api/admin/comments/${id}`, { body: payload })
        assert.equal(res.statusCode, 404, `${method} ${id}`)
        assert.equal(res.json().code, 'COMMENT_NOT_FOUND')
      }
    }
  })

  it('deletes a comment for good', async () => {
    const ada = await member()
    const target = await item()
    const posted = await comment(ada, { itemSlug: target.slug, body: 'Bye' })
    await ok('PUT', `/api/admin/comments/${posted.id}`, { status: 'approved' })
    assert.deepEqual(await ok('DELETE', `/api/admin/comments/${posted.id}`), {
      success: true,
      message: 'Comment deleted',
    })
    assert.equal((await api.get(`/api/admin/comments/${posted.id}`)).statusCode, 404)
    assert.equal((await api.delete(`/api/admin/comments/${posted.id}`)).statusCode, 404)
    assert.equal((await publicComments(target.slug)).meta.total, 0)
  })

  it('keeps moderation to admins: 401 without a session, 403 for a member', async () => {
    const ada = await member()
    const posted = await comment(ada, { itemSlug: (await item()).slug, body: 'Mine' })
    for (const cookie of [null, ada.cookie]) {
      const res = await api.put(`/api/admin/comments/${posted.id}`, { status: 'approved' }, { cookie })
      assert.equal(res.statusCode, cookie ? 403 : 401)
    }
    assert.equal((await ok('GET', `/api/admin/comments/${posted.id}`)).data.status, 'pending')
  })
})

describe('the admin list and stats', () => {
  it('filters by status, item and search over the body and the author, newest first', async () => {
    const marker = `m${Math.random().toString(36).slice(2, 8)}`
    const grace = await member(`Grace ${marker}`)
    const ada = await member('Ada Lovelace')
    const one = await item()
    const two = await item()
    const a = await comment(ada, { itemSlug: one.slug, body: `About beans ${marker}` })
    h.clock.advance(1000)
    const b = await comment(grace, { itemSlug: one.slug, body: 'About milk' })
    h.clock.advance(1000)
    const c = await comment(ada, { itemSlug: two.slug, body: 'Elsewhere' })
    await ok('PUT', `/api/admin/comments/${b.id}`, { status: 'approved' })

    const ids = (answer: { data: { id: string }[] }) => answer.data.map((comment) => comment.id)
    const byItem = await ok('GET', `/api/admin/comments?itemId=${one.id}`)
    assert.deepEqual(ids(byItem), [b.id, a.id])
    assert.deepEqual(byItem.meta, { page: 1, limit: 10, total: 2, totalPages: 1 })
    assert.deepEqual(ids(await ok('GET', `/api/admin/comments?itemId=${one.id}&status=pending`)), [a.id])
    assert.deepEqual(ids(await ok('GET', `/api/admin/comments?itemId=${one.id}&status=approved`)), [b.id])

    const searched = await ok('GET', `/api/admin/comments?search=${marker.toUpperCase()}`)
    assert.deepEqual(ids(searched), [b.id, a.id], 'the body and the author’s name, whatever the case')
    assert.equal(searched.meta.total, 2)
    const byEmail = await ok('GET', `/api/admin/comments?search=${encodeURIComponent(ada.email)}`)
    assert.deepEqual(ids(byEmail), [c.id, a.id])
    assert.equal((await ok('GET', '/api/admin/comments?search=100%25')).meta.total, 0)

    const paged = await ok(
      'GET',
      `/api/admin/comments?search=${encodeURIComponent(ada.email)}&limit=1&page=2`,
    )
    assert.deepEqual(ids(paged), [a.id])
    assert.deepEqual(paged.meta, { page: 2, limit: 1, total: 2, totalPages: 2 })
    assert.equal((await api.get('/api/admin/comments?status=bogus')).statusCode, 400)
    assert.equal((await api.get('/api/admin/comments?itemId=nope')).statusCode, 400)
  })

  it('counts comments in each status, /stats not taken for an id', async () => {
    const before = (await ok('GET', '/api/admin/comments/stats')).data
    const ada = await member()
    const target = await item()
    const p = await comment(ada, { itemSlug: target.slug, body: 'approved soon' })
    const q = await comment(ada, { itemSlug: target.slug, body: 'rejected soon' })
    await comment(ada, { itemSlug: target.slug, body: 'left pending' })
    await ok('PUT', `/api/admin/comments/${p.id}`, { status: 'approved' })
    await ok('PUT', `/api/admin/comments/${q.id}`, { status: 'rejected' })
    const after = (await ok('GET', '/api/admin/comments/stats')).data
    assert.deepEqual(after, {
      total: before.total + 3,
      pending: before.pending + 1,
      approved: before.approved + 1,
      rejected: before.rejected + 1,
    })
  })

  it('keeps the counts exact through deletions and the cascades of an item’s and an account’s deletion', async () => {
    const real = async () => {
      const rows = await h.databases.directory.db
        .select({ status: comments.status, n: count() })
        .from(comments)
        .groupBy(comments.status)
      const of = (status: string) => rows.find((row) => row.status === status)?.n ?? 0
      const [pending, approved, rejected] = [of('pending'), of('approved'), of('rejected')]
      return { total: pending + approved + rejected, pending, approved, rejected }
    }
    const grace = await member('Grace Hopper')
    const doomed = await item()
    const kept = await item()
    const first = await comment(grace, { itemSlug: doomed.slug, body: 'on a doomed item' })
    await ok('PUT', `/api/admin/comments/${first.id}`, { status: 'approved' })
    await comment(grace, { itemSlug: doomed.slug, body: 'pending on a doomed item' })
    const gone = await comment(grace, { itemSlug: kept.slug, body: 'deleted by an admin' })
    await ok('DELETE', `/api/admin/comments/${gone.id}`)
    assert.deepEqual((await ok('GET', '/api/admin/comments/stats')).data, await real())
    await ok('DELETE', `/api/admin/items/${doomed.id}`)
    assert.deepEqual((await ok('GET', '/api/admin/comments/stats')).data, await real())
    await comment(grace, { itemSlug: kept.slug, body: 'the author goes' })
    await ok('DELETE', `/api/admin/users/${grace.id}`)
    assert.deepEqual((await ok('GET', '/api/admin/comments/stats')).data, await real())
  })
})

describe('what a comment goes with', () => {
  it('deleting an item deletes its comments', async () => {
    const ada = await member()
    const target = await item()
    const posted = await comment(ada, { itemSlug: target.slug, body: 'Gone soon' })
    await ok('DELETE', `/api/admin/items/${target.id}`)
    assert.equal((await api.get(`/api/admin/comments/${posted.id}`)).statusCode, 404)
    assert.equal((await ok('GET', `/api/admin/comments?itemId=${target.id}`)).meta.total, 0)
  })

  it('deleting an account deletes its comments', async () => {
    const ada = await member()
    const posted = await comment(ada, { itemSlug: (await item()).slug, body: 'Mine' })
    await ok('DELETE', `/api/admin/users/${ada.id}`)
    assert.equal((await api.get(`/api/admin/comments/${posted.id}`)).statusCode, 404)
  })
})

describe('post-moderation', () => {
  it('shows a comment at once and raises no pending notice when the site moderates afterwards', async () => {
    const ada = await member()
    const target = await item()
    const service = createCommentService({
      db: h.databases.directory.db,
      clock: h.clock,
      moderation: () => 'post',
    })
    const posted = await service.post(
      { itemSlug: target.slug, body: 'Straight up' },
      { id: ada.id, name: 'Ada Lovelace', email: ada.email },
    )
    assert.equal(posted.status, 'approved')
    assert.deepEqual(
      (await publicComments(target.slug)).data.map((c: { id: string }) => c.id),
      [posted.id],
    )
    const notices = await h.databases.directory.db
      .select()
      .from(adminNotifications)
      .where(eq(adminNotifications.type, 'comment_pending'))
    assert.ok(!notices.some((notice) => notice.data.commentId === posted.id))
  })
})
