import { createHash } from 'node:crypto'
import type { Octokit } from '@octokit/rest'
import { loadOnce } from '../../lib/load-once.ts'

export type GitHubClient = Octokit

export interface GitHubClientOptions {
  /** The REST API's base URL (`GITHUB_API_URL`), so tests can point the client at a loopback fake. */
  baseUrl: string
  token: string
  /** Cap on each request, connection to last byte. */
  timeoutMs?: number
  userAgent?: string
  /**
   * Retries through octokit's retry and throttling plugins: a 5xx or failed request is tried again up to
   * `retries` times after n² × `baseMs` ms, and a rate-limited one (403 with `x-ratelimit-remaining: 0`,
   * a secondary limit, 429) once its `retry-after` or reset has passed (each second of it `baseMs` ms).
   * Without it, one attempt per call.
   */
  retry?: { retries: number; baseMs: number; log?: (message: string) => void }
}

const octokitSdk = loadOnce(async () => {
  const [{ Octokit }, { retry }, { throttling }, { default: Bottleneck }] = await Promise.all([
    import('@octokit/rest'),
    import('@octokit/plugin-retry'),
    import('@octokit/plugin-throttling'),
    import('bottleneck'),
  ])
  return {
    Octokit,
    PluggedOctokit: Octokit.plugin(retry, throttling),
    /**
     * The throttling plugin's write limiters, one per token. Its default sends one write a second per
     * process, whoever's token it is; here each token may have a few writes in flight, and GitHub's own
     * answers (rate limits, secondary limits) pace it.
     */
    writes: new Bottleneck.Group({ maxConcurrent: 4 }),
  }
})

/**
 * A GitHub REST client (octokit) with the configured base URL, a per-request timeout and no redirects
 * followed. Octokit's errors carry the status (`RequestError.status`) and redact the token. Asynchronous
 * because octokit is loaded on the first client made.
 */
export async function createGitHubClient({
  baseUrl,
  token,
  timeoutMs = 15_000,
  userAgent = 'curio-directory',
  retry: retrying,
}: GitHubClientOptions): Promise<GitHubClient> {
  const { Octokit, PluggedOctokit, writes } = await octokitSdk()
  const timedFetch: typeof fetch = (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout
    return fetch(input, { ...init, signal, redirect: 'error' })
  }
  const options = {
    auth: token,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    userAgent,
    request: { fetch: timedFetch },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  }
  if (!retrying) return new Octokit(options)
  const again =
    (kind: string) =>
    (retryAfter: number, request: { method: string; url: string }, _: unknown, count: number) => {
      retrying.log?.(
        `GitHub ${kind} on ${request.method} ${request.url}: retry ${count + 1} in ${retryAfter} s`,
      )
      return count < retrying.retries
    }
  return new PluggedOctokit({
    ...options,
    retry: { retries: retrying.retries, retryAfterBaseValue: retrying.baseMs },
    throttle: {
      // One limiter per token (never the token itself as a key).
      id: createHash('sha256').update(token).digest('hex').slice(0, 16),
      retryAfterBaseValue: retrying.baseMs,
      write: writes,
      onRateLimit: again('rate limit'),
      onSecondaryRateLimit: again('secondary rate limit'),
    },
  })
}

/** The HTTP status of an error from the client, when the Git host answered one. */
export function gitHostStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined
  const status = (error as { status: unknown }).status
  return typeof status === 'number' ? status : undefined
}

/** Splits `owner/name`. */
export function splitRepository(repository: string): { owner: string; repo: string } {
  const [owner = '', repo = ''] = repository.split('/')
  return { owner, repo }
}
