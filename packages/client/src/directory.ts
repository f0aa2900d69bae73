import createClient, { type Client } from 'openapi-fetch'
import type { components, paths } from './generated/directory.ts'

export type { components as DirectoryComponents, paths as DirectoryPaths } from './generated/directory.ts'

/** The directory's error body, as every route declares it. */
export type DirectoryErrorBody = components['schemas']['DirectoryError']

export interface DirectoryClientOptions {
  /** The directory's base URL (its APP_URL), e.g. `http://localhost:3001`. */
  baseUrl: string
  /** The fetch every request goes through (default: `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>
  /**
   * The Origin sent on writes (default: the origin of `baseUrl`). The directory refuses a write that carries
   * its session cookie from an origin other than its own (403 `CROSS_ORIGIN`).
   */
  origin?: string
}

export type DirectoryClient = Client<paths> & {
  /** Signs in: the session cookie the directory sets is kept and sent with every later request. */
  signIn: ReturnType<typeof signInOf>
  /** Signs out: the directory revokes the session and the client forgets its cookie. */
  signOut: ReturnType<typeof signOutOf>
  /** The cookies the client holds now (`name=value; …`), or undefined when it holds none. */
  cookies(): string | undefined
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

function signInOf(client: Client<paths>) {
  return (email: string, password: string) => client.POST('/api/auth/signin', { body: { email, password } })
}

function signOutOf(client: Client<paths>) {
  return () => client.POST('/api/auth/signout')
}

/** Keeps the cookies a `Set-Cookie` gives, forgets those it expires (`Max-Age=0`, a past `Expires`). */
function remember(jar: Map<string, string>, setCookie: string, now: number) {
  const [pair = '', ...attributes] = setCookie.split(';')
  const equals = pair.indexOf('=')
  if (equals <= 0) return
  const name = pair.slice(0, equals).trim()
  const value = pair.slice(equals + 1).trim()
  let expired = value === ''
  for (const attribute of attributes) {
    const [key = '', ...rest] = attribute.split('=')
    const setting = rest.join('=').trim()
    const lower = key.trim().toLowerCase()
    if (lower === 'max-age' && Number(setting) <= 0) expired = true
    if (lower === 'expires' && Date.parse(setting) <= now) expired = true
  }
  if (expired) jar.delete(name)
  else jar.set(name, value)
}

/**
 * A typed client of a directory's API (`openapi-fetch`: `GET`, `POST`, … answer `{ data, error, response }`).
 * It keeps the session cookie the directory sets (sign-in, sign-out) and sends it back, and sends the
 * directory's own Origin on writes, as its cross-site request check asks of a signed-in caller.
 */
export function createDirectoryClient(options: DirectoryClientOptions): DirectoryClient {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request))
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const origin = options.origin ?? new URL(baseUrl).origin
  const jar = new Map<string, string>()
  const cookies = () =>
    jar.size === 0 ? undefined : [...jar].map(([name, value]) => `${name}=${value}`).join('; ')

  async function fetchWithSession(request: Request): Promise<Response> {
    const held = cookies()
    if (held && !request.headers.has('cookie')) request.headers.set('cookie', held)
    if (!SAFE_METHODS.has(request.method) && !request.headers.has('origin')) {
      request.headers.set('origin', origin)
    }
    const response = await send(request)
    for (const setCookie of response.headers.getSetCookie()) remember(jar, setCookie, Date.now())
    return response
  }

  const client = createClient<paths>({ baseUrl, fetch: fetchWithSession })
  return Object.assign(client, { signIn: signInOf(client), signOut: signOutOf(client), cookies })
}
