import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { and, eq } from 'drizzle-orm'
import { clientProfiles } from '../../src/directory/clients/tables.ts'
import { adminNotifications } from '../../src/directory/notifications/tables.ts'
import { reports } from '../../src/directory/reports/tables.ts'
import { type DirectoryHarness, sessionCookie, startDirectory, uniqueEmail } from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

let h: DirectoryHarness
let admin: string
let adminId: string
/** The admin's requests, as the web app sends them. */
let api: Requests

before(async () => {
  h = await startDirectory()
  const email = uniqueEmail('moderator')
  admin = await h.adminCookie(email)
  api = siteRequests(h, { cookie: admin })
  const me = await api.get('/api/current-user')
  adminId = me.json().id
})
after(() => h.close())

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

async function ok(method: Method, url: string, payload?: unknown, cookie: string | null = admin) {
  const res = await api.request(method, url, { body: payload, cookie })
  assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`)
  return res.json()
}

interface Member {
  cookie: string
  id: string
  email: string
  password: string
  name: string
}

let counter = 0
const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 7)}`

async function member(name = 'Ada Lovelace'): Promise<Member> {
  const email = uniqueEmail('reports')
  const password = 'a good password'
  const res = await api.post('/api/auth/register', { email, password, name }, { cookie: null })
  assert.equal(res.statusCode, 201, res.body)
  return { cookie: sessionCookie(res), id: res.json().user.id, email, password, name }
}

/** An item submitted by `owner` through the site, then published by the admin. */
async function submittedItem(owner: Member) {
  const res = await api.post(
    '/api/submit',
    { name: unique('Listing'), url: 'https://example.com' },
    { cookie: owner.cookie },
  )
  assert.equal(res.statusCode, 201, res.body)
  const item = res.json().data as { id: string; slug: string; name: string }
  await ok('POST', `/api/admin/items/${item.id}/review`, { action: 'approve' })
  return item
}

async function commentBy(owner: Member, itemId: string) {
  const res = await api.post(
    '/api/comments',
    { itemId, body: 'Buy cheap pills here' },
    { cookie: owner.cookie },
  )
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as { id: string }
}

async function report(who: Member, body: Record<string, unknown>) {
  const res = await api.post('/api/reports', body, { cookie: who.cookie })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().report as { id: string; status: string; contentId: string }
}

const signIn = (who: Member) =>
  api.post('/api/auth/signin', { email: who.email, password: who.password }, { cookie: null })

async function clientIdOf(userId: string) {
  const [row] = await h.databases.directory.db
    .select({ id: clientProfiles.id })
    .from(clientProfiles)
    .where(eq(clientProfiles.userId, userId))
  assert.ok(row)
  return row.id
}

describe('POST /api/reports', () => {
  it('takes a report of an item by slug: pending, answered as SPEC.md shows, and the admins are notified', async () => {
    const owner = await member('Owner')
    const reader = await member('Reader')
    const item = await submittedItem(owner)
    const res = await api.post(
      '/api/reports',
      { contentType: 'item', contentId: item.slug, reason: 'spam', details: '  Links to a phishing page.  ' },
      { cookie: reader.cookie },
    )
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(body.message, 'Report submitted')
    assert.deepEqual(Object.keys(body.report).sort(), [
      'contentId',
      'contentType',
      'createdAt',
      'id',
      'reason',
      'status',
    ])
    assert.equal(body.report.status, 'pending')
    assert.equal(body.report.contentId, item.slug)

    const notices = await h.databases.directory.db
      .select()
      .from(adminNotifications)
      .where(eq(adminNotifications.type, 'report_created'))
    assert.ok(
      notices.some((notice) => notice.data.reportId === body.report.id && notice.title.includes(item.name)),
    )

    const read = await ok('GET', `/api/admin/reports/${body.report.id}`)
    assert.equal(read.data.details, 'Links to a phishing page.')
    assert.deepEqual(read.data.reporter, { id: reader.id, name: 'Reader', email: reader.email })
    assert.equal(read.data.reviewer, null)
    assert.deepEqual(read.data.content, { found: true, id: item.id, title: item.name, ownerId: owner.id })
  })

  it('the admins’ notification of a report is a sentence naming the content and the reason', async () => {
    const owner = await member('Owner')
    const item = await submittedItem(owner)
    const comment = await commentBy(owner, item.id)
    const reported = [
      [
        await member(),
        { contentType: 'item', contentId: item.slug, reason: 'spam' },
        'An item was reported as spam.',
      ],
      [
        await member(),
        { contentType: 'comment', contentId: comment.id, reason: 'harassment' },
        'A comment was reported for harassment.',
      ],
      [
        await member(),
        { contentType: 'item', contentId: item.id, reason: 'inappropriate' },
        'An item was reported as inappropriate.',
      ],
      [
        await member(),
        { contentType: 'comment', contentId: comment.id, reason: 'other' },
        'A comment was reported for another reason.',
      ],
    ] as const
    const ids: string[] = []
    for (const [who, body] of reported) ids.push((await report(who, body)).id)
    const { data } = await ok('GET', '/api/admin/notifications?type=report_created&limit=100')
    const notices = data as { message: string; data: { reportId?: string } }[]
    assert.deepEqual(
      ids.map((id) => notices.find((notice) => notice.data.reportId === id)?.message),
      reported.map(([, , sentence]) => sentence),
    )
  })

  it('refuses a second report of the same content by the same user, by id or by slug: 409', async () => {
    const owner = await member()
    const reader = await member()
    const item = await submittedItem(owner)
    await report(reader, { contentType: 'item', contentId: item.slug, reason: 'spam' })
    const again = await api.post(
      '/api/reports',
      { contentType: 'item', contentId: item.id, reason: 'other' },
      { cookie: reader.cookie },
    )
    assert.equal(again.statusCode, 409, again.body)
    assert.equal(again.json().code, 'REPORT_DUPLICATE')
    // Another user may report it too.
    await report(await member(), { contentType: 'item', contentId: item.id, reason: 'spam' })
  })

  it('takes exactly one of eight identical reports sent at once', async () => {
    const reader = await member()
    const contentId = unique('racing-slug')
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.post(
          '/api/reports',
          { contentType: 'item', contentId, reason: 'spam' },
          { cookie: reader.cookie },
        ),
      ),
    )
    const statuses = answers.map((res) => res.statusCode).sort()
    assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409, 409, 409])
    const rows = await h.databases.directory.db
      .select()
      .from(reports)
      .where(and(eq(reports.reportedBy, reader.id), eq(reports.contentId, contentId)))
    assert.equal(rows.length, 1)
  })

  it('accepts content this database does not hold (SPEC.md lists no error for it)', async () => {
    const reader = await member()
    const created = await report(reader, {
      contentType: 'comment',
      contentId: 'not-a-comment-here',
      reason: 'other',
    })
    const read = await ok('GET', `/api/admin/reports/${created.id}`)
    assert.deepEqual(read.data.content, { found: false, id: null, title: null, ownerId: null })
  })

  it('names every failing field in one 400', async () => {
    const reader = await member()
    const res = await api.post(
      '/api/reports',
      { contentType: 'post', contentId: '', reason: 'boring' },
      { cookie: reader.cookie },
    )
    assert.equal(res.statusCode, 400, res.body)
    const fields = (res.json().details as { field: string }[]).map((issue) => issue.field).sort()
    assert.deepEqual(fields, ['body.contentId', 'body.contentType', 'body.reason'])
    const missing = await api.post(
      '/api/reports',
      { contentType: 'item', reason: 'spam' },
      { cookie: reader.cookie },
    )
    assert.equal(missing.statusCode, 400)
    assert.deepEqual(
      (missing.json().details as { field: string }[]).map((issue) => issue.field),
      ['body.contentId'],
    )
  })

  it('needs a session (401) and a client profile (403)', async () => {
    const body = { contentType: 'item', contentId: 'x', reason: 'spam' }
    const anonymous = await api.post('/api/reports', body, { cookie: null })
    assert.equal(anonymous.statusCode, 401)
    // An admin may delete a client's profile and leave the account: that user can no longer report.
    const reader = await member()
    await ok('DELETE', `/api/admin/clients/${await clientIdOf(reader.id)}`)
    const res = await api.post('/api/reports', body, { cookie: reader.cookie })
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().code, 'CLIENT_PROFILE_REQUIRED')
  })

  it('refuses a suspended user (403), and lifts that when an admin sets the client active again', async () => {
    const reader = await member()
    const clientId = await clientIdOf(reader.id)
    await ok('PUT', `/api/admin/clients/${clientId}`, { status: 'suspended' })
    const body = { contentType: 'item', contentId: unique('slug'), reason: 'spam' }
    const refused = await api.post('/api/reports', body, { cookie: reader.cookie })
    assert.equal(refused.statusCode, 403, refused.body)
    assert.equal(refused.json().code, 'ACCOUNT_SUSPENDED')
    assert.equal((await signIn(reader)).json().code, 'ACCOUNT_SUSPENDED')
    await ok('PUT', `/api/admin/clients/${clientId}`, { status: 'active' })
    await report(reader, body)
    assert.equal((await signIn(reader)).statusCode, 200)
  })
})

