import { randomBytes } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import { standInsOf } from '../config.ts'
import { createEventBus } from '../db/event-bus.ts'
import { createNotifications } from '../db/notifications.ts'
import { type App, createBaseApp } from '../http/app.ts'
import { baseOptionsOf, installModules, type ServiceDeps } from '../http/modules.ts'
import { createRateLimit } from '../http/rate-limit.ts'
import { createAnalyticsClient } from '../integrations/analytics/client.ts'
import { createVercelProvider } from '../integrations/vercel/client.ts'
import { createEnvelope, createKeylessEnvelope } from '../lib/crypto.ts'
import { createSafeFetch } from '../lib/safe-http.ts'
import { activityLogModule } from './activity-log/module.ts'
import type { Reconciler } from './activity-log/reconcile.ts'
import type { ActivityLogService } from './activity-log/service.ts'
import type { ActivityWriter } from './activity-log/writer.ts'
import { apiKeysModule } from './api-keys/module.ts'
import type { ApiKeyService } from './api-keys/service.ts'
import { createAccessTokens } from './auth/jwt.ts'
import { authModule } from './auth/module.ts'
import { platformConsoleModule } from './console.ts'
import { deployModule } from './deploy/module.ts'
import type { DeployService } from './deploy/service.ts'
import type { Verification } from './deploy/verification.ts'
import type { DomainEvent, PlatformEvents } from './events.ts'
import { generationModule } from './generation/module.ts'
import type { GenerationService } from './generation/service.ts'
import { createRequireApiKey, createRequireAuth, createRequireJwt } from './http/guard.ts'
import { errors, PlatformError } from './http/schemas.ts'
import { getOrCreateInstanceSecret } from './instance/service.ts'
import { mcpModule } from './mcp/module.ts'
import { notificationsModule } from './notifications/module.ts'
import type { NotificationService } from './notifications/service.ts'
import { pluginsModule } from './plugins/module.ts'
import { loadPlugins } from './plugins/registry.ts'
import type { PluginService } from './plugins/service.ts'
import { webhooksModule } from './webhooks/module.ts'
import { worksModule } from './works/module.ts'

export type PlatformDeps = ServiceDeps

export interface PlatformApp {
  app: App
  /** The domain event bus, for modules and tests that emit events. */
  events: PlatformEvents
  activity: ActivityWriter
  /** Services for tooling and benchmarks that work beside the routes. */
  services: {
    activityLog: ActivityLogService
    reconciler: Reconciler
    apiKeys: ApiKeyService
    /** In-app notifications, for the modules that tell users about problems (generation, deploy). */
    notifications: NotificationService
    /** Plugin settings as generation and deploy resolve them. */
    plugins: PluginService
    generation: GenerationService
    deploy: DeployService
    /** Deployment verification's polls, for tests and benchmarks that drive them. */
    verification: Verification
  }
}

