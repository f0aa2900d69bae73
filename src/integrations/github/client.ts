import { Octokit } from '@octokit/rest'

export type GitHubClient = Octokit

export interface GitHubClientOptions {
  /** The REST API's base URL (`GITHUB_API_URL`), so tests can point the client at a loopback fake. */
  baseUrl: string
  token: string
  /** Cap on each request, connection to last byte. */
  timeoutMs?: number
}

/**
 * A GitHub REST client (octokit) with the configured base URL, a per-request timeout and no redirects
 * followed. Octokit's errors carry the status (`RequestError.status`) and redact the token.
 */
export function createGitHubClient({
  baseUrl,
  token,
  timeoutMs = 15_000,
}: GitHubClientOptions): GitHubClient {
  const timedFetch: typeof fetch = (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout
    return fetch(input, { ...init, signal, redirect: 'error' })
  }
  return new Octokit({
    auth: token,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    userAgent: 'curio-directory',
    request: { fetch: timedFetch },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
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
