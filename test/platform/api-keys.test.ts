import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { eq } from 'drizzle-orm'
import type { App } from '../../src/http/app.ts'
import { apiKeys } from '../../src/platform/api-keys/tables.ts'
import { users } from '../../src/platform/auth/tables.ts'
import { startPlatform, uniqueEmail } from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { requests } from '../helpers/requests.ts'

type Harness = Awaited<ReturnType<typeof startPlatform>>
let h: Harness

const KEYS = '/api/auth/api-keys'
const KEY_FORMAT = /^svc_live_[0-9a-f]{64}$/
const HOUR_MS = 3_600_000

/** A probe behind the guard that answers the authentication context it set. */
const whoami = (app: App) =>
  app.get('/test/whoami', { config: { access: 'jwt-or-api-key' } }, async (req) => req.auth)

before(async () => {
  h = await startPlatform({ extend: whoami })
})
after(() => h.close())

interface Account {
  userId: string
  token: string
}

async function register(harness = h): Promise<Account> {
  const res = await harness.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: uniqueEmail('keys'), password: 'a good password' },
  })
  assert.equal(res.statusCode, 201, res.body)
  return { userId: res.json().user.id, token: res.json().accessToken }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** Requests as `account`'s client sends them, with its access token. */
const as = (account: Account, harness = h) => requests(harness, { token: account.token })
const createRaw = (account: Account, payload: unknown, harness = h) =>
  as(account, harness).post(KEYS, payload)

async function createKey(account: Account, payload: object = { name: 'script' }, harness = h) {
  const res = await createRaw(account, payload, harness)
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as { id: string; name: string; key: string; prefix: string; expiresAt: string | null }
}

const list = (account: Account, harness = h) => as(account, harness).get(KEYS)
const revoke = (account: Account, id: string) => as(account).delete(`${KEYS}/${id}`)
/** `key` in x-api-key exactly as given: an empty key is sent as an empty header. */
const meWithKey = (key: string, harness = h) => requests(harness, { apiKey: key }).get('/api/auth/me')
const meWithHeaders = (headers: Record<string, string>) => requests(h, { headers }).get('/api/auth/me')

async function storedLastUsedAt(id: string, harness = h): Promise<Date | null> {
  const [row] = await harness.databases.platform.db
    .select({ lastUsedAt: apiKeys.lastUsedAt })
    .from(apiKeys)
    .where(eq(apiKeys.id, id))
  assert.ok(row, `key ${id} is stored`)
  return row.lastUsedAt
}

/** Polls `read` until `done` holds, failing after a bounded wait. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) assert.fail(`condition not met within ${timeoutMs} ms (last: ${value})`)
    await sleep(20)
  }
}

/** Runs `body` with the clock moved by `ms`, and moves it back after. */
async function withClockAdvanced(ms: number, body: () => Promise<void>) {
  h.clock.advance(ms)
  try {
    await body()
  } finally {
    h.clock.advance(-ms)
  }
}

