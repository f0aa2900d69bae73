import ipaddr from 'ipaddr.js'

/**
 * Which addresses a user's URL may reach: only global unicast ones, unless the policy allows private
 * addresses (a local instance) or names the host, address or range. The one classification every outbound
 * call to a user-supplied URL goes through (src/lib/safe-http.ts).
 */

export interface AddressPolicy {
  /** Every address is allowed (a local instance: its user is its operator). */
  allowPrivate: boolean
  /** Hosts (exact names) and addresses or CIDR ranges allowed although private, on any port. */
  allowed: readonly string[]
}

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
export function bareHost(host: string): string {
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
export function checkFor(policy: AddressPolicy): AddressCheck {
  const cached = checks.get(policy)
  if (cached) return cached
  const check = createAddressCheck(policy)
  checks.set(policy, check)
  return check
}

/** Why a host with these addresses may not be reached, or undefined when every address may be. */
export function refusalOf(
  check: AddressCheck,
  host: string,
  addresses: readonly string[],
): string | undefined {
  if (check.hostAllowed(host)) return undefined
  for (const address of addresses) {
    const refusal = check.refusal(address)
    if (refusal) return address === host ? refusal : `${host}: ${refusal}`
  }
  return undefined
}
