import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { type Answer, closeServer, createScript, listen, type RequestMatch, sendAnswer } from './scripted.ts'

/**
 * The states a deployment can be in that every operation's schema in `@vercel/sdk` accepts (`readyState`,
 * `state` and `status`). The list operation's enum has `DELETED` too; the single one does not, so the
 * fake leaves it out.
 */
export const DEPLOYMENT_STATES = [
  'INITIALIZING',
  'QUEUED',
  'BUILDING',
  'READY',
  'ERROR',
  'CANCELED',
  'BLOCKED',
] as const
export type DeploymentState = (typeof DEPLOYMENT_STATES)[number]

export interface VercelFakeUserInput {
  id?: string
  username?: string
  email?: string
  name?: string | null
}

export interface VercelFakeOptions {
  /** The token of the first user (`options.user`, or a generated one). */
  token: string
  user?: VercelFakeUserInput
  /** Every read of a deployment (single or in a list) answers its current state, then moves it one step. */
  advanceOnRead?: boolean
  /**
   * Time mode: a deployment leaves its n-th state `advanceAfterMs[n]` ms (the last entry repeats; a number
   * is every step) after entering it, by `now()`. Evaluated lazily, whenever the fake looks at it.
   */
  advanceAfterMs?: number | number[]
  /** The fake's clock, for creation times and the time mode. */
  now?: () => number
}

export interface VercelFakeRequest {
  method: string
  path: string
  query: Record<string, string>
  /** 0: the connection was closed unanswered (`dropNext`). */
  status: number
}

export interface VercelFakeFault {
  status: number
  /** A string is sent as is (garbage, HTML, truncated JSON); anything else as JSON. Default: a Vercel error. */
  body?: unknown
  headers?: Record<string, string>
}

export interface CreateDeploymentOptions {
  /** A team id or slug; without it the deployment (and project) is the user's own. */
  teamId?: string
  target?: 'production' | null
  /** The deployment's hostname (no scheme). Default `<project>-<9 chars>-<scope>.vercel.app`. */
  url?: string
  /** The states it walks through, the first being where it starts. Default QUEUED, BUILDING, READY. */
  states?: DeploymentState[]
  createdAt?: number
  /** Username of the creator. Default: the first user. */
  creator?: string
  /** `false`: throw when the project does not exist, instead of creating it as a first deploy does. */
  createProject?: boolean
  meta?: Record<string, string>
  /** Overrides the fake's `advanceOnRead` / `advanceAfterMs` for this deployment. */
  advanceOnRead?: boolean
  advanceAfterMs?: number | number[]
  /** Sent as `errorMessage` (and `errorCode`) once the deployment is in ERROR. */
  errorMessage?: string
}

interface User {
  id: string
  username: string
  email: string
  name: string | null
  createdAt: number
}

interface Team {
  id: string
  slug: string
  name: string
  createdAt: number
  creatorId: string
  /** user id → role */
  members: Map<string, 'OWNER' | 'MEMBER'>
}

interface Project {
  id: string
  name: string
  accountId: string
  teamId: string | null
  createdAt: number
  updatedAt: number
}

interface Deployment {
  uid: string
  name: string
  url: string
  projectId: string
  ownerId: string
  teamId: string | null
  target: 'production' | null
  createdAt: number
  creatorId: string
  states: DeploymentState[]
  index: number
  /** When it entered its current state. */
  stateSince: number
  buildingAt?: number
  readyAt?: number
  meta: Record<string, string>
  advanceOnRead: boolean
  advanceAfterMs: number[] | undefined
  errorMessage: string
}

interface Scope {
  ownerId: string
  team: Team | null
  /** The slug the dashboard shows: the team's, or the user's username. */
  slug: string
}

/** Which requests a fault is for: the path is required. */
type VercelFakeMatch = RequestMatch & { path: RegExp | string }

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const randomId = (length: number, alphabet = ALPHABET) =>
  Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('')

const JSON_TYPE = 'application/json; charset=utf-8'
const error = (
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): Answer => ({
  status,
  body: { error: { code, message, ...extra } },
})
const notFound = (message: string) => error(404, 'not_found', message)
const badRequest = (message: string) => error(400, 'bad_request', message)

