import { randomBytes } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import type { Logger } from 'pino'
import { type Config, loadConfig } from '../../src/config.ts'
import type { ServiceDatabase } from '../../src/db/index.ts'
import { ensureAdmin } from '../../src/directory/admin/bootstrap.ts'
import { buildDirectoryApp } from '../../src/directory/app.ts'
import { SESSION_COOKIE } from '../../src/directory/auth/sessions.ts'
import type { App } from '../../src/http/app.ts'
import type { ServiceDeps } from '../../src/http/modules.ts'
import { createJobs, type Jobs } from '../../src/jobs/index.ts'
import { createManualClock, type ManualClock } from '../../src/lib/clock.ts'
import { createLogger } from '../../src/lib/logger.ts'
import type { RateLimiter } from '../../src/lib/rate-limiter.ts'
import { buildPlatformApp, type PlatformApp } from '../../src/platform/app.ts'
import type { DomainEvent } from '../../src/platform/events.ts'
import { createRateLimiterFor } from '../../src/runtime.ts'
import { createTestDatabases, TEST_REDIS_URL, type TestDatabases } from './database.ts'

export const APP_ORIGIN = 'http://localhost:3001'

export interface HarnessOptions {
  /** Settings as environment variables, over the test defaults. */
  env?: Record<string, string | undefined>
  log?: Logger
  /** Another harness's limiter, shared as the services of one process share theirs (not closed here). */
  rateLimiter?: RateLimiter
  /** Where the manual clock starts (default: now), e.g. later than another process's clock. */
  clockStart?: Date | number
  /** How often the job queue expires the jobs of a worker that died (pg-boss's default: 60 s). */
  superviseIntervalSeconds?: number
}

export interface PlatformHarnessOptions extends HarnessOptions {
  /** Another harness's databases: two harnesses on one database stand for two instances. */
  databases?: TestDatabases
  /** Register routes on the app before it is ready (e.g. a probe behind the guard). */
  extend?: (app: App) => void
  /** Redis key prefix of the rate limiter; harnesses given the same one share windows, as instances do. */
  rateLimitPrefix?: string
}

export interface DirectoryHarnessOptions extends HarnessOptions {
  /** Another harness's databases: two harnesses on one database stand for two instances. */
  databases?: TestDatabases
  /** Register routes on the app before it is ready (e.g. a probe behind a guard). */
  extend?: (app: App) => void
  /** Redis key prefix of the rate limiter; harnesses given the same one share windows, as instances do. */
  rateLimitPrefix?: string
}

interface Harness {
  app: App
  clock: ManualClock
  databases: TestDatabases
  jobs: Jobs
  close(): Promise<void>
}

function testConfig(env: HarnessOptions['env'] = {}) {
  return loadConfig({
    DATA_DIR: 'memory',
    LOG_LEVEL: 'silent',
    ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
    ...env,
  })
}

export interface PlatformHarness extends Harness {
  events: PlatformApp['events']
  activity: PlatformApp['activity']
  /** The app's services, for tests that act beside the routes (as other modules do). */
  services: PlatformApp['services']
  rateLimiter: RateLimiter
  /** Emits a domain event in a transaction of its own, as a service emits it with its change. */
  emit(event: DomainEvent): Promise<void>
}

/** A run-unique Redis prefix keeps parallel test files apart on a shared Redis. */
const uniquePrefix = () => `curio-test:${randomBytes(6).toString('hex')}:`

export async function startPlatform(options: PlatformHarnessOptions = {}): Promise<PlatformHarness> {
  // Tests make many accounts from inject's 127.0.0.1; the platform's rate-limit tests use other addresses.
  const config = testConfig({ RATE_LIMIT_BYPASS_LOCALHOST: 'true', ...options.env })
  const { built, clock, databases, jobs, rateLimiter, close } = await startService(
    options,
    config,
    (databases) => databases.platform,
    (deps) => buildPlatformApp(deps),
  )
  const { app, events, activity, services } = built
  return {
    app,
    clock,
    databases,
    jobs,
    events,
    activity,
    services,
    rateLimiter,
    emit: (event) => databases.platform.db.transaction((tx) => events.emit(event, { tx })),
    close,
  }
}

export interface DirectoryHarness extends Harness {
  rateLimiter: RateLimiter
  /** Makes an active admin and returns a signed-in session cookie for them. */
  adminCookie(email?: string): Promise<string>
}

