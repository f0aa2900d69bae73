import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import type { PlatformHarness } from './apps.ts'
import { uniqueEmail } from './apps.ts'

/** A platform account as tests use it. */
export interface Account {
  userId: string
  email: string
  token: string
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

export async function register(h: PlatformHarness, prefix = 'user'): Promise<Account> {
  const email = uniqueEmail(prefix)
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email, password: 'a good password' },
  })
  assert.equal(res.statusCode, 201, res.body)
  return { userId: res.json().user.id, email, token: res.json().accessToken }
}

/** `method url` as `account`, with an optional JSON body. */
export const call = (h: PlatformHarness, account: Account, method: string, url: string, payload?: unknown) =>
  h.app.inject({
    method: method as 'GET',
    url,
    headers: bearer(account.token),
    ...(payload === undefined ? {} : { payload: payload as object }),
  })

export async function createWork(h: PlatformHarness, account: Account, name = 'Coffee roasters') {
  const res = await call(h, account, 'POST', '/api/works', { name })
  assert.equal(res.statusCode, 201, res.body)
  return res.json() as { id: string; slug: string; name: string }
}

/** Shares `workId` with `member` in `role`. */
export async function share(
  h: PlatformHarness,
  owner: Account,
  workId: string,
  member: Account,
  role: 'editor' | 'viewer',
) {
  const res = await call(h, owner, 'POST', `/api/works/${workId}/members`, { email: member.email, role })
  assert.equal(res.statusCode, 201, res.body)
}

/** Enables a plugin for the account; fails the test unless it answers 200. */
export async function enablePlugin(
  h: PlatformHarness,
  account: Account,
  pluginId: string,
  body: object = {},
) {
  const res = await call(h, account, 'POST', `/api/plugins/${pluginId}/enable`, body)
  assert.equal(res.statusCode, 200, res.body)
  return res.json()
}

/** Polls `read` until `done` holds, failing after a bounded wait (jobs run on pg-boss' polling). */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) {
      assert.fail(`condition not met within ${timeoutMs} ms (last: ${JSON.stringify(value)})`)
    }
    await sleep(25)
  }
}
