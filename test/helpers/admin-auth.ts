import assert from 'node:assert/strict'
import { APP_ORIGIN, type DirectoryHarness, randomAddress, sessionCookie, uniqueEmail } from './apps.ts'

export interface AdminRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  url: string
  payload?: unknown
}

/**
 * The one check every admin route gets: 401 without a session (and with a forged cookie), and for a
 * signed-in non-admin `nonAdminStatus` (403, or 401 where SPEC.md says so, e.g. categories).
 */
export async function checkAdminAuth(
  h: DirectoryHarness,
  routes: readonly AdminRoute[],
  { nonAdminStatus = 403 }: { nonAdminStatus?: 401 | 403 } = {},
): Promise<void> {
  const registered = await h.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    remoteAddress: randomAddress(),
    payload: { email: uniqueEmail('visitor'), password: 'a good password', name: 'A Visitor' },
  })
  const visitor = sessionCookie(registered)
  for (const route of routes) {
    const call = (cookie?: string) =>
      h.app.inject({
        method: route.method,
        url: route.url,
        payload: route.payload as object,
        headers: { origin: APP_ORIGIN, ...(cookie ? { cookie } : {}) },
      })
    const label = `${route.method} ${route.url}`
    const anonymous = await call()
    assert.equal(anonymous.statusCode, 401, `${label} without a session`)
    assert.equal(anonymous.json().success, false, `${label} answers the error shape`)
    assert.equal((await call('curio_session=forged')).statusCode, 401, `${label} with a forged cookie`)
    assert.equal((await call(visitor)).statusCode, nonAdminStatus, `${label} for a non-admin`)
  }
}