describe('admin reads', () => {
  it('lists with search over content id, details, reporter name and email; filters; stats', async () => {
    const tag = unique('needle')
    const reader = await member(`Reader ${tag}`)
    const other = await member()
    await report(reader, { contentType: 'item', contentId: unique('plain'), reason: 'spam' })
    await report(other, { contentType: 'comment', contentId: `${tag}-comment`, reason: 'harassment' })
    await report(other, {
      contentType: 'item',
      contentId: unique('plain'),
      reason: 'other',
      details: `see ${tag.toUpperCase()}`,
    })

    const found = await ok('GET', `/api/admin/reports?search=${tag}`)
    assert.equal(found.data.pagination.total, 3)
    assert.equal(found.data.reports.length, 3)
    const byEmail = await ok('GET', `/api/admin/reports?search=${encodeURIComponent(reader.email)}`)
    assert.equal(byEmail.data.pagination.total, 1)
    assert.equal(byEmail.data.reports[0].reporter.email, reader.email)
    const comments = await ok('GET', `/api/admin/reports?search=${tag}&contentType=comment&reason=harassment`)
    assert.equal(comments.data.pagination.total, 1)
    const paged = await ok('GET', `/api/admin/reports?search=${tag}&limit=2&page=2`)
    assert.deepEqual(paged.data.pagination, { total: 3, page: 2, limit: 2, totalPages: 2 })
    assert.equal(paged.data.reports.length, 1)
    const literal = await ok('GET', '/api/admin/reports?search=%25')
    assert.equal(literal.data.pagination.total, 0, 'a % in the search is text, not a pattern')

    const stats = (await ok('GET', '/api/admin/reports/stats')).data
    const listed = await ok('GET', '/api/admin/reports?limit=100')
    assert.equal(stats.total, listed.data.pagination.total)
    assert.deepEqual(Object.keys(stats.byStatus).sort(), ['dismissed', 'pending', 'resolved', 'reviewed'])
    assert.deepEqual(Object.keys(stats.byReason).sort(), ['harassment', 'inappropriate', 'other', 'spam'])
    assert.equal(stats.byContentType.item + stats.byContentType.comment, stats.total)
    assert.equal(stats.pendingCount, stats.byStatus.pending)
    assert.ok(stats.byReason.harassment >= 1)
  })

  it('answers 404 for an unknown report, 400 for bad paging, 403 for a member', async () => {
    assert.equal(
      (await api.get('/api/admin/reports/3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60')).json().code,
      'REPORT_NOT_FOUND',
    )
    assert.equal((await api.get('/api/admin/reports/nope')).statusCode, 404)
    assert.equal((await api.get('/api/admin/reports?limit=101')).statusCode, 400)
    const reader = await member()
    assert.equal((await api.get('/api/admin/reports', { cookie: reader.cookie })).statusCode, 403)
  })
})

