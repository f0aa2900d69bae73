import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, describe, it } from 'node:test'
import {
  type PlatformHarness,
  randomAddress,
  startDirectory,
  startPlatform,
  uniqueEmail,
} from '../helpers/apps.ts'
import { type Requests, requests } from '../helpers/requests.ts'

let h: PlatformHarness
/** Requests from the address each names (the harness lets 127.0.0.1 through). */
let api: Requests
before(async () => {
  // The harness lets 127.0.0.1 through for other tests' sake; these requests come from other addresses.
  h = await startPlatform()
  api = requests(h)
})
after(() => h.close())

async function registered(remoteAddress = randomAddress()) {
  const email = uniqueEmail('limits')
  const res = await api.post(
    '/api/auth/register',
    { email, password: 'a good password' },
    { address: remoteAddress },
  )
  assert.equal(res.statusCode, 201, res.body)
  return { email, refreshToken: res.json().refreshToken as string }
}

/** A loopback port where nothing listens: a Redis that cannot be reached. */
async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('platform account routes are rate limited per client IP', () => {
  it('allows 3 registrations per hour, then 429 with Retry-After; another IP is not limited', async () => {
    const address = randomAddress()
    for (let n = 1; n <= 3; n++) {
      const res = await api.post(
        '/api/auth/register',
        { email: uniqueEmail(), password: 'a good password' },
        { address },
      )
      assert.equal(res.statusCode, 201)
      assert.equal(res.headers['x-ratelimit-limit'], '3')
      assert.equal(res.headers['x-ratelimit-remaining'], String(3 - n))
    }
    const denied = await api.post(
      '/api/auth/register',
      { email: uniqueEmail(), password: 'a good password' },
      { address },
    )
    assert.equal(denied.statusCode, 429)
    assert.equal(denied.json().code, 'RATE_LIMITED')
    assert.ok(Number(denied.headers['retry-after']) > 3500, 'about an hour')
    assert.equal((await registered()).email.includes('@'), true, 'another address registers')
    h.clock.advance(60 * 60_000)
    const reopened = await api.post(
      '/api/auth/register',
      { email: uniqueEmail(), password: 'a good password' },
      { address },
    )
    assert.equal(reopened.statusCode, 201, 'the window ends after an hour')
  })

  it('allows 5 logins per 15 minutes, right or wrong, then 429', async () => {
    const address = randomAddress()
    const { email } = await registered()
    for (let n = 0; n < 5; n++) {
      const password = n % 2 ? 'a good password' : 'a wrong password'
      const res = await api.post('/api/auth/login', { email, password }, { address })
      assert.equal(res.statusCode, n % 2 ? 200 : 401)
    }
    const denied = await api.post('/api/auth/login', { email, password: 'a good password' }, { address })
    assert.equal(denied.statusCode, 429)
    assert.ok(Number(denied.headers['retry-after']) <= 15 * 60)
  })

  it('allows 60 refreshes a minute from one address', async () => {
    const address = randomAddress()
    let { refreshToken } = await registered()
    for (let n = 0; n < 60; n++) {
      const res = await api.post('/api/auth/refresh', { refreshToken }, { address })
      assert.equal(res.statusCode, 200, `refresh ${n + 1}`)
      refreshToken = res.json().refreshToken
    }
    const denied = await api.post('/api/auth/refresh', { refreshToken }, { address })
    assert.equal(denied.statusCode, 429)
    h.clock.advance(60_000)
    assert.equal((await api.post('/api/auth/refresh', { refreshToken }, { address })).statusCode, 200)
  })

  it('the platform and the directory count apart on the limiter they share', async () => {
    const address = randomAddress()
    for (let n = 0; n < 3; n++) await registered(address)
    const directory = await startDirectory({ rateLimiter: h.rateLimiter })
    try {
      const res = await directory.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        remoteAddress: address,
        payload: { email: uniqueEmail(), password: 'a good password', name: 'Someone' },
      })
      assert.equal(res.statusCode, 201)
    } finally {
      await directory.close()
    }
  })
})

describe('limits while Redis is unreachable', () => {
  let port: number
  let offline: PlatformHarness
  before(async () => {
    port = await deadPort()
    offline = await startPlatform({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } })
  })
  after(() => offline.close())

  it('registration is still limited, per instance, and /readyz says so', async () => {
    const address = randomAddress()
    for (let n = 0; n < 3; n++) {
      const res = await api
        .on(offline)
        .post('/api/auth/register', { email: uniqueEmail(), password: 'a good password' }, { address })
      assert.equal(res.statusCode, 201)
    }
    const denied = await api
      .on(offline)
      .post('/api/auth/register', { email: uniqueEmail(), password: 'a good password' }, { address })
    assert.equal(denied.statusCode, 429, 'never unlimited')
    const ready = await offline.app.inject('/readyz')
    assert.equal(ready.statusCode, 200, 'the service answers')
    assert.equal(ready.json().status, 'degraded')
    assert.equal(ready.json().checks.redis.status, 'degraded')
    assert.match(ready.json().checks.redis.detail, /per instance/)
    assert.doesNotMatch(ready.body, new RegExp(String(port)), 'no address of the Redis server')
  })

  it('the directory too: sign-in stays limited and /readyz is degraded', async () => {
    const directory = await startDirectory({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } })
    try {
      const address = randomAddress()
      const statuses: number[] = []
      for (let n = 0; n < 6; n++) {
        const res = await directory.app.inject({
          method: 'POST',
          url: '/api/auth/signin',
          remoteAddress: address,
          payload: { email: uniqueEmail(), password: 'not a password' },
        })
        statuses.push(res.statusCode)
      }
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429])
      assert.equal((await directory.app.inject('/readyz')).json().status, 'degraded')
    } finally {
      await directory.close()
    }
  })
})