describe('API keys: happy path', () => {
  it('create answers 200 with the key once, in the svc_live_ format, and its 12-character prefix', async () => {
    const account = await register()
    const res = await createRaw(account, { name: 'CI deploys' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['cache-control'], 'no-store')
    const body = res.json()
    assert.deepEqual(Object.keys(body).sort(), ['createdAt', 'expiresAt', 'id', 'key', 'name', 'prefix'])
    assert.match(body.key, KEY_FORMAT)
    assert.equal(body.prefix, body.key.slice(0, 12))
    assert.equal(body.name, 'CI deploys')
    assert.equal(body.expiresAt, null)
    assert.equal(body.createdAt, h.clock.now().toISOString())
    assert.match(body.id, /^[0-9a-f-]{36}$/)
  })

  it('two keys are different', async () => {
    const account = await register()
    const first = await createKey(account)
    const second = await createKey(account)
    assert.notEqual(first.key, second.key)
    assert.notEqual(first.id, second.id)
  })

  it('create keeps a future expiresAt and trims the name', async () => {
    const account = await register()
    const expiresAt = new Date(h.clock.nowMs() + HOUR_MS).toISOString()
    const body = await createKey(account, { name: '  nightly sync  ', expiresAt })
    assert.equal(body.expiresAt, expiresAt)
    assert.equal(body.name, 'nightly sync')
  })

  it('list shows the caller’s keys newest first, never the key or its hash', async () => {
    const account = await register()
    const older = await createKey(account, { name: 'older' })
    h.clock.advance(1000)
    const newer = await createKey(account, { name: 'newer' })
    const res = await list(account)
    assert.equal(res.statusCode, 200)
    const keys = res.json()
    assert.deepEqual(
      keys.map((key: { id: string }) => key.id),
      [newer.id, older.id],
    )
    for (const key of keys) {
      assert.deepEqual(Object.keys(key).sort(), [
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'name',
        'prefix',
      ])
    }
    assert.equal(keys[0].prefix, newer.prefix)
    for (const secret of [older.key, newer.key, sha256(older.key), sha256(newer.key)]) {
      assert.ok(!res.body.includes(secret), 'the list carries no key or hash')
    }
  })

  it('a key authenticates as x-api-key and as Authorization: Bearer', async () => {
    const account = await register()
    const { key } = await createKey(account)
    const viaHeader = await meWithKey(key)
    assert.equal(viaHeader.statusCode, 200, viaHeader.body)
    assert.equal(viaHeader.json().id, account.userId)
    const viaBearer = await meWithHeaders(bearer(key))
    assert.equal(viaBearer.statusCode, 200, viaBearer.body)
    assert.equal(viaBearer.json().id, account.userId)
  })

  it('the guard records the method and the key id', async () => {
    const account = await register()
    const { id, key } = await createKey(account)
    const byKey = await h.app.inject({ url: '/test/whoami', headers: { 'x-api-key': key } })
    assert.deepEqual(byKey.json(), { userId: account.userId, method: 'api_key', apiKeyId: id })
    const byToken = await h.app.inject({ url: '/test/whoami', headers: bearer(account.token) })
    assert.deepEqual(byToken.json(), { userId: account.userId, method: 'jwt' })
  })

  it('revoke answers {success:true} and the key answers 401 at once', async () => {
    const account = await register()
    const { id, key } = await createKey(account)
    assert.equal((await meWithKey(key)).statusCode, 200)
    const res = await revoke(account, id)
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json(), { success: true })
    const after = await meWithKey(key)
    assert.equal(after.statusCode, 401)
    assert.equal(after.json().code, 'INVALID_API_KEY')
    assert.deepEqual((await list(account)).json(), [])
    assert.equal((await revoke(account, id)).statusCode, 404)
  })

  it('lastUsedAt is null before use and shows a use in the list at once', async () => {
    const account = await register()
    const { id, key } = await createKey(account)
    assert.equal((await list(account)).json()[0].lastUsedAt, null)
    h.clock.advance(5000)
    const usedAt = h.clock.now().toISOString()
    assert.equal((await meWithKey(key)).statusCode, 200)
    const [listed] = (await list(account)).json()
    assert.equal(listed.id, id)
    assert.equal(listed.lastUsedAt, usedAt)
  })

  it('a key with an expiry works until that instant, then answers 401', async () => {
    const account = await register()
    const { key } = await createKey(account, {
      name: 'short-lived',
      expiresAt: new Date(h.clock.nowMs() + HOUR_MS).toISOString(),
    })
    await withClockAdvanced(HOUR_MS - 1, async () => {
      assert.equal((await meWithKey(key)).statusCode, 200)
    })
    await withClockAdvanced(HOUR_MS, async () => {
      const res = await meWithKey(key)
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().code, 'INVALID_API_KEY')
    })
    await withClockAdvanced(2 * HOUR_MS, async () => {
      assert.equal((await meWithKey(key)).statusCode, 401)
    })
  })
})

