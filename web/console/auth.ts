/**
 * The platform's token model, as the console keeps it:
 * - the **access token** (a 15-minute JWT) lives in this page's memory only, never in storage, and is
 *   renewed shortly before it expires, or once after an API call refuses it;
 * - the **refresh token** is kept in `localStorage`, so a reload or another tab of the console stays signed
 *   in. The API spends a refresh token on use and revokes its whole family when a spent one comes back, so
 *   renewals are serialized across every tab of the console (the Web Locks API): each reads the newest
 *   token inside the lock, and no two ever send the same one. Signing out in one tab signs out the others.
 * The page's policy runs no script but its own files, which is what keeps a token in storage out of reach.
 */

export interface TokenPair {
  user: { id: string; email: string; name: string | null }
  accessToken: string
  refreshToken: string
  /** Seconds the access token lives. */
  expiresIn: number
}

const STORAGE_KEY = 'curio.console.refreshToken'
/** An access token this close to its end is renewed before a call rather than after its 401. */
const RENEW_MARGIN_MS = 30_000
/** Paths that take no access token: they are how one is obtained. */
const TOKENLESS = /\/api\/auth\/(login|register|refresh|logout)$/

let access: { token: string; expiresAt: number } | null = null

function stored(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEY)
  } catch {
    return null
  }
}

function store(refreshToken: string | null): void {
  try {
    if (refreshToken) window.localStorage.setItem(STORAGE_KEY, refreshToken)
    else window.localStorage.removeItem(STORAGE_KEY)
  } catch {
    // Storage refused (a private window's quota): the session lasts as long as the page.
  }
}

/** Whether this browser holds a session to resume (a reload, another tab). */
export function hasStoredSession(): boolean {
  return stored() !== null
}

/** The refresh token, for signing out. */
export function storedRefreshToken(): string | null {
  return stored()
}

/** Takes a new pair (sign-in, account creation, password change, renewal). */
export function adopt(pair: TokenPair): void {
  access = { token: pair.accessToken, expiresAt: Date.now() + pair.expiresIn * 1000 }
  store(pair.refreshToken)
}

/** Forgets both tokens (signed out, or the refresh token was refused). */
export function forget(): void {
  access = null
  store(null)
}

/** Runs `task` while no other tab of the console renews: the Web Locks API, or this page alone without it. */
let localQueue: Promise<unknown> = Promise.resolve()
function exclusively<T>(task: () => Promise<T>): Promise<T> {
  if (typeof navigator !== 'undefined' && navigator.locks) {
    return navigator.locks.request('curio-console-tokens', task) as Promise<T>
  }
  const run = localQueue.then(task, task)
  localQueue = run.catch(() => {})
  return run
}

export class RenewalUnavailable extends Error {}

/**
 * A new access token from the stored refresh token. `seen` is the access token the caller found wanting:
 * when another call renewed it meanwhile, that one is used and no refresh is spent. Resolves false when
 * there is no session any more (no refresh token, or the API refused it); throws RenewalUnavailable when
 * the API could not answer (the session is kept for the next try).
 */
export function renew(seen: string | null = access?.token ?? null): Promise<boolean> {
  return exclusively(async () => {
    if (access && access.token !== seen && access.expiresAt - Date.now() > RENEW_MARGIN_MS) return true
    const refreshToken = stored()
    if (!refreshToken) {
      access = null
      return false
    }
    let response: Response
    try {
      response = await fetch('/api/auth/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ refreshToken }),
      })
    } catch {
      throw new RenewalUnavailable('The service could not be reached')
    }
    if (response.status === 401 || response.status === 400) {
      forget()
      return false
    }
    if (!response.ok) throw new RenewalUnavailable(`Renewing the session failed (${response.status})`)
    adopt((await response.json()) as TokenPair)
    return true
  })
}

/** The access token to send now, renewed first when it is about to expire; null when signed out. */
async function currentToken(): Promise<string | null> {
  if (access && access.expiresAt - Date.now() > RENEW_MARGIN_MS) return access.token
  if (!stored()) return null
  return (await renew(access?.token ?? null)) ? (access?.token ?? null) : null
}

function withToken(request: Request, token: string | null): Request {
  if (token) request.headers.set('authorization', `Bearer ${token}`)
  return request
}

/**
 * `fetch` for the API client: every call but the token routes carries the access token; a call it is
 * refused on (401) is sent once more after a renewal, which a revoked or expired session fails, and then
 * the 401 stands (the console asks the user to sign in again).
 */
export async function authedFetch(request: Request): Promise<Response> {
  if (TOKENLESS.test(new URL(request.url).pathname)) return fetch(request)
  const again = request.clone()
  let token: string | null
  try {
    token = await currentToken()
  } catch {
    token = access?.token ?? null
  }
  const response = await fetch(withToken(request, token))
  if (response.status !== 401 || !token) return response
  try {
    if (!(await renew(token))) return response
  } catch {
    return response
  }
  return fetch(withToken(again, access?.token ?? null))
}

/** Calls `onSignedOut` when another tab signs out (its refresh token leaves storage). */
export function onOtherTabSignOut(onSignedOut: () => void): () => void {
  const listener = (event: StorageEvent) => {
    if (event.key === STORAGE_KEY && event.newValue === null) {
      access = null
      onSignedOut()
    }
  }
  window.addEventListener('storage', listener)
  return () => window.removeEventListener('storage', listener)
}