const isState = (value: string): value is DeploymentState =>
  (DEPLOYMENT_STATES as readonly string[]).includes(value)

/** The default body of an injected fault, as Vercel words that status. */
function faultBody(status: number): unknown {
  if (status === 429) {
    return {
      error: {
        code: 'rate_limited',
        message: 'Rate limit exceeded',
        limit: { remaining: 0, reset: 1, resetMs: 1000, total: 100 },
      },
    }
  }
  if (status >= 500) {
    return { error: { code: 'internal_server_error', message: 'An unexpected internal error occurred' } }
  }
  if (status === 404) return { error: { code: 'not_found', message: 'Not found' } }
  if (status === 403) return { error: { code: 'forbidden', message: 'Not authorized' } }
  if (status >= 400) return { error: { code: 'bad_request', message: 'Bad request' } }
  return ''
}

/**
 * A stand-in for the Vercel REST API on 127.0.0.1, for what `@vercel/sdk` (1.28) calls to follow a deploy:
 *
 * - `GET /v2/user` (`user.getAuthUser`): the token's user.
 * - `GET /v2/teams` (`teams.getTeams`; `limit`, `since`, `until` on the team's creation): its teams.
 * - `GET /v9/projects/{idOrName}` (`projects.getProject`) and `GET /v10/projects` (`projects.getProjects`;
 *   `search`, `limit`, `from`): projects of the scope, 404 `not_found` "Project not found".
 * - `GET /v7/deployments` (`deployments.getDeployments`; `/v6` too, as the docs still name it): `projectId`
 *   (id or name; an unknown one is 404 "Project not found"), `app`, `target` (`production` or `preview`),
 *   `state` (comma-separated), `since` / `until` (created strictly after / before, ms), `limit` (default 20,
 *   at most 100). Newest first; `pagination.next` is the last one's `created`, to pass as `until`.
 * - `GET /v13/deployments/{idOrUrl}` (`deployments.getDeployment`; id, or hostname with or without
 *   `https://`): the full deployment when it is the scope's own, the limited view Vercel gives everyone
 *   else (`id`, `readyState`, `aliasAssigned`, `target`), 404 "Deployment not found" when none has it.
 *
 * Scope: `teamId` (or `slug`) names a team by id or slug; without it the scope is the user's own
 * account. A team the token's user is not a member of (or no such team) is 403 `forbidden`
 * ("Not authorized: Trying to access resource under scope …"). No token: 403 `missingToken`; an unknown
 * or revoked one: 403 `invalidToken`, as Vercel answers both. Bodies are JSON with
 * `content-type: application/json; charset=utf-8`; errors are `{ error: { code, message, … } }`.
 *
 * Every answer carries all the fields the SDK's zod schemas require, so it parses without the SDK
 * substituting defaults for missing ones.
 *
 * Taken from the docs and reports rather than seen on the live API (mirror them if Vercel differs): the
 * 404 for an unknown `projectId` in the list, `since` / `until` being strict, the messages of the two
 * 404s, and the limited view of a deployment outside the scope.
 */
