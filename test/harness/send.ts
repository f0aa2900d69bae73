import type { App } from '../../src/http/app.ts'
import type { FuzzRequest } from './requests.ts'
import { RawJson, Real } from './values.ts'

const POOL_SIZE = 40

/**
 * Ids and emails that earlier answers returned, offered back to later requests so handlers run past their
 * 404s: ids by the collection path that answered them (`/api/works`), by field name (`userId`), and all
 * together (`any`). Protected values (the harness's own admin, key, role) are never offered.
 */
export class Pools {
  private readonly pools = new Map<string, string[]>()
  private readonly protectedValues = new Set<string>()

  protect(...values: (string | undefined)[]) {
    for (const value of values) if (value) this.protectedValues.add(value)
    for (const values of this.pools.values()) {
      for (let i = values.length - 1; i >= 0; i--)
        if (this.protectedValues.has(values[i]!)) values.splice(i, 1)
    }
  }

  add(pool: string, value: string) {
    if (this.protectedValues.has(value)) return
    const values = this.pools.get(pool) ?? []
    if (values.includes(value)) return
    values.push(value)
    if (values.length > POOL_SIZE) values.shift()
    this.pools.set(pool, values)
  }

  /** Drops a value from every pool (a deleted resource's id). */
  forget(value: string) {
    for (const values of this.pools.values()) {
      const index = values.indexOf(value)
      if (index >= 0) values.splice(index, 1)
    }
  }

  resolve(real: Real): string {
    for (const pool of real.pools) {
      const values = this.pools.get(pool)
      if (values?.length) return values[real.pick % values.length]!
    }
    return real.fallback
  }

  /** Takes the ids and emails of a 2xx JSON answer of the operation at `path`. */
  harvest(path: string, body: unknown) {
    const collection = path.replace(/\/\{[^}]+\}$/, '')
    // Also under its last segment (`roles`), where a field such as `role` or `roleId` looks for it.
    const segment = collection.slice(collection.lastIndexOf('/') + 1)
    const visit = (value: unknown, depth: number) => {
      if (Array.isArray(value)) {
        for (const item of value) visit(item, depth)
        return
      }
      if (value === null || typeof value !== 'object') return
      for (const [key, item] of Object.entries(value)) {
        if (typeof item === 'string') {
          if (key === 'id' && depth <= 2) {
            this.add(collection, item)
            this.add(segment, item)
            this.add('any', item)
          } else if (/[a-z]Id$/.test(key)) {
            this.add(key, item)
            this.add('any', item)
          } else if (key === 'email' || key === 'refreshToken') this.add(key, item)
        } else visit(item, depth + 1)
      }
    }
    visit(body, 0)
  }
}

/** Percent-encoding that also writes lone surrogates (as the WTF-8 bytes a sloppy client would send). */
function encode(text: string): string {
  return Array.from(text, (char) => {
    const unit = char.charCodeAt(0)
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('')
    }
    return encodeURIComponent(char)
  }).join('')
}

type UrlPart = FuzzRequest['pathParts'][number]

function urlPart(part: UrlPart, pools: Pools): string {
  if (part instanceof Real) return encode(pools.resolve(part))
  return 'raw' in part ? part.raw : encode(part.text)
}

/** JSON text of a generated body: raw tokens as they are, real values filled in. */
function jsonOf(value: unknown, pools: Pools): string {
  if (value instanceof RawJson) return value.text
  if (value instanceof Real) return JSON.stringify(pools.resolve(value))
  if (Array.isArray(value)) return `[${value.map((item) => jsonOf(item, pools)).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => `${JSON.stringify(key)}:${jsonOf(item, pools)}`)
    return `{${members.join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

export interface Answer {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

/** The answer, or why there was none (a dropped connection, no answer in time). */
export type Outcome = { answer: Answer } | { failure: string }

const ANSWER_TIMEOUT_MS = 10_000

/** A generated request as it goes on the wire: its URL, headers (the caller's credentials first) and body. */
export function render(
  request: FuzzRequest,
  pools: Pools,
  credentials: Record<string, string>,
): { url: string; headers: Record<string, string>; payload: string | undefined } {
  const path = `/${request.pathParts.map((part) => urlPart(part, pools)).join('/')}`
  const query = request.query
    .map(([name, value]) => `${urlPart(name, pools)}=${urlPart(value, pools)}`)
    .join('&')
  const url = query ? `${path}?${query}` : path
  let payload: string | undefined
  const headers = { ...credentials, ...request.headers }
  if (request.body && 'json' in request.body) {
    payload = jsonOf(request.body.json, pools)
    headers['content-type'] ??= 'application/json'
  } else if (request.body) payload = request.body.raw
  return { url, headers, payload }
}

/** Sends a generated request through `app.inject`, recording on it what was sent. */
export async function send(
  app: App,
  request: FuzzRequest,
  pools: Pools,
  credentials: Record<string, string>,
): Promise<Outcome> {
  const { url, headers, payload } = render(request, pools, credentials)
  request.sent = { url, headers, payload }
  let timer: NodeJS.Timeout | undefined
  try {
    const response = await Promise.race([
      app.inject({
        method: request.method as 'GET',
        url,
        headers,
        ...(payload === undefined ? {} : { payload }),
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)),
          ANSWER_TIMEOUT_MS,
        )
      }),
    ])
    return { answer: { status: response.statusCode, headers: response.headers, body: response.body } }
  } catch (error) {
    return { failure: `no complete answer: ${(error as Error).message}` }
  } finally {
    clearTimeout(timer)
  }
}
