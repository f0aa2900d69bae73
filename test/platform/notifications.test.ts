import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { and, eq, sql } from 'drizzle-orm'
import { uniqueViolation } from '../../src/db/errors.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { DAY_MS, HOUR_MS } from '../../src/lib/time.ts'
import {
  NOTIFICATION_CLEANUP_CRON,
  NOTIFICATION_CLEANUP_JOB,
  notificationsModule,
} from '../../src/platform/notifications/module.ts'
import {
  createNotificationService,
  type NewNotification,
  type Notification,
} from '../../src/platform/notifications/service.ts'
import { notifications } from '../../src/platform/notifications/tables.ts'
import { type PlatformHarness, startPlatform, uniqueEmail } from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Requests, requests } from '../helpers/requests.ts'

let h: PlatformHarness
/** Requests as an account's client sends them; each names its token. */
let api: Requests

before(async () => {
  h = await startPlatform()
  api = requests(h)
})
after(() => h.close())

const BASE = '/api/notifications'
const NOTIFICATION_FIELDS = [
  'actionLabel',
  'actionUrl',
  'category',
  'createdAt',
  'deduplicationKey',
  'expiresAt',
  'id',
  'isDismissed',
  'isPersistent',
  'isRead',
  'message',
  'title',
  'type',
]

interface Account {
  userId: string
  token: string
}

async function register(harness = h): Promise<Account> {
  const res = await harness.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: uniqueEmail('notified'), password: 'a good password' },
  })
  assert.equal(res.statusCode, 201, res.body)
  return { userId: res.json().user.id, token: res.json().accessToken }
}

const service = () => h.services.notifications

const listOf = async (account: Account, query = '') => {
  const res = await api.get(`${BASE}${query}`, { token: account.token })
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as { notifications: (Notification & { createdAt: string })[]; total: number }
}
const titlesOf = async (account: Account, query = '') =>
  (await listOf(account, query)).notifications.map((n) => n.title)
const unreadCount = async (account: Account) => {
  const res = await api.get(`${BASE}/unread-count`, { token: account.token })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().count as number
}

const info = (userId: string, title: string, extra: Partial<NewNotification> = {}): NewNotification => ({
  userId,
  type: 'INFO',
  category: 'system',
  title,
  message: `${title}: details`,
  ...extra,
})

/** Creates a notification that must not be deduplicated away. */
async function make(userId: string, title: string, extra: Partial<NewNotification> = {}) {
  const created = await service().create(info(userId, title, extra))
  assert.ok(created, `${title} is created`)
  return created
}

const rowsWithKey = (userId: string, key: string) =>
  h.databases.platform.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.userId, userId), eq(notifications.deduplicationKey, key)))

const rowOf = async (id: string) => {
  const [row] = await h.databases.platform.db.select().from(notifications).where(eq(notifications.id, id))
  return row
}

/** A logger whose lines the test reads. */
function capturingLog() {
  const lines: Record<string, unknown>[] = []
  const log = createLogger(
    'info',
    new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
        done()
      },
    }),
  )
  return { log, lines }
}