export async function startVercelFake(options: VercelFakeOptions) {
  const now = options.now ?? Date.now
  const users = new Map<string, User>()
  const tokens = new Map<string, string>() // token → user id
  const teams = new Map<string, Team>()
  const projects = new Map<string, Project>()
  const deployments = new Map<string, Deployment>()
  const faults = createScript<VercelFakeFault, VercelFakeMatch>(faultBody)
  /** Requests whose connection is closed unanswered, as a network failure shows to the client. */
  const drops = createScript<VercelFakeFault, VercelFakeMatch>(faultBody)
  const requests: VercelFakeRequest[] = []
  const defaultAdvanceAfterMs =
    options.advanceAfterMs === undefined ? undefined : [options.advanceAfterMs].flat()

  function addUser(input: VercelFakeUserInput): User {
    const username = input.username ?? `user-${randomId(6, 'abcdefghijklmnopqrstuvwxyz0123456789')}`
    const user: User = {
      id: input.id ?? randomId(24),
      username,
      email: input.email ?? `${username}@example.com`,
      name: input.name === undefined ? username : input.name,
      createdAt: now(),
    }
    users.set(user.id, user)
    return user
  }

  const firstUser = addUser({ username: 'curio', ...options.user })
  tokens.set(options.token, firstUser.id)

  const userByName = (username: string) => [...users.values()].find((user) => user.username === username)
  const teamByRef = (ref: string) =>
    teams.get(ref) ?? [...teams.values()].find((team) => team.slug === ref || team.id === ref)

  function requireTeam(ref: string): Team {
    const team = teamByRef(ref)
    if (!team) throw new Error(`vercel fake: no team ${ref}`)
    return team
  }

  function resolveMember(ref: string): User {
    const byToken = tokens.get(ref)
    const user = (byToken && users.get(byToken)) || userByName(ref) || users.get(ref)
    if (!user) throw new Error(`vercel fake: no user (username, id or token) ${ref}`)
    return user
  }

  /** The scope the control API works in: a team (id or slug), or the first user's account. */
  function controlScope(teamRef: string | undefined): Scope {
    if (teamRef === undefined) return { ownerId: firstUser.id, team: null, slug: firstUser.username }
    const team = requireTeam(teamRef)
    return { ownerId: team.id, team, slug: team.slug }
  }

  const projectIn = (ownerId: string, idOrName: string) =>
    [...projects.values()].find(
      (project) => project.accountId === ownerId && (project.id === idOrName || project.name === idOrName),
    )

  function makeProject(name: string, scope: Scope): Project {
    if (projectIn(scope.ownerId, name)) throw new Error(`vercel fake: project ${name} exists already`)
    const at = now()
    const project: Project = {
      id: `prj_${randomId(28)}`,
      name,
      accountId: scope.ownerId,
      teamId: scope.team?.id ?? null,
      createdAt: at,
      updatedAt: at,
    }
    projects.set(project.id, project)
    return project
  }

  const state = (deployment: Deployment) => deployment.states[deployment.index]!

  function enter(deployment: Deployment, index: number, at: number) {
    deployment.index = index
    deployment.stateSince = at
    const entered = state(deployment)
    if (entered === 'BUILDING') deployment.buildingAt ??= at
    if (entered === 'READY') deployment.readyAt = at
  }

  /** Applies the time mode: the steps whose time has come, each at the time it came. */
  function settle(deployment: Deployment) {
    const delays = deployment.advanceAfterMs
    if (!delays || delays.length === 0) return
    const current = now()
    while (deployment.index < deployment.states.length - 1) {
      const delay = delays[Math.min(deployment.index, delays.length - 1)]!
      if (current - deployment.stateSince < delay) break
      enter(deployment, deployment.index + 1, deployment.stateSince + delay)
    }
  }

  /** After a read: the advance-on-read step. */
  function afterRead(deployment: Deployment) {
    if (deployment.advanceOnRead && deployment.index < deployment.states.length - 1) {
      enter(deployment, deployment.index + 1, now())
    }
  }

  // ---- JSON shapes -------------------------------------------------------------------------------------

  function userJson(user: User) {
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      username: user.username,
      avatar: null,
      defaultTeamId: null,
      createdAt: user.createdAt,
      softBlock: null,
      billing: null,
      resourceConfig: { concurrentBuilds: 1, nodeType: 'workers' },
      stagingPrefix: user.username.slice(0, 12),
      hasTrialAvailable: true,
      version: 'northstar',
    }
  }

  function teamJson(team: Team, user: User) {
    const role = team.members.get(user.id) ?? 'MEMBER'
    return {
      id: team.id,
      slug: team.slug,
      name: team.name,
      avatar: null,
      createdAt: team.createdAt,
      updatedAt: team.createdAt,
      creatorId: team.creatorId,
      description: null,
      stagingPrefix: team.slug.slice(0, 12),
      billing: { plan: 'pro' },
      resourceConfig: { concurrentBuilds: 1 },
      membership: {
        confirmed: true,
        role,
        uid: user.id,
        teamId: team.id,
        created: team.createdAt,
        createdAt: team.createdAt,
      },
    }
  }

  const scopeSlugOf = (ownerId: string) => teams.get(ownerId)?.slug ?? users.get(ownerId)?.username ?? ownerId
  const inspectorUrl = (deployment: Deployment) =>
    `https://vercel.com/${scopeSlugOf(deployment.ownerId)}/${deployment.name}/${deployment.uid.slice(4)}`
  const creatorOf = (deployment: Deployment) => users.get(deployment.creatorId) ?? firstUser
  const aliasOf = (deployment: Deployment) =>
    deployment.target === 'production' && state(deployment) === 'READY'
      ? [`${deployment.name}.vercel.app`]
      : []
  const errorFields = (deployment: Deployment) =>
    state(deployment) === 'ERROR' ? { errorCode: 'BUILD_FAILED', errorMessage: deployment.errorMessage } : {}

  /** An entry of the list (`GET /v7/deployments`). */
  function listedJson(deployment: Deployment) {
    const creator = creatorOf(deployment)
    const readyState = state(deployment)
    return {
      uid: deployment.uid,
      name: deployment.name,
      url: deployment.url,
      created: deployment.createdAt,
      createdAt: deployment.createdAt,
      ...(deployment.buildingAt === undefined ? {} : { buildingAt: deployment.buildingAt }),
      ...(readyState === 'READY' && deployment.readyAt !== undefined ? { ready: deployment.readyAt } : {}),
      source: 'cli',
      state: readyState,
      readyState,
      ...(readyState === 'READY' && deployment.target === 'production' ? { readySubstate: 'PROMOTED' } : {}),
      type: 'LAMBDAS',
      creator: { uid: creator.id, email: creator.email, username: creator.username },
      meta: deployment.meta,
      target: deployment.target,
      aliasError: null,
      aliasAssigned: aliasOf(deployment).length > 0 ? (deployment.readyAt ?? null) : null,
      isRollbackCandidate: readyState === 'READY' && deployment.target === 'production',
      inspectorUrl: inspectorUrl(deployment),
      projectId: deployment.projectId,
      ...errorFields(deployment),
    }
  }

  /** `GET /v13/deployments/{idOrUrl}` for the owner. */
  function fullJson(deployment: Deployment) {
    const creator = creatorOf(deployment)
    const readyState = state(deployment)
    const team = deployment.teamId ? teams.get(deployment.teamId) : undefined
    const alias = aliasOf(deployment)
    return {
      id: deployment.uid,
      name: deployment.name,
      url: deployment.url,
      alias,
      aliasAssigned: alias.length > 0,
      aliasError: null,
      automaticAliases: [],
      bootedAt: deployment.createdAt,
      build: { env: [] },
      buildingAt: deployment.buildingAt ?? deployment.createdAt,
      buildSkipped: false,
      createdAt: deployment.createdAt,
      createdIn: 'sfo1',
      creator: { uid: creator.id, username: creator.username },
      env: [],
      inspectorUrl: inspectorUrl(deployment),
      isInConcurrentBuildsQueue: false,
      isInSystemBuildsQueue: false,
      meta: deployment.meta,
      ownerId: deployment.ownerId,
      plan: team ? 'pro' : 'hobby',
      project: { id: deployment.projectId, name: deployment.name, framework: null },
      projectId: deployment.projectId,
      projectSettings: {},
      public: false,
      ...(readyState === 'READY' && deployment.readyAt !== undefined ? { ready: deployment.readyAt } : {}),
      readyState,
      ...(readyState === 'READY' && deployment.target === 'production' ? { readySubstate: 'PROMOTED' } : {}),
      regions: ['iad1'],
      routes: null,
      source: 'cli',
      status: readyState,
      target: deployment.target,
      ...(team ? { team: { id: team.id, name: team.name, slug: team.slug } } : {}),
      type: 'LAMBDAS',
      version: 2,
      ...errorFields(deployment),
    }
  }

  /** `GET /v13/deployments/{idOrUrl}` for anyone else: what Vercel shows of a deployment one does not own. */
  function limitedJson(deployment: Deployment) {
    const alias = aliasOf(deployment)
    return {
      id: deployment.uid,
      alias,
      aliasAssigned: alias.length > 0,
      readyState: state(deployment),
      target: deployment.target,
    }
  }

  /** A deployment as a project lists it (`latestDeployments`, `targets`). */
  function projectDeploymentJson(deployment: Deployment) {
    const creator = creatorOf(deployment)
    const readyState = state(deployment)
    return {
      id: deployment.uid,
      name: deployment.name,
      url: deployment.url,
      alias: aliasOf(deployment),
      aliasAssigned: aliasOf(deployment).length > 0 ? (deployment.readyAt ?? null) : null,
      aliasError: null,
      ...(deployment.buildingAt === undefined ? {} : { buildingAt: deployment.buildingAt }),
      createdAt: deployment.createdAt,
      createdIn: 'sfo1',
      creator: { uid: creator.id, email: creator.email, username: creator.username },
      deploymentHostname: deployment.url.replace(/\.vercel\.app$/, ''),
      meta: deployment.meta,
      plan: deployment.teamId ? 'pro' : 'hobby',
      private: true,
      ...(readyState === 'READY' && deployment.readyAt !== undefined ? { readyAt: deployment.readyAt } : {}),
      readyState,
      target: deployment.target,
      teamId: deployment.teamId,
      type: 'LAMBDAS',
      userId: creator.id,
    }
  }

  function projectJson(project: Project) {
    const own = [...deployments.values()]
      .filter((deployment) => deployment.projectId === project.id)
      .sort(newestFirst)
    for (const deployment of own) settle(deployment)
    const production = own.find((deployment) => deployment.target === 'production')
    return {
      id: project.id,
      name: project.name,
      accountId: project.accountId,
      alias: [],
      createdAt: project.createdAt,
      updatedAt: project.updatedAt,
      defaultResourceConfig: { functionDefaultRegions: ['iad1'], fluid: true },
      resourceConfig: { functionDefaultRegions: ['iad1'], fluid: true },
      deploymentExpiration: {
        expirationDays: 180,
        expirationDaysProduction: 365,
        expirationDaysCanceled: 30,
        expirationDaysErrored: 90,
        deploymentsToKeep: 10,
      },
      directoryListing: false,
      framework: null,
      nodeVersion: '22.x',
      serverlessFunctionRegion: 'iad1',
      live: false,
      latestDeployments: own.slice(0, 1).map(projectDeploymentJson),
      ...(production ? { targets: { production: projectDeploymentJson(production) } } : {}),
    }
  }

  /** Newest first; of two made in the same millisecond, the later made first. */
  const order = new Map<string, number>()
  const newestFirst = (a: Deployment, b: Deployment) =>
    b.createdAt - a.createdAt || (order.get(b.uid) ?? 0) - (order.get(a.uid) ?? 0)

  // ---- Request handling --------------------------------------------------------------------------------

  type Query = URLSearchParams

  /** A non-negative integer query parameter, or an answer saying it is not one. */
  function numberParam(query: Query, name: string): number | undefined | Answer {
    const raw = query.get(name)
    if (raw === null || raw === '') return undefined
    const value = Number(raw)
    if (!Number.isFinite(value) || value < 0) {
      return badRequest(`Invalid request: \`${name}\` should be number.`)
    }
    return value
  }
  const isAnswer = (value: unknown): value is Answer =>
    typeof value === 'object' && value !== null && 'status' in value

  function limitParam(query: Query, fallback: number): number | Answer {
    const limit = numberParam(query, 'limit')
    if (isAnswer(limit)) return limit
    if (limit !== undefined && (limit > 100 || limit < 1 || !Number.isInteger(limit))) {
      return badRequest('Invalid request: `limit` should be an integer between 1 and 100.')
    }
    return limit ?? fallback
  }

  function resolveScope(user: User, query: Query): Scope | Answer {
    const ref = query.get('teamId') || query.get('slug')
    if (!ref) return { ownerId: user.id, team: null, slug: user.username }
    const team = teamByRef(ref)
    if (!team?.members.has(user.id)) {
      const scope = team?.slug ?? ref
      return error(
        403,
        'forbidden',
        `Not authorized: Trying to access resource under scope "${scope}". You must re-authenticate to this scope or use a token with access to this scope.`,
        { scope, ...(team ? { teamId: team.id } : {}) },
      )
    }
    return { ownerId: team.id, team, slug: team.slug }
  }

  function listDeployments(scope: Scope, query: Query): Answer {
    const since = numberParam(query, 'since')
    if (isAnswer(since)) return since
    const until = numberParam(query, 'until')
    if (isAnswer(until)) return until
    const limit = limitParam(query, 20)
    if (isAnswer(limit)) return limit
    const projectRef = query.get('projectId')
    let projectId: string | undefined
    if (projectRef) {
      const project = projectIn(scope.ownerId, projectRef)
      if (!project) return notFound('Project not found')
      projectId = project.id
    }
    const target = query.get('target')
    const app = query.get('app')
    const states = query
      .get('state')
      ?.split(',')
      .map((value) => value.trim().toUpperCase())
      .filter(Boolean)
    const all = [...deployments.values()].filter((deployment) => deployment.ownerId === scope.ownerId)
    for (const deployment of all) settle(deployment)
    const matching = all
      .filter(
        (deployment) =>
          (projectId === undefined || deployment.projectId === projectId) &&
          (!app || deployment.name === app) &&
          (!target ||
            (target === 'production' ? deployment.target === 'production' : deployment.target === null)) &&
          (!states?.length || states.includes(state(deployment))) &&
          (since === undefined || deployment.createdAt > since) &&
          (until === undefined || deployment.createdAt < until),
      )
      .sort(newestFirst)
    const page = matching.slice(0, limit)
    const body = {
      deployments: page.map(listedJson),
      pagination: {
        count: page.length,
        next: matching.length > page.length ? page[page.length - 1]!.createdAt : null,
        prev: page[0]?.createdAt ?? null,
      },
    }
    for (const deployment of page) afterRead(deployment)
    return { status: 200, body }
  }

  function getDeployment(scope: Scope, idOrUrl: string): Answer {
    const key = decodeURIComponent(idOrUrl)
      .replace(/^https?:\/\//, '')
      .replace(/\/.*$/, '')
    const deployment =
      deployments.get(key) ?? [...deployments.values()].find((candidate) => candidate.url === key)
    if (!deployment) return notFound('Deployment not found')
    settle(deployment)
    const owner = deployment.ownerId === scope.ownerId
    // The scope's own deployment in full. Otherwise only what Vercel shows anyone: the limited view.
    const body = owner ? fullJson(deployment) : limitedJson(deployment)
    afterRead(deployment)
    return { status: 200, body }
  }

  function listTeams(user: User, query: Query): Answer {
    const since = numberParam(query, 'since')
    if (isAnswer(since)) return since
    const until = numberParam(query, 'until')
    if (isAnswer(until)) return until
    const limit = limitParam(query, 20)
    if (isAnswer(limit)) return limit
    const mine = [...teams.values()]
      .filter(
        (team) =>
          team.members.has(user.id) &&
          (since === undefined || team.createdAt > since) &&
          (until === undefined || team.createdAt < until),
      )
      .sort((a, b) => b.createdAt - a.createdAt)
    const page = mine.slice(0, limit)
    return {
      status: 200,
      body: {
        teams: page.map((team) => teamJson(team, user)),
        pagination: {
          count: page.length,
          next: mine.length > page.length ? page[page.length - 1]!.createdAt : null,
          prev: page[0]?.createdAt ?? null,
        },
      },
    }
  }

  function listProjects(scope: Scope, query: Query): Answer {
    const limit = limitParam(query, 20)
    if (isAnswer(limit)) return limit
    const from = numberParam(query, 'from')
    if (isAnswer(from)) return from
    const search = query.get('search')?.toLowerCase()
    const matching = [...projects.values()]
      .filter(
        (project) =>
          project.accountId === scope.ownerId &&
          (!search || project.name.toLowerCase().includes(search)) &&
          (from === undefined || project.updatedAt < from),
      )
      .sort((a, b) => b.updatedAt - a.updatedAt)
    const page = matching.slice(0, limit)
    return {
      status: 200,
      body: {
        projects: page.map(projectJson),
        pagination: {
          count: page.length,
          next: matching.length > page.length ? page[page.length - 1]!.updatedAt : null,
          prev: page[0]?.updatedAt ?? null,
        },
      },
    }
  }

  function route(req: IncomingMessage, url: URL): Answer {
    const authorization = req.headers.authorization
    const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim()
    if (!bearer) {
      return error(403, 'forbidden', 'The request is missing an authentication token', { missingToken: true })
    }
    const userId = tokens.get(bearer)
    const user = userId ? users.get(userId) : undefined
    if (!user) return error(403, 'forbidden', 'Not authorized', { invalidToken: true })

    const path = url.pathname.replace(/\/+$/, '') || '/'
    const known =
      /^\/v2\/(user|teams)$/.test(path) ||
      /^\/v(9|10)\/projects(\/[^/]+)?$/.test(path) ||
      /^\/v(6|7|13)\/deployments(\/[^/]+)?$/.test(path)
    if (!known) return notFound('The requested URL was not found')
    if (req.method !== 'GET') return error(405, 'method_unknown', 'This endpoint only responds to GET')

    const query = url.searchParams
    if (path === '/v2/user') return { status: 200, body: { user: userJson(user) } }
    if (path === '/v2/teams') return listTeams(user, query)

    const scope = resolveScope(user, query)
    if (isAnswer(scope)) return scope

    let match = /^\/v9\/projects\/([^/]+)$/.exec(path)
    if (match) {
      const project = projectIn(scope.ownerId, decodeURIComponent(match[1]!))
      return project ? { status: 200, body: projectJson(project) } : notFound('Project not found')
    }
    if (path === '/v10/projects') return listProjects(scope, query)
    if (path === '/v6/deployments' || path === '/v7/deployments') return listDeployments(scope, query)
    match = /^\/v13\/deployments\/([^/]+)$/.exec(path)
    if (match) return getDeployment(scope, match[1]!)
    return notFound('The requested URL was not found')
  }

  const { server, url: address } = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake')
    const method = req.method ?? 'GET'
    // The SDK's GETs carry no body; drain whatever comes so the socket can be reused.
    req.resume()
    if (drops.take(method, url.pathname)) {
      requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), status: 0 })
      req.socket.destroy()
      return
    }
    const fault = faults.take(method, url.pathname)
    const answer = fault ? faults.faultAnswer(fault) : route(req, url)
    requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: answer.status,
    })
    const rateLimit: Record<string, string> =
      answer.status === 429
        ? { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' }
        : {}
    // The answer's own headers (a fault's too) go over the rate-limit ones.
    sendAnswer(res, answer, { text: 'text/plain; charset=utf-8', json: JSON_TYPE }, rateLimit)
  })

  function requireDeployment(uid: string): Deployment {
    const deployment = deployments.get(uid)
    if (!deployment) throw new Error(`vercel fake: no deployment ${uid}`)
    return deployment
  }

  const deploymentSnapshot = (deployment: Deployment) => ({
    uid: deployment.uid,
    url: deployment.url,
    name: deployment.name,
    projectId: deployment.projectId,
    ownerId: deployment.ownerId,
    teamId: deployment.teamId,
    target: deployment.target,
    createdAt: deployment.createdAt,
    readyState: state(deployment),
    state: state(deployment),
    states: [...deployment.states],
  })

  const projectSnapshot = (project: Project) => ({
    id: project.id,
    name: project.name,
    accountId: project.accountId,
    teamId: project.teamId,
    createdAt: project.createdAt,
  })

  return {
    url: address,
    /** Every request, in order: method, path, query and the status answered. */
    requests,
    /** The first user (the one `options.token` belongs to). */
    user: { id: firstUser.id, username: firstUser.username, email: firstUser.email },

    /** Another token: of the user with that username (made if there is none), member of `teams`. */
    addToken(token: string, input: { username: string; email?: string; name?: string; teams?: string[] }) {
      const user = userByName(input.username) ?? addUser(input)
      tokens.set(token, user.id)
      for (const ref of input.teams ?? []) {
        const team = requireTeam(ref)
        if (!team.members.has(user.id)) team.members.set(user.id, 'MEMBER')
      }
      return { id: user.id, username: user.username, email: user.email }
    },
    /** The token answers 403 `invalidToken` from now on. */
    revokeToken(token: string) {
      tokens.delete(token)
    },
    /** A team; `members` are usernames, user ids or tokens (the first is its owner). */
    addTeam(input: { id?: string; slug: string; name?: string }, members: string[] = []) {
      const resolved = members.map(resolveMember)
      const team: Team = {
        id: input.id ?? `team_${randomId(24)}`,
        slug: input.slug,
        name: input.name ?? input.slug,
        createdAt: now(),
        creatorId: resolved[0]?.id ?? firstUser.id,
        members: new Map(resolved.map((user, index) => [user.id, index === 0 ? 'OWNER' : 'MEMBER'])),
      }
      if (teamByRef(team.id) || teamByRef(team.slug)) throw new Error(`vercel fake: team ${team.slug} exists`)
      teams.set(team.id, team)
      return { id: team.id, slug: team.slug, name: team.name }
    },
    createProject(name: string, input: { teamId?: string } = {}) {
      return projectSnapshot(makeProject(name, controlScope(input.teamId)))
    },
    /** A deployment of `projectRef` (name or id), made as `vercel deploy` would. */
    createDeployment(projectRef: string, input: CreateDeploymentOptions = {}) {
      const scope = controlScope(input.teamId)
      let project = projectIn(scope.ownerId, projectRef)
      if (!project) {
        if (input.createProject === false) throw new Error(`vercel fake: no project ${projectRef}`)
        project = makeProject(projectRef, scope)
      }
      const states = input.states ?? ['QUEUED', 'BUILDING', 'READY']
      if (states.length === 0) throw new Error('vercel fake: a deployment needs at least one state')
      for (const value of states) {
        if (!isState(value))
          throw new Error(`vercel fake: ${value} is not a deployment state the SDK accepts`)
      }
      const creator = input.creator ? resolveMember(input.creator) : firstUser
      const createdAt = input.createdAt ?? now()
      const uid = `dpl_${randomId(28)}`
      const suffix = randomId(9, 'abcdefghijklmnopqrstuvwxyz0123456789')
      const delays =
        input.advanceAfterMs === undefined ? defaultAdvanceAfterMs : [input.advanceAfterMs].flat()
      const deployment: Deployment = {
        uid,
        name: project.name,
        url: input.url ?? `${project.name}-${suffix}-${scope.slug}.vercel.app`,
        projectId: project.id,
        ownerId: scope.ownerId,
        teamId: scope.team?.id ?? null,
        target: input.target ?? null,
        createdAt,
        creatorId: creator.id,
        states: [...states],
        index: 0,
        stateSince: now(),
        meta: input.meta ?? {},
        advanceOnRead: input.advanceOnRead ?? options.advanceOnRead ?? false,
        advanceAfterMs: delays,
        errorMessage: input.errorMessage ?? 'Command "npm run build" exited with 1',
      }
      enter(deployment, 0, deployment.stateSince)
      deployments.set(uid, deployment)
      order.set(uid, order.size)
      project.updatedAt = Math.max(project.updatedAt, createdAt)
      return deploymentSnapshot(deployment)
    },
    /**
     * Moves a deployment to its next state, or to `to`: a later state of its walk, or any other state
     * (which then ends the walk). Returns the state it is in.
     */
    advance(uid: string, to?: DeploymentState): DeploymentState {
      const deployment = requireDeployment(uid)
      settle(deployment)
      if (to === undefined) {
        if (deployment.index < deployment.states.length - 1) enter(deployment, deployment.index + 1, now())
        return state(deployment)
      }
      if (!isState(to)) throw new Error(`vercel fake: ${to} is not a deployment state the SDK accepts`)
      const later = deployment.states.indexOf(to, deployment.index)
      if (later === -1) deployment.states.splice(deployment.index + 1, Infinity, to)
      enter(deployment, later === -1 ? deployment.index + 1 : later, now())
      return state(deployment)
    },
    /** A deployment as the fake holds it (time mode applied, no read counted). */
    deployment(uid: string) {
      const deployment = requireDeployment(uid)
      settle(deployment)
      return deploymentSnapshot(deployment)
    },
    /**
     * The next `times` requests matching `match` (method, and path: exact string or RegExp, without the
     * query) answer `fault` instead: a status, and a body (string: sent as is, `text/plain` unless
     * `headers` say otherwise; default: a Vercel error for that status).
     */
    failNext(match: VercelFakeMatch, fault: VercelFakeFault, times = 1) {
      faults.fail(match, fault, times)
    },
    /** The next `times` requests matching `match` get no answer: their connection is closed (logged as status 0). */
    dropNext(match: VercelFakeMatch, times = 1) {
      drops.fail(match, { status: 0 }, times)
    },
    /** Forgets every fault and drop still scripted. */
    clearFaults() {
      faults.clear()
      drops.clear()
    },
    close: () => closeServer(server),
  }
}

export type VercelFake = Awaited<ReturnType<typeof startVercelFake>>
