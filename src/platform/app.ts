import { randomBytes } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import type { ServiceDatabase } from '../db/index.ts'
import { createNotifications } from '../db/notifications.ts'
import { type App, createBaseApp } from '../http/app.ts'
import { createAnalyticsClient } from '../integrations/analytics/client.ts'
import type { Jobs } from '../jobs/index.ts'
import type { Clock } from '../lib/clock.ts'
import { ANALYTICS_FORWARD_JOB, forwardActivity } from './activity-log/forwarding.ts'
import { registerActivityListeners } from './activity-log/listeners.ts'
import { createReconciler, type Reconciler } from './activity-log/reconcile.ts'
import { activityLogRoutes } from './activity-log/routes.ts'
import { type ActivityLogService, createActivityLogService } from './activity-log/service.ts'
import { type ActivityWriter, createActivityWriter } from './activity-log/writer.ts'
import { apiKeyRoutes } from './api-keys/routes.ts'
import { API_KEY_REVOKED_CHANNEL, type ApiKeyService, createApiKeyService } from './api-keys/service.ts'
import { createApiKeyUsage } from './api-keys/usage.ts'
import { type AuthGuard, createRequireAuth, createRequireJwt } from './auth/guard.ts'
import { createAccessTokens } from './auth/jwt.ts'
import { authRoutes } from './auth/routes.ts'
import { createAuthService } from './auth/service.ts'
import { createEventBus, type EventBus } from './events.ts'
import { PlatformError } from './http/schemas.ts'
import { getOrCreateInstanceSecret } from './instance/service.ts'
import { createWorkAccess } from './works/access.ts'
import { workRoutes } from './works/routes.ts'
import { createWorkService } from './works/service.ts'

export interface PlatformDeps {
  config: Config
  database: ServiceDatabase
  clock: Clock
  log: Logger
  jobs: Jobs
}

export const PLATFORM_JOBS = { refreshTokenCleanup: 'refresh-token-cleanup' } as const

export interface PlatformApp {
  app: App
  /** The auth guard, for modules registered on top of the app. */
  requireAuth: AuthGuard
  /** The domain event bus, for modules and tests that emit events. */
  events: EventBus
  activity: ActivityWriter
  /** Services for tooling and benchmarks that work beside the routes. */
  services: { activityLog: ActivityLogService; reconciler: Reconciler; apiKeys: ApiKeyService }
}

/** Builds the platform API from its modules; the caller starts the jobs and listens. */
export async function buildPlatformApp(deps: PlatformDeps): Promise<PlatformApp> {
  const { config, database, clock, jobs } = deps
  const db = database.db

  const app = await createBaseApp({
    service: 'platform',
    title: 'Curio platform API',
    description:
      'Build works (directory sites), generate their content, deploy them, and follow what happens. ' +
      'Authenticate with `Authorization: Bearer <access token>` from /api/auth/login.',
    log: deps.log,
    bodyLimitBytes: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    renderError: (error) => ({
      statusCode: error.status,
      error: STATUS_CODES[error.status] ?? 'Error',
      message: error.message,
      code: error.code,
      ...(error.details === undefined ? {} : { details: error.details }),
    }),
    isReady: async () => {
      await database.ping()
      return true
    },
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
    },
    tags: [
      { name: 'auth', description: 'Accounts and tokens' },
      { name: 'api-keys', description: 'Long-lived keys for scripts; managed with an access token only' },
      { name: 'works', description: 'Directory sites you build, and who shares them' },
      { name: 'activity-log', description: 'What happened on your account, from domain events' },
    ],
  })
  app.addSchema(PlatformError)
  app.decorateRequest('auth', null)

  const jwtSecret =
    config.jwtSecret ??
    (await getOrCreateInstanceSecret({ db, clock }, 'jwt_secret', () =>
      randomBytes(48).toString('base64url'),
    ))
  const events = createEventBus(deps.log)
  const analytics =
    config.analyticsWriteKey && config.analyticsHost
      ? createAnalyticsClient({ host: config.analyticsHost, writeKey: config.analyticsWriteKey })
      : undefined
  const activity = createActivityWriter({
    db,
    clock,
    log: deps.log,
    ...(analytics
      ? { enqueue: (tx, row) => jobs.send(ANALYTICS_FORWARD_JOB, { activityId: row.id }, { tx }) }
      : {}),
  })
  registerActivityListeners(events, activity)
  const activityLog = createActivityLogService({ db })
  const reconciler = createReconciler({ db, clock, log: deps.log, deployTimeoutMs: config.deployTimeoutMs })
  const accessTokens = createAccessTokens({ secret: jwtSecret, clock })
  const auth = createAuthService({
    db,
    clock,
    accessTokens,
    refreshTokenTtlDays: config.refreshTokenTtlDays,
    events,
  })
  const apiKeyUsage = createApiKeyUsage({ db, log: deps.log, flushIntervalMs: config.apiKeyUsageFlushMs })
  const apiKeys = createApiKeyService({ db, clock, usage: apiKeyUsage })
  const requireAuth = createRequireAuth({ accessTokens, apiKeys })
  const workAccess = createWorkAccess({ db })
  const works = createWorkService({ db, clock, access: workAccess, events, activity })

  const requireJwt = createRequireJwt({ accessTokens })
  authRoutes(app, { auth, requireAuth, requireJwt })
  apiKeyRoutes(app, { apiKeys, requireJwt })
  workRoutes(app, { works, requireAuth })
  activityLogRoutes(app, { activityLog, reconciler, requireAuth })
  const notifications = createNotifications(database.source, deps.log)
  app.addHook('onReady', async () => {
    apiKeyUsage.start()
    await notifications.listen(API_KEY_REVOKED_CHANNEL, (keyHash) => apiKeys.forget(keyHash), {
      onLost: () => apiKeys.useCache(false),
      onReconnect: () => apiKeys.useCache(true),
    })
    apiKeys.useCache(true)
  })
  app.addHook('onClose', async () => notifications.close())
  app.addHook('onClose', async () => apiKeyUsage.stop())

  jobs.define({
    name: PLATFORM_JOBS.refreshTokenCleanup,
    cron: '40 3 * * *',
    handler: async () => {
      const deleted = await auth.deleteExpiredRefreshTokens()
      deps.log.info({ deleted }, 'expired refresh tokens deleted')
    },
  })

  if (analytics) {
    jobs.define<{ activityId: string }>({
      name: ANALYTICS_FORWARD_JOB,
      // A collector outage is ridden out: 8 tries, backing off from 10 s.
      retryLimit: 8,
      retryDelaySeconds: 10,
      handler: forwardActivity({ db, analytics }),
    })
  }

  return { app, requireAuth, events, activity, services: { activityLog, reconciler, apiKeys } }
}