describe('notifications: reading', () => {
  it('the list answers {notifications, total}, newest first, each notification in the contract’s shape', async () => {
    const account = await register()
    await make(account.userId, 'first')
    h.clock.advance(1000)
    await make(account.userId, 'second', {
      type: 'ERROR',
      category: 'ai_credits',
      actionUrl: '/settings/plugins/openai',
      actionLabel: 'Update API key',
      deduplicationKey: 'listed',
      expiresAt: new Date(h.clock.nowMs() + HOUR_MS),
    })
    h.clock.advance(1000)
    await make(account.userId, 'third')

    const body = await listOf(account)
    assert.deepEqual(Object.keys(body).sort(), ['notifications', 'total'])
    assert.equal(body.total, 3)
    assert.deepEqual(
      body.notifications.map((n) => n.title),
      ['third', 'second', 'first'],
    )
    for (const notification of body.notifications) {
      assert.deepEqual(Object.keys(notification).sort(), NOTIFICATION_FIELDS)
    }
    const second = body.notifications[1]!
    assert.deepEqual(
      { ...second, id: 'id' },
      {
        id: 'id',
        type: 'ERROR',
        category: 'ai_credits',
        title: 'second',
        message: 'second: details',
        actionUrl: '/settings/plugins/openai',
        actionLabel: 'Update API key',
        isPersistent: false,
        isRead: false,
        isDismissed: false,
        deduplicationKey: 'listed',
        expiresAt: new Date(h.clock.nowMs() - 1000 + HOUR_MS).toISOString(),
        createdAt: new Date(h.clock.nowMs() - 1000).toISOString(),
      },
    )
    const first = body.notifications[2]!
    assert.equal(first.actionUrl, null)
    assert.equal(first.deduplicationKey, null)
    assert.equal(first.expiresAt, null)
  })

  it('a user sees only their own notifications', async () => {
    const [mine, theirs] = [await register(), await register()]
    await make(mine.userId, 'mine')
    await make(theirs.userId, 'theirs')
    assert.deepEqual(await titlesOf(mine), ['mine'])
    assert.deepEqual(await titlesOf(theirs), ['theirs'])
  })

  it('unreadOnly=true lists only the unread ones, and total counts only them', async () => {
    const account = await register()
    const read = await make(account.userId, 'read')
    await make(account.userId, 'unread')
    assert.equal(
      (await api.post(`${BASE}/${read.id}/read`, undefined, { token: account.token })).statusCode,
      200,
    )

    const unread = await listOf(account, '?unreadOnly=true')
    assert.deepEqual(
      unread.notifications.map((n) => n.title),
      ['unread'],
    )
    assert.equal(unread.total, 1)
    assert.equal((await listOf(account, '?unreadOnly=false')).total, 2)
  })

  it('category keeps the notifications of that category', async () => {
    const account = await register()
    await make(account.userId, 'credits', { category: 'ai_credits' })
    await make(account.userId, 'security', { category: 'security' })
    const body = await listOf(account, '?category=security')
    assert.deepEqual(
      body.notifications.map((n) => n.title),
      ['security'],
    )
    assert.equal(body.total, 1)
  })

  it('limit defaults to 50, a larger limit is capped at 100, and offset pages on', async () => {
    const account = await register()
    const start = h.clock.nowMs() - 200_000
    await h.databases.platform.db.insert(notifications).values(
      Array.from({ length: 120 }, (_, i) => ({
        userId: account.userId,
        type: 'INFO' as const,
        category: 'system' as const,
        title: `n${i}`,
        message: 'bulk',
        createdAt: new Date(start + i * 1000),
      })),
    )

    const firstPage = await listOf(account)
    assert.equal(firstPage.notifications.length, 50)
    assert.equal(firstPage.total, 120)
    assert.equal(firstPage.notifications[0]?.title, 'n119')

    const capped = await listOf(account, '?limit=500')
    assert.equal(capped.notifications.length, 100)
    assert.equal(capped.total, 120)

    const last = await listOf(account, '?limit=100&offset=100')
    assert.deepEqual(
      last.notifications.map((n) => n.title),
      Array.from({ length: 20 }, (_, i) => `n${19 - i}`),
    )
    assert.equal((await listOf(account, '?offset=500')).notifications.length, 0)
  })

  for (const [query, field, message] of [
    ['limit=0', 'query.limit', /at least 1/],
    ['limit=-5', 'query.limit', /at least 1/],
    ['offset=-1', 'query.offset', /at least 0/],
    ['category=billing', 'query.category', /ai_credits/],
    ['unreadOnly=maybe', 'query.unreadOnly', /true or false/],
  ] as const) {
    it(`${query} is 400 naming ${field}`, async () => {
      const account = await register()
      const res = await api.get(`${BASE}?${query}`, { token: account.token })
      assert.equal(res.statusCode, 400, res.body)
      const body = res.json()
      assert.equal(body.code, 'VALIDATION_ERROR')
      assert.deepEqual(
        body.details.map((detail: { field: string }) => detail.field),
        [field],
      )
      assert.match(body.details[0].message, message)
    })
  }

  it('expired and dismissed notifications are neither listed nor counted as unread', async () => {
    const account = await register()
    await make(account.userId, 'shown')
    await make(account.userId, 'expired', { expiresAt: new Date(h.clock.nowMs() - 1) })
    await make(account.userId, 'expiring', { expiresAt: new Date(h.clock.nowMs() + HOUR_MS) })
    const dismissed = await make(account.userId, 'dismissed')
    assert.equal(
      (await api.post(`${BASE}/${dismissed.id}/dismiss`, undefined, { token: account.token })).statusCode,
      200,
    )

    assert.deepEqual((await titlesOf(account)).sort(), ['expiring', 'shown'])
    assert.equal((await listOf(account)).total, 2)
    assert.equal(await unreadCount(account), 2)
  })

  it('unread-count answers {count} of the unread notifications, and falls as they are read', async () => {
    const account = await register()
    assert.deepEqual((await api.get(`${BASE}/unread-count`, { token: account.token })).json(), { count: 0 })
    const one = await make(account.userId, 'one')
    await make(account.userId, 'two')
    assert.equal(await unreadCount(account), 2)
    await api.post(`${BASE}/${one.id}/read`, undefined, { token: account.token })
    assert.equal(await unreadCount(account), 1)
  })

  it('persistent answers {notifications} with the live persistent ones only, newest first', async () => {
    const account = await register()
    await make(account.userId, 'banner one', { isPersistent: true })
    h.clock.advance(1000)
    await make(account.userId, 'banner two', { isPersistent: true, category: 'security' })
    await make(account.userId, 'ordinary')
    await make(account.userId, 'expired banner', {
      isPersistent: true,
      expiresAt: new Date(h.clock.nowMs() - 1),
    })

    const res = await api.get(`${BASE}/persistent`, { token: account.token })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.deepEqual(Object.keys(body), ['notifications'])
    assert.deepEqual(
      body.notifications.map((n: Notification) => n.title),
      ['banner two', 'banner one'],
    )
    for (const notification of body.notifications) {
      assert.deepEqual(Object.keys(notification).sort(), NOTIFICATION_FIELDS)
      assert.equal(notification.isPersistent, true)
    }
  })
})

