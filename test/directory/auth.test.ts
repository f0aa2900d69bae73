import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { users } from '../../src/directory/accounts/tables.ts'
import { sessions } from '../../src/directory/auth/tables.ts'
import { clientProfiles } from '../../src/directory/clients/tables.ts'
import { roles } from '../../src/directory/roles/tables.ts'
import { sha256Hex } from '../../src/lib/crypto.ts'
import {
  APP_ORIGIN,
  type DirectoryHarness,
  guardProbes,
  sessionCookie,
  startDirectory,
  uniqueEmail,
} from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

let h: DirectoryHarness
/** Requests as the web app sends them, each from a fresh address unless it names one. */
let api: Requests

before(async () => {
  h = await startDirectory({ extend: guardProbes })
  api = siteRequests(h)
})
after(() => h.close())

async function register(email = uniqueEmail(), password = 'a good password', name = 'Grace Hopper') {
  const res = await api.post('/api/auth/register', { email, password, name })
  assert.equal(res.statusCode, 201, res.body)
  return { body: res.json(), cookie: sessionCookie(res), email, password }
}

const currentUser = (cookie?: string) => api.get('/api/current-user', { cookie })

describe('directory accounts: happy path', () => {
  it('register answers 201, sets the session cookie and creates the client profile', async () => {
    const email = uniqueEmail()
    const res = await api.post('/api/auth/register', {
      email,
      password: 'a good password',
      name: 'Grace Hopper',
    })
    assert.equal(res.statusCode, 201)
    const body = res.json()
    assert.equal(body.success, true)
    assert.deepEqual(Object.keys(body.user).sort(), ['email', 'id', 'name'])
    const cookie = res.cookies.find((candidate) => candidate.name === 'curio_session')
    assert.ok(cookie)
    assert.equal(cookie.httpOnly, true)
    assert.equal(cookie.sameSite, 'Lax')
    assert.equal(cookie.path, '/')
    assert.equal(cookie.maxAge, 30 * 86_400)
    assert.equal(cookie.secure, undefined, 'not Secure on a local instance')
    const [profile] = await h.databases.directory.db
      .select()
      .from(clientProfiles)
      .where(eq(clientProfiles.userId, body.user.id))
    assert.equal(profile?.email, email)
    assert.equal(profile?.displayName, 'Grace Hopper')
    assert.equal(profile?.status, 'active')
    assert.equal(profile?.plan, 'free')
    assert.equal(profile?.accountType, 'individual')
  })

  it('current-user answers the safe profile for the session and null without one', async () => {
    const { body, cookie, email } = await register()
    const res = await currentUser(cookie)
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json(), {
      id: body.user.id,
      name: 'Grace Hopper',
      email,
      image: null,
      provider: 'credentials',
      isAdmin: false,
    })
    const anonymous = await currentUser()
    assert.equal(anonymous.statusCode, 200)
    assert.equal(anonymous.body, 'null')
  })

  it('signin accepts any case of the email and opens a new session', async () => {
    const { email, password, body } = await register()
    const res = await api.post('/api/auth/signin', { email: email.toUpperCase(), password })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json(), { success: true, user: body.user })
    assert.equal((await currentUser(sessionCookie(res))).json().id, body.user.id)
  })

  it('signin rotates: the session the browser held before is revoked', async () => {
    const { email, password, cookie: before } = await register()
    const res = await api.post('/api/auth/signin', { email, password }, { cookie: before })
    const afterCookie = sessionCookie(res)
    assert.notEqual(afterCookie, before)
    assert.equal((await currentUser(before)).body, 'null')
    assert.equal((await currentUser(afterCookie)).json().email, email)
  })

  it('signin records the login', async () => {
    const { email, password, body } = await register()
    await api.post('/api/auth/signin', { email, password })
    await api.post('/api/auth/signin', { email, password })
    const [user] = await h.databases.directory.db.select().from(users).where(eq(users.id, body.user.id))
    assert.equal(user?.loginCount, 2)
    assert.ok(user?.lastLoginAt)
  })

  it('signout revokes the session and clears the cookie', async () => {
    const { cookie } = await register()
    const res = await api.post('/api/auth/signout', undefined, { cookie })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json(), { success: true })
    const cleared = res.cookies.find((candidate) => candidate.name === 'curio_session')
    assert.equal(cleared?.value, '')
    assert.equal((await currentUser(cookie)).body, 'null')
  })

  it('sessions are stored only as hashes', async () => {
    const { cookie, body } = await register()
    const token = cookie.split('=')[1]!
    const rows = await h.databases.directory.db
      .select()
      .from(sessions)
      .where(eq(sessions.userId, body.user.id))
    assert.equal(rows.length, 1)
    assert.equal(rows[0]?.tokenHash, sha256Hex(token))
  })
})

