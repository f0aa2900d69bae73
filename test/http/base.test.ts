import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { createLogger } from '../../src/lib/logger.ts'
import { VERSION } from '../../src/lib/version.ts'
import {
  APP_ORIGIN,
  type DirectoryHarness,
  randomAddress,
  sessionCookie,
  startDirectory,
  startPlatform,
  uniqueEmail,
} from '../helpers/apps.ts'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/database.ts'

type PlatformHarness = Awaited<ReturnType<typeof startPlatform>>

/** Every log line the apps write, as text. */
const logLines: string[] = []
const log = createLogger(
  'debug',
  new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk))
      done()
    },
  }),
)

/** A key-shaped secret that a failing query carries as a parameter. */
const QUERY_SECRET = `svc_live_${'5e'.repeat(32)}`

let platform: PlatformHarness
let directory: DirectoryHarness

before(async () => {
  ;[platform, directory] = await Promise.all([
    startPlatform({
      log,
      env: { BODY_LIMIT_BYTES: '4096' },
      extend: (app) => {
        app.get('/test/boom', { config: { access: 'public' }, schema: { hide: true } }, async () => {
          throw new Error('relation "platform.secret_table" does not exist at /srv/app.ts:12')
        })
        // A query that fails on its parameter, the way a bad cast of a presented key would.
        app.get('/test/query-secret', { config: { access: 'public' }, schema: { hide: true } }, async () => {
          await platform.databases.platform.db.execute(
            sql`select id from platform.api_keys where key_hash = ${QUERY_SECRET} or id = ${QUERY_SECRET}::uuid`,
          )
        })
      },
    }),
    startDirectory({
      log,
      env: { BODY_LIMIT_BYTES: '4096' },
      extend: (app) => {
        app.get('/test/boom', { config: { access: 'public' }, schema: { hide: true } }, async () => {
          throw new Error('duplicate key value violates unique constraint "users_email_unique"')
        })
      },
    }),
  ])
})
after(async () => {
  await Promise.all([platform.close(), directory.close()])
})

const services = () =>
  [
    {
      name: 'platform',
      app: platform.app,
      writePath: '/api/auth/register',
      errorShape: (body: Record<string, unknown>) => {
        assert.equal(typeof body.statusCode, 'number')
        assert.equal(typeof body.error, 'string')
        assert.equal(typeof body.message, 'string')
        return body.message as string
      },
    },
    {
      name: 'directory',
      app: directory.app,
      writePath: '/api/auth/register',
      errorShape: (body: Record<string, unknown>) => {
        assert.equal(body.success, false)
        assert.equal(typeof body.error, 'string')
        return body.error as string
      },
    },
  ] as const