describe('notifications: read, read-all and dismiss', () => {
  it('read marks one read and answers {success:true}; reading it again changes nothing', async () => {
    const account = await register()
    const notification = await make(account.userId, 'to read')
    const res = await api.post(`${BASE}/${notification.id}/read`, undefined, { token: account.token })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { success: true })
    const [listed] = (await listOf(account)).notifications
    assert.equal(listed?.isRead, true)
    const readAt = (await rowOf(notification.id))?.readAt
    assert.deepEqual(readAt, h.clock.now())

    h.clock.advance(1000)
    assert.deepEqual(
      (await api.post(`${BASE}/${notification.id}/read`, undefined, { token: account.token })).json(),
      { success: true },
    )
    assert.deepEqual((await rowOf(notification.id))?.readAt, readAt)
  })

  it('read-all marks every unread notification read and answers {success:true, count}', async () => {
    const account = await register()
    const other = await register()
    const alreadyRead = await make(account.userId, 'already read')
    await api.post(`${BASE}/${alreadyRead.id}/read`, undefined, { token: account.token })
    await make(account.userId, 'a')
    await make(account.userId, 'b')
    await make(account.userId, 'expired', { expiresAt: new Date(h.clock.nowMs() - 1) })
    await make(other.userId, 'someone else’s')

    const res = await api.post(`${BASE}/read-all`, undefined, { token: account.token })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { success: true, count: 2 })
    assert.equal(await unreadCount(account), 0)
    assert.equal(await unreadCount(other), 1)
    assert.deepEqual((await api.post(`${BASE}/read-all`, undefined, { token: account.token })).json(), {
      success: true,
      count: 0,
    })
  })

  it('dismiss hides one and answers {success:true}; dismissing it again is fine', async () => {
    const account = await register()
    const notification = await make(account.userId, 'to dismiss')
    await make(account.userId, 'kept')
    const res = await api.post(`${BASE}/${notification.id}/dismiss`, undefined, { token: account.token })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { success: true })
    assert.deepEqual(await titlesOf(account), ['kept'])
    const row = await rowOf(notification.id)
    assert.equal(row?.isDismissed, true)
    assert.deepEqual(row?.dismissedAt, h.clock.now())
    assert.deepEqual(
      (await api.post(`${BASE}/${notification.id}/dismiss`, undefined, { token: account.token })).json(),
      { success: true },
    )
  })

  it('dismissing a persistent notification is 400 NOTIFICATION_PERSISTENT, and it stays', async () => {
    const account = await register()
    const banner = await make(account.userId, 'banner', { isPersistent: true })
    const res = await api.post(`${BASE}/${banner.id}/dismiss`, undefined, { token: account.token })
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().code, 'NOTIFICATION_PERSISTENT')
    assert.equal((await rowOf(banner.id))?.isDismissed, false)
    assert.deepEqual(await titlesOf(account), ['banner'])
  })

  it('another account’s notification is 404 NOTIFICATION_NOT_FOUND on read and dismiss, and is untouched', async () => {
    const owner = await register()
    const stranger = await register()
    const notification = await make(owner.userId, 'private')
    const banner = await make(owner.userId, 'private banner', { isPersistent: true })
    for (const id of [notification.id, banner.id]) {
      for (const action of ['read', 'dismiss']) {
        const res = await api.post(`${BASE}/${id}/${action}`, undefined, { token: stranger.token })
        assert.equal(res.statusCode, 404, `${action}: ${res.body}`)
        assert.equal(res.json().code, 'NOTIFICATION_NOT_FOUND')
      }
    }
    const row = await rowOf(notification.id)
    assert.equal(row?.isRead, false)
    assert.equal(row?.isDismissed, false)
  })

  it('an unknown or malformed id is 404 NOTIFICATION_NOT_FOUND', async () => {
    const account = await register()
    for (const id of ['5b0c8a52-8a4e-4f8e-9d7e-3f1f3c2a9b10', 'not-an-id', '1', "x'; drop table x; --"]) {
      for (const action of ['read', 'dismiss']) {
        const res = await api.post(`${BASE}/${encodeURIComponent(id)}/${action}`, undefined, {
          token: account.token,
        })
        assert.equal(res.statusCode, 404, `${action} ${id}: ${res.body}`)
        assert.equal(res.json().code, 'NOTIFICATION_NOT_FOUND')
      }
    }
  })

  it('every route needs an access token: 401 without one, 403 API_KEY_NOT_ALLOWED with an API key', async () => {
    const account = await register()
    const key = await h.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: { authorization: `Bearer ${account.token}` },
      payload: { name: 'script' },
    })
    const notification = await make(account.userId, 'guarded')
    for (const [method, url] of [
      ['GET', BASE],
      ['GET', `${BASE}/unread-count`],
      ['GET', `${BASE}/persistent`],
      ['POST', `${BASE}/read-all`],
      ['POST', `${BASE}/${notification.id}/read`],
      ['POST', `${BASE}/${notification.id}/dismiss`],
    ] as const) {
      const anonymous = await h.app.inject({ method, url })
      assert.equal(anonymous.statusCode, 401, `${method} ${url}`)
      const withKey = await h.app.inject({ method, url, headers: { 'x-api-key': key.json().key } })
      assert.equal(withKey.statusCode, 403, `${method} ${url}`)
      assert.equal(withKey.json().code, 'API_KEY_NOT_ALLOWED')
    }
    assert.equal((await rowOf(notification.id))?.isRead, false)
  })
})

