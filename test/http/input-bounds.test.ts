/**
 * Input of any size or shape is answered, and the answer stays small: bodies nested deeper than the bound
 * are a 400 on every route (anonymous ones first), values deeper than the walkers ever meet cannot exhaust
 * the stack, and a 400 lists a bounded number of fields, each cut to a bounded length, and counts the rest.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { MAX_JSON_DEPTH } from '../../src/http/edge-values.ts'
import {
  MAX_FIELD_LENGTH,
  MAX_LISTED_FIELDS,
  MAX_MESSAGE_LENGTH,
  toPublicError,
} from '../../src/http/errors.ts'
import { invalidInput } from '../../src/lib/errors.ts'
import {
  APP_ORIGIN,
  type DirectoryHarness,
  type PlatformHarness,
  startDirectory,
  startPlatform,
  uniqueEmail,
} from '../helpers/apps.ts'

let platform: PlatformHarness
let directory: DirectoryHarness
let token: string
let adminCookie: string

before(async () => {
  ;[platform, directory] = await Promise.all([startPlatform(), startDirectory()])
  const registered = await platform.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: uniqueEmail('bounds'), password: 'a good password' },
  })
  token = registered.json().accessToken
  adminCookie = await directory.adminCookie()
})
after(() => Promise.all([platform?.close(), directory?.close()]))

/** A few KB: what any error answer stays under, whatever was sent. */
const FEW_KB = 8 * 1024