/** Builds the platform API from its modules; the caller starts the jobs and listens. */
export async function buildPlatformApp(deps: PlatformDeps): Promise<PlatformApp> {
  const { config, database, clock, jobs, log } = deps
  const db = database.db

  const jwtSecret =
    config.jwtSecret ??
    (await getOrCreateInstanceSecret({ db, clock }, 'jwt_secret', () =>
      randomBytes(48).toString('base64url'),
    ))
  // Plugin secrets (and webhook secrets) are sealed with it; a local instance keeps a generated one. A
  // production instance keeps no key next to the data it protects: without the setting it stores no secret.
  const envelope = config.platformEncryptionKey
    ? createEnvelope(config.platformEncryptionKey)
    : config.isProduction
      ? createKeylessEnvelope()
      : createEnvelope(
          await getOrCreateInstanceSecret({ db, clock }, 'platform_encryption_key', () =>
            randomBytes(32).toString('hex'),
          ),
        )
  if (!config.platformEncryptionKey && config.isProduction) {
    log.warn(
      'PLATFORM_ENCRYPTION_KEY is not set: webhook subscriptions and secret plugin settings are refused (400 ENCRYPTION_KEY_MISSING) until it is',
    )
  }
  const accessTokens = createAccessTokens({ secret: jwtSecret, clock })
  const apiKeys = apiKeysModule({ db, clock, log, usageFlushMs: config.apiKeyUsageFlushMs })
  const requireAuth = createRequireAuth({ accessTokens, apiKeys: apiKeys.apiKeys })
  const requireJwt = createRequireJwt({ accessTokens })
  const requireApiKey = createRequireApiKey({ apiKeys: apiKeys.apiKeys })

  const app = await createBaseApp({
    service: 'platform',
    title: 'Curio platform API',
    clients: { typedClient: '@curio/client', mcp: '/mcp' },
    standIns: standInsOf(config),
    description:
      'Build works (directory sites), generate their content, deploy them, and follow what happens. ' +
      'Authenticate with `Authorization: Bearer <access token>` from /api/auth/login.',
    ...baseOptionsOf(deps),
    outageResponse: errors([503, 'DATABASE_UNAVAILABLE'])[503],
    renderError: (error) => ({
      statusCode: error.status,
      error: STATUS_CODES[error.status] ?? 'Error',
      message: error.message,
      code: error.code,
      ...(error.details === undefined ? {} : { details: error.details }),
    }),
    access: {
      jwt: {
        guard: requireJwt,
        security: [{ bearerAuth: [] }],
        says: 'Access: an access token (401 without one; an API key gets 403 `API_KEY_NOT_ALLOWED`).',
      },
      'jwt-or-api-key': {
        guard: requireAuth,
        security: [{ bearerAuth: [] }, { apiKey: [] }],
        says: 'Access: an access token or an API key (401 without one).',
      },
      'api-key': {
        guard: requireApiKey,
        security: [{ apiKey: [] }],
        says:
          'Access: an API key, as `x-api-key: svc_live_…` or `Authorization: Bearer svc_live_…` (401 without ' +
          'one, and for an access token).',
      },
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
      {
        name: 'webhooks',
        description: 'Signed HTTPS callbacks of your works’ events, their deliveries and retries',
      },
      {
        name: 'plugins',
        description:
          'Providers (AI, Git, hosting) you enable for your account and for each work, with their settings',
      },
      {
        name: 'deploy',
        description:
          'Deploying works to a hosting provider through their GitHub repositories, and following each deployment',
      },
      {
        name: 'notifications',
        description: 'In-app notifications: problems to act on, banners, read and dismissed state',
      },
      {
        name: 'mcp',
        description:
          'The Model Context Protocol endpoint: the platform’s tools for AI assistants, by API key',
      },
    ],
  })
  app.addSchema(PlatformError)
  app.decorateRequest('auth', null)
  const events = createEventBus<DomainEvent>(log)
  const rateLimit = createRateLimit({
    limiter: deps.rateLimiter,
    bypassLocalhost: config.rateLimitBypassLocalhost,
    explainBypass: !config.isProduction,
    scope: 'platform',
  })

  const activity = activityLogModule({
    db,
    clock,
    log,
    jobs,
    analytics:
      config.analyticsWriteKey && config.analyticsHost
        ? createAnalyticsClient({ host: config.analyticsHost, writeKey: config.analyticsWriteKey })
        : undefined,
    deployTimeoutMs: config.deployTimeoutMs,
  })
  const auth = authModule({
    db,
    clock,
    log,
    accessTokens,
    refreshTokenTtlDays: config.refreshTokenTtlDays,
    events,
    rateLimit,
  })
  const notifications = notificationsModule({ db, clock, log })
  const works = worksModule({ db, clock, log, events, activity: activity.writer })
  const providerLimits = {
    timeoutMs: config.aiProviderTimeoutMs,
    maxRetries: config.aiProviderMaxRetries,
    // A user's base URL must not reach inside the network; the operator's OPENAI_API_URL is trusted.
    fetch: createSafeFetch({
      allowPrivate: !config.isProduction,
      allowed: [
        ...config.aiProviderAllowedHosts,
        ...(config.pluginEnv('OPENAI_API_URL') ? [new URL(config.openaiApiUrl).hostname] : []),
      ],
    }),
  }
  const plugins = pluginsModule({
    db,
    clock,
    log,
    plugins: await loadPlugins(),
    envelope,
    env: config.pluginEnv,
    access: works.access,
    activity: activity.writer,
    providerLimits,
  })
  const generation = generationModule({
    db,
    clock,
    log,
    jobs,
    events,
    access: works.access,
    workState: works.generationState,
    plugins: plugins.plugins,
    notifications: notifications.notifications,
    maxItems: config.generationMaxItems,
    staleMs: config.generationStaleMs,
    concurrency: config.generationConcurrency,
  })

  const webhooks = webhooksModule({
    db,
    clock,
    log,
    jobs,
    envelope,
    access: works.access,
    rateLimit,
    policy: { allowPrivate: false, allowed: config.webhookAllowedHosts },
    requireHttps: config.isProduction,
    timeoutMs: config.webhookTimeoutMs,
    retryBaseMs: config.webhookRetryBaseMs,
    retryMaxMs: config.webhookRetryMaxMs,
    maxConsecutiveFailures: config.webhookMaxConsecutiveFailures,
    concurrency: config.webhookConcurrency,
  })

  const deploy = deployModule({
    db,
    clock,
    log,
    jobs,
    envelope,
    events,
    access: works.access,
    plugins: plugins.plugins,
    notifications: notifications.notifications,
    rateLimit,
    providers: [createVercelProvider({ serverUrl: config.vercelApiUrl })],
    githubApiUrl: config.githubApiUrl,
    githubRetryBaseMs: config.githubRetryBaseMs,
    templateRepository: config.websiteTemplateRepository,
    pollIntervalMs: config.deployPollIntervalMs,
    timeoutMs: config.deployTimeoutMs,
    notFoundLimit: config.deployNotFoundLimit,
    dispatchRetryDelayMs: config.deployDispatchRetryDelayMs,
    batchConcurrency: config.deployBatchConcurrency,
    batchDelayMs: config.deployBatchDelayMs,
  })

  const mcp = mcpModule({
    works: works.works,
    generation: generation.generation,
    deploy: deploy.deploy,
    activityLog: activity.activityLog,
    reconciler: activity.reconciler,
    notifications: notifications.notifications,
    rateLimit,
  })

  installModules(
    app,
    [
      activity.module,
      auth.module,
      apiKeys.module,
      notifications.module,
      works.module,
      plugins.module,
      generation.module,
      webhooks.module,
      deploy.module,
      mcp.module,
      platformConsoleModule(),
    ],
    {
      jobs,
      notifications: createNotifications(database.source, log),
      events,
    },
  )

  return {
    app,
    events,
    activity: activity.writer,
    services: {
      activityLog: activity.activityLog,
      reconciler: activity.reconciler,
      apiKeys: apiKeys.apiKeys,
      notifications: notifications.notifications,
      plugins: plugins.plugins,
      generation: generation.generation,
      deploy: deploy.deploy,
      verification: deploy.verification,
    },
  }
}
