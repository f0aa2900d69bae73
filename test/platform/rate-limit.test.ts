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

describe('the 429 of a local caller', () => {
  const BYPASS_HINT =
    'For local work, RATE_LIMIT_BYPASS_LOCALHOST=true lets requests from this machine skip the limits ' +
    '(set it in the environment or .env, then restart Curio)'

  /** Registers until the 4th register from `address` is refused; answers the refusal. */
  async function fourthRegister(on: PlatformHarness, address: string) {
    for (let n = 0; n < 3; n++) {
      const res = await api
        .on(on)
        .post('/api/auth/register', { email: uniqueEmail(), password: 'a good password' }, { address })
      assert.equal(res.statusCode, 201, res.body)
    }
    const denied = await api
      .on(on)
      .post('/api/auth/register', { email: uniqueEmail(), password: 'a good password' }, { address })
    assert.equal(denied.statusCode, 429, denied.body)
    return denied
  }

  it('on an instance not in production, says how to lift the limits for this machine; others only when to retry', async () => {
    const local = await startPlatform({ env: { RATE_LIMIT_BYPASS_LOCALHOST: 'false' } })
    try {
      for (const address of ['127.0.0.1', '::1']) {
        const denied = await fourthRegister(local, address)
        assert.deepEqual(denied.json(), {
          statusCode: 429,
          error: 'Too Many Requests',
          code: 'RATE_LIMITED',
          message: `Too many requests; try again in ${denied.headers['retry-after']} seconds. ${BYPASS_HINT}`,
        })
        assert.ok(Number(denied.headers['retry-after']) > 3500)
      }
      const remote = await fourthRegister(local, randomAddress())
      assert.equal(
        remote.json().message,
        `Too many requests; try again in ${remote.headers['retry-after']} seconds`,
        'a caller elsewhere cannot use the setting: it is not told of it',
      )
    } finally {
      await local.close()
    }

    // As told: with the setting, the same caller registers past the limit.
    const lifted = await startPlatform({ env: { RATE_LIMIT_BYPASS_LOCALHOST: 'true' } })
    try {
      for (let n = 0; n < 5; n++) {
        const res = await api
          .on(lifted)
          .post(
            '/api/auth/register',
            { email: uniqueEmail(), password: 'a good password' },
            { address: '127.0.0.1' },
          )
        assert.equal(res.statusCode, 201, res.body)
      }
    } finally {
      await lifted.close()
    }
  })

  it('in production, a local caller is told only when to try again', async () => {
    const production = await startPlatform({
      env: {
        NODE_ENV: 'production',
        JWT_SECRET: 'a-production-secret-of-at-least-32-characters',
        RATE_LIMIT_BYPASS_LOCALHOST: 'false',
      },
    })
    try {
      const denied = await fourthRegister(production, '127.0.0.1')
      assert.equal(
        denied.json().message,
        `Too many requests; try again in ${denied.headers['retry-after']} seconds`,
      )
    } finally {
      await production.close()
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