describe('API keys: errors', () => {
  it('a name of 100 characters is accepted, 101 is 400', async () => {
    const account = await register()
    assert.equal((await createKey(account, { name: 'n'.repeat(100) })).name, 'n'.repeat(100))
    const res = await createRaw(account, { name: 'n'.repeat(101) })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().code, 'VALIDATION_ERROR')
    assert.equal(res.json().details[0].field, 'body.name')
  })

  for (const [label, payload] of [
    ['a missing name', {}],
    ['an empty name', { name: '' }],
    ['a blank name', { name: '   ' }],
    ['a name that is not a string', { name: { first: 'k' } }],
  ] as const) {
    it(`${label} is 400 naming body.name`, async () => {
      const res = await createRaw(await register(), payload)
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().code, 'VALIDATION_ERROR')
      assert.equal(res.json().details[0].field, 'body.name')
    })
  }

  for (const [label, expiresAt] of [
    ['in the past', () => new Date(h.clock.nowMs() - 1000).toISOString()],
    ['equal to now', () => h.clock.now().toISOString()],
    ['malformed', () => 'next tuesday'],
    ['a date without a time', () => '2999-01-01'],
    ['an impossible date', () => '2999-02-30T00:00:00Z'],
  ] as const) {
    it(`an expiresAt ${label} is 400 naming body.expiresAt`, async () => {
      const res = await createRaw(await register(), { name: 'k', expiresAt: expiresAt() })
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().code, 'VALIDATION_ERROR')
      assert.equal(res.json().details[0].field, 'body.expiresAt')
    })
  }

  it('the 11th key is 400 API_KEY_LIMIT; expired keys count until revoked', async () => {
    const account = await register()
    const expiring = await createKey(account, {
      name: 'expiring',
      expiresAt: new Date(h.clock.nowMs() + 60_000).toISOString(),
    })
    for (let index = 1; index < 10; index++) await createKey(account, { name: `key ${index}` })
    await withClockAdvanced(120_000, async () => {
      const res = await createRaw(account, { name: 'eleventh' })
      assert.equal(res.statusCode, 400)
      assert.deepEqual(res.json(), {
        statusCode: 400,
        error: 'Bad Request',
        message: 'At most 10 API keys per user',
        code: 'API_KEY_LIMIT',
      })
      assert.equal((await revoke(account, expiring.id)).statusCode, 200)
      assert.equal((await createRaw(account, { name: 'eleventh' })).statusCode, 200)
      assert.equal((await createRaw(account, { name: 'twelfth' })).statusCode, 400)
    })
  })

  it('every route without authentication is 401', async () => {
    for (const request of [
      { method: 'POST' as const, url: KEYS, payload: { name: 'k' } },
      { method: 'GET' as const, url: KEYS },
      { method: 'DELETE' as const, url: `${KEYS}/00000000-0000-4000-8000-000000000000` },
    ]) {
      const res = await h.app.inject(request)
      assert.equal(res.statusCode, 401, `${request.method} ${request.url}`)
    }
  })

  it('revoking an unknown or malformed id is 404', async () => {
    const account = await register()
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '1', `${'a'.repeat(36)}`]) {
      const res = await revoke(account, id)
      assert.equal(res.statusCode, 404, id)
      assert.equal(res.json().code, 'API_KEY_NOT_FOUND')
    }
  })
})

