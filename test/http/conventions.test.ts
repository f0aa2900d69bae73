/**
 * The edges every route inherits from the base app: validation errors that name every field in words,
 * 405 with Allow, 404s of a sane length, empty JSON bodies, framework and connection errors in the
 * service's shape with its headers, timeouts of stuck clients, and client aborts logged as what they are.
 */
import assert from 'node:assert/strict'
import { EventEmitter, once } from 'node:events'
import { readFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { ERROR_CODES } from '../../src/lib/error-codes.ts'
import { createLogger } from '../../src/lib/logger.ts'
import {
  APP_ORIGIN,
  type DirectoryHarness,
  type PlatformHarness,
  startDirectory,
  startPlatform,
  uniqueEmail,
} from '../helpers/apps.ts'

const logLines: Record<string, unknown>[] = []
const logged = new EventEmitter()
const log = createLogger(
  'debug',
  new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        logLines.push(JSON.parse(line))
        logged.emit('line')
      }
      done()
    },
  }),
)

/** The first log line from `from` on that matches, as soon as it is written. */
async function logLine(from: number, matches: (line: Record<string, unknown>) => boolean) {
  for (;;) {
    const line = logLines.slice(from).find(matches)
    if (line) return line
    await once(logged, 'line')
  }
}

let platform: PlatformHarness
let directory: DirectoryHarness
let platformUrl: URL
let directoryUrl: URL
let token: string

// Short timeouts, so a stuck client is answered in a fraction of a second.
const env = { REQUEST_TIMEOUT_MS: '400', HEADERS_TIMEOUT_MS: '200', LOG_FORMAT: 'json' }

before(async () => {
  ;[platform, directory] = await Promise.all([startPlatform({ env, log }), startDirectory({ env, log })])
  platformUrl = new URL(await platform.app.listen({ host: '127.0.0.1', port: 0 }))
  directoryUrl = new URL(await directory.app.listen({ host: '127.0.0.1', port: 0 }))
  const registered = await platform.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: uniqueEmail('edges'), password: 'a good password' },
  })
  token = registered.json().accessToken
})
after(async () => {
  await Promise.all([platform?.close(), directory?.close()])
})

const auth = () => ({ authorization: `Bearer ${token}` })

/** Every answer has the security headers and a request id, whoever raised it. */
function assertServiceHeaders(headers: Record<string, unknown>, label: string) {
  assert.match(String(headers['x-request-id']), /^[A-Za-z0-9._:-]+$/, `${label}: x-request-id`)
  assert.equal(headers['x-content-type-options'], 'nosniff', `${label}: security headers`)
  assert.match(String(headers['content-security-policy']), /default-src 'none'/, `${label}: CSP`)
}

/** A raw HTTP exchange: writes `request`, returns the status, headers and body the server sends. */
async function raw(url: URL, write: (socket: Socket) => void) {
  const socket = connect(Number(url.port), url.hostname)
  await once(socket, 'connect')
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  write(socket)
  await once(socket, 'close')
  const text = Buffer.concat(chunks).toString('utf8')
  const [head = '', body = ''] = text.split('\r\n\r\n')
  const [statusLine = '', ...headerLines] = head.split('\r\n')
  const headers = Object.fromEntries(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  )
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined }
}

describe('validation errors that help', () => {
  it('every failing field is named once, with where it was sent, and the message counts them', async () => {
    const res = await platform.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: 'not-an-email', password: 42 },
    })
    assert.equal(res.statusCode, 400)
    const body = res.json()
    assert.equal(body.code, 'VALIDATION_ERROR')
    assert.deepEqual(body.details.map((detail: { field: string }) => detail.field).sort(), [
      'body.email',
      'body.password',
    ])
    assert.equal(body.message, '2 fields are invalid: body.email, body.password')
    const byField = Object.fromEntries(
      body.details.map((d: { field: string; message: string }) => [d.field, d.message]),
    )
    assert.equal(byField['body.email'], 'must be an email address')
    assert.equal(byField['body.password'], 'must be a string')
  })

  it('an enum failure names the allowed values in one entry; a date says its format in words', async () => {
    const res = await platform.app.inject({
      url: '/api/activity-log?actionType=bogus&limit=0&dateFrom=yesterday',
      headers: auth(),
    })
    assert.equal(res.statusCode, 400)
    const details: { field: string; message: string }[] = res.json().details
    assert.deepEqual(details.map((detail) => detail.field).sort(), [
      'query.actionType',
      'query.dateFrom',
      'query.limit',
    ])
    const byField = Object.fromEntries(details.map((detail) => [detail.field, detail.message]))
    assert.match(
      byField['query.actionType']!,
      /^must be one of "generation", "comparison_generation", .*"work_deleted"/,
    )
    assert.equal(byField['query.limit'], 'must be at least 1')
    assert.match(byField['query.dateFrom']!, /^must look like 2026-11-01 or 2026-11-22T10:00:00Z/)
    for (const detail of details)
      assert.doesNotMatch(detail.message, /[\\^$]|\(\?|\[0-9/, 'no regular expression')
  })

  it('the directory names fields the same way and carries a stable code', async () => {
    const cookie = await directory.adminCookie()
    const res = await directory.app.inject({
      method: 'POST',
      url: '/api/admin/roles',
      headers: { cookie, origin: APP_ORIGIN },
      payload: { name: '', isActive: 'yes' },
    })
    assert.equal(res.statusCode, 400)
    const body = res.json()
    assert.equal(body.success, false)
    assert.equal(body.code, 'VALIDATION_ERROR')
    assert.ok(
      body.details.some((detail: { field: string }) => detail.field === 'body.name'),
      res.body,
    )
  })
})

