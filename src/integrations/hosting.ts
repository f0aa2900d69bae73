/**
 * A hosting provider as deploy sees it, whichever provider it is: each provider's client (`vercel/client.ts`)
 * speaks its own API and maps the answers to these shapes and its failures to these two errors.
 */

/** SPEC.md's verification states a provider's deployment can be in (TIMEOUT is Curio's own). */
export const PROVIDER_STATES = ['INITIALIZING', 'QUEUED', 'BUILDING', 'READY', 'ERROR', 'CANCELED'] as const

/** A deployment at the hosting provider, in SPEC.md's verification states. */
export interface ProviderDeployment {
  id: string
  state: (typeof PROVIDER_STATES)[number]
  /** `https://…`, once the provider gave one. */
  url: string | undefined
  /** The provider's reason for an ERROR. */
  error: string | undefined
  createdAt: number
}

export interface ProviderTeam {
  id: string
  slug: string
  name: string
}

/** Where a provider call goes: a token, and the team (id or slug) it acts in, if any. */
export interface ProviderScope {
  token: string
  teamScope: string | undefined
}

/** The provider refused the token itself (revoked, expired, not allowed for the team). */
export class ProviderAuthError extends Error {
  override name = 'ProviderAuthError'
}

/** The provider could not be asked: no answer, a 5xx or 429, or an answer that is not its API's. */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError'
}

/**
 * A hosting provider the deploy workflows deploy to, as verification and the deploy routes use it. Every
 * method throws ProviderAuthError or ProviderUnavailableError; anything else is answered.
 */
export interface HostingProvider {
  readonly id: string
  readonly name: string
  /** The token's account. */
  account(token: string): Promise<{ id: string; username: string }>
  teams(token: string): Promise<ProviderTeam[]>
  /**
   * The newest deployment of the project created at or after `since` (ms), or null when there is none yet
   * or the project itself does not exist yet.
   */
  latestSince(scope: ProviderScope, project: string, since: number): Promise<ProviderDeployment | null>
  /** One deployment by its id, or null when the provider no longer knows it. */
  deployment(scope: ProviderScope, id: string): Promise<ProviderDeployment | null>
}