describe('API keys: security', () => {
  it('unknown, altered, malformed, oversized and empty keys are 401 INVALID_API_KEY', async () => {
    const account = await register()
    const { key } = await createKey(account)
    const last = key.at(-1) === '0' ? '1' : '0'
    for (const [label, presented] of [
      ['unknown', `svc_live_${'0'.repeat(64)}`],
      ['one character changed', key.slice(0, -1) + last],
      ['upper-case hex', key.toUpperCase().replace('SVC_LIVE_', 'svc_live_')],
      ['malformed', 'svc_live_xyz'],
      ['too long', `svc_live_${'a'.repeat(491)}`],
      ['the key with a suffix', `${key}0`],
      ['empty', ''],
    ] as const) {
      const res = await meWithKey(presented)
      assert.equal(res.statusCode, 401, `${label}: ${res.body}`)
      assert.equal(res.json().code, 'INVALID_API_KEY', label)
      assert.equal(res.json().message, 'Invalid, expired or revoked API key', label)
    }
    const bearerBad = await meWithHeaders(bearer('svc_live_xyz'))
    assert.equal(bearerBad.statusCode, 401)
    assert.equal(bearerBad.json().code, 'INVALID_API_KEY')
  })

  it('a bad x-api-key is 401 even beside a valid access token: no fallback to the JWT', async () => {
    const account = await register()
    for (const presented of ['', 'svc_live_xyz', `svc_live_${'0'.repeat(64)}`, 'not-a-key']) {
      const res = await meWithHeaders({ 'x-api-key': presented, ...bearer(account.token) })
      assert.equal(res.statusCode, 401, JSON.stringify(presented))
      assert.equal(res.json().code, 'INVALID_API_KEY')
    }
  })

  it('a revoked key is 401 even beside a valid access token', async () => {
    const account = await register()
    const { id, key } = await createKey(account)
    await revoke(account, id)
    const res = await meWithHeaders({ 'x-api-key': key, ...bearer(account.token) })
    assert.equal(res.statusCode, 401)
  })

  it('key management with an API key is 403 API_KEY_NOT_ALLOWED on every route', async () => {
    const account = await register()
    const { id, key } = await createKey(account)
    for (const headers of [{ 'x-api-key': key }, bearer(key)]) {
      for (const request of [
        { method: 'POST' as const, url: KEYS, payload: { name: 'made by a key' } },
        { method: 'GET' as const, url: KEYS },
        { method: 'DELETE' as const, url: `${KEYS}/${id}` },
      ]) {
        const res = await h.app.inject({ ...request, headers })
        assert.equal(res.statusCode, 403, `${request.method} ${request.url}`)
        assert.equal(res.json().code, 'API_KEY_NOT_ALLOWED')
        assert.equal(
          res.json().message,
          'API keys cannot manage API keys, passwords, plugins, notifications or deployments: use an access token',
        )
      }
    }
    // A key beside a valid access token still may not manage keys.
    const mixed = await h.app.inject({ url: KEYS, headers: { 'x-api-key': key, ...bearer(account.token) } })
    assert.equal(mixed.statusCode, 403)
    assert.equal((await list(account)).json().length, 1)
    assert.equal((await meWithKey(key)).statusCode, 200)
  })

  it('another user’s key is 404 on revoke, stays working, and is not in their list', async () => {
    const owner = await register()
    const other = await register()
    const { id, key } = await createKey(owner)
    const res = await revoke(other, id)
    assert.equal(res.statusCode, 404)
    assert.equal(res.json().code, 'API_KEY_NOT_FOUND')
    assert.equal((await meWithKey(key)).statusCode, 200)
    assert.deepEqual((await list(other)).json(), [])
    assert.equal((await list(owner)).json().length, 1)
  })

  it('the database keeps only the SHA-256 and the prefix of a key', async () => {
    const account = await register()
    const { id, key, prefix } = await createKey(account)
    const rows = await h.databases.platform.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.userId, account.userId))
    assert.equal(rows.length, 1)
    assert.equal(rows[0]!.id, id)
    assert.equal(rows[0]!.keyHash, sha256(key))
    assert.equal(rows[0]!.prefix, prefix)
    const everything = await h.databases.platform.db.select().from(apiKeys)
    assert.ok(!JSON.stringify(everything).includes(key), 'no row contains a full key')
  })

  it('a key of a deleted account is 401', async () => {
    const account = await register()
    const { key } = await createKey(account)
    await h.databases.platform.db.delete(users).where(eq(users.id, account.userId))
    assert.equal((await meWithKey(key)).statusCode, 401)
  })

  it(race('concurrent creates never pass the limit of 10'), async () => {
    const account = await register()
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, index) => createRaw(account, { name: `parallel ${index}` })),
    )
    const statuses = answers.map((res) => res.statusCode).sort()
    assert.deepEqual(statuses, [...Array(10).fill(200), ...Array(4).fill(400)])
    assert.equal((await list(account)).json().length, 10)
  })

  it('10 parallel uses of one key all succeed and leave one lastUsedAt', async () => {
    const account = await register()
    const { key } = await createKey(account)
    h.clock.advance(2000)
    const answers = await Promise.all(Array.from({ length: 10 }, () => meWithKey(key)))
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      Array(10).fill(200),
    )
    const [listed] = (await list(account)).json()
    assert.equal(listed.lastUsedAt, h.clock.now().toISOString())
  })
})