describe('404 and 405', () => {
  for (const [label, service, signin] of [
    ['platform', () => platform, '/api/auth/login'],
    ['directory', () => directory, '/api/auth/signin'],
  ] as const) {
    it(`${label}: a known path with another method is 405 with Allow, in the error shape`, async () => {
      const res = await service().app.inject({ method: 'GET', url: signin })
      assert.equal(res.statusCode, 405)
      assert.equal(res.headers.allow, 'POST')
      assert.equal(res.json().code, 'METHOD_NOT_ALLOWED')
      assertServiceHeaders(res.headers, label)
    })

    it(`${label}: a 404 names method and path, cut short, never the query`, async () => {
      const path = `/api/nope/${'a'.repeat(5000)}`
      const res = await service().app.inject({ method: 'PUT', url: `${path}?secret=${'s'.repeat(100)}` })
      assert.equal(res.statusCode, 404)
      const message: string = res.json().message ?? res.json().error
      assert.ok(message.startsWith('Route PUT /api/nope/aaa'), message)
      assert.ok(message.length < 200, `${message.length} characters`)
      assert.doesNotMatch(message, /secret/)
    })
  }

  it('a path with parameters answers 405 for a method it lacks, listing what it has', async () => {
    const res = await platform.app.inject({ method: 'PUT', url: '/api/works/123', headers: auth() })
    assert.equal(res.statusCode, 405)
    assert.deepEqual(res.headers.allow?.toString().split(', ').sort(), ['DELETE', 'GET', 'HEAD', 'PATCH'])
  })
})

describe('empty JSON bodies', () => {
  it('a DELETE sent with content-type application/json and no body is accepted', async () => {
    const created = await platform.app.inject({
      method: 'POST',
      url: '/api/works',
      headers: auth(),
      payload: { name: 'Short-lived' },
    })
    const res = await platform.app.inject({
      method: 'DELETE',
      url: `/api/works/${created.json().id}`,
      headers: { ...auth(), 'content-type': 'application/json' },
    })
    assert.equal(res.statusCode, 204, res.body)
  })

  it('a GET with the header and no body is accepted; a route that needs a body still says so', async () => {
    const read = await platform.app.inject({
      url: '/api/works',
      headers: { ...auth(), 'content-type': 'application/json' },
    })
    assert.equal(read.statusCode, 200, read.body)
    const write = await platform.app.inject({
      method: 'POST',
      url: '/api/works',
      headers: { ...auth(), 'content-type': 'application/json' },
    })
    assert.equal(write.statusCode, 400)
    assert.equal(write.json().code, 'INVALID_JSON')
  })
})

describe('errors raised by the framework and the connection', () => {
  it('bad percent-encoding is 400 in the error shape, with the service headers', async () => {
    for (const [label, app] of [
      ['platform', platform.app],
      ['directory', directory.app],
    ] as const) {
      const res = await app.inject({ url: '/api/works/%zz', headers: auth() })
      assert.equal(res.statusCode, 400, label)
      assert.equal(res.json().code, 'BAD_REQUEST')
      assert.match(res.json().message ?? res.json().error, /URL is not valid/)
      assertServiceHeaders(res.headers, label)
    }
  })

  it('a path parameter over 100 characters is 414 in the error shape', async () => {
    const res = await platform.app.inject({ url: `/api/works/${'x'.repeat(101)}`, headers: auth() })
    assert.equal(res.statusCode, 414)
    assert.equal(res.json().code, 'URI_TOO_LONG')
    assertServiceHeaders(res.headers, 'platform')
  })

  it('headers over the limit are 431 in the error shape, with a request id and the security headers', async () => {
    for (const [label, url] of [
      ['platform', platformUrl],
      ['directory', directoryUrl],
    ] as const) {
      const answer = await raw(url, (socket) =>
        socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`),
      )
      assert.equal(answer.status, 431, label)
      assert.equal(answer.body.code, 'HEADERS_TOO_LARGE')
      assertServiceHeaders(answer.headers, label)
    }
  })

  it('a client that never finishes its headers gets 408 and is disconnected', async () => {
    const answer = await raw(platformUrl, (socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'))
    assert.equal(answer.status, 408)
    assert.equal(answer.body.code, 'REQUEST_TIMEOUT')
    assertServiceHeaders(answer.headers, 'platform')
  })

  it('a client that never finishes its body gets 408 and is disconnected', async () => {
    const answer = await raw(directoryUrl, (socket) =>
      socket.write(
        'POST /api/auth/signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
      ),
    )
    assert.equal(answer.status, 408)
    assert.equal(answer.body.success, false)
    assert.equal(answer.body.code, 'REQUEST_TIMEOUT')
  })

  it('a client that disconnects mid-body is an info line, not an error', async () => {
    const before = logLines.length
    const socket = connect(Number(platformUrl.port), platformUrl.hostname)
    await once(socket, 'connect')
    socket.write(
      'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"em',
    )
    socket.destroy()
    const line = await logLine(before, (entry) => String(entry.msg).includes('client closed the connection'))
    assert.equal(line.level, 30, 'at info')
    assert.ok(
      logLines.slice(before).every((entry) => (entry.level as number) < 50),
      'nothing is logged at error level',
    )
  })
})

describe('one error vocabulary', () => {
  it('docs/errors.md lists every error code with its status and meaning, and no other code', () => {
    const guide = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
    const expected = Object.entries(ERROR_CODES).map(
      ([code, [status, meaning]]) => `| \`${code}\` | ${status} | ${meaning} |`,
    )
    const listed = guide.split('\n').filter((line) => /^\| `[A-Z_]+` \| \d{3} \|/.test(line))
    assert.deepEqual(
      listed,
      expected,
      'docs/errors.md’s table is the rows of src/lib/error-codes.ts, in order',
    )
  })
})
