import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { type DirectoryHarness, randomAddress, startDirectory, uniqueEmail } from '../helpers/apps.ts'
import { NEEDS_REDIS } from '../helpers/database.ts'

const FIFTEEN_MINUTES = 15 * 60_000

function signin(h: DirectoryHarness, ip: string, headers: Record<string, string> = {}) {
  return h.app.inject({
    method: 'POST',
    url: '/api/auth/signin',
    remoteAddress: ip,
    headers,
    payload: { email: 'nobody@example.com', password: 'wrong password' },
  })
}

function register(h: DirectoryHarness, ip: string) {
  return h.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    remoteAddress: ip,
    payload: { email: uniqueEmail(), password: 'a good password', name: 'Grace' },
  })
}

describe('rate limiting of sign-in and register', () => {
  let h: DirectoryHarness
  before(async () => {
    h = await startDirectory()
  })
  after(() => h.close())

  it('allows 5 sign-ins per 15 minutes per IP, then answers 429 with Retry-After', async () => {
    const ip = randomAddress()
    const start = h.clock.nowMs()
    for (let attempt = 1; attempt <= 5; attempt++) {
      const res = await signin(h, ip)
      assert.equal(res.statusCode, 401, `attempt ${attempt} reaches the password check`)
      assert.equal(res.headers['x-ratelimit-limit'], '5')
      assert.equal(res.headers['x-ratelimit-remaining'], String(5 - attempt))
      assert.equal(res.headers['x-ratelimit-reset'], String(Math.ceil((start + FIFTEEN_MINUTES) / 1000)))
    }
    const denied = await signin(h, ip)
    assert.equal(denied.statusCode, 429)
    assert.equal(denied.headers['retry-after'], '900')
    assert.equal(denied.headers['x-ratelimit-limit'], '5')
    assert.equal(denied.headers['x-ratelimit-remaining'], '0')
    assert.ok(denied.headers['x-ratelimit-reset'])
    assert.deepEqual(denied.json(), {
      success: false,
      error: 'Too many requests; try again in 900 seconds',
      code: 'RATE_LIMITED',
    })
  })

  it('a denied IP does not limit another IP', async () => {
    const ip = randomAddress()
    for (let attempt = 0; attempt < 6; attempt++) await signin(h, ip)
    assert.equal((await signin(h, ip)).statusCode, 429)
    assert.equal((await signin(h, randomAddress())).statusCode, 401)
  })

  it('Retry-After counts down and the window reopens when it ends', async () => {
    const ip = randomAddress()
    for (let attempt = 0; attempt < 5; attempt++) await signin(h, ip)
    h.clock.advance(FIFTEEN_MINUTES - 1500)
    const denied = await signin(h, ip)
    assert.equal(denied.statusCode, 429)
    assert.equal(denied.headers['retry-after'], '2')
    h.clock.advance(1500)
    const reopened = await signin(h, ip)
    assert.equal(reopened.statusCode, 401)
    assert.equal(reopened.headers['x-ratelimit-remaining'], '4')
  })

  it('allows 3 registrations per hour per IP', async () => {
    const ip = randomAddress()
    for (let attempt = 1; attempt <= 3; attempt++) assert.equal((await register(h, ip)).statusCode, 201)
    const denied = await register(h, ip)
    assert.equal(denied.statusCode, 429)
    assert.equal(denied.headers['retry-after'], '3600')
    h.clock.advance(60 * 60_000)
    assert.equal((await register(h, ip)).statusCode, 201)
  })

  it('localhost is limited like anyone when the bypass is off, and its 429 says how to lift it', async () => {
    for (let attempt = 0; attempt < 5; attempt++) await signin(h, '127.0.0.1')
    const denied = await signin(h, '127.0.0.1')
    assert.equal(denied.statusCode, 429)
    assert.deepEqual(denied.json(), {
      success: false,
      error:
        `Too many requests; try again in ${denied.headers['retry-after']} seconds. For local work, ` +
        'RATE_LIMIT_BYPASS_LOCALHOST=true lets requests from this machine skip the limits ' +
        '(set it in the environment or .env, then restart Curio)',
      code: 'RATE_LIMITED',
    })
  })

  it('X-Forwarded-For is ignored without TRUST_PROXY', async () => {
    const ip = randomAddress()
    for (let attempt = 0; attempt < 5; attempt++) {
      await signin(h, ip, { 'x-forwarded-for': randomAddress() })
    }
    assert.equal((await signin(h, ip, { 'x-forwarded-for': randomAddress() })).statusCode, 429)
  })
})

describe('rate limiting with RATE_LIMIT_BYPASS_LOCALHOST and TRUST_PROXY', () => {
  let h: DirectoryHarness
  before(async () => {
    h = await startDirectory({ env: { RATE_LIMIT_BYPASS_LOCALHOST: 'true', TRUST_PROXY: '1' } })
  })
  after(() => h.close())

  it('the client IP comes from X-Forwarded-For behind a trusted proxy', async () => {
    const proxy = randomAddress()
    const client = randomAddress()
    for (let attempt = 0; attempt < 5; attempt++) {
      assert.equal((await signin(h, proxy, { 'x-forwarded-for': client })).statusCode, 401)
    }
    assert.equal((await signin(h, proxy, { 'x-forwarded-for': client })).statusCode, 429)
    assert.equal((await signin(h, proxy, { 'x-forwarded-for': randomAddress() })).statusCode, 401)
  })

  it('localhost skips the limit when the bypass is on', async () => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const res = await signin(h, '127.0.0.1')
      assert.equal(res.statusCode, 401)
      assert.equal(res.headers['x-ratelimit-limit'], undefined)
    }
  })
})

describe('rate limiting shared across instances through Redis', NEEDS_REDIS, () => {
  let first: DirectoryHarness
  let second: DirectoryHarness
  before(async () => {
    const rateLimitPrefix = `curio-test:${randomBytes(6).toString('hex')}:`
    first = await startDirectory({ rateLimitPrefix })
    second = await startDirectory({ rateLimitPrefix })
    second.clock.set(first.clock.nowMs())
  })
  after(async () => {
    await first.close()
    await second.close()
  })

  it('two instances count one window', async () => {
    const ip = randomAddress()
    for (let attempt = 0; attempt < 3; attempt++) assert.equal((await signin(first, ip)).statusCode, 401)
    assert.equal((await signin(second, ip)).headers['x-ratelimit-remaining'], '1')
    assert.equal((await signin(second, ip)).statusCode, 401)
    assert.equal((await signin(first, ip)).statusCode, 429)
    assert.equal((await signin(second, ip)).statusCode, 429)
  })
})
