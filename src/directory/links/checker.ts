import { type AddressPolicy, type Lookup, type SafeRequestResult, safeRequest } from '../../lib/safe-http.ts'
import { clip } from '../../lib/values.ts'
import type { Politeness } from './politeness.ts'

/** Redirects a check follows; one more is a failure. */
export const MAX_REDIRECTS = 5
/** What a GET reads of a body at most: the status is what counts. */
const GET_BODY_BYTES = 4096
const REASON_MAX = 300
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

/** What one check of a URL found. `finalUrl` is where redirects led (a failure's: the last URL asked). */
export type LinkOutcome =
  | { ok: true; status: 'ok' | 'redirected'; httpStatus: number; finalUrl: string | null }
  | { ok: false; httpStatus: number | null; finalUrl: string | null; reason: string }

export interface LinkCheckerDeps {
  /** The time limit of each request (each hop, HEAD and GET apart). */
  timeoutMs: number
  policy: AddressPolicy
  userAgent: string
  politeness: Pick<Politeness, 'run'>
  /** Resolves host names; the system resolver by default. */
  lookup?: Lookup
}

export type LinkChecker = ReturnType<typeof createLinkChecker>

/** Words for a request that got no answer: the reason a person can act on, cut to the column. */
function reasonOf(result: Exclude<SafeRequestResult, { kind: 'response' }>): string {
  if (result.kind === 'timeout') return 'timeout'
  if (result.kind === 'blocked') return clip(`blocked address: ${result.reason}`, REASON_MAX)
  const { reason } = result
  if (/could not be resolved|has no address|ENOTFOUND|EAI_AGAIN/.test(reason)) {
    return clip(`DNS: ${reason}`, REASON_MAX)
  }
  if (reason.includes('ECONNREFUSED')) return 'connection refused'
  return clip(reason, REASON_MAX)
}

/** A HEAD that failed in a way a GET may not: an error status, or a connection that broke mid-answer. */
const retryWithGet = (result: SafeRequestResult) =>
  result.kind === 'response'
    ? result.status >= 400
    : result.kind === 'failed' && !/ECONNREFUSED|could not be resolved|has no address/.test(result.reason)

const headerOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)

/**
 * One URL's check through the SSRF-safe client: HEAD (GET when HEAD fails), each redirect followed up to
 * `MAX_REDIRECTS` and each hop checked as a URL of its own, every request waiting for its host's turn.
 */
export function createLinkChecker(deps: LinkCheckerDeps) {
  const headers = { 'user-agent': deps.userAgent, accept: '*/*' }

  function request(url: URL, method: 'HEAD' | 'GET', urgent: boolean) {
    return deps.politeness.run(
      url.hostname,
      () =>
        safeRequest({
          url: url.href,
          method,
          headers,
          timeoutMs: deps.timeoutMs,
          maxResponseBytes: method === 'HEAD' ? 0 : GET_BODY_BYTES,
          policy: deps.policy,
          requireHttps: false,
          ...(deps.lookup ? { lookup: deps.lookup } : {}),
        }),
      { urgent },
    )
  }

  return {
    /** `urgent`: an admin waits for it, so it goes first in its host's queue. */
    async check(raw: string, options: { urgent?: boolean } = {}): Promise<LinkOutcome> {
      const urgent = options.urgent ?? false
      let url = URL.parse(raw)
      if (!url) return { ok: false, httpStatus: null, finalUrl: null, reason: 'not a valid URL' }
      for (let redirects = 0; ; redirects++) {
        const finalUrl = redirects > 0 ? url.href : null
        let result = await request(url, 'HEAD', urgent)
        if (retryWithGet(result)) result = await request(url, 'GET', urgent)
        if (result.kind !== 'response') {
          return { ok: false, httpStatus: null, finalUrl, reason: reasonOf(result) }
        }
        const { status } = result
        if (status >= 200 && status < 300) {
          return { ok: true, status: redirects > 0 ? 'redirected' : 'ok', httpStatus: status, finalUrl }
        }
        if (!REDIRECT_STATUSES.has(status)) {
          return { ok: false, httpStatus: status, finalUrl, reason: `HTTP ${status}` }
        }
        const location = headerOf(result.headers.location)
        if (!location) {
          return { ok: false, httpStatus: status, finalUrl, reason: `HTTP ${status} without a Location` }
        }
        if (redirects === MAX_REDIRECTS) {
          return {
            ok: false,
            httpStatus: status,
            finalUrl,
            reason: `too many redirects (more than ${MAX_REDIRECTS})`,
          }
        }
        const next = URL.parse(location, url.href)
        if (!next) {
          return { ok: false, httpStatus: status, finalUrl, reason: 'redirect to an invalid URL' }
        }
        url = next
      }
    },
  }
}