describe('PUT /api/admin/reports/:id and moderation', () => {
  it('warns an item’s submitter: the count, the history with the note and the acting admin, the reviewer', async () => {
    const owner = await member('Spammer')
    const item = await submittedItem(owner)
    const created = await report(await member(), {
      contentType: 'item',
      contentId: item.slug,
      reason: 'spam',
    })
    const res = await ok('PUT', `/api/admin/reports/${created.id}`, {
      resolution: 'user_warned',
      reviewNote: 'Keep listings honest.',
    })
    assert.deepEqual(res.data, {
      id: created.id,
      status: 'resolved',
      resolution: 'user_warned',
      reviewNote: 'Keep listings honest.',
    })
    assert.deepEqual(res.moderationResult, {
      success: true,
      message: 'Warned the content owner (1 warning now)',
    })

    const clientId = await clientIdOf(owner.id)
    const moderation = (await ok('GET', `/api/admin/clients/${clientId}/moderation`)).data
    assert.equal(moderation.warningCount, 1)
    assert.equal(moderation.status, 'active')
    assert.equal(moderation.history.length, 1)
    assert.equal(moderation.history[0].action, 'warned')
    assert.equal(moderation.history[0].reason, 'Keep listings honest.')
    assert.equal(moderation.history[0].reportId, created.id)
    assert.equal(moderation.history[0].actedBy, adminId)

    const read = (await ok('GET', `/api/admin/reports/${created.id}`)).data
    assert.equal(read.reviewedBy, adminId)
    assert.equal(read.reviewer.id, adminId)
    assert.deepEqual(read.moderationResult, res.moderationResult)
    // The owner may still sign in after a warning.
    assert.equal((await signIn(owner)).statusCode, 200)
  })

  it('suspends a comment’s author: signed out, refused at sign-in, and the report keeps the note', async () => {
    const owner = await member('Troll')
    const item = await submittedItem(await member())
    const comment = await commentBy(owner, item.id)
    const created = await report(await member(), {
      contentType: 'comment',
      contentId: comment.id,
      reason: 'harassment',
    })
    const res = await ok('PUT', `/api/admin/reports/${created.id}`, {
      status: 'reviewed',
      resolution: 'user_suspended',
      reviewNote: 'Harassment in comments.',
    })
    assert.equal(res.data.status, 'reviewed', 'a status sent wins over the implied resolved')
    assert.deepEqual(res.moderationResult, { success: true, message: 'Suspended the content owner' })
    assert.equal((await api.get('/api/favorites', { cookie: owner.cookie })).statusCode, 401)
    const signin = await signIn(owner)
    assert.equal(signin.statusCode, 403)
    assert.equal(signin.json().code, 'ACCOUNT_SUSPENDED')
    const moderation = (await ok('GET', `/api/admin/clients/${await clientIdOf(owner.id)}/moderation`)).data
    assert.equal(moderation.status, 'suspended')
    assert.ok(moderation.suspendedAt)
    assert.equal(moderation.bannedAt, null)
  })

  it('bans for good: ACCOUNT_BANNED at sign-in until an admin reinstates the client', async () => {
    const owner = await member('Scammer')
    const item = await submittedItem(owner)
    const created = await report(await member(), {
      contentType: 'item',
      contentId: item.id,
      reason: 'inappropriate',
    })
    const res = await ok('PUT', `/api/admin/reports/${created.id}`, { resolution: 'user_banned' })
    assert.deepEqual(res.moderationResult, { success: true, message: 'Banned the content owner' })
    assert.equal((await signIn(owner)).json().code, 'ACCOUNT_BANNED')
    const clientId = await clientIdOf(owner.id)
    const moderation = (await ok('GET', `/api/admin/clients/${clientId}/moderation`)).data
    assert.ok(moderation.bannedAt)
    assert.equal(moderation.history[0].action, 'banned')
    assert.equal(moderation.history[0].reason, null)
    await ok('PUT', `/api/admin/clients/${clientId}`, { status: 'active' })
    assert.equal((await signIn(owner)).statusCode, 200)
  })

  it('removes the reported item or comment', async () => {
    const owner = await member()
    const item = await submittedItem(owner)
    const byItem = await report(await member(), { contentType: 'item', contentId: item.slug, reason: 'spam' })
    const removed = await ok('PUT', `/api/admin/reports/${byItem.id}`, { resolution: 'content_removed' })
    assert.deepEqual(removed.moderationResult, { success: true, message: 'Removed the reported item' })
    assert.equal((await api.get(`/api/items/${item.slug}`, { cookie: null })).statusCode, 404)
    assert.equal((await api.get(`/api/admin/items/${item.id}`)).statusCode, 404)
    const history = (await ok('GET', `/api/admin/clients/${await clientIdOf(owner.id)}/moderation`)).data
      .history
    assert.equal(history[0].action, 'content_removed')

    const host = await submittedItem(await member())
    const comment = await commentBy(await member(), host.id)
    const byComment = await report(await member(), {
      contentType: 'comment',
      contentId: comment.id,
      reason: 'spam',
    })
    const gone = await ok('PUT', `/api/admin/reports/${byComment.id}`, { resolution: 'content_removed' })
    assert.equal(gone.moderationResult.success, true)
    assert.equal((await api.get(`/api/admin/comments/${comment.id}`)).statusCode, 404)
  })

  it('keeps the report when the action fails, and says why in moderationResult', async () => {
    const item = await submittedItem(await member())
    const created = await report(await member(), { contentType: 'item', contentId: item.id, reason: 'spam' })
    await ok('DELETE', `/api/admin/items/${item.id}`)
    const res = await ok('PUT', `/api/admin/reports/${created.id}`, {
      resolution: 'content_removed',
      reviewNote: 'Remove it.',
    })
    assert.deepEqual(res.moderationResult, {
      success: false,
      message: 'The action failed: The reported item no longer exists',
    })
    assert.equal(res.data.status, 'resolved')
    const read = (await ok('GET', `/api/admin/reports/${created.id}`)).data
    assert.equal(read.resolution, 'content_removed')
    assert.deepEqual(read.moderationResult, res.moderationResult)

    // The owner of an admin-created item is nobody: a user-level action is 400 and saves nothing.
    const adminItem = (
      await (async () => {
        const made = await api.post('/api/admin/items', {
          name: unique('Admin item'),
          status: 'published',
        })
        assert.equal(made.statusCode, 201, made.body)
        return made.json()
      })()
    ).data as { id: string }
    const ownerless = await report(await member(), {
      contentType: 'item',
      contentId: adminItem.id,
      reason: 'spam',
    })
    const refused = await api.put(`/api/admin/reports/${ownerless.id}`, {
      resolution: 'user_warned',
      reviewNote: 'x',
    })
    assert.equal(refused.statusCode, 400, refused.body)
    assert.equal(refused.json().code, 'REPORT_OWNER_NOT_FOUND')
    const untouched = (await ok('GET', `/api/admin/reports/${ownerless.id}`)).data
    assert.equal(untouched.status, 'pending')
    assert.equal(untouched.resolution, null)
    assert.equal(untouched.reviewNote, null)

    // An owner whose client profile an admin deleted cannot be warned: the report is saved, the failure shown.
    const author = await member()
    const comment = await commentBy(author, adminItem.id)
    await ok('DELETE', `/api/admin/clients/${await clientIdOf(author.id)}`)
    const byProfileless = await report(await member(), {
      contentType: 'comment',
      contentId: comment.id,
      reason: 'other',
    })
    const failed = await ok('PUT', `/api/admin/reports/${byProfileless.id}`, { resolution: 'user_warned' })
    assert.deepEqual(failed.moderationResult, {
      success: false,
      message: 'The action failed: The content owner has no client profile to act on',
    })
    assert.equal((await ok('GET', `/api/admin/reports/${byProfileless.id}`)).data.status, 'resolved')
  })

  it('runs a resolution once when two admins set it at once', async () => {
    const owner = await member()
    const item = await submittedItem(owner)
    const created = await report(await member(), {
      contentType: 'item',
      contentId: item.slug,
      reason: 'spam',
    })
    const second = await h.adminCookie()
    const answers = await Promise.all(
      [admin, second].map((cookie) =>
        api.put(`/api/admin/reports/${created.id}`, { resolution: 'user_warned' }, { cookie }),
      ),
    )
    for (const res of answers) assert.equal(res.statusCode, 200, res.body)
    const messages = answers.map((res) => res.json().moderationResult.message).sort()
    assert.deepEqual(messages, [
      'The report is already resolved as user_warned: no action run again',
      'Warned the content owner (1 warning now)',
    ])
    const moderation = (await ok('GET', `/api/admin/clients/${await clientIdOf(owner.id)}/moderation`)).data
    assert.equal(moderation.warningCount, 1)
    assert.equal(moderation.history.length, 1)
  })

  it('updates the status and note alone, with no action; refuses an empty update and bad values', async () => {
    const created = await report(await member(), {
      contentType: 'item',
      contentId: unique('slug'),
      reason: 'other',
    })
    const res = await ok('PUT', `/api/admin/reports/${created.id}`, {
      status: 'dismissed',
      reviewNote: 'Not a problem.',
    })
    assert.deepEqual(res.data, {
      id: created.id,
      status: 'dismissed',
      resolution: null,
      reviewNote: 'Not a problem.',
    })
    assert.deepEqual(res.moderationResult, {
      success: true,
      message: 'No resolution set: no moderation action',
    })
    const noAction = await ok('PUT', `/api/admin/reports/${created.id}`, { resolution: 'no_action' })
    assert.deepEqual(noAction.moderationResult, { success: true, message: 'No action taken' })

    assert.equal((await api.put(`/api/admin/reports/${created.id}`, {})).statusCode, 400)
    const bad = await api.put(`/api/admin/reports/${created.id}`, {
      status: 'closed',
      resolution: 'shame',
    })
    assert.equal(bad.statusCode, 400)
    assert.deepEqual((bad.json().details as { field: string }[]).map((issue) => issue.field).sort(), [
      'body.resolution',
      'body.status',
    ])
    assert.equal(
      (await api.put('/api/admin/reports/3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60', { status: 'reviewed' }))
        .statusCode,
      404,
    )
  })
})
