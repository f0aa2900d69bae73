import cookie from '@fastify/cookie'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { createCountCache } from '../db/count-cache.ts'
import type { ServiceDatabase } from '../db/index.ts'
import { createNotifications } from '../db/notifications.ts'
import { type App, createBaseApp } from '../http/app.ts'
import type { Jobs } from '../jobs/index.ts'
import type { Clock } from '../lib/clock.ts'
import type { RateLimiter } from '../lib/rate-limiter.ts'
import { createDirectoryGuards, type DirectoryGuards } from './auth/guard.ts'
import { createOriginCheck } from './auth/origin.ts'
import { directoryAuthRoutes } from './auth/routes.ts'
import { createDirectoryAuthService } from './auth/service.ts'
import { createSessionService } from './auth/sessions.ts'
import { type ContentCache, createContentCache, listenForCategoryChanges } from './categories/cache.ts'
import { createCategoryGitService } from './categories/git.ts'
import { categoryGitRoutes } from './categories/git-routes.ts'
import { categoryRoutes } from './categories/routes.ts'
import type { Category } from './categories/schemas.ts'
import { createCategoryService } from './categories/service.ts'
import { noCrmSync } from './clients/crm.ts'
import { adminClientRoutes } from './clients/routes.ts'
import { createClientService } from './clients/service.ts'
import { CLIENT_PROFILES_CHANGED_CHANNEL } from './clients/tables.ts'
import { DirectoryError } from './http/schemas.ts'
import { createRateLimit } from './rate-limit.ts'
import { roleRoutes } from './roles/routes.ts'
import { createRoleService } from './roles/service.ts'
import { adminUserRoutes } from './users/routes.ts'
import { createUserService } from './users/service.ts'

export interface DirectoryDeps {
  config: Config
  database: ServiceDatabase
  clock: Clock
  log: Logger
  jobs: Jobs
  rateLimiter: RateLimiter
}

export const DIRECTORY_JOBS = { sessionCleanup: 'session-cleanup' } as const

export interface DirectoryApp {
  app: App
  /** The session guards, for modules registered on top of the app. */
  guards: DirectoryGuards
}

/** Builds the directory API from its modules; the caller starts the jobs and listens. */
export async function buildDirectoryApp(deps: DirectoryDeps): Promise<DirectoryApp> {
  const { config, database, clock, jobs } = deps
  const db = database.db

  const app = await createBaseApp({
    service: 'directory',
    title: 'Curio directory API',
    description:
      'The back end of one published directory site: accounts, admin management, sponsor ads, reports, ' +
      'geocoding and more. Sign in with /api/auth/signin; the session cookie authenticates what follows. ' +
      'Writes that carry the cookie must come from the app’s own origin (`Origin` or `Referer`).',
    log: deps.log,
    bodyLimitBytes: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    renderError: (error) => ({
      success: false,
      error: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    }),
    isReady: async () => {
      await database.ping()
      return true
    },
    securitySchemes: {
      sessionCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'curio_session',
        description: 'set by /api/auth/signin',
      },
    },
    tags: [
      { name: 'auth', description: 'Accounts, sessions and the current user' },
      { name: 'categories', description: 'Admin categories and their order' },
      { name: 'clients', description: 'Admin management of client profiles' },
      { name: 'roles', description: 'Admin roles and their permissions' },
      { name: 'users', description: 'Admin management of users' },
    ],
  })
  app.addSchema(DirectoryError)
  app.decorateRequest('viewer', null)
  await app.register(cookie)
  app.addHook('onRequest', createOriginCheck(config.appUrl))

  const sessions = createSessionService({ db, clock, ttlDays: config.sessionTtlDays })
  const guards = createDirectoryGuards(sessions)
  const rateLimit = createRateLimit({
    limiter: deps.rateLimiter,
    bypassLocalhost: config.rateLimitBypassLocalhost,
    log: deps.log,
  })
  const auth = createDirectoryAuthService({ db, clock, sessions })

  directoryAuthRoutes(app, {
    auth,
    guards,
    rateLimit,
    secureCookies: config.isProduction,
    sessionTtlSeconds: sessions.ttlSeconds,
  })
  adminUserRoutes(app, { users: createUserService({ db, clock }), guards })
  // Before categoryRoutes, so `/git` is registered ahead of `/:id`.
  categoryGitRoutes(app, { categoryGit: createCategoryGitService({ db, config }), guards })
  const categoryCache: ContentCache<Category[]> = createContentCache()
  categoryRoutes(app, { categories: createCategoryService({ db, clock, cache: categoryCache }), guards })
  const notifications = createNotifications(database.source, deps.log)
  app.addHook('onReady', async () => listenForCategoryChanges(notifications, categoryCache))
  app.addHook('onClose', async () => notifications.close())
  roleRoutes(app, { roles: createRoleService({ db, clock }), guards })
  const clientCounts = createCountCache()
  app.addHook('onReady', async () => clientCounts.listen(notifications, CLIENT_PROFILES_CHANGED_CHANNEL))
  adminClientRoutes(app, {
    clients: createClientService({ db, clock, crm: noCrmSync, log: deps.log, counts: clientCounts }),
    guards,
  })

  jobs.define({
    name: DIRECTORY_JOBS.sessionCleanup,
    cron: config.sessionCleanupCron,
    handler: async () => {
      const deleted = await sessions.deleteExpired()
      deps.log.info({ deleted }, 'expired sessions deleted')
    },
  })

  return { app, guards }
}
