import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { loadConfig } from '../../src/config.ts'
import { corsPolicy, ownOrigins } from '../../src/http/cors.ts'
import {
  type DirectoryHarness,
  type PlatformHarness,
  randomAddress,
  sessionCookie,
  startDirectory,
  startPlatform,
  uniqueEmail,
} from '../helpers/apps.ts'

const FRONT_END = 'https://app.example.com'
const OTHER_FRONT_END = 'http://localhost:5173'
const UNLISTED = 'https://evil.example'
const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_SECRET: 'a-signing-secret-of-at-least-32-characters',
  PLATFORM_ENCRYPTION_KEY: 'ab'.repeat(32),
}

type App = PlatformHarness['app']

function preflight(app: App, origin: string, url = '/api/auth/register', method = 'POST') {
  return app.inject({
    method: 'OPTIONS',
    url,
    remoteAddress: randomAddress(),
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type,authorization',
    },
  })
}

/** The answer's CORS headers, by name. */
function corsHeaders(res: LightMyRequestResponse): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(res.headers).filter(([name]) => name.startsWith('access-control-')),
  )
}

const list = (value: unknown) =>
  String(value ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())

function assertPreflightAllowed(res: LightMyRequestResponse, origin: string) {
  assert.equal(res.statusCode, 204, res.body)
  assert.equal(res.body, '')
  assert.equal(res.headers['access-control-allow-origin'], origin)
  assert.deepEqual(list(res.headers['access-control-allow-methods']), [
    'get',
    'post',
    'put',
    'patch',
    'delete',
  ])
  const allowed = list(res.headers['access-control-allow-headers'])
  for (const header of ['content-type', 'authorization', 'x-api-key', 'x-request-id']) {
    assert.ok(allowed.includes(header), `${header} in ${allowed.join(', ')}`)
  }
  assert.ok(Number(res.headers['access-control-max-age']) > 0)
  assert.match(String(res.headers.vary), /origin/i)
  // The answer is still one of the service's: its request id and security headers.
  assert.ok(res.headers['x-request-id'])
  assert.equal(res.headers['x-content-type-options'], 'nosniff')
}

function assertNoCors(res: LightMyRequestResponse) {
  assert.deepEqual(corsHeaders(res), {})
  assert.ok(res.statusCode < 500, `${res.statusCode}: ${res.body}`)
}

describe('CORS with CORS_ORIGINS set', () => {
  let platform: PlatformHarness
  let directory: DirectoryHarness
  const env = { CORS_ORIGINS: `${FRONT_END}, ${OTHER_FRONT_END}` }

  before(async () => {
    ;[platform, directory] = await Promise.all([startPlatform({ env }), startDirectory({ env })])
  })
  after(async () => {
    await Promise.all([platform?.close(), directory?.close()])
  })

  for (const label of ['platform', 'directory'] as const) {
    const app = () => (label === 'platform' ? platform.app : directory.app)

    it(`${label}: a listed origin's preflight answers 204 with the allowed methods and headers`, async () => {
      for (const origin of [FRONT_END, OTHER_FRONT_END])
        assertPreflightAllowed(await preflight(app(), origin), origin)
    })

    it(`${label}: a preflight for a path that does not exist answers 204 too, never 5xx`, async () => {
      const res = await preflight(app(), FRONT_END, '/api/no/such/path', 'DELETE')
      assertPreflightAllowed(res, FRONT_END)
    })

    it(`${label}: an answer to a listed origin names it and exposes the request id and rate-limit headers`, async () => {
      const res = await app().inject({ method: 'GET', url: '/healthz', headers: { origin: FRONT_END } })
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['access-control-allow-origin'], FRONT_END)
      const exposed = list(res.headers['access-control-expose-headers'])
      for (const header of [
        'x-request-id',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'retry-after',
      ]) {
        assert.ok(exposed.includes(header), `${header} in ${exposed.join(', ')}`)
      }
    })

    it(`${label}: an error answer to a listed origin carries the headers too, so the page can read it`, async () => {
      const res = await app().inject({
        method: 'GET',
        url: '/api/no/such/path',
        headers: { origin: FRONT_END },
      })
      assert.equal(res.statusCode, 404)
      assert.equal(res.headers['access-control-allow-origin'], FRONT_END)
    })

    it(`${label}: an unlisted origin gets no CORS header at all, on a preflight or a request`, async () => {
      assertNoCors(await preflight(app(), UNLISTED))
      assertNoCors(await preflight(app(), UNLISTED, '/api/no/such/path'))
      assertNoCors(await app().inject({ method: 'GET', url: '/healthz', headers: { origin: UNLISTED } }))
      // A look-alike of a listed origin is another origin.
      assertNoCors(await preflight(app(), `${FRONT_END}.evil.example`))
      assertNoCors(await preflight(app(), 'http://app.example.com'))
    })

    it(`${label}: a request without Origin gets no CORS header`, async () => {
      assertNoCors(await app().inject({ method: 'GET', url: '/healthz' }))
      assertNoCors(await app().inject({ method: 'OPTIONS', url: '/healthz' }))
    })
  }

  it('platform: no credentials (callers present bearer tokens)', async () => {
    const res = await preflight(platform.app, FRONT_END)
    assert.equal(res.headers['access-control-allow-credentials'], undefined)
    const get = await platform.app.inject({ method: 'GET', url: '/healthz', headers: { origin: FRONT_END } })
    assert.equal(get.headers['access-control-allow-credentials'], undefined)
  })

  it('directory: a listed origin may send credentials', async () => {
    const res = await preflight(directory.app, FRONT_END)
    assert.equal(res.headers['access-control-allow-credentials'], 'true')
    const get = await directory.app.inject({ method: 'GET', url: '/healthz', headers: { origin: FRONT_END } })
    assert.equal(get.headers['access-control-allow-credentials'], 'true')
  })

  async function register(origin: string) {
    const res = await directory.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      headers: { origin },
      payload: { email: uniqueEmail(), password: 'a good password', name: 'Grace Hopper' },
    })
    assert.equal(res.statusCode, 201, res.body)
    return sessionCookie(res)
  }

  const signout = (cookie: string, origin: string) =>
    directory.app.inject({
      method: 'POST',
      url: '/api/auth/signout',
      remoteAddress: randomAddress(),
      headers: { cookie, origin },
    })

  it("directory: a cookie write from a listed origin passes the origin check, as the app's own", async () => {
    const cookie = await register(FRONT_END)
    const res = await signout(cookie, FRONT_END)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.headers['access-control-allow-origin'], FRONT_END)
    assert.equal(res.headers['access-control-allow-credentials'], 'true')
  })

  it('directory: a cookie write from an unlisted origin stays 403 CROSS_ORIGIN, without CORS headers', async () => {
    const cookie = await register(FRONT_END)
    const res = await signout(cookie, UNLISTED)
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().error, 'Cross-origin request refused')
    assert.deepEqual(corsHeaders(res), {})
  })

  it('directory: with CORS_ORIGINS set, APP_URL and the loopback names of a local instance stay its own', async () => {
    for (const origin of ['http://localhost:3001', 'http://127.0.0.1:3001', 'http://[::1]:3001']) {
      const cookie = await register(FRONT_END)
      assert.equal((await signout(cookie, origin)).statusCode, 200, origin)
    }
  })
})

