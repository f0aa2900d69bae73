import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { SignJWT } from 'jose'
import { refreshTokens, users } from '../../src/platform/auth/tables.ts'
import { startPlatform, uniqueEmail } from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Requests, requests } from '../helpers/requests.ts'

type Harness = Awaited<ReturnType<typeof startPlatform>>
let h: Harness
/** Requests as an account's client sends them. */
let api: Requests

before(async () => {
  h = await startPlatform()
  api = requests(h)
})
after(() => h.close())

async function register(email = uniqueEmail(), password = 'a good password', name?: string) {
  const res = await api.post('/api/auth/register', { email, password, ...(name ? { name } : {}) })
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

describe('platform accounts: happy path', () => {
  it('register answers 201 with the user and a token pair', async () => {
    const email = uniqueEmail()
    const body = await register(email, 'a good password', 'Ada Lovelace')
    assert.deepEqual(Object.keys(body).sort(), ['accessToken', 'expiresIn', 'refreshToken', 'user'])
    assert.deepEqual(Object.keys(body.user).sort(), ['email', 'id', 'name'])
    assert.equal(body.user.email, email)
    assert.equal(body.user.name, 'Ada Lovelace')
    assert.equal(body.expiresIn, 900)
    assert.equal((await api.get('/api/auth/me', { token: body.accessToken })).json().email, email)
  })

  it('login works with any case of the email and answers the same shape', async () => {
    const email = uniqueEmail()
    const { user } = await register(email)
    const res = await api.post('/api/auth/login', { email: email.toUpperCase(), password: 'a good password' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().user.id, user.id)
    assert.equal(res.json().expiresIn, 900)
    assert.deepEqual((await api.get('/api/auth/me', { token: res.json().accessToken })).json(), user)
  })

  it('refresh returns a new working pair', async () => {
    const first = await register()
    const res = await api.post('/api/auth/refresh', { refreshToken: first.refreshToken })
    assert.equal(res.statusCode, 200)
    const next = res.json()
    assert.notEqual(next.refreshToken, first.refreshToken)
    assert.equal((await api.get('/api/auth/me', { token: next.accessToken })).statusCode, 200)
    assert.equal((await api.post('/api/auth/refresh', { refreshToken: next.refreshToken })).statusCode, 200)
  })

  it('logout answers 204 and the refresh token stops working', async () => {
    const { refreshToken } = await register()
    const res = await api.post('/api/auth/logout', { refreshToken })
    assert.equal(res.statusCode, 204)
    assert.equal(res.body, '')
    assert.equal((await api.post('/api/auth/refresh', { refreshToken })).statusCode, 401)
  })

  it('logout of an unknown token is still 204', async () => {
    assert.equal((await api.post('/api/auth/logout', { refreshToken: 'never-issued' })).statusCode, 204)
  })
})

describe('platform accounts: errors', () => {
  it('an email taken in another case is 409 in the platform error shape', async () => {
    const email = uniqueEmail()
    await register(email)
    const res = await api.post('/api/auth/register', {
      email: email.toUpperCase(),
      password: 'another password',
    })
    assert.equal(res.statusCode, 409)
    assert.deepEqual(res.json(), {
      statusCode: 409,
      error: 'Conflict',
      message: 'An account with this email already exists',
      code: 'EMAIL_TAKEN',
    })
  })

  for (const [label, payload, field] of [
    ['a short password', { email: 'x@example.com', password: 'short' }, 'body.password'],
    [
      'a password over 128 characters',
      { email: 'x@example.com', password: 'p'.repeat(129) },
      'body.password',
    ],
    ['a malformed email', { email: 'not-an-email', password: 'a good password' }, 'body.email'],
    ['a missing email', { password: 'a good password' }, 'body.email'],
    [
      'a 101-character name',
      { email: 'x@example.com', password: 'a good password', name: 'n'.repeat(101) },
      'body.name',
    ],
  ] as const) {
    it(`register with ${label} is 400 naming ${field}`, async () => {
      const res = await api.post('/api/auth/register', payload)
      assert.equal(res.statusCode, 400)
      const body = res.json()
      assert.equal(body.code, 'VALIDATION_ERROR')
      assert.equal(body.details[0].field, field)
    })
  }

  it('password of exactly 8 and 128 characters is accepted', async () => {
    await register(uniqueEmail(), 'p'.repeat(8))
    await register(uniqueEmail(), 'p'.repeat(128))
  })

  it('wrong password and unknown email get the same 401', async () => {
    const email = uniqueEmail()
    await register(email)
    const wrong = await api.post('/api/auth/login', { email, password: 'not the password' })
    const unknown = await api.post('/api/auth/login', { email: uniqueEmail(), password: 'not the password' })
    assert.equal(wrong.statusCode, 401)
    assert.deepEqual(wrong.json(), unknown.json())
    assert.equal(wrong.json().message, 'Wrong email or password')
  })

  it('/me without a token, with a malformed header or a garbage token is 401', async () => {
    assert.equal((await h.app.inject({ url: '/api/auth/me' })).statusCode, 401)
    const basic = await h.app.inject({ url: '/api/auth/me', headers: { authorization: 'Basic abc' } })
    assert.equal(basic.statusCode, 401)
    assert.equal((await api.get('/api/auth/me', { token: 'garbage' })).statusCode, 401)
  })

  it('an expired access token is 401', async () => {
    const { accessToken } = await register()
    h.clock.advance(15 * 60_000 + 1000)
    try {
      const res = await api.get('/api/auth/me', { token: accessToken })
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().code, 'INVALID_TOKEN')
    } finally {
      h.clock.advance(-(15 * 60_000 + 1000))
    }
  })

  it('a tampered access token is 401', async () => {
    const { accessToken } = await register()
    const [header, payload, signature] = accessToken.split('.')
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    claims.sub = '00000000-0000-4000-8000-000000000000'
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`
    assert.equal((await api.get('/api/auth/me', { token: forged })).statusCode, 401)
    const flipped = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`
    assert.equal((await api.get('/api/auth/me', { token: flipped })).statusCode, 401)
  })

  it('a token signed with another secret, or unsigned, is 401', async () => {
    const { user } = await register()
    const other = await new SignJWT({ typ: 'access' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setIssuer('curio-platform')
      .setAudience('curio-platform')
      .setIssuedAt()
      .setExpirationTime('15m')
      .sign(new TextEncoder().encode('x'.repeat(48)))
    assert.equal((await api.get('/api/auth/me', { token: other })).statusCode, 401)
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ sub: user.id, typ: 'access', exp: 9999999999 }),
    ).toString('base64url')}.`
    assert.equal((await api.get('/api/auth/me', { token: none })).statusCode, 401)
  })

  it('an expired refresh token is 401', async () => {
    const { refreshToken } = await register()
    h.clock.advance(31 * 86_400_000)
    try {
      const res = await api.post('/api/auth/refresh', { refreshToken })
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().code, 'REFRESH_TOKEN_EXPIRED')
    } finally {
      h.clock.advance(-31 * 86_400_000)
    }
  })
})

describe('platform accounts: security', () => {
  it('a spent refresh token is 401 and revokes its whole family', async () => {
    const first = await register()
    const second = (await api.post('/api/auth/refresh', { refreshToken: first.refreshToken })).json()
    const reuse = await api.post('/api/auth/refresh', { refreshToken: first.refreshToken })
    assert.equal(reuse.statusCode, 401)
    assert.equal(reuse.json().code, 'REFRESH_TOKEN_REUSED')
    // The legitimate successor dies with the family.
    assert.equal((await api.post('/api/auth/refresh', { refreshToken: second.refreshToken })).statusCode, 401)
  })

  it('reuse revokes only that login, not the account’s other logins', async () => {
    const email = uniqueEmail()
    const first = await register(email)
    const other = (await api.post('/api/auth/login', { email, password: 'a good password' })).json()
    await api.post('/api/auth/refresh', { refreshToken: first.refreshToken })
    await api.post('/api/auth/refresh', { refreshToken: first.refreshToken })
    assert.equal((await api.post('/api/auth/refresh', { refreshToken: other.refreshToken })).statusCode, 200)
  })

  it(race('two concurrent refreshes of one token yield at most one new pair'), async () => {
    const { refreshToken } = await register()
    const answers = await Promise.all([
      api.post('/api/auth/refresh', { refreshToken }),
      api.post('/api/auth/refresh', { refreshToken }),
    ])
    assert.equal(answers.filter((res) => res.statusCode === 200).length, 1)
  })

  it('stores passwords as argon2id and refresh tokens only hashed', async () => {
    const { user, refreshToken } = await register(uniqueEmail(), 'a good password')
    const db = h.databases.platform.db
    const [stored] = await db
      .select({ passwordHash: users.passwordHash })
      .from(users)
      .where(eq(users.id, user.id))
    assert.match(stored!.passwordHash, /^\$argon2id\$/)
    const tokens = await db
      .select({ tokenHash: refreshTokens.tokenHash })
      .from(refreshTokens)
      .where(eq(refreshTokens.userId, user.id))
    assert.equal(tokens.length, 1)
    assert.notEqual(tokens[0]!.tokenHash, refreshToken)
    assert.match(tokens[0]!.tokenHash, /^[0-9a-f]{64}$/)
  })

  it('SQL-looking strings are stored as data', async () => {
    const email = `x'); drop table platform.users; --@example.com`.replace(/[ ;()]/g, '')
    const name = "Robert'); DROP TABLE platform.users;--"
    const body = await register(uniqueEmail(), 'a good password', name)
    assert.equal(body.user.name, name)
    assert.equal((await api.post('/api/auth/login', { email, password: 'whatever1' })).statusCode, 401)
    assert.equal((await api.get('/api/auth/me', { token: body.accessToken })).json().name, name)
  })

  it('responses never carry the password or its hash', async () => {
    const res = await api.post('/api/auth/register', { email: uniqueEmail(), password: 'a good password' })
    assert.ok(!res.body.includes('a good password'))
    assert.ok(!res.body.includes('argon2'))
  })
})
