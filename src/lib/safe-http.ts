import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { lookup as dnsLookupAll } from 'node:dns/promises'
import { isIP, type LookupFunction } from 'node:net'
import { type AddressPolicy, bareHost, checkFor, refusalOf } from './addresses.ts'
import { loadOnce } from './load-once.ts'

export {
  type AddressCheck,
  type AddressClass,
  type AddressPolicy,
  classifyAddress,
  createAddressCheck,
} from './addresses.ts'

/**
 * Outbound HTTP to addresses a user chose, without letting them reach inside our network: a host name is
 * resolved once, every address it has is checked, and the connection goes to those checked addresses (no
 * second lookup, so a DNS answer cannot change in between); IP literals are checked before anything is
 * sent; redirects are never followed (a redirect could point anywhere); time and bytes are capped.
 */

/** A request refused because its target is not a public address. */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError'
  readonly code = 'ERR_BLOCKED_ADDRESS'
}

/** Resolves a host name to every address it has; the system resolver by default. */
export type Lookup = (hostname: string) => Promise<LookupAddress[]>

/** undici, loaded with the first outbound request. */
const undici = loadOnce(() => import('undici'))

const systemLookup: Lookup = (hostname) => dnsLookupAll(hostname, { all: true, order: 'verbatim' })

const hostOf = (url: URL) => bareHost(url.hostname)

export const MAX_URL_LENGTH = 2048

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string }

/**
 * Whether a URL may be requested, without DNS. WHATWG parsing turns every IP literal notation (decimal,
 * octal, hex, short, IPv6 short and mapped forms) into the canonical address, which is then checked.
 */
export function checkUrl(raw: string, options: { requireHttps: boolean; policy: AddressPolicy }): UrlCheck {
  if (raw.length > MAX_URL_LENGTH) {
    return { ok: false, reason: `the URL is longer than ${MAX_URL_LENGTH} characters` }
  }
  const url = URL.parse(raw)
  if (!url) return { ok: false, reason: 'the URL is not valid' }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: `${url.protocol} URLs are not allowed, only https` }
  }
  if (options.requireHttps && url.protocol !== 'https:')
    return { ok: false, reason: 'the URL must use https' }
  if (url.username || url.password) {
    return { ok: false, reason: 'the URL must not contain a user name or password' }
  }
  const host = hostOf(url)
  if (!host) return { ok: false, reason: 'the URL has no host' }
  if (isIP(host)) {
    const refusal = refusalOf(checkFor(options.policy), host, [host])
    if (refusal) return { ok: false, reason: refusal }
  }
  return { ok: true, url }
}

type Resolution = { ok: true; addresses: LookupAddress[] } | { ok: false; reason: string }

/** The addresses of a host: an IP literal is its own, a name is looked up once. */
async function resolveHost(host: string, lookup: Lookup): Promise<Resolution> {
  const family = isIP(host)
  if (family) return { ok: true, addresses: [{ address: host, family }] }
  try {
    const addresses = await lookup(host)
    return addresses.length ? { ok: true, addresses } : { ok: false, reason: `${host} has no address` }
  } catch (error) {
    return { ok: false, reason: `${host} could not be resolved: ${errorReason(error)}` }
  }
}

export type AddressesCheck = { ok: true; addresses: string[] } | { ok: false; reason: string }

/** Resolves the URL's host once and checks every address it has (unless the host is allowed by name). */
export async function resolveAndCheck(
  url: URL,
  policy: AddressPolicy,
  options: { lookup?: Lookup } = {},
): Promise<AddressesCheck> {
  const host = hostOf(url)
  const resolved = await resolveHost(host, options.lookup ?? systemLookup)
  if (!resolved.ok) return resolved
  const addresses = resolved.addresses.map(({ address }) => address)
  const refusal = refusalOf(checkFor(policy), host, addresses)
  return refusal ? { ok: false, reason: refusal } : { ok: true, addresses }
}

export interface SafeRequestOptions {
  url: string
  method: 'GET' | 'HEAD' | 'POST' | 'PATCH'
  headers: Record<string, string>
  body?: string | Buffer
  /** The whole exchange: lookup, connection, headers and body. */
  timeoutMs: number
  /** The answer's body is read up to this many bytes, then the connection is dropped. */
  maxResponseBytes: number
  policy: AddressPolicy
  requireHttps: boolean
  /** Resolves the host name; the system resolver by default. */
  lookup?: Lookup
}

export type SafeRequestResult =
  | {
      kind: 'response'
      status: number
      headers: Record<string, string | string[] | undefined>
      body: string
      bodyTruncated: boolean
      durationMs: number
    }
  /** The URL or an address it resolves to was refused: nothing was sent. */
  | { kind: 'blocked'; reason: string; durationMs: number }
  /** The whole exchange took longer than `timeoutMs` (a receiver that hangs or trickles bytes). */
  | { kind: 'timeout'; durationMs: number }
  /** DNS failure, connection refused or reset, TLS error, socket closed mid-answer. */
  | { kind: 'failed'; reason: string; durationMs: number }

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])

/**
 * One request to a user's URL: never follows a redirect (a 3xx is an answer), never throws for what the
 * network or the receiver does, and always releases its connection.
 */
