import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { lookup as dnsLookupAll } from 'node:dns/promises'
import { isIP, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'
import { Agent, Client, fetch as undiciFetch } from 'undici'

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

export interface AddressPolicy {
  /** Every address is allowed (a local instance: its user is its operator). */
  allowPrivate: boolean
  /** Hosts (exact names) and addresses or CIDR ranges allowed although private, on any port. */
  allowed: readonly string[]
}

/** Resolves a host name to every address it has; the system resolver by default. */
export type Lookup = (hostname: string) => Promise<LookupAddress[]>

const systemLookup: Lookup = (hostname) => dnsLookupAll(hostname, { all: true, order: 'verbatim' })

type IP = ipaddr.IPv4 | ipaddr.IPv6
type Range = [IP, number]

const cidrs = (...list: string[]): Range[] => list.map((cidr) => ipaddr.parseCIDR(cidr))

/** Ranges ipaddr.js does not name, or names only "reserved": checked first, in this order. */
const NAMED_RANGES: ReadonlyArray<[name: string, ranges: Range[]]> = [
  ['cloudMetadata', cidrs('169.254.169.254/32', '100.100.100.200/32', 'fd00:ec2::254/128')],
  ['benchmarking', cidrs('198.18.0.0/15')],
  ['documentation', cidrs('192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20')],
  ['protocolAssignments', cidrs('192.0.0.0/24')],
  // The local-use NAT64 prefix may embed the IPv4 at any of six offsets: refused whatever it carries.
  ['nat64Local', cidrs('64:ff9b:1::/48')],
]
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96')
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3')

/** Words for the range names, ipaddr.js's and ours. */
const RANGE_LABELS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (CGNAT)',
  private: 'private',
  reserved: 'reserved',
  as112: 'AS112',
  as112v6: 'AS112',
  amt: 'AMT',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard-only',
  ipv4Mapped: 'IPv4-mapped',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
  nat64Local: 'local-use NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
  ipv4Compatible: 'IPv4-compatible',
  benchmarking: 'benchmarking',
  documentation: 'documentation',
  protocolAssignments: 'IETF protocol assignment',
  cloudMetadata: 'cloud metadata',
  deprecatedOrchid: 'ORCHID',
  orchid2: 'ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'drone remote ID',
  segmentRouting: 'segment routing',
}

/** What an address is: `range` is `'unicast'` for a global address, else the name of the range it is in. */
export interface AddressClass {
  range: string
  public: boolean
  /** For the IPv6 forms that carry an IPv4 address: the form, and that address with its own range. */
  carried?: { form: string; ipv4: string; range: string }
}

function rangeOf(ip: IP): string {
  for (const [name, ranges] of NAMED_RANGES) {
    if (ranges.some(([base, bits]) => base.kind() === ip.kind() && ip.match(base, bits))) return name
  }
  const range = ip.range()
  if (range === 'unicast' && ip.kind() === 'ipv6') {
    if (ip.match(IPV4_COMPATIBLE)) return 'ipv4Compatible'
    // Only 2000::/3 is allocated as global unicast.
    if (!ip.match(GLOBAL_UNICAST_V6)) return 'reserved'
  }
  return range
}

function carriedIPv4(ip: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const bytes = ip.toByteArray()
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
    case 'ipv4Compatible':
      return new ipaddr.IPv4(bytes.slice(12))
    case '6to4':
      return new ipaddr.IPv4(bytes.slice(2, 6))
    case 'teredo':
      // The Teredo client's address, stored inverted.
      return new ipaddr.IPv4(bytes.slice(12).map((byte) => byte ^ 0xff))
    default:
      return undefined
  }
}

/** The range an address is in; only a global unicast address is public. */
export function classifyAddress(address: string): AddressClass {
  const ip = ipaddr.parse(address)
  const range = rangeOf(ip)
  const ipv4 = ip.kind() === 'ipv6' ? carriedIPv4(ip as ipaddr.IPv6, range) : undefined
  if (!ipv4) return { range, public: range === 'unicast' }
  const carried = { form: range, ipv4: ipv4.toString(), range: rangeOf(ipv4) }
  // The mapped and well-known NAT64 forms reach exactly the IPv4 they carry, so they are judged as it;
  // 6to4, Teredo and the deprecated forms are refused whatever they carry.
  if (range === 'ipv4Mapped' || range === 'rfc6052') {
    return { range: carried.range, public: carried.range === 'unicast', carried }
  }
  return { range, public: false, carried }
}