describe('shared HTTP behaviour of both services', () => {
  for (const index of [0, 1] as const) {
    const service = () => services()[index]
    const label = index === 0 ? 'platform' : 'directory'

    it(`${label}: /healthz and /readyz answer 200 {status:"ok"}, /readyz naming its checks`, async () => {
      const health = await service().app.inject('/healthz')
      assert.equal(health.statusCode, 200)
      assert.deepEqual(health.json(), { status: 'ok' })
      const ready = await service().app.inject('/readyz')
      assert.equal(ready.statusCode, 200)
      assert.equal(ready.json().status, 'ok')
      // database and jobs always; redis only when REDIS_URL is set (the harness sets it from TEST_REDIS_URL).
      assert.deepEqual(
        Object.keys(ready.json().checks).sort(),
        TEST_REDIS_URL ? ['database', 'jobs', 'redis'] : ['database', 'jobs'],
      )
      assert.deepEqual(ready.json().checks.database, { status: 'ok' })
      assert.deepEqual(ready.json().checks.jobs, { status: 'ok', detail: 'job queue started' })
      if (TEST_REDIS_URL)
        assert.deepEqual(ready.json().checks.redis, { status: 'ok', detail: 'shared through Redis' })
    })

    it(`${label}: GET / names the service and its version, and links to the reference and probes`, async () => {
      const res = await service().app.inject('/')
      assert.equal(res.statusCode, 200)
      const { clients, ...rest } = res.json()
      assert.deepEqual(rest, {
        name: `Curio ${label} API`,
        service: label,
        version: VERSION,
        links: { docs: '/docs', openapi: '/openapi.json', health: '/healthz', ready: '/readyz' },
      })
      const document = (await service().app.inject('/openapi.json')).json()
      const root = document.paths['/'].get
      assert.ok(root.description)
      assert.notEqual(root.responses['200'].description, 'Default Response')
      assert.equal(root.responses['200'].content['application/json'].example.links.docs, '/docs')
      assert.equal(document.info.version, VERSION)
    })

    it(`${label}: GET / links to the guide for programs, the typed client and every machine entry point, each live`, async () => {
      const { clients } = (await service().app.inject('/')).json()
      const { guide, typedClient, ...paths } = clients
      assert.equal(guide, 'docs/clients.md')
      assert.ok(existsSync(new URL(`../../${guide}`, import.meta.url)), `${guide} exists`)
      assert.equal(typedClient, '@curio/client')
      assert.ok(existsSync(new URL('../../packages/client/package.json', import.meta.url)))
      assert.equal(paths.mcp, '/mcp')
      const document = (await service().app.inject('/openapi.json')).json()
      // Each path is a route of the service's document, and a request to it is answered by that route.
      for (const [name, path] of Object.entries(paths) as [string, string][]) {
        const methods = Object.keys(document.paths[path] ?? {})
        assert.ok(methods.length > 0, `${name}: ${path} is in the OpenAPI document`)
        const method = methods.includes('get') ? 'GET' : 'POST'
        const answer = await service().app.inject({ method, url: path })
        assert.notEqual(answer.statusCode, 404, `${name}: ${method} ${path} answers`)
      }
      if (label === 'directory') {
        assert.deepEqual(Object.keys(paths).sort(), ['atom', 'items', 'jsonFeed', 'llms', 'mcp', 'rss'])
      } else {
        assert.deepEqual(Object.keys(paths), ['mcp'])
      }
    })

    it(`${label}: an unknown route is 404 in the service's error shape`, async () => {
      const res = await service().app.inject('/api/nope')
      assert.equal(res.statusCode, 404)
      assert.match(service().errorShape(res.json()), /not found/)
    })

    it(`${label}: malformed JSON is 400`, async () => {
      const res = await service().app.inject({
        method: 'POST',
        url: service().writePath,
        remoteAddress: randomAddress(),
        headers: { 'content-type': 'application/json' },
        payload: '{"email": "a@example.com",',
      })
      assert.equal(res.statusCode, 400)
      assert.equal(service().errorShape(res.json()), 'Request body is not valid JSON')
    })

    it(`${label}: a body that is not JSON is 415`, async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await service().app.inject({
          method: 'POST',
          url: service().writePath,
          remoteAddress: randomAddress(),
          headers: { 'content-type': type },
          payload: 'email=a@example.com',
        })
        assert.equal(res.statusCode, 415, type)
        service().errorShape(res.json())
      }
    })

    it(`${label}: an oversized body is 413`, async () => {
      const res = await service().app.inject({
        method: 'POST',
        url: service().writePath,
        remoteAddress: randomAddress(),
        payload: { email: uniqueEmail(), password: 'a good password', name: 'x'.repeat(5000) },
      })
      assert.equal(res.statusCode, 413)
      assert.equal(service().errorShape(res.json()), 'Request body is too large')
    })

    it(`${label}: an unexpected error is a bare 500, with the details only in the log`, async () => {
      const res = await service().app.inject('/test/boom')
      assert.equal(res.statusCode, 500)
      assert.equal(service().errorShape(res.json()), 'Internal server error')
      assert.doesNotMatch(res.body, /relation|constraint|\.ts|stack/)
      assert.ok(logLines.some((line) => line.includes('"level":50') && line.includes('/test/boom')))
    })

    it(`${label}: every answer carries a request id, and a sane incoming one is kept`, async () => {
      const generated = await service().app.inject('/healthz')
      assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/)
      const kept = await service().app.inject({
        url: '/healthz',
        headers: { 'x-request-id': 'trace-123.abc' },
      })
      assert.equal(kept.headers['x-request-id'], 'trace-123.abc')
      const replaced = await service().app.inject({
        url: '/healthz',
        headers: { 'x-request-id': 'bad id\r\nwith newline' },
      })
      assert.match(String(replaced.headers['x-request-id']), /^[0-9a-f-]{36}$/)
    })

    it(`${label}: security headers are set`, async () => {
      const res = await service().app.inject('/healthz')
      assert.equal(res.headers['x-content-type-options'], 'nosniff')
      assert.match(String(res.headers['content-security-policy']), /default-src 'none'/)
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/)
      assert.ok(res.headers['strict-transport-security'])
      assert.equal(res.headers['referrer-policy'], 'no-referrer')
      assert.equal(res.headers['x-powered-by'], undefined)
    })

    it(`${label}: /openapi.json is an OpenAPI 3.1 document describing every route`, async () => {
      const res = await service().app.inject('/openapi.json')
      assert.equal(res.statusCode, 200)
      const document = res.json()
      assert.equal(document.openapi, '3.1.0')
      assert.ok(document.paths['/healthz'].get)
      assert.ok(document.paths['/api/auth/register'].post.requestBody)
      for (const [path, operations] of Object.entries(document.paths as Record<string, object>)) {
        for (const [method, operation] of Object.entries(
          operations as Record<string, Record<string, unknown>>,
        )) {
          assert.ok(operation.summary, `${method} ${path} has a summary`)
          assert.ok(operation.description, `${method} ${path} has a description`)
          assert.ok(operation.responses, `${method} ${path} documents its responses`)
        }
      }
    })

    it(`${label}: /docs serves the interactive reference`, async () => {
      const res = await service().app.inject('/docs/')
      assert.equal(res.statusCode, 200)
      assert.match(String(res.headers['content-type']), /text\/html/)
      assert.match(res.body, /swagger-ui/i)
      const initializer = await service().app.inject('/docs/static/swagger-initializer.js')
      assert.equal(initializer.statusCode, 200)
      assert.match(initializer.body, /openapi\.json/)
    })
  }

  it('platform: unknown body fields are stripped, not stored or echoed', async () => {
    const res = await platform.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: uniqueEmail(), password: 'a good password', isAdmin: true, id: 'chosen-id' },
    })
    assert.equal(res.statusCode, 201)
    assert.notEqual(res.json().user.id, 'chosen-id')
    assert.equal(res.json().user.isAdmin, undefined)
  })

  it('a body value of the wrong JSON type is 400 naming the field, never coerced into a string', async () => {
    const platformAnswer = await platform.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: uniqueEmail(), password: 12345678901234 },
    })
    assert.equal(platformAnswer.statusCode, 400, platformAnswer.body)
    assert.match(platformAnswer.json().message, /body\.password/)

    const directoryAnswer = await directory.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      payload: { email: uniqueEmail(), password: 'a good password', name: 42 },
    })
    assert.equal(directoryAnswer.statusCode, 400, directoryAnswer.body)
    assert.equal(directoryAnswer.json().success, false)
    assert.match(directoryAnswer.json().error, /body\.name/)
  })

  it('directory: unknown body fields are stripped, so nobody registers as admin', async () => {
    const res = await directory.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      payload: {
        email: uniqueEmail(),
        password: 'a good password',
        name: 'Mallory',
        roleId: 'admin',
        isAdmin: true,
      },
    })
    assert.equal(res.statusCode, 201)
    const me = await directory.app.inject({
      url: '/api/current-user',
      headers: { cookie: sessionCookie(res) },
    })
    assert.equal(me.json().isAdmin, false)
  })

  it('very long strings are refused with 400, never stored or crashed on', async () => {
    const res = await platform.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: `${'a'.repeat(3000)}@example.com`, password: 'x' },
    })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().details[0].field, 'body.email')
  })

  it('readyz answers 503 once the database is gone', async () => {
    const gone = await startPlatform({ log })
    try {
      await gone.databases.close()
      const res = await gone.app.inject('/readyz')
      assert.equal(res.statusCode, 503)
      assert.equal(res.json().status, 'unavailable')
      const { database } = res.json().checks
      assert.equal(database.status, 'unavailable')
      // A server's closed pool gives no connection; a closed embedded database fails in a way of its own.
      assert.equal(database.detail, TEST_DATABASE_URL ? 'no connection' : 'failed: the log says why')
    } finally {
      await gone.app.close()
      await gone.jobs.stop(1000).catch(() => {})
      await gone.rateLimiter.close()
    }
  })

  it('readyz answers 503 naming the job queue once it is stopped', async () => {
    const stopped = await startPlatform({ log })
    try {
      await stopped.jobs.stop(1000)
      const res = await stopped.app.inject('/readyz')
      assert.equal(res.statusCode, 503)
      assert.equal(res.json().status, 'unavailable')
      assert.deepEqual(res.json().checks.database, { status: 'ok' })
      assert.deepEqual(res.json().checks.jobs, { status: 'unavailable', detail: 'job queue not started' })
    } finally {
      await stopped.close()
    }
  })

  it('a failing query is logged with its SQL and code, never its parameters', async () => {
    const before = logLines.length
    const res = await platform.app.inject('/test/query-secret')
    assert.equal(res.statusCode, 500)
    assert.ok(!res.body.includes(QUERY_SECRET))
    const written = logLines.slice(before).join('\n')
    assert.match(written, /request failed/)
    assert.match(written, /key_hash = \$1/, 'the statement, with placeholders')
    assert.match(written, /22P02/, 'the SQLSTATE')
    assert.ok(!written.includes(QUERY_SECRET), 'no parameter value')
    assert.ok(!written.includes(QUERY_SECRET.slice(9, 30)), 'not even a part of it')
  })

  it("a service's input error names each field where it was sent", async () => {
    const registered = await platform.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: uniqueEmail(), password: 'a good password' },
    })
    const dated = await platform.app.inject({
      url: '/api/activity-log?dateFrom=2026-02-30',
      headers: { authorization: `Bearer ${registered.json().accessToken}` },
    })
    assert.equal(dated.statusCode, 400)
    assert.deepEqual(dated.json().details, [
      { field: 'query.dateFrom', message: 'must be a real date from year 1 to 9999' },
    ])
    assert.equal(dated.json().message, 'query.dateFrom must be a real date from year 1 to 9999')

    const admin = await directory.adminCookie()
    const clients = await directory.app.inject({
      url: '/api/admin/clients/advanced-search?minSubmissions=5&maxSubmissions=2',
      headers: { cookie: admin },
    })
    assert.equal(clients.statusCode, 400)
    assert.equal(clients.json().details[0].field, 'query.minSubmissions')
  })

  it('no password, token or cookie reaches the log', async () => {
    const email = uniqueEmail()
    const password = 'log-canary-password'
    const registered = await platform.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email, password },
    })
    const { accessToken, refreshToken } = registered.json()
    await platform.app.inject({ url: '/api/auth/me', headers: { authorization: `Bearer ${accessToken}` } })
    await platform.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } })
    const signedUp = await directory.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      payload: { email: uniqueEmail(), password, name: 'Canary' },
    })
    const cookie = sessionCookie(signedUp)
    await directory.app.inject({
      method: 'POST',
      url: '/api/auth/signout',
      headers: { cookie, origin: APP_ORIGIN },
    })
    const all = logLines.join('\n')
    assert.ok(all.length > 0)
    for (const secret of [password, accessToken, refreshToken, cookie.split('=')[1]!]) {
      assert.ok(!all.includes(secret), 'a secret was logged')
    }
  })
})