describe('API keys: lastUsedAt reaches the database', () => {
  let fast: Harness
  before(async () => {
    fast = await startPlatform({ env: { API_KEY_USAGE_FLUSH_MS: '50' } })
  })
  after(() => fast.close())

  it('a use is written within the flush interval, without waiting for a request', async () => {
    const account = await register(fast)
    const { id, key } = await createKey(account, { name: 'flushed' }, fast)
    assert.equal(await storedLastUsedAt(id, fast), null)
    fast.clock.advance(3000)
    const usedAt = fast.clock.now()
    assert.equal((await meWithKey(key, fast)).statusCode, 200)
    const stored = await eventually(
      () => storedLastUsedAt(id, fast),
      (value) => value !== null,
    )
    assert.equal(stored?.toISOString(), usedAt.toISOString())
  })

  it('parallel uses are written as one time, and a later time another instance wrote is kept', async () => {
    const account = await register(fast)
    const shared = await createKey(account, { name: 'shared' }, fast)
    const busy = await createKey(account, { name: 'busy' }, fast)
    const elsewhere = new Date(fast.clock.nowMs() + HOUR_MS)
    await fast.databases.platform.db
      .update(apiKeys)
      .set({ lastUsedAt: elsewhere })
      .where(eq(apiKeys.id, shared.id))
    fast.clock.advance(1000)
    const usedAt = fast.clock.now()
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => meWithKey(busy.key, fast)),
      meWithKey(shared.key, fast),
    ])
    assert.ok(answers.every((res) => res.statusCode === 200))
    const stored = await eventually(
      () => storedLastUsedAt(busy.id, fast),
      (value) => value !== null,
    )
    assert.equal(stored?.toISOString(), usedAt.toISOString())
    assert.equal((await storedLastUsedAt(shared.id, fast))?.toISOString(), elsewhere.toISOString())
    const listed = (await list(account, fast)).json()
    assert.equal(
      listed.find((key: { id: string }) => key.id === shared.id).lastUsedAt,
      elsewhere.toISOString(),
    )
  })

  it('a use pending when the app closes is written on close', async () => {
    const slow = await startPlatform({ env: { API_KEY_USAGE_FLUSH_MS: '600000' } })
    try {
      const account = await register(slow)
      const { id, key } = await createKey(account, { name: 'closing' }, slow)
      slow.clock.advance(1000)
      const usedAt = slow.clock.now()
      assert.equal((await meWithKey(key, slow)).statusCode, 200)
      assert.equal(await storedLastUsedAt(id, slow), null)
      await slow.app.close()
      assert.equal((await storedLastUsedAt(id, slow))?.toISOString(), usedAt.toISOString())
    } finally {
      await slow.jobs.stop(2000)
      await slow.rateLimiter.close()
      await slow.databases.close()
    }
  })
})

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}

describe('API keys across instances', () => {
  it('deleting an account stops its keys on every instance, though each had them cached', async () => {
    const first = await startPlatform()
    const second = await startPlatform({ databases: first.databases })
    try {
      const account = await register(first)
      const { key } = await createKey(account, { name: 'cached everywhere' }, first)
      for (const instance of [first, second]) {
        assert.equal((await meWithKey(key, instance)).statusCode, 200, 'valid, and now cached')
      }
      // Not through any route: whatever removes the key row (here the account's cascade) is announced.
      await first.databases.platform.db.delete(users).where(eq(users.id, account.userId))
      for (const instance of [first, second]) {
        await eventually(
          async () => (await meWithKey(key, instance)).statusCode,
          (status) => status === 401,
        )
      }
    } finally {
      await second.close()
      await first.close()
    }
  })

  it('a key revoked on one instance stops working on another at once', async () => {
    const first = await startPlatform()
    const second = await startPlatform({ databases: first.databases })
    try {
      const email = `multi-${Date.now()}@example.com`
      const registered = await first.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { email, password: 'a good password' },
      })
      const bearer = { authorization: `Bearer ${registered.json().accessToken}` }
      const created = await first.app.inject({
        method: 'POST',
        url: '/api/auth/api-keys',
        headers: bearer,
        payload: { name: 'shared' },
      })
      const { id, key } = created.json()
      for (const instance of [first, second]) {
        const res = await instance.app.inject({ url: '/api/auth/me', headers: { 'x-api-key': key } })
        assert.equal(res.statusCode, 200, 'the key is valid, and now remembered, on both instances')
      }
      const revoked = await first.app.inject({
        method: 'DELETE',
        url: `/api/auth/api-keys/${id}`,
        headers: bearer,
      })
      assert.equal(revoked.statusCode, 200)
      const deadline = Date.now() + 5000
      let status = 200
      while (status === 200 && Date.now() < deadline) {
        status = (await second.app.inject({ url: '/api/auth/me', headers: { 'x-api-key': key } })).statusCode
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.equal(status, 401, 'the other instance heard of the revocation')
    } finally {
      await second.close()
      await first.close()
    }
  })
})
