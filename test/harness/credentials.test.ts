import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
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
let accessToken: string
let apiKey: string
let sessionToken: string

before(async () => {
  ;[platform, directory] = await Promise.all([startPlatform(), startDirectory()])
  const registered = await platform.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: uniqueEmail('strict'), password: 'a good password' },
  })
  accessToken = registered.json().accessToken
  const key = await platform.app.inject({
    method: 'POST',
    url: '/api/auth/api-keys',
    headers: { authorization: `Bearer ${accessToken}` },
    payload: { name: 'strict parsing' },
  })
  apiKey = key.json().key
  sessionToken = (await directory.adminCookie()).split('=')[1]!
})
after(() => Promise.all([platform.close(), directory.close()]))

// Credentials reach the database (a key or session is looked up by its hash): text Postgres cannot store
// must be an unknown credential, never a database error.
describe('credentials with NUL and broken encodings are unknown credentials (401)', () => {
  for (const headers of [
    { 'x-api-key': `svc_live_\u0000${'0'.repeat(63)}` },
    { 'x-api-key': '\u0000' },
    { authorization: `Bearer svc_live_${'0'.repeat(63)}\u0000` },
    { authorization: 'Bearer \u0000.\u0000.\u0000' },
  ]) {
    it(`platform: ${JSON.stringify(headers)}`, async () => {
      const res = await platform.app.inject({ url: '/api/auth/me', headers })
      assert.equal(res.statusCode, 401, res.body)
    })
  }

  for (const cookie of [
    'curio_session=%00',
    'curio_session=a%00b',
    'curio_session=%zz',
    'curio_session=%C0%AF',
  ]) {
    it(`directory: ${cookie}`, async () => {
      const res = await directory.app.inject({
        method: 'POST',
        url: '/api/admin/roles',
        headers: { cookie, origin: APP_ORIGIN },
        payload: { name: 'role' },
      })
      assert.equal(res.statusCode, 401, res.body)
      assert.equal(
        (await directory.app.inject({ url: '/api/current-user', headers: { cookie } })).body,
        'null',
      )
    })
  }
})

// One form only: `Bearer <token>`, the scheme in any case, one space, one token, nothing after it.
describe('the Authorization header is read strictly', () => {
  const malformed = (token: string) => [
    `Bearer ${token} extra`,
    `Bearer ${token} ${token}`,
    `Bearer  ${token}`,
    `Bearer ${token} `,
    ` Bearer ${token}`,
    `Bearer\t${token}`,
    `Bearer:${token}`,
    `Bearer ${token},`,
    `Bearer${token}`,
    'Bearer',
    'Bearer ',
    `Basic ${token}`,
    `Token ${token}`,
    token,
    '',
  ]

  it('an access token: the exact form (any case of the scheme) is 200, every other form 401', async () => {
    for (const authorization of [`Bearer ${accessToken}`, `bearer ${accessToken}`, `BEARER ${accessToken}`]) {
      const res = await platform.app.inject({ url: '/api/auth/me', headers: { authorization } })
      assert.equal(res.statusCode, 200, `${authorization}: ${res.body}`)
    }
    for (const authorization of malformed(accessToken)) {
      const res = await platform.app.inject({ url: '/api/auth/me', headers: { authorization } })
      assert.equal(res.statusCode, 401, `${JSON.stringify(authorization)}: ${res.body}`)
      const body = res.json()
      assert.equal(body.statusCode, 401)
      assert.equal(body.code, 'UNAUTHORIZED')
      assert.match(body.message, /Bearer <access token>/)
    }
  })

  it('an API key sent as a Bearer token: the exact form is 200, every other form 401', async () => {
    const exact = await platform.app.inject({
      url: '/api/works',
      headers: { authorization: `Bearer ${apiKey}` },
    })
    assert.equal(exact.statusCode, 200, exact.body)
    for (const authorization of malformed(apiKey)) {
      const res = await platform.app.inject({ url: '/api/works', headers: { authorization } })
      assert.equal(res.statusCode, 401, `${JSON.stringify(authorization)}: ${res.body}`)
    }
    // The x-api-key header takes the key alone.
    for (const key of [`${apiKey} extra`, ` ${apiKey}`, `Bearer ${apiKey}`, `${apiKey}x`]) {
      const res = await platform.app.inject({ url: '/api/works', headers: { 'x-api-key': key } })
      assert.equal(res.statusCode, 401, `${JSON.stringify(key)}: ${res.body}`)
      assert.equal(res.json().code, 'INVALID_API_KEY')
    }
  })

  it('directory: only a session cookie of the token’s exact form is a session', async () => {
    const exact = await directory.app.inject({
      url: '/api/admin/roles',
      headers: { cookie: `curio_session=${sessionToken}` },
    })
    assert.equal(exact.statusCode, 200, exact.body)
    for (const value of [
      `${sessionToken} extra`,
      `${sessionToken}x`,
      `"${sessionToken}" x`,
      sessionToken.slice(0, -1),
      `${sessionToken}%00`,
      `${sessionToken}%20x`,
      'x'.repeat(4000),
    ]) {
      const res = await directory.app.inject({
        url: '/api/admin/roles',
        headers: { cookie: `curio_session=${value}` },
      })
      assert.equal(res.statusCode, 401, `${JSON.stringify(value)}: ${res.body}`)
      assert.deepEqual(Object.keys(res.json()).sort(), ['code', 'error', 'success'])
    }
  })
})