describe('directory accounts: errors', () => {
  it('a taken email is 409 in the directory error shape', async () => {
    const { email } = await register()
    const res = await api.post('/api/auth/register', {
      email: email.toUpperCase(),
      password: 'another password',
      name: 'Someone Else',
    })
    assert.equal(res.statusCode, 409)
    assert.deepEqual(res.json(), {
      success: false,
      error: 'An account with this email already exists',
      code: 'EMAIL_TAKEN',
    })
  })

  for (const [label, payload, field] of [
    ['a one-letter name', { email: 'a@example.com', password: 'a good password', name: 'G' }, 'body.name'],
    [
      'a 101-letter name',
      { email: 'a@example.com', password: 'a good password', name: 'G'.repeat(101) },
      'body.name',
    ],
    [
      'a 7-character password',
      { email: 'a@example.com', password: 'short12', name: 'Grace' },
      'body.password',
    ],
    ['no name', { email: 'a@example.com', password: 'a good password' }, 'body.name'],
    ['a malformed email', { email: 'grace', password: 'a good password', name: 'Grace' }, 'body.email'],
  ] as const) {
    it(`register with ${label} is 400 naming ${field}`, async () => {
      const res = await api.post('/api/auth/register', payload)
      assert.equal(res.statusCode, 400)
      const body = res.json()
      assert.equal(body.success, false)
      assert.equal(body.details[0].field, field)
    })
  }

  it('names of exactly 2 and 100 characters are accepted', async () => {
    await register(uniqueEmail(), 'a good password', 'Al')
    await register(uniqueEmail(), 'a good password', 'A'.repeat(100))
  })

  it('wrong password and unknown email get the same 401', async () => {
    const { email } = await register()
    const wrong = await api.post('/api/auth/signin', { email, password: 'not it at all' })
    const unknown = await api.post('/api/auth/signin', { email: uniqueEmail(), password: 'x' })
    assert.equal(wrong.statusCode, 401)
    assert.deepEqual(wrong.json(), unknown.json())
    assert.deepEqual(wrong.json(), {
      success: false,
      error: 'Wrong email or password',
      code: 'INVALID_CREDENTIALS',
    })
  })

  it('an inactive user cannot sign in, and their sessions stop working', async () => {
    const { email, password, cookie, body } = await register()
    await h.databases.directory.db.update(users).set({ status: 'inactive' }).where(eq(users.id, body.user.id))
    assert.equal((await currentUser(cookie)).body, 'null')
    const res = await api.post('/api/auth/signin', { email, password })
    assert.equal(res.statusCode, 403)
  })

  it('a forged session cookie is anonymous, and 401 where a session is required', async () => {
    assert.equal((await currentUser('curio_session=forged-value')).body, 'null')
    const probe = await api.get('/test/session', { cookie: 'curio_session=forged-value' })
    assert.equal(probe.statusCode, 401)
  })

  it('an expired session is anonymous', async () => {
    const { cookie } = await register()
    h.clock.advance(30 * 86_400_000 + 1000)
    try {
      assert.equal((await currentUser(cookie)).body, 'null')
      assert.equal((await api.get('/test/session', { cookie })).statusCode, 401)
    } finally {
      h.clock.advance(-(30 * 86_400_000 + 1000))
    }
    assert.equal((await api.get('/test/session', { cookie })).statusCode, 200)
  })
})