export async function safeRequest(options: SafeRequestOptions): Promise<SafeRequestResult> {
  const started = performance.now()
  const durationMs = () => Math.round(performance.now() - started)
  const checked = checkUrl(options.url, options)
  if (!checked.ok) return { kind: 'blocked', reason: checked.reason, durationMs: durationMs() }
  const { url } = checked
  const host = hostOf(url)
  const { Client } = await undici()

  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs)
  let client: InstanceType<typeof Client> | undefined
  try {
    const resolved = await untilAborted(resolveHost(host, options.lookup ?? systemLookup), deadline.signal)
    if (!resolved.ok) return { kind: 'failed', reason: resolved.reason, durationMs: durationMs() }
    const refusal = refusalOf(
      checkFor(options.policy),
      host,
      resolved.addresses.map(({ address }) => address),
    )
    if (refusal) return { kind: 'blocked', reason: refusal, durationMs: durationMs() }

    client = new Client(url.origin, {
      // The socket connects to the addresses just checked; TLS SNI and Host stay the URL's name.
      connect: { lookup: pinnedLookup(resolved.addresses), timeout: options.timeoutMs },
      allowH2: false,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    })
    const response = await client.request({
      path: `${url.pathname}${url.search}`,
      method: options.method,
      headers: options.headers,
      body: options.body,
      signal: deadline.signal,
    })
    const { body, truncated } = await readCapped(response.body, options.maxResponseBytes)
    return {
      kind: 'response',
      status: response.statusCode,
      headers: response.headers,
      body,
      bodyTruncated: truncated,
      durationMs: durationMs(),
    }
  } catch (error) {
    if (deadline.signal.aborted || TIMEOUT_CODES.has((error as { code?: string }).code ?? '')) {
      return { kind: 'timeout', durationMs: durationMs() }
    }
    return { kind: 'failed', reason: errorReason(error), durationMs: durationMs() }
  } finally {
    clearTimeout(timer)
    await client?.destroy().catch(() => undefined)
  }
}

/** A lookup for the connector that answers with the pre-checked addresses and never asks DNS again. */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0
    const candidates = family ? addresses.filter((address) => address.family === family) : addresses
    const first = candidates[0]
    if (!first) {
      const error = Object.assign(new Error(`${hostname} has no checked IPv${family} address`), {
        code: 'ENOTFOUND',
      })
      return callback(error, '', 0)
    }
    if (options.all) callback(null, [...candidates])
    else callback(null, first.address, first.family)
  }
}

/** Reads at most `limit` bytes as text; past it, stops reading so the rest is never downloaded. */
async function readCapped(stream: AsyncIterable<Buffer>, limit: number) {
  const chunks: Buffer[] = []
  let size = 0
  let truncated = false
  // Leaving the loop early destroys the stream, and with it the connection.
  for await (const chunk of stream) {
    const room = limit - size
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room))
      truncated = true
      break
    }
    chunks.push(chunk)
    size += chunk.length
  }
  return { body: Buffer.concat(chunks).toString('utf8'), truncated }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/**
 * Why a request got no answer, in the words of the failure underneath the client's own: `fetch failed`,
 * an SDK's `Unable to make request` wrap the socket's error (`getaddrinfo ENOTFOUND api.vercel.com`,
 * `connect ECONNREFUSED 127.0.0.1:443`), which is the cause a user can act on.
 */
export function requestFailure(error: unknown): string {
  let current: unknown = error
  for (let depth = 0; depth < 6 && current instanceof Error && current.cause instanceof Error; depth++) {
    current = current.cause
  }
  return errorReason(current)
}

function errorReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const inner = error instanceof AggregateError && error.errors[0] instanceof Error ? error.errors[0] : error
  const code = (inner as { code?: string }).code ?? (error as { code?: string }).code
  // OpenSSL's messages carry source paths and hex codes; the reason is the part after "SSL routines:x:".
  const openssl = /SSL routines:[^:]*:([^:]+)/.exec(inner.message)?.[1]
  const message = openssl ? `TLS handshake failed (${openssl})` : (inner.message || error.message).trim()
  return code && !message.includes(code) ? `${code}: ${message}` : message
}

/** A `fetch` that only reaches addresses the policy allows, for a user's URLs (AI provider base URLs). */
export function createSafeFetch(policy: AddressPolicy): typeof globalThis.fetch {
  if (policy.allowPrivate) return globalThis.fetch
  const check = checkFor(policy)
  const pinned = loadOnce(async () => {
    const { Agent, fetch: undiciFetch } = await undici()
    const agent = new Agent({
      connect: {
        // Each new connection resolves once and connects to the addresses it checked.
        lookup(hostname, options, callback) {
          dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
            if (error) return callback(error, '', 0)
            const list = addresses as LookupAddress[]
            const refusal = refusalOf(
              check,
              hostname,
              list.map(({ address }) => address),
            )
            if (refusal) return callback(new BlockedAddressError(refusal), '', 0)
            if ((options as { all?: boolean }).all) {
              ;(callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, list)
            } else {
              callback(null, list[0]!.address, list[0]!.family)
            }
          })
        },
      },
    })
    return { agent, undiciFetch }
  })

  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input)
    const host = hostOf(url)
    // An IP literal is connected to without a lookup: it is checked here.
    if (isIP(host)) {
      const refusal = refusalOf(check, host, [host])
      if (refusal) throw new TypeError('fetch failed', { cause: new BlockedAddressError(refusal) })
    }
    const { agent, undiciFetch } = await pinned()
    return undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: 'error',
      dispatcher: agent,
    })
  }) as unknown as typeof globalThis.fetch
}