const labelOf = (range: string) => RANGE_LABELS[range] ?? range
const withArticle = (words: string) => `${/^[aeiou]/i.test(words) ? 'an' : 'a'} ${words}`

function describe(address: string, { range, carried }: AddressClass): string {
  const carriedAs = (c: NonNullable<AddressClass['carried']>) =>
    c.range === 'unicast' ? c.ipv4 : `${c.ipv4}, ${withArticle(labelOf(c.range))} address`
  if (carried && carried.form !== range) {
    return `${address} is ${withArticle(labelOf(carried.form))} form of ${carriedAs(carried)}, not a public one`
  }
  const what = `${address} is ${withArticle(labelOf(range))} address`
  return carried
    ? `${what} (it carries ${carriedAs(carried)}), not a public one`
    : `${what}, not a public one`
}

/** An allow-list entry as one family: an IPv4-mapped address or range is the IPv4 one it maps. */
function asAllowedRange(value: string): Range {
  const [base, bits] = value.includes('/')
    ? ipaddr.parseCIDR(value)
    : ([ipaddr.parse(value), value.includes(':') ? 128 : 32] as Range)
  if (base.kind() === 'ipv6' && bits >= 96 && (base as ipaddr.IPv6).isIPv4MappedAddress()) {
    return [(base as ipaddr.IPv6).toIPv4Address(), bits - 96]
  }
  return [base, bits]
}

function parsedAllowList(allowed: readonly string[]) {
  const hosts = new Set<string>()
  const ranges: Range[] = []
  for (const entry of allowed) {
    const value = entry.trim().toLowerCase()
    if (!value) continue
    if ((value.includes('/') && ipaddr.isValidCIDR(value)) || ipaddr.isValid(value)) {
      ranges.push(asAllowedRange(value))
    } else hosts.add(bareHost(value))
  }
  return { hosts, ranges }
}

/** A host as compared and resolved: lower case, without IPv6 brackets or the root's trailing dot. */
function bareHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
}

/** Decides whether a host and its addresses may be reached under a policy. */
export function createAddressCheck(policy: AddressPolicy) {
  const { hosts, ranges } = parsedAllowList(policy.allowed)
  return {
    /** Whether `host` is allowed by name whatever it resolves to. */
    hostAllowed: (host: string) => policy.allowPrivate || hosts.has(bareHost(host)),
    /** Why `address` may not be reached, or undefined when it may. */
    refusal(address: string): string | undefined {
      if (policy.allowPrivate) return undefined
      if (!ipaddr.isValid(address)) return `${address} is not an IP address`
      const ip = ipaddr.parse(address)
      const mapped = ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()
      const forms = mapped ? [ip, (ip as ipaddr.IPv6).toIPv4Address()] : [ip]
      const allowed = ranges.some(([base, bits]) =>
        forms.some((form) => base.kind() === form.kind() && form.match(base, bits)),
      )
      if (allowed) return undefined
      const addressClass = classifyAddress(address)
      return addressClass.public ? undefined : describe(address, addressClass)
    },
  }
}

export type AddressCheck = ReturnType<typeof createAddressCheck>

const checks = new WeakMap<AddressPolicy, AddressCheck>()
function checkFor(policy: AddressPolicy): AddressCheck {
  const cached = checks.get(policy)
  if (cached) return cached
  const check = createAddressCheck(policy)
  checks.set(policy, check)
  return check
}

/** Why a host with these addresses may not be reached, or undefined when every address may be. */
function refusalOf(check: AddressCheck, host: string, addresses: readonly string[]): string | undefined {
  if (check.hostAllowed(host)) return undefined
  for (const address of addresses) {
    const refusal = check.refusal(address)
    if (refusal) return address === host ? refusal : `${host}: ${refusal}`
  }
  return undefined
}

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
  method: 'POST' | 'GET'
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

  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs)
  let client: Client | undefined
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

  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input)
    const host = hostOf(url)
    // An IP literal is connected to without a lookup: it is checked here.
    if (isIP(host)) {
      const refusal = refusalOf(check, host, [host])
      if (refusal) throw new TypeError('fetch failed', { cause: new BlockedAddressError(refusal) })
    }
    return undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: 'error',
      dispatcher: agent,
    })
  }) as unknown as typeof globalThis.fetch
}
