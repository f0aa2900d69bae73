import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { Agent, fetch as undiciFetch } from 'undici'

/**
 * Outbound HTTP to addresses a user chose, without letting them reach inside our network: every address a
 * host resolves to is checked before connecting (the check and the connection use the same resolved
 * address, so a DNS answer cannot change in between), IP literals are checked before the request, and
 * redirects are refused (a redirect could point anywhere).
 */

/** A request refused because its target is not a public address. */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError'
  readonly code = 'ERR_BLOCKED_ADDRESS'
}

export interface AddressPolicy {
  /** Every address is allowed (a local instance: its user is its operator). */
  allowPrivate: boolean
  /** Hosts (exact names) and addresses or CIDR ranges allowed although private. */
  allowed: readonly string[]
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]

function parsedAllowList(allowed: readonly string[]) {
  const hosts = new Set<string>()
  const ranges: Range[] = []
  for (const entry of allowed) {
    const value = entry.trim().toLowerCase()
    if (!value) continue
    if (value.includes('/') && ipaddr.isValidCIDR(value)) ranges.push(ipaddr.parseCIDR(value))
    else if (ipaddr.isValid(value)) ranges.push([ipaddr.parse(value), value.includes(':') ? 128 : 32])
    else hosts.add(value)
  }
  return { hosts, ranges }
}

/** The address as one family: an IPv4-mapped IPv6 address is checked as the IPv4 it is. */
function normalised(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address)
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed
}

/** Decides whether a host and its addresses may be reached under a policy. */
export function createAddressCheck(policy: AddressPolicy) {
  const { hosts, ranges } = parsedAllowList(policy.allowed)
  return {
    /** Whether `host` is allowed by name whatever it resolves to. */
    hostAllowed: (host: string) =>
      policy.allowPrivate || hosts.has(host.toLowerCase().replace(/^\[|\]$/g, '')),
    /** Why `address` may not be reached, or undefined when it may. */
    refusal(address: string): string | undefined {
      if (policy.allowPrivate) return undefined
      if (!ipaddr.isValid(address)) return `${address} is not an IP address`
      const ip = normalised(address)
      if (ranges.some(([base, bits]) => base.kind() === ip.kind() && ip.match(base, bits))) return undefined
      const range = ip.range()
      return range === 'unicast' ? undefined : `${address} is a ${range} address, not a public one`
    },
  }
}

export type AddressCheck = ReturnType<typeof createAddressCheck>

/** A `fetch` that only reaches addresses the policy allows, for a user's URLs (AI provider base URLs). */
export function createSafeFetch(policy: AddressPolicy): typeof globalThis.fetch {
  if (policy.allowPrivate) return globalThis.fetch
  const check = createAddressCheck(policy)
  const agent = new Agent({
    connect: {
      lookup(hostname, options, callback) {
        dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
          if (error) return callback(error, '', 0)
          const list = addresses as LookupAddress[]
          if (!check.hostAllowed(hostname)) {
            for (const { address } of list) {
              const refusal = check.refusal(address)
              if (refusal) return callback(new BlockedAddressError(`${hostname}: ${refusal}`), '', 0)
            }
          }
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
    const host = url.hostname.replace(/^\[|\]$/g, '')
    // An IP literal is connected to without a lookup: it is checked here.
    if (isIP(host) && !check.hostAllowed(host)) {
      const refusal = check.refusal(host)
      if (refusal) throw new TypeError('fetch failed', { cause: new BlockedAddressError(refusal) })
    }
    return undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: 'error',
      dispatcher: agent,
    })
  }) as unknown as typeof globalThis.fetch
}