describe('notifications: the helpers', () => {
  it('notifyAiCreditsDepleted: ai_credits, persistent ERROR, key ai-credits:<provider>, to the provider’s settings', async () => {
    const account = await register()
    const created = await service().notifyAiCreditsDepleted(account.userId, {
      provider: 'openai',
      workId: '0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10',
    })
    assert.ok(created)
    assert.equal(created.category, 'ai_credits')
    assert.equal(created.type, 'ERROR')
    assert.equal(created.isPersistent, true)
    assert.equal(created.deduplicationKey, 'ai-credits:openai')
    assert.equal(created.expiresAt, null)
    assert.equal(created.actionUrl, '/settings/plugins/openai')
    assert.equal(created.actionLabel, 'Update API key')
    assert.match(created.title, /OpenAI/)
    assert.equal(
      await service().notifyAiCreditsDepleted(account.userId, { provider: 'openai' }),
      null,
      'a second depletion of the same provider is deduplicated',
    )
    assert.ok(await service().notifyAiCreditsDepleted(account.userId, { provider: 'anthropic' }))
  })

  it('notifyAiProviderError: ai_credits, not persistent, key ai-provider-error:<provider>, expires after 24 hours', async () => {
    const account = await register()
    const workId = '0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10'
    const created = await service().notifyAiProviderError(account.userId, {
      provider: 'openai',
      error: '503 Service Unavailable',
      workId,
    })
    assert.ok(created)
    assert.equal(created.category, 'ai_credits')
    assert.equal(created.type, 'WARNING')
    assert.equal(created.isPersistent, false)
    assert.equal(created.deduplicationKey, 'ai-provider-error:openai')
    assert.deepEqual(created.expiresAt, new Date(h.clock.nowMs() + 24 * HOUR_MS))
    assert.equal(created.actionUrl, `/works/${workId}`)
    assert.match(created.message, /503 Service Unavailable/)
    assert.equal(
      await service().notifyAiProviderError(account.userId, { provider: 'openai', error: 'again' }),
      null,
    )
  })

  it('notifyAiProviderError is an ERROR pointing to the settings when the provider refuses the key', async () => {
    const account = await register()
    const created = await service().notifyAiProviderError(account.userId, {
      provider: 'openai',
      error: '401 Incorrect API key provided',
    })
    assert.equal(created?.type, 'ERROR')
    assert.equal(created?.actionUrl, '/settings/plugins/openai')
  })

  it('a helper never repeats a credential the provider quoted in its error', async () => {
    const account = await register()
    const secrets = [
      'sk-proj-Abc123Def456Ghi789Jkl012Mno345',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl',
      'ZmFrZS1rZXktdGhhdC1pcy1sb25nLWVub3VnaC10by1iZS1hLXNlY3JldA',
    ]
    const created = await service().notifyAiProviderError(account.userId, {
      provider: 'openai',
      error: `401 Incorrect API key provided: ${secrets[0]}. Also ${secrets[1]}, ${secrets[2]}, api_key=${secrets[3]}`,
    })
    assert.ok(created)
    for (const secret of secrets) {
      for (const part of [secret, secret.slice(-12)]) {
        assert.ok(!created.message.includes(part), `the message quotes ${part}: ${created.message}`)
        assert.ok(!created.title.includes(part))
      }
    }
    assert.match(created.message, /\[redacted\]/)
    const long = await service().notifyGenerationAccountError(account.userId, { reason: 'x '.repeat(2000) })
    assert.ok(long && long.message.length < 500, 'a long reason is cut')
  })

  it('notifyGenerationAccountError: generation, not persistent, to the work when there is one', async () => {
    const account = await register()
    const workId = '0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10'
    const created = await service().notifyGenerationAccountError(account.userId, {
      reason: 'the plan allows 3 works',
      workId,
    })
    assert.ok(created)
    assert.equal(created.category, 'generation')
    assert.equal(created.isPersistent, false)
    assert.equal(created.deduplicationKey, null)
    assert.equal(created.actionUrl, `/works/${workId}`)
    assert.match(created.message, /the plan allows 3 works/)
  })

  it('notifySchedulePaused: generation, not persistent, names the work and links to it', async () => {
    const account = await register()
    const workId = '0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10'
    const created = await service().notifySchedulePaused(account.userId, {
      workId,
      workName: 'Coffee Guide',
      reason: 'three failed runs in a row',
    })
    assert.ok(created)
    assert.equal(created.category, 'generation')
    assert.equal(created.isPersistent, false)
    assert.match(created.title, /Coffee Guide/)
    assert.match(created.message, /three failed runs in a row/)
    assert.equal(created.actionUrl, `/works/${workId}`)
  })

  it('notifyGitAuthExpired: security, persistent, key git-auth:<provider> (github by default)', async () => {
    const account = await register()
    const created = await service().notifyGitAuthExpired(account.userId, {})
    assert.ok(created)
    assert.equal(created.category, 'security')
    assert.equal(created.type, 'ERROR')
    assert.equal(created.isPersistent, true)
    assert.equal(created.deduplicationKey, 'git-auth:github')
    assert.equal(created.actionUrl, '/settings/plugins/github')
    assert.match(created.title, /GitHub/)
    assert.equal(await service().notifyGitAuthExpired(account.userId, { provider: 'github' }), null)
    assert.equal(
      (await service().notifyGitAuthExpired(account.userId, { provider: 'gitlab' }))?.deduplicationKey,
      'git-auth:gitlab',
    )
  })

  it('a helper that fails logs the failure and answers null; the caller’s transaction carries on', async () => {
    const { log, lines } = capturingLog()
    const own = createNotificationService({ db: h.databases.platform.db, clock: h.clock, log })
    const account = await register()
    const db = h.databases.platform.db
    await db.transaction(async (tx) => {
      // No such account: the insert breaks its foreign key.
      const failed = await own.notifyGitAuthExpired('5b0c8a52-8a4e-4f8e-9d7e-3f1f3c2a9b10', {}, tx)
      assert.equal(failed, null)
      assert.ok(await own.create(info(account.userId, 'after the failure'), tx))
    })
    assert.deepEqual(await titlesOf(account), ['after the failure'])
    assert.equal(lines.length, 1)
    assert.equal(lines[0]?.msg, 'notification could not be created')
    assert.equal(lines[0]?.category, 'security')
  })
})