const arrays = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`
const objects = (levels: number, inner = '1') => `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`

interface Field {
  field: string
  message: string
}

/** `body` with `field` set to raw JSON text, as a request body. */
const withRaw = (body: Record<string, unknown>, field: string, json: string) =>
  `${JSON.stringify(body).slice(0, -1)},${JSON.stringify(field)}:${json}}`

function assertPlatformError(res: { statusCode: number; json(): Record<string, unknown> }, status: number) {
  assert.equal(res.statusCode, status)
  const body = res.json()
  assert.deepEqual(
    Object.keys(body).filter((key) => key !== 'details'),
    ['statusCode', 'error', 'message', 'code'],
  )
  assert.equal(body.statusCode, status)
  return body
}

function assertDirectoryError(res: { statusCode: number; json(): Record<string, unknown> }, status: number) {
  assert.equal(res.statusCode, status)
  const body = res.json()
  assert.equal(body.success, false)
  assert.equal(typeof body.error, 'string')
  return body
}

describe('deeply nested bodies', () => {
  const anonymous = [
    ['platform', '/api/auth/register', { email: 'deep@example.com', password: 'a good password' }],
    ['platform', '/api/auth/login', { email: 'deep@example.com', password: 'a good password' }],
    ['platform', '/api/auth/refresh', { refreshToken: 'x' }],
    ['directory', '/api/auth/register', { name: 'Deep', email: 'deep@example.com', password: 'a good one' }],
    ['directory', '/api/auth/signin', { email: 'deep@example.com', password: 'a good one' }],
    ['directory', '/api/contact', { name: 'Deep', email: 'deep@example.com', message: 'hello' }],
  ] as const
  for (const levels of [10_000, 100_000]) {
    for (const [service, url, body] of anonymous) {
      it(`${service} ${url}: a field nested ${levels.toLocaleString('en')} deep is 400 JSON_TOO_DEEP`, async () => {
        for (const nested of [arrays(levels), objects(levels)]) {
          for (const field of ['email', 'password', 'unexpected']) {
            const res = await (service === 'platform' ? platform : directory).app.inject({
              method: 'POST',
              url,
              headers: { 'content-type': 'application/json' },
              payload: withRaw({ ...body, [field]: undefined }, field, nested),
            })
            const answer =
              service === 'platform' ? assertPlatformError(res, 400) : assertDirectoryError(res, 400)
            assert.equal(answer.code, 'JSON_TOO_DEEP', res.body)
            assert.match(
              String(answer.message ?? answer.error),
              new RegExp(`more than ${MAX_JSON_DEPTH} levels`),
            )
          }
        }
      })
    }
  }

  it('a signed-in route refuses a deep body the same way, and a deep body alone (no object) too', async () => {
    for (const payload of [
      arrays(100_000),
      objects(100_000),
      withRaw({ name: 'x' }, 'description', arrays(5000)),
    ]) {
      const res = await platform.app.inject({
        method: 'POST',
        url: '/api/works',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload,
      })
      assert.equal(assertPlatformError(res, 400).code, 'JSON_TOO_DEEP')
    }
  })

  it(`${MAX_JSON_DEPTH} levels are taken: the bound refuses only what is deeper`, async () => {
    const login = { email: uniqueEmail('depth'), password: 'a wrong password' }
    // The body is level 1: its field adds the rest.
    const fits = await platform.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: withRaw(login, 'unexpected', arrays(MAX_JSON_DEPTH - 1)),
    })
    assert.equal(
      assertPlatformError(fits, 401).code,
      'INVALID_CREDENTIALS',
      'read, and refused for its password',
    )
    const deeper = await platform.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: withRaw(login, 'unexpected', arrays(MAX_JSON_DEPTH)),
    })
    assert.equal(assertPlatformError(deeper, 400).code, 'JSON_TOO_DEEP')
  })

  it('a nested value where text belongs is a 400 naming the field; brackets inside text are text', async () => {
    const res = await platform.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: withRaw({ email: 'a@example.com' }, 'password', arrays(MAX_JSON_DEPTH - 1, '"\\u0000"')),
    })
    const body = assertPlatformError(res, 400)
    assert.equal(body.code, 'VALIDATION_ERROR')
    assert.deepEqual(
      (body.details as Field[]).map((detail) => detail.field),
      ['body.password'],
    )
    const bracketed = await platform.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'a@example.com', password: `${'['.repeat(100_000)}${'{'.repeat(100_000)}` },
    })
    assert.notEqual(bracketed.json().code, 'JSON_TOO_DEEP')
    assert.ok(bracketed.statusCode < 500, bracketed.body)
  })
})

describe('error answers of a bounded size', () => {
  it('20,000 wrong-typed items: at most 20 details, the last counting the rest, and a body of a few KB', async () => {
    const payload = `{"categoryIds":[${Array(20_000).fill('1').join(',')}]}`
    const res = await directory.app.inject({
      method: 'PUT',
      url: '/api/admin/categories/reorder',
      headers: { cookie: adminCookie, origin: APP_ORIGIN, 'content-type': 'application/json' },
      payload,
    })
    const body = assertDirectoryError(res, 400)
    assert.equal(body.code, 'VALIDATION_ERROR')
    assert.ok(res.body.length < FEW_KB, `${res.body.length} bytes`)
    const details = body.details as Field[]
    assert.equal(details.length, MAX_LISTED_FIELDS)
    // 20,001 fields: the array's length, and each item.
    assert.deepEqual(details[0], { field: 'body.categoryIds', message: 'must have at most 1000 items' })
    assert.deepEqual(details[1], { field: 'body.categoryIds.0', message: 'must be a string' })
    assert.deepEqual(details.at(-1), {
      field: 'body.categoryIds',
      message: 'holds 19,982 more invalid fields, not listed',
    })
    assert.match(
      String(body.error),
      /^20,001 fields are invalid: body\.categoryIds, body\.categoryIds\.0, .*body\.categoryIds\.17 and 19,982 more$/,
    )
  })

  it('a field named by a key of any length is cut short, in details and in the message', async () => {
    const key = `k${'e'.repeat(100_000)}y`
    const res = await platform.app.inject({
      method: 'PATCH',
      url: '/api/plugins/openai/settings',
      headers: { authorization: `Bearer ${token}` },
      payload: { settings: { [key]: { not: 'a setting value' } } },
    })
    const body = assertPlatformError(res, 400)
    assert.ok(res.body.length < FEW_KB, `${res.body.length} bytes`)
    for (const detail of body.details as Field[]) {
      assert.ok(detail.field.length <= MAX_FIELD_LENGTH, detail.field)
      assert.ok(detail.message.length <= MAX_MESSAGE_LENGTH)
    }
    assert.ok((body.details as Field[]).some((detail) => /^body\.settings\.keee+…$/.test(detail.field)))
    assert.ok(String(body.message).length < 2 * MAX_FIELD_LENGTH + 200, String(body.message))
  })

  it('a service’s 400 naming thousands of fields, with long names and messages, stays bounded', () => {
    const issues = Array.from({ length: 50_000 }, (_, index) => ({
      field: `rows.${index}.${'n'.repeat(index % 2 ? 10 : 5000)}`,
      message: `is wrong: ${'m'.repeat(index % 3 ? 10 : 50_000)}`,
    }))
    const answer = toPublicError(invalidInput(issues), (field) => `body.${field}`)
    const details = answer.details as Field[]
    assert.ok(details.length <= MAX_LISTED_FIELDS)
    assert.ok(JSON.stringify(answer).length < FEW_KB, `${JSON.stringify(answer).length} characters`)
    for (const detail of details) {
      assert.ok(detail.field.length <= MAX_FIELD_LENGTH)
      assert.ok(detail.message.length <= MAX_MESSAGE_LENGTH)
    }
    const more = 50_000 - (details.length - 1)
    assert.deepEqual(details.at(-1), {
      field: 'body.rows',
      message: `holds ${more.toLocaleString('en-US')} more invalid fields, not listed`,
    })
    assert.match(
      answer.message,
      new RegExp(
        `^50,000 fields are invalid: body\\.rows\\.0\\.n+…, .* and ${more.toLocaleString('en-US')} more$`,
      ),
    )
    assert.ok(answer.message.length <= MAX_MESSAGE_LENGTH)
  })

  it('a few fields are listed whole, as before', () => {
    const answer = toPublicError(
      invalidInput([
        { field: 'a', message: 'is required' },
        { field: 'b', message: 'must be a string' },
      ]),
      (field) => `body.${field}`,
    )
    assert.equal(answer.message, '2 fields are invalid: body.a, body.b')
    assert.deepEqual(answer.details, [
      { field: 'body.a', message: 'is required' },
      { field: 'body.b', message: 'must be a string' },
    ])
  })
})
