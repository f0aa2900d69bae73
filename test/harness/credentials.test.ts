import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  APP_ORIGIN,
  type DirectoryHarness,
  type PlatformHarness,
  startDirectory,
  startPlatform,
} from '../helpers/apps.ts'

let platform: PlatformHarness
let directory: DirectoryHarness

before(async () => {
  ;[platform, directory] = await Promise.all([startPlatform(), startDirectory()])
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