describe('notifications: deduplication', () => {
  it('two creates with one key make one notification; the second answers null', async () => {
    const account = await register()
    assert.ok(await service().create(info(account.userId, 'first', { deduplicationKey: 'twice' })))
    assert.equal(await service().create(info(account.userId, 'second', { deduplicationKey: 'twice' })), null)
    const rows = await rowsWithKey(account.userId, 'twice')
    assert.deepEqual(
      rows.map((row) => row.title),
      ['first'],
    )
  })

  it('keys are per user, and notifications without a key are never deduplicated', async () => {
    const [one, two] = [await register(), await register()]
    assert.ok(await service().create(info(one.userId, 'one', { deduplicationKey: 'shared' })))
    assert.ok(await service().create(info(two.userId, 'two', { deduplicationKey: 'shared' })))
    await make(one.userId, 'plain')
    await make(one.userId, 'plain')
    assert.equal((await listOf(one)).total, 3)
  })

  it(race('ten concurrent creates with one key make one notification'), async () => {
    const account = await register()
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        service().create(info(account.userId, `racer ${i}`, { deduplicationKey: 'raced' })),
      ),
    )
    assert.equal(results.filter((result) => result !== null).length, 1)
    assert.equal((await rowsWithKey(account.userId, 'raced')).length, 1)
  })

  it('the database itself refuses a second live notification with the same key', async () => {
    const account = await register()
    const db = h.databases.platform.db
    const row = { userId: account.userId, type: 'INFO', category: 'system', message: 'm' } as const
    await db
      .insert(notifications)
      .values({ ...row, title: 'a', deduplicationKey: 'k', createdAt: h.clock.now() })
    await assert.rejects(
      db
        .insert(notifications)
        .values({ ...row, title: 'b', deduplicationKey: 'k', createdAt: h.clock.now() }),
      (error) => uniqueViolation(error)?.constraint === 'notifications_user_dedup_unique',
    )
    // A dismissed one no longer holds the key.
    await db.update(notifications).set({ isDismissed: true }).where(eq(notifications.userId, account.userId))
    await db
      .insert(notifications)
      .values({ ...row, title: 'c', deduplicationKey: 'k', createdAt: h.clock.now() })
  })

  it('after a dismiss the same key fires again', async () => {
    const account = await register()
    const first = await service().create(info(account.userId, 'first', { deduplicationKey: 'again' }))
    assert.ok(first)
    assert.equal(
      (await api.post(`${BASE}/${first.id}/dismiss`, undefined, { token: account.token })).statusCode,
      200,
    )
    const second = await service().create(info(account.userId, 'second', { deduplicationKey: 'again' }))
    assert.ok(second, 'the alert fires again once the earlier one is dismissed')
    assert.deepEqual(await titlesOf(account), ['second'])
  })

  it('clearByDeduplicationKey removes the user’s notifications with the key and answers how many; the key fires again', async () => {
    const account = await register()
    const other = await register()
    const banner = await service().notifyGitAuthExpired(account.userId, {})
    assert.ok(banner)
    await service().notifyGitAuthExpired(other.userId, {})
    await make(account.userId, 'unrelated')

    assert.equal(await service().clearByDeduplicationKey(account.userId, 'git-auth:github'), 1)
    assert.deepEqual(await titlesOf(account), ['unrelated'])
    assert.equal((await rowsWithKey(other.userId, 'git-auth:github')).length, 1, 'other users keep theirs')
    assert.equal(await service().clearByDeduplicationKey(account.userId, 'git-auth:github'), 0)
    assert.ok(await service().notifyGitAuthExpired(account.userId, {}), 'the issue can be reported again')
  })

  it('an expired notification does not hold its key', async () => {
    const account = await register()
    await make(account.userId, 'stale', {
      deduplicationKey: 'expiring',
      expiresAt: new Date(h.clock.nowMs() - 1),
    })
    const fresh = await service().create(info(account.userId, 'fresh', { deduplicationKey: 'expiring' }))
    assert.ok(fresh)
    assert.deepEqual(
      (await rowsWithKey(account.userId, 'expiring')).map((row) => row.title),
      ['fresh'],
    )
  })

  it('a create that loses to an existing key inside a caller’s transaction leaves that transaction working', async () => {
    const account = await register()
    await make(account.userId, 'already there', { deduplicationKey: 'busy' })
    const db = h.databases.platform.db
    await db.transaction(async (tx) => {
      assert.ok(await service().create(info(account.userId, 'before', { deduplicationKey: 'in-tx' }), tx))
      assert.equal(
        await service().create(info(account.userId, 'lost', { deduplicationKey: 'busy' }), tx),
        null,
      )
      assert.equal(
        await service().create(info(account.userId, 'lost', { deduplicationKey: 'in-tx' }), tx),
        null,
      )
      assert.equal(
        await service()
          .notifyGitAuthExpired(account.userId, {}, tx)
          .then((n) => n?.deduplicationKey),
        'git-auth:github',
      )
      assert.equal(await service().notifyGitAuthExpired(account.userId, {}, tx), null)
      // The transaction still takes statements, and everything in it commits.
      await tx.execute(sql`select 1`)
      assert.ok(await service().create(info(account.userId, 'after'), tx))
    })
    const titles = (await listOf(account)).notifications.map((n) => n.title).sort()
    assert.deepEqual(titles, ['after', 'already there', 'before', 'GitHub access has expired'].sort())
  })

  it('a caller’s transaction that rolls back takes its notification with it', async () => {
    const account = await register()
    const db = h.databases.platform.db
    await assert.rejects(
      db.transaction(async (tx) => {
        await service().notifyAiCreditsDepleted(account.userId, { provider: 'openai' }, tx)
        throw new Error('the change failed')
      }),
      /the change failed/,
    )
    assert.equal((await listOf(account)).total, 0)
    assert.ok(await service().notifyAiCreditsDepleted(account.userId, { provider: 'openai' }))
  })
})