describe('CORS defaults', () => {
  it("a local instance allows the service's own origins: its URL and the same port on the loopback names", async () => {
    const [platform, directory] = await Promise.all([startPlatform(), startDirectory()])
    try {
      for (const origin of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000']) {
        assertPreflightAllowed(await preflight(platform.app, origin), origin)
      }
      for (const origin of ['http://localhost:3001', 'http://127.0.0.1:3001', 'http://[::1]:3001']) {
        const res = await preflight(directory.app, origin)
        assertPreflightAllowed(res, origin)
        assert.equal(res.headers['access-control-allow-credentials'], 'true')
      }
      // Another port, another service's origin, or another host is not the service's own.
      for (const origin of ['http://localhost:3002', 'http://localhost:3001', FRONT_END]) {
        assertNoCors(await preflight(platform.app, origin))
      }
      assertNoCors(await preflight(directory.app, 'http://localhost:3000'))
    } finally {
      await Promise.all([platform.close(), directory.close()])
    }
  })

  it('production allows no origin unless CORS_ORIGINS lists it', async () => {
    const [platform, directory] = await Promise.all([
      startPlatform({ env: PRODUCTION }),
      startDirectory({ env: { ...PRODUCTION, APP_URL: 'https://directory.example.com' } }),
    ])
    try {
      for (const origin of ['http://localhost:3000', 'http://127.0.0.1:3000', FRONT_END]) {
        assertNoCors(await preflight(platform.app, origin))
        assertNoCors(await platform.app.inject({ method: 'GET', url: '/healthz', headers: { origin } }))
      }
      for (const origin of ['https://directory.example.com', 'http://localhost:3001', FRONT_END]) {
        assertNoCors(await preflight(directory.app, origin))
      }
    } finally {
      await Promise.all([platform.close(), directory.close()])
    }
  })

  it('production with CORS_ORIGINS allows exactly those', () => {
    const config = loadConfig({ ...PRODUCTION, CORS_ORIGINS: FRONT_END })
    assert.deepEqual(corsPolicy(config, 'platform'), { origins: [FRONT_END], credentials: false })
    assert.deepEqual(corsPolicy(config, 'directory'), { origins: [FRONT_END], credentials: true })
  })
})

describe("the directory's own origins", () => {
  it('on a local instance: APP_URL and the same port on localhost, 127.0.0.1 and [::1]', () => {
    assert.deepEqual(ownOrigins(loadConfig({}), 'directory').sort(), [
      'http://127.0.0.1:3001',
      'http://[::1]:3001',
      'http://localhost:3001',
    ])
    // APP_URL follows DIRECTORY_PORT unless set.
    assert.deepEqual(ownOrigins(loadConfig({ DIRECTORY_PORT: '4001' }), 'directory').sort(), [
      'http://127.0.0.1:4001',
      'http://[::1]:4001',
      'http://localhost:4001',
    ])
  })

  it('in production: APP_URL only', () => {
    const config = loadConfig({ ...PRODUCTION, APP_URL: 'https://directory.example.com' })
    assert.deepEqual(ownOrigins(config, 'directory'), ['https://directory.example.com'])
  })

  it('a production origin check refuses the loopback names and accepts APP_URL', async () => {
    const directory = await startDirectory({
      env: { ...PRODUCTION, APP_URL: 'https://directory.example.com' },
    })
    try {
      const res = await directory.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        remoteAddress: randomAddress(),
        payload: { email: uniqueEmail(), password: 'a good password', name: 'Grace Hopper' },
      })
      const cookie = sessionCookie(res)
      const signout = (origin: string) =>
        directory.app.inject({
          method: 'POST',
          url: '/api/auth/signout',
          remoteAddress: randomAddress(),
          headers: { cookie, origin },
        })
      assert.equal((await signout('http://127.0.0.1:3001')).statusCode, 403)
      assert.equal((await signout('http://localhost:3001')).statusCode, 403)
      assert.equal((await signout('https://directory.example.com')).statusCode, 200)
    } finally {
      await directory.close()
    }
  })
})