export async function startDirectory(options: DirectoryHarnessOptions = {}): Promise<DirectoryHarness> {
  const config = testConfig(options.env)
  const { built, clock, databases, jobs, rateLimiter, close } = await startService(
    options,
    config,
    (databases) => databases.directory,
    (deps) => buildDirectoryApp(deps),
  )
  const { app } = built
  return {
    app,
    clock,
    databases,
    jobs,
    rateLimiter,
    async adminCookie(email = `admin-${randomBytes(4).toString('hex')}@example.com`) {
      const password = 'admin-password-1'
      await ensureAdmin({ db: databases.directory.db, clock }, email, password)
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/signin',
        payload: { email, password },
        remoteAddress: randomAddress(),
      })
      return sessionCookie(res)
    },
    close,
  }
}

/**
 * What both harnesses share: the databases (fresh unless shared), the service's job queue and rate limiter,
 * the app built on them with the test's routes, started. A failure on the way (an app that refuses a
 * route) closes what was opened, so the test file can end.
 */
async function startService<Built extends { app: App }>(
  options: HarnessOptions & {
    databases?: TestDatabases
    extend?: (app: App) => void
    rateLimitPrefix?: string
  },
  config: Config,
  databaseOf: (databases: TestDatabases) => ServiceDatabase,
  build: (deps: ServiceDeps) => Promise<Built>,
) {
  const log = options.log ?? createLogger('silent')
  const clock = createManualClock(options.clockStart)
  const shared = options.databases
  const databases = shared ?? (await createTestDatabases())
  const database = databaseOf(databases)
  const jobs = createJobs({
    database,
    log,
    pollingIntervalSeconds: 0.5,
    superviseIntervalSeconds: options.superviseIntervalSeconds,
  })
  const rateLimiter =
    options.rateLimiter ??
    (await createRateLimiterFor(config, clock, log, options.rateLimitPrefix ?? uniquePrefix()))
  let built: Built | undefined
  const close = async () => {
    await built?.app.close()
    await jobs.stop(2000)
    if (!options.rateLimiter) await rateLimiter.close()
    if (!shared) await databases.close()
  }
  try {
    built = await build({ config, database, clock, log, jobs, rateLimiter })
    options.extend?.(built.app)
    await jobs.start()
    await built.app.ready()
  } catch (error) {
    await close().catch(() => {})
    throw error
  }
  return { built, clock, databases, jobs, rateLimiter, close }
}

/** Probe routes behind each directory guard, for tests of the guards themselves. */
export function guardProbes(app: App) {
  app.get('/test/session', { config: { access: 'session' } }, async () => ({ ok: true }))
  app.get('/test/admin', { config: { access: 'admin' } }, async () => ({ ok: true }))
  app.get('/test/admin-401', { config: { access: 'admin-401' } }, async () => ({ ok: true }))
}

/** The `name=value` of the session cookie a response set, for the next request's Cookie header. */
export function sessionCookie(res: LightMyRequestResponse): string {
  const cookie = res.cookies.find((candidate) => candidate.name === SESSION_COOKIE)
  if (!cookie?.value) throw new Error(`No session cookie in response ${res.statusCode}: ${res.body}`)
  return `${SESSION_COOKIE}=${cookie.value}`
}

/** A distinct client address per call, so rate limits of one test do not leak into another. */
export function randomAddress(): string {
  const bytes = randomBytes(3)
  return `10.${bytes[0]}.${bytes[1]}.${bytes[2]}`
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@example.com`
}

/** Waits, up to 5 s, for what another instance or a notification brings about (polling every 20 ms). */
export async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

export type SiteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * A request to a directory as its web app sends it: with the app's Origin, from a fresh client address
 * (so one test's rate limits never reach another's) unless one is given, with a session cookie if any.
 */
export function siteRequest(
  h: Pick<DirectoryHarness, 'app'>,
  method: SiteMethod,
  url: string,
  { cookie, payload, address }: { cookie?: string | null; payload?: unknown; address?: string } = {},
) {
  return h.app.inject({
    method,
    url,
    payload: payload as object,
    remoteAddress: address ?? randomAddress(),
    headers: { origin: APP_ORIGIN, ...(cookie ? { cookie } : {}) },
  })
}

/** Registers a member of the directory and answers their session cookie. */
export async function signUp(h: Pick<DirectoryHarness, 'app'>, name = 'Ada Lovelace'): Promise<string> {
  const res = await siteRequest(h, 'POST', '/api/auth/register', {
    payload: { email: uniqueEmail('member'), password: 'a good password', name },
  })
  if (res.statusCode !== 201) throw new Error(`registering failed: ${res.statusCode} ${res.body}`)
  return sessionCookie(res)
}