describe('notifications: cleanup', () => {
  let c: PlatformHarness
  before(async () => {
    c = await startPlatform()
  })
  after(() => c?.close())

  /** Rows written straight to the table, at the times a rule looks at. */
  async function seed(userId: string) {
    const now = c.clock.nowMs()
    const row = (title: string, extra: Partial<typeof notifications.$inferInsert> = {}) => ({
      userId,
      type: 'INFO' as const,
      category: 'system' as const,
      title,
      message: 'm',
      createdAt: new Date(now - HOUR_MS),
      ...extra,
    })
    await c.databases.platform.db.insert(notifications).values([
      row('expired', { expiresAt: new Date(now - 1) }),
      row('expires at this instant', { expiresAt: new Date(now) }),
      row('expires later', { expiresAt: new Date(now + HOUR_MS) }),
      row('dismissed 8 days ago', {
        isDismissed: true,
        dismissedAt: new Date(now - 8 * DAY_MS),
        createdAt: new Date(now - 9 * DAY_MS),
      }),
      row('dismissed exactly 7 days ago', {
        isDismissed: true,
        dismissedAt: new Date(now - 7 * DAY_MS),
        createdAt: new Date(now - 8 * DAY_MS),
      }),
      row('dismissed 5 days ago', { isDismissed: true, dismissedAt: new Date(now - 5 * DAY_MS) }),
      row('31 days old', { createdAt: new Date(now - 31 * DAY_MS) }),
      row('31 days old and persistent', { createdAt: new Date(now - 31 * DAY_MS), isPersistent: true }),
      row('29 days old', { createdAt: new Date(now - 29 * DAY_MS) }),
    ])
  }

  const remaining = async () =>
    (await c.databases.platform.db.select({ title: notifications.title }).from(notifications))
      .map((row) => row.title)
      .sort()

  it('removes expired ones at once, dismissed ones after 7 days and all after 30, and answers {expired, dismissed, old}', async () => {
    const account = await register(c)
    await seed(account.userId)

    assert.deepEqual(await c.services.notifications.cleanup(), { expired: 2, dismissed: 1, old: 2 })
    assert.deepEqual(
      await remaining(),
      ['29 days old', 'dismissed 5 days ago', 'dismissed exactly 7 days ago', 'expires later'].sort(),
    )
    assert.deepEqual(await c.services.notifications.cleanup(), { expired: 0, dismissed: 0, old: 0 })

    // Time is the injected clock's: a day and a bit later the rest qualify, each under its first rule.
    c.clock.advance(DAY_MS + 1)
    assert.deepEqual(await c.services.notifications.cleanup(), { expired: 1, dismissed: 1, old: 1 })
    assert.deepEqual(await remaining(), ['dismissed 5 days ago'])
  })

  it('the cleanup job is scheduled daily at 03:00 UTC', async () => {
    assert.equal(NOTIFICATION_CLEANUP_CRON, '0 3 * * *')
    const schedules = await c.jobs.boss.getSchedules(NOTIFICATION_CLEANUP_JOB)
    assert.equal(schedules.length, 1)
    assert.equal(schedules[0]?.cron, '0 3 * * *')
    assert.equal(schedules[0]?.timezone, 'UTC')
  })

  it('the cleanup job runs the cleanup and logs its counts', async () => {
    const account = await register(c)
    await c.databases.platform.db.insert(notifications).values({
      userId: account.userId,
      type: 'INFO',
      category: 'system',
      title: 'expired',
      message: 'm',
      expiresAt: new Date(c.clock.nowMs() - 1),
      createdAt: c.clock.now(),
    })
    const { log, lines } = capturingLog()
    const { module } = notificationsModule({ db: c.databases.platform.db, clock: c.clock, log })
    const job = module.jobs?.find((definition) => definition.name === NOTIFICATION_CLEANUP_JOB)
    assert.ok(job)
    assert.equal(job.cron, '0 3 * * *')
    await job.handler({}, {} as never)
    const line = lines.find((entry) => entry.msg === 'old notifications removed')
    assert.ok(line, JSON.stringify(lines))
    assert.deepEqual([line.expired, line.dismissed, line.old], [1, 0, 0])
  })
})