describe('directory accounts: cross-origin writes', () => {
  it('a cookie write without Origin or Referer is 403', async () => {
    const { cookie } = await register()
    const res = await api.post('/api/auth/signout', undefined, { cookie, origin: null })
    assert.equal(res.statusCode, 403)
    assert.deepEqual(res.json(), {
      success: false,
      error: 'Cross-origin request refused',
      code: 'CROSS_ORIGIN',
    })
    assert.equal((await currentUser(cookie)).json().name, 'Grace Hopper', 'the session survives')
  })

  it('a cookie write from another origin is 403, even with a look-alike host', async () => {
    const { cookie } = await register()
    for (const origin of [
      'https://evil.example',
      'http://localhost:3001.evil.example',
      'http://localhost:3002',
    ]) {
      assert.equal(
        (await api.post('/api/auth/signout', undefined, { cookie, origin })).statusCode,
        403,
        origin,
      )
    }
  })

  it('a Referer on the app origin is accepted when Origin is absent', async () => {
    const { cookie } = await register()
    const res = await api.post('/api/auth/signout', undefined, {
      cookie,
      origin: null,
      headers: { referer: `${APP_ORIGIN}/account/settings` },
    })
    assert.equal(res.statusCode, 200)
  })

  it('writes without a cookie are not origin-checked', async () => {
    const res = await api.post(
      '/api/auth/register',
      { email: uniqueEmail(), password: 'a good password', name: 'Grace' },
      { origin: 'https://elsewhere.example' },
    )
    assert.equal(res.statusCode, 201)
  })

  it('reads with a cookie are not origin-checked', async () => {
    const { cookie } = await register()
    assert.equal((await currentUser(cookie)).statusCode, 200)
    const res = await api.get('/api/current-user', { cookie, origin: 'https://elsewhere.example' })
    assert.equal(res.json().name, 'Grace Hopper')
  })
})

describe('directory admin guard', () => {
  it('answers 401 without a session, 403 for a non-admin and 200 for an admin', async () => {
    assert.equal((await api.get('/test/admin')).statusCode, 401)
    const { cookie } = await register()
    const forbidden = await api.get('/test/admin', { cookie })
    assert.equal(forbidden.statusCode, 403)
    assert.deepEqual(forbidden.json(), { success: false, error: 'Admin access required', code: 'FORBIDDEN' })
    const adminCookie = await h.adminCookie()
    assert.equal((await api.get('/test/admin', { cookie: adminCookie })).statusCode, 200)
    assert.equal((await currentUser(adminCookie)).json().isAdmin, true)
  })

  it('the 401-only variant answers 401 for a non-admin', async () => {
    const { cookie } = await register()
    assert.equal((await api.get('/test/admin-401', { cookie })).statusCode, 401)
    assert.equal((await api.get('/test/admin-401', { cookie: await h.adminCookie() })).statusCode, 200)
  })

  it('an admin role that is inactive grants nothing', async () => {
    const db = h.databases.directory.db
    await db
      .insert(roles)
      .values({ id: 'dormant-admins', name: 'Dormant admins', isAdmin: true, status: 'inactive' })
    const { cookie, body } = await register()
    await db.update(users).set({ roleId: 'dormant-admins' }).where(eq(users.id, body.user.id))
    assert.equal((await api.get('/test/admin', { cookie })).statusCode, 403)
    assert.equal((await currentUser(cookie)).json().isAdmin, false)
    await db.update(roles).set({ status: 'active' }).where(eq(roles.id, 'dormant-admins'))
    assert.equal((await api.get('/test/admin', { cookie })).statusCode, 200)
  })
})

describe('directory session cleanup', () => {
  it('the cleanup job deletes expired sessions and keeps live ones', async () => {
    const live = await register()
    const expired = await register()
    const db = h.databases.directory.db
    await db
      .update(sessions)
      .set({ expiresAt: new Date(h.clock.nowMs() - 1000) })
      .where(eq(sessions.userId, expired.body.user.id))
    const id = await h.jobs.send('session-cleanup', {})
    assert.ok(id)
    await waitForJob(id)
    assert.equal(
      (await db.select().from(sessions).where(eq(sessions.userId, expired.body.user.id))).length,
      0,
    )
    assert.equal((await db.select().from(sessions).where(eq(sessions.userId, live.body.user.id))).length, 1)
  })

  it('the cleanup job is scheduled', async () => {
    const schedules = await h.jobs.boss.getSchedules('session-cleanup')
    assert.equal(schedules.length, 1)
    assert.equal(schedules[0]?.cron, '15 * * * *')
  })
})

async function waitForJob(id: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const [job] = await h.jobs.boss.findJobs('session-cleanup', { id })
    if (job?.state === 'completed') return
    if (job?.state === 'failed') throw new Error(`job ${id} failed: ${JSON.stringify(job.output)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`job ${id} did not complete within ${timeoutMs} ms`)
}
