import { availableParallelism } from 'node:os'
import { DAY_MS, HOUR_MS, MINUTE_MS } from './lib/time.ts'

/**
 * Every setting Curio reads, typed and validated once at start. Nothing else reads process.env.
 * docs/configuration.md's table is generated from these definitions (`npm run cli -- config docs`).
 */

export class ConfigError extends Error {
  readonly setting: string
  constructor(setting: string, problem: string) {
    super(`Invalid configuration: ${setting} ${problem}`)
    this.name = 'ConfigError'
    this.setting = setting
  }
}

interface Setting<T> {
  env: string
  group: string
  meaning: string
  /** Default as shown in docs/configuration.md. */
  shown: string
  secret: boolean
  parse(raw: string | undefined): T
}

type Env = Record<string, string | undefined>

const present = (raw: string | undefined): raw is string => raw !== undefined && raw.trim() !== ''

function make<T>(
  env: string,
  group: string,
  meaning: string,
  shown: string,
  parse: (raw: string | undefined) => T,
  secret = false,
): Setting<T> {
  return { env, group, meaning, shown, parse, secret }
}

function text(env: string, group: string, fallback: string, meaning: string): Setting<string> {
  return make(env, group, meaning, fallback === '' ? '(empty)' : `\`${fallback}\``, (raw) =>
    present(raw) ? raw.trim() : fallback,
  )
}

function optional(env: string, group: string, meaning: string, secret = false): Setting<string | undefined> {
  return make(env, group, meaning, 'unset', (raw) => (present(raw) ? raw.trim() : undefined), secret)
}

/**
 * A Mapbox access token as Mapbox issues them, `pk.<payload>.<signature>` (or `sk.`, `tk.`), the payload base64
 * JSON naming the account: the SDK reads it before any request and cannot work with anything else. The
 * token is a secret, so the error never repeats it.
 */
function mapboxToken(env: string, group: string, meaning: string): Setting<string | undefined> {
  return make(
    env,
    group,
    meaning,
    'unset',
    (raw) => {
      if (!present(raw)) return undefined
      const token = raw.trim()
      const [usage, payload] = token.split('.')
      let account: unknown
      try {
        account =
          usage && payload && /^[A-Za-z0-9+/]+={0,2}$/.test(payload)
            ? (JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as { u?: unknown }).u
            : undefined
      } catch {
        account = undefined
      }
      if (typeof account !== 'string') {
        throw new ConfigError(env, 'is not a Mapbox access token (pk.…, sk.… or tk.…, as Mapbox issues them)')
      }
      return token
    },
    true,
  )
}

/** How many worker processes: a whole number from 1, or `auto` (one per core the process may use). */
function workerCount(env: string, group: string, meaning: string): Setting<number> {
  return make(env, group, meaning, '`1`', (raw) => {
    if (!present(raw)) return 1
    if (raw.trim() === 'auto') return availableParallelism()
    const value = Number(raw)
    if (!/^\s*\d+\s*$/.test(raw) || value < 1 || value > 256) {
      throw new ConfigError(env, `must be a whole number from 1 to 256, or auto (got "${raw}")`)
    }
    return value
  })
}

function integer(
  env: string,
  group: string,
  fallback: number,
  meaning: string,
  { min = 0, max = Number.MAX_SAFE_INTEGER }: { min?: number; max?: number } = {},
): Setting<number> {
  return make(env, group, meaning, `\`${fallback}\``, (raw) => {
    if (!present(raw)) return fallback
    const value = Number(raw.trim())
    if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
      throw new ConfigError(env, `must be a whole number from ${min} to ${max} (got "${raw}")`)
    }
    return value
  })
}

function flag(env: string, group: string, fallback: boolean, meaning: string): Setting<boolean> {
  return make(env, group, meaning, `\`${fallback}\``, (raw) => {
    if (!present(raw)) return fallback
    const value = raw.trim().toLowerCase()
    if (['true', '1', 'yes'].includes(value)) return true
    if (['false', '0', 'no'].includes(value)) return false
    throw new ConfigError(env, `must be true or false (got "${raw}")`)
  })
}

function oneOf<const T extends string>(
  env: string,
  group: string,
  values: readonly T[],
  fallback: T,
  meaning: string,
): Setting<T> {
  return make(env, group, meaning, `\`${fallback}\``, (raw) => {
    if (!present(raw)) return fallback
    const value = raw.trim() as T
    if (!values.includes(value))
      throw new ConfigError(env, `must be one of ${values.join(', ')} (got "${raw}")`)
    return value
  })
}

function optionalOneOf<const T extends string>(
  env: string,
  group: string,
  values: readonly T[],
  meaning: string,
  shown = 'unset',
): Setting<T | undefined> {
  return make(env, group, meaning, shown, (raw) => {
    if (!present(raw)) return undefined
    const value = raw.trim() as T
    if (!values.includes(value))
      throw new ConfigError(env, `must be one of ${values.join(', ')} (got "${raw}")`)
    return value
  })
}

function parseUrl(env: string, raw: string, protocols: readonly string[]): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    // Not echoed: connection URLs carry passwords.
    throw new ConfigError(env, 'must be a URL')
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(
      env,
      `must be a URL starting with ${protocols.join(' or ')} (got "${url.protocol}")`,
    )
  }
  return raw.trim().replace(/\/+$/, '')
}

function url(env: string, group: string, fallback: string, meaning: string): Setting<string> {
  return make(env, group, meaning, `\`${fallback}\``, (raw) =>
    present(raw) ? parseUrl(env, raw, ['http:', 'https:']) : fallback,
  )
}

function optionalUrl(
  env: string,
  group: string,
  meaning: string,
  protocols: readonly string[] = ['http:', 'https:'],
  secret = false,
): Setting<string | undefined> {
  return make(
    env,
    group,
    meaning,
    'unset',
    (raw) => (present(raw) ? parseUrl(env, raw, protocols) : undefined),
    secret,
  )
}

function repository(env: string, group: string, meaning: string): Setting<string | undefined> {
  return make(env, group, meaning, 'unset', (raw) => {
    if (!present(raw)) return undefined
    if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(raw.trim())) {
      throw new ConfigError(env, `must be a repository as owner/name (got "${raw}")`)
    }
    return raw.trim()
  })
}

/** A duration as `<n>m`, `<n>h` or `<n>d` (at least a minute) in milliseconds, or `off`: null. */
function linkCheckInterval(env: string, group: string, meaning: string): Setting<number | null> {
  const units: Record<string, number> = { m: MINUTE_MS, h: HOUR_MS, d: DAY_MS }
  return make(env, group, meaning, '`1d`', (raw) => {
    if (!present(raw)) return DAY_MS
    const value = raw.trim().toLowerCase()
    if (value === 'off') return null
    const match = /^(\d{1,4})([mhd])$/.exec(value)
    const ms = match ? Number(match[1]) * (units[match[2] as string] as number) : 0
    if (ms < MINUTE_MS) {
      throw new ConfigError(env, `must be a duration such as 30m, 12h or 1d, or off (got "${raw}")`)
    }
    return ms
  })
}

function list(env: string, group: string, meaning: string): Setting<string[]> {
  return make(env, group, meaning, '(empty)', (raw) =>
    present(raw)
      ? raw
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
      : [],
  )
}

/**
 * The providers `npm run demo` replaces with local stand-ins, by id, with their names; each stand-in is
 * reached at its provider's API URL setting (OPENAI_API_URL, GITHUB_API_URL, VERCEL_API_URL).
 */
export const STAND_IN_PROVIDERS = { openai: 'OpenAI', github: 'GitHub', vercel: 'Vercel' } as const
export type StandInProvider = keyof typeof STAND_IN_PROVIDERS

/** A comma-separated list of STAND_IN_PROVIDERS' ids, each once. */
function standIns(env: string, group: string, meaning: string): Setting<StandInProvider[]> {
  const known = Object.keys(STAND_IN_PROVIDERS)
  return make(env, group, meaning, '(empty)', (raw) => {
    if (!present(raw)) return []
    const named = raw
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
    const unknown = named.filter((name) => !known.includes(name))
    if (unknown.length > 0) {
      throw new ConfigError(
        env,
        `must name providers among ${known.join(', ')} (got "${unknown.join(', ')}")`,
      )
    }
    return [...new Set(named)] as StandInProvider[]
  })
}

/** `scheme://host[:port]`, as a browser sends it in `Origin`; kept in the browser's spelling (`url.origin`). */
function parseOrigin(env: string, raw: string): string {
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {
    url = undefined
  }
  const isOrigin =
    url !== undefined &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    !url.username &&
    !url.password &&
    url.pathname === '/' &&
    !/[?#]/.test(raw)
  if (!url || !isOrigin) {
    throw new ConfigError(
      env,
      `must be comma-separated origins (scheme://host[:port]) such as https://app.example.com (got "${raw}")`,
    )
  }
  return url.origin
}

/** Comma-separated origins, or undefined when unset (the caller's default applies). */
function origins(env: string, group: string, shown: string, meaning: string): Setting<string[] | undefined> {
  return make(env, group, meaning, shown, (raw) =>
    present(raw)
      ? raw
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
          .map((part) => parseOrigin(env, part))
      : undefined,
  )
}

/** `false`, `true` (trust every hop), a hop count, or comma-separated addresses / CIDRs of trusted proxies. */
export type TrustProxy = boolean | number | string[]

function trustProxy(env: string, group: string, meaning: string): Setting<TrustProxy> {
  return make(env, group, meaning, '`false`', (raw) => {
    if (!present(raw)) return false
    const value = raw.trim().toLowerCase()
    if (value === 'true') return true
    if (value === 'false') return false
    if (/^\d+$/.test(value)) return Number(value)
    const addresses = value.split(',').map((part) => part.trim())
    if (addresses.some((part) => !/^[0-9a-f.:]+(\/\d{1,3})?$/.test(part))) {
      throw new ConfigError(
        env,
        `must be true, false, a hop count or a list of proxy addresses (got "${raw}")`,
      )
    }
    return addresses
  })
}

/** A secret that a local instance generates for itself when it is unset; `check` validates a set one. */
function generatedSecret(
  env: string,
  group: string,
  meaning: string,
  check: (raw: string) => string,
): Setting<string | undefined> {
  return make(
    env,
    group,
    meaning,
    'generated on a local instance',
    (raw) => (present(raw) ? check(raw) : undefined),
    true,
  )
}

const hexKey = (env: string, group: string, meaning: string) =>
  generatedSecret(env, group, meaning, (raw) => {
    if (!/^[0-9a-fA-F]{64}$/.test(raw.trim())) {
      throw new ConfigError(env, 'must be 64 hexadecimal characters (32 bytes)')
    }
    return raw.trim().toLowerCase()
  })

const jwtSecret = (env: string, group: string, meaning: string) =>
  generatedSecret(env, group, meaning, (raw) => {
    if (raw.length < 32) throw new ConfigError(env, 'must be at least 32 characters long')
    return raw
  })

/**
 * The start of every Redis key Curio writes: 1 to 64 printable characters without spaces or the glob
 * characters `*?[]\`, so `SCAN … MATCH <prefix>*` finds exactly one deployment's keys.
 */
function redisKeyPrefix(env: string, group: string, fallback: string, meaning: string): Setting<string> {
  return make(env, group, meaning, `\`${fallback}\``, (raw) => {
    if (!present(raw)) return fallback
    const value = raw.trim()
    if (!/^[\x21-\x7e]{1,64}$/.test(value) || /[*?[\]\\]/.test(value)) {
      throw new ConfigError(
        env,
        `must be 1 to 64 printable characters without spaces or any of * ? [ ] \\ (got "${raw}")`,
      )
    }
    return value
  })
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
const PG_PROTOCOLS = ['postgres:', 'postgresql:'] as const

/** Where the embedded database lives unless DATA_DIR says otherwise. */
export const DEFAULT_DATA_DIR = './data'

const definitions = {
  nodeEnv: text(
    'NODE_ENV',
    'Running',
    'development',
    '`production` turns on the strict rules (HTTPS-only webhook URLs, required keys, secure cookies); anything else is a local instance',
  ),
  host: text('HOST', 'Running', '127.0.0.1', 'address both services listen on'),
  platformPort: integer('PLATFORM_PORT', 'Running', 3000, 'port of the platform API', { min: 0, max: 65535 }),
  directoryPort: integer('DIRECTORY_PORT', 'Running', 3001, 'port of the directory API', {
    min: 0,
    max: 65535,
  }),
  workers: workerCount(
    'WORKERS',
    'Running',
    'worker processes sharing the ports (`node:cluster`): a number, or `auto` for one per core; more than 1 needs Postgres (`DATABASE_URL`)',
  ),
  logLevel: oneOf('LOG_LEVEL', 'Running', LOG_LEVELS, 'info', `log level: ${LOG_LEVELS.join(', ')}`),
  logFormat: optionalOneOf(
    'LOG_FORMAT',
    'Running',
    ['json', 'pretty'],
    '`json` (one object per line) or `pretty` (readable lines); secrets are redacted in both',
    '`pretty` on a terminal, else `json`',
  ),
  bodyLimitBytes: integer(
    'BODY_LIMIT_BYTES',
    'Running',
    1_048_576,
    'largest accepted request body (413 above)',
    {
      min: 1024,
    },
  ),
  requestTimeoutMs: integer(
    'REQUEST_TIMEOUT_MS',
    'Running',
    30_000,
    'time a client has to send a whole request, headers and body (408 after; a stuck upload cannot hold a connection)',
    { min: 100 },
  ),
  headersTimeoutMs: integer(
    'HEADERS_TIMEOUT_MS',
    'Running',
    10_000,
    'time a client has to send the request headers (408 after); at most REQUEST_TIMEOUT_MS',
    { min: 100 },
  ),
  shutdownTimeoutMs: integer(
    'SHUTDOWN_TIMEOUT_MS',
    'Running',
    10_000,
    'the deadline from SIGTERM/SIGINT to the exit: in-flight requests and job attempts get this long to finish, then the process exits whatever is still pending',
  ),
  // Unset means "as the environment suggests" (src/http/metrics.ts decides): on locally, off in production.
  metricsEnabled: make(
    'METRICS_ENABLED',
    'Running',
    'Prometheus metrics at `GET /metrics` (on `METRICS_PORT` when it is set, else on each service’s port); `false` turns them off everywhere',
    'on locally; off in production unless `METRICS_PORT` is set',
    (raw) =>
      present(raw)
        ? flag('METRICS_ENABLED', 'Running', false, '').parse(raw)
        : (undefined as boolean | undefined),
  ),
  metricsPort: make(
    'METRICS_PORT',
    'Running',
    'serve `/metrics` on this port only (one listener per process, on `HOST`, every service’s metrics), not on the services’ ports: for a scraper on a private network',
    'unset',
    (raw) =>
      present(raw)
        ? integer('METRICS_PORT', 'Running', 0, '', { min: 0, max: 65535 }).parse(raw)
        : (undefined as number | undefined),
  ),
  trustProxy: trustProxy(
    'TRUST_PROXY',
    'Running',
    'take the client IP from `X-Forwarded-For`: `true`, a hop count, or the proxies’ addresses/CIDRs',
  ),
  redisUrl: optionalUrl(
    'REDIS_URL',
    'Running',
    'share rate-limit windows across instances (`redis://…`)',
    ['redis:', 'rediss:'],
    true,
  ),
  redisKeyPrefix: redisKeyPrefix(
    'REDIS_KEY_PREFIX',
    'Running',
    'curio:',
    'start of every Redis key Curio writes (rate-limit windows are `<prefix>rl:…`): deployments sharing one Redis database each set their own',
  ),
  corsOrigins: origins(
    'CORS_ORIGINS',
    'Running',
    "the app's own origins on a local instance; none in production",
    'comma-separated origins (`https://app.example.com`) whose pages may call the APIs from a browser; ' +
      "on the directory they may send the session cookie and count as the app's own origin",
  ),

  dataDir: text(
    'DATA_DIR',
    'Database',
    DEFAULT_DATA_DIR,
    'folder of the embedded database; `memory` keeps everything in memory',
  ),
  databaseUrl: optionalUrl(
    'DATABASE_URL',
    'Database',
    'use this Postgres server instead of the embedded database (both services, each in its own schema)',
    PG_PROTOCOLS,
    true,
  ),
  platformDatabaseUrl: optionalUrl(
    'PLATFORM_DATABASE_URL',
    'Database',
    'Postgres server of the platform (overrides `DATABASE_URL`)',
    PG_PROTOCOLS,
    true,
  ),
  directoryDatabaseUrl: optionalUrl(
    'DIRECTORY_DATABASE_URL',
    'Database',
    'Postgres server of the directory (overrides `DATABASE_URL`)',
    PG_PROTOCOLS,
    true,
  ),
  databasePoolSize: integer(
    'DATABASE_POOL_SIZE',
    'Database',
    10,
    'connections per service on a Postgres server',
    {
      min: 1,
      max: 500,
    },
  ),
  databaseConnectTimeoutMs: integer(
    'DATABASE_CONNECT_TIMEOUT_MS',
    'Database',
    3000,
    'on a Postgres server, the longest a request waits for a connection (a free one of the pool, or a new one); then it answers 503 `DATABASE_UNAVAILABLE`',
    { min: 100, max: 600_000 },
  ),
  databaseQueryTimeoutMs: integer(
    'DATABASE_QUERY_TIMEOUT_MS',
    'Database',
    4000,
    'on a Postgres server, the longest a statement waits for its answer, measured by Curio (it holds when the network drops packets, where a server-side `statement_timeout` never fires); then the request answers 503 `DATABASE_UNAVAILABLE` and the connection is closed. Migrations are not bounded',
    { min: 100, max: 3_600_000 },
  ),

  jwtSecret: jwtSecret(
    'JWT_SECRET',
    'Platform',
    'signs access tokens (at least 32 characters); required in production',
  ),
  refreshTokenTtlDays: integer(
    'REFRESH_TOKEN_TTL_DAYS',
    'Platform',
    30,
    'lifetime of a platform refresh token',
    {
      min: 1,
      max: 365,
    },
  ),
  apiKeyUsageFlushMs: integer(
    'API_KEY_USAGE_FLUSH_MS',
    'Platform',
    5000,
    'how often API key `lastUsedAt` times are written to the database; other instances see them that much later',
    { min: 10 },
  ),
  platformEncryptionKey: hexKey(
    'PLATFORM_ENCRYPTION_KEY',
    'Platform',
    '64 hex chars; encrypts webhook and plugin secrets; required in production',
  ),
  webhookMaxConsecutiveFailures: integer(
    'WEBHOOK_MAX_CONSECUTIVE_FAILURES',
    'Platform',
    10,
    'then a subscription becomes `failed`',
    { min: 1 },
  ),
  webhookTimeoutMs: integer(
    'WEBHOOK_TIMEOUT_MS',
    'Platform',
    10_000,
    'time limit of one webhook delivery attempt',
    {
      min: 1,
    },
  ),
  webhookRetryBaseMs: integer(
    'WEBHOOK_RETRY_BASE_MS',
    'Platform',
    30_000,
    'first retry delay of a webhook delivery',
    {
      min: 1,
    },
  ),
  webhookRetryMaxMs: integer(
    'WEBHOOK_RETRY_MAX_MS',
    'Platform',
    DAY_MS,
    'largest retry delay of a webhook delivery',
    {
      min: 1,
    },
  ),
  webhookConcurrency: integer(
    'WEBHOOK_CONCURRENCY',
    'Platform',
    20,
    'webhook deliveries one instance makes at once',
    { min: 1, max: 500 },
  ),
  webhookAllowedHosts: list(
    'WEBHOOK_ALLOWED_HOSTS',
    'Platform',
    'hosts or CIDRs exempt from the SSRF block (local receivers)',
  ),
  deployPollIntervalMs: integer(
    'DEPLOY_POLL_INTERVAL_MS',
    'Platform',
    10_000,
    'deployment verification poll interval',
    {
      min: 1,
    },
  ),
  deployTimeoutMs: integer(
    'DEPLOY_TIMEOUT_MS',
    'Platform',
    780_000,
    'deployment verification absolute timeout',
    {
      min: 1,
    },
  ),
  deployNotFoundLimit: integer('DEPLOY_NOT_FOUND_LIMIT', 'Platform', 18, 'not-found polls before `TIMEOUT`', {
    min: 1,
  }),
  deployDispatchRetryDelayMs: integer(
    'DEPLOY_DISPATCH_RETRY_DELAY_MS',
    'Platform',
    3000,
    'wait before the second workflow dispatch',
  ),
  deployBatchConcurrency: integer(
    'DEPLOY_BATCH_CONCURRENCY',
    'Platform',
    5,
    'works deployed at once in a batch',
    {
      min: 1,
    },
  ),
  deployBatchDelayMs: integer(
    'DEPLOY_BATCH_DELAY_MS',
    'Platform',
    2000,
    'pause between groups of a batch deploy',
  ),
  websiteTemplateRepository: repository(
    'WEBSITE_TEMPLATE_REPOSITORY',
    'Platform',
    'template repository (`owner/name`) new website repositories are created from',
  ),
  githubApiUrl: url('GITHUB_API_URL', 'Platform', 'https://api.github.com', 'GitHub REST API base URL'),
  githubRetryBaseMs: integer(
    'GITHUB_RETRY_BASE_MS',
    'Platform',
    1000,
    'deploy calls to GitHub: a failed one is retried 3 times after n² × this; a rate-limited one after its retry-after (each second of it this)',
    { min: 1 },
  ),
  vercelApiUrl: url('VERCEL_API_URL', 'Platform', 'https://api.vercel.com', 'Vercel REST API base URL'),
  openaiApiUrl: url(
    'OPENAI_API_URL',
    'Platform',
    'https://api.openai.com/v1',
    'default base URL of the OpenAI-compatible AI provider',
  ),
  aiProviderTimeoutMs: integer(
    'AI_PROVIDER_TIMEOUT_MS',
    'Platform',
    120_000,
    'time limit of one request to an AI provider (a generation asks once, or twice when the first answer is invalid)',
    { min: 1 },
  ),
  aiProviderMaxRetries: integer(
    'AI_PROVIDER_MAX_RETRIES',
    'Platform',
    2,
    'retries of an AI provider request that failed for a transient reason (429, 5xx, connection), with backoff',
    { min: 0, max: 10 },
  ),
  aiProviderAllowedHosts: list(
    'AI_PROVIDER_ALLOWED_HOSTS',
    'Platform',
    'hosts or CIDRs an AI provider `baseUrl` may point at although private (production blocks private addresses; a local instance allows all)',
  ),
  generationMaxItems: integer(
    'GENERATION_MAX_ITEMS',
    'Platform',
    1000,
    'items kept from one generation; a longer answer is cut to this many',
    { min: 1, max: 10_000 },
  ),
  generationConcurrency: integer(
    'GENERATION_CONCURRENCY',
    'Platform',
    5,
    'generations one instance runs at once (each mostly waits for its AI provider)',
    { min: 1, max: 100 },
  ),
  generationStaleMs: integer(
    'GENERATION_STALE_MS',
    'Platform',
    60_000,
    'a generation whose worker showed no sign of life for this long (it crashed) is resumed, or ended as ERROR',
    { min: 1000 },
  ),
  githubToken: optional('GITHUB_TOKEN', 'Platform', 'fallback secret of the `github` plugin', true),
  vercelToken: optional('VERCEL_TOKEN', 'Platform', 'fallback secret of the `vercel` plugin', true),
  openaiApiKey: optional('OPENAI_API_KEY', 'Platform', 'fallback secret of the `openai` plugin', true),
  demoStandIns: standIns(
    'DEMO_STAND_INS',
    'Platform',
    'providers (`openai`, `github`, `vercel`) whose API URL above points at a local stand-in: the banner, `GET /` and the console name them as such. `npm run demo` sets it; refused when `NODE_ENV=production`',
  ),
  analyticsHost: url(
    'ANALYTICS_HOST',
    'Platform',
    'https://us.i.posthog.com',
    'analytics collector (PostHog capture API) for activity rows',
  ),
  analyticsWriteKey: optional(
    'ANALYTICS_WRITE_KEY',
    'Platform',
    'analytics project key; forwarding is off without it',
    true,
  ),

  appUrl: make(
    'APP_URL',
    'Directory',
    "the directory's public origin: redirect checks, cookies, CSRF",
    '`http://localhost:3001` (follows `DIRECTORY_PORT`)',
    (raw) => (present(raw) ? parseUrl('APP_URL', raw, ['http:', 'https:']) : undefined),
  ),
  sessionTtlDays: integer('SESSION_TTL_DAYS', 'Directory', 30, 'lifetime of a directory session cookie', {
    min: 1,
    max: 365,
  }),
  sessionCleanupCron: text(
    'SESSION_CLEANUP_CRON',
    'Directory',
    '15 * * * *',
    'when expired and revoked directory sessions are deleted (cron, UTC)',
  ),
  rateLimitBypassLocalhost: flag(
    'RATE_LIMIT_BYPASS_LOCALHOST',
    'Directory',
    false,
    'let 127.0.0.1 / ::1 skip rate limits',
  ),
  adminEmail: optional(
    'ADMIN_EMAIL',
    'Directory',
    'with `ADMIN_PASSWORD`: start-up makes sure this admin exists',
  ),
  adminPassword: optional(
    'ADMIN_PASSWORD',
    'Directory',
    'password of `ADMIN_EMAIL` (8–128 characters)',
    true,
  ),
  paymentProvider: oneOf(
    'PAYMENT_PROVIDER',
    'Directory',
    ['stripe', 'lemonsqueezy', 'polar'],
    'stripe',
    'payment provider of sponsor-ad checkout',
  ),
  stripeSecretKey: optional('STRIPE_SECRET_KEY', 'Directory', 'Stripe API key', true),
  stripeWebhookSecret: optional('STRIPE_WEBHOOK_SECRET', 'Directory', 'Stripe webhook signing secret', true),
  lemonsqueezyApiKey: optional('LEMONSQUEEZY_API_KEY', 'Directory', 'LemonSqueezy API key', true),
  lemonsqueezyWebhookSecret: optional(
    'LEMONSQUEEZY_WEBHOOK_SECRET',
    'Directory',
    'LemonSqueezy webhook secret',
    true,
  ),
  lemonsqueezyStoreId: optional(
    'LEMONSQUEEZY_STORE_ID',
    'Directory',
    'LemonSqueezy store of the sponsor-ad checkouts',
  ),
  polarAccessToken: optional('POLAR_ACCESS_TOKEN', 'Directory', 'Polar access token', true),
  polarWebhookSecret: optional('POLAR_WEBHOOK_SECRET', 'Directory', 'Polar webhook secret', true),
  solidgateWebhookSecret: optional('SOLIDGATE_WEBHOOK_SECRET', 'Directory', 'Solidgate webhook secret', true),
  stripeApiUrl: url('STRIPE_API_URL', 'Directory', 'https://api.stripe.com', 'Stripe API base URL'),
  lemonsqueezyApiUrl: url(
    'LEMONSQUEEZY_API_URL',
    'Directory',
    'https://api.lemonsqueezy.com',
    'LemonSqueezy API base URL',
  ),
  polarApiUrl: url('POLAR_API_URL', 'Directory', 'https://api.polar.sh', 'Polar API base URL'),
  sponsorWeeklyPrice: integer(
    'SPONSOR_WEEKLY_PRICE',
    'Directory',
    10_000,
    'weekly sponsor-ad price, minor units',
  ),
  sponsorMonthlyPrice: integer(
    'SPONSOR_MONTHLY_PRICE',
    'Directory',
    30_000,
    'monthly sponsor-ad price, minor units',
  ),
  sponsorCurrency: text('SPONSOR_CURRENCY', 'Directory', 'usd', 'currency of the sponsor-ad prices'),
  sponsorExpiryCron: text(
    'SPONSOR_EXPIRY_CRON',
    'Directory',
    '* * * * *',
    'when active sponsor ads past their end date become `expired` (cron, UTC; the public list hides them at once either way)',
  ),
  subscriptionCancelRetrySeconds: integer(
    'SUBSCRIPTION_CANCEL_RETRY_SECONDS',
    'Directory',
    30,
    'first wait before cancelling a provider subscription again after the provider failed; doubles each time, 12 tries',
    { min: 1, max: 3600 },
  ),
  paymentEventsSweepCron: text(
    'PAYMENT_EVENTS_SWEEP_CRON',
    'Directory',
    '* * * * *',
    'when stored payment events whose processing failed are retried, and processed ones older than 24 hours deleted (cron, UTC)',
  ),
  stripeSponsorWeeklyPriceId: optional(
    'STRIPE_SPONSOR_WEEKLY_PRICE_ID',
    'Directory',
    'Stripe price of a weekly ad',
  ),
  stripeSponsorMonthlyPriceId: optional(
    'STRIPE_SPONSOR_MONTHLY_PRICE_ID',
    'Directory',
    'Stripe price of a monthly ad',
  ),
  lemonsqueezySponsorWeeklyVariantId: optional(
    'LEMONSQUEEZY_SPONSOR_WEEKLY_VARIANT_ID',
    'Directory',
    'LemonSqueezy variant of a weekly ad',
  ),
  lemonsqueezySponsorMonthlyVariantId: optional(
    'LEMONSQUEEZY_SPONSOR_MONTHLY_VARIANT_ID',
    'Directory',
    'LemonSqueezy variant of a monthly ad',
  ),
  polarSponsorWeeklyPriceId: optional(
    'POLAR_SPONSOR_WEEKLY_PRICE_ID',
    'Directory',
    'Polar price of a weekly ad',
  ),
  polarSponsorMonthlyPriceId: optional(
    'POLAR_SPONSOR_MONTHLY_PRICE_ID',
    'Directory',
    'Polar price of a monthly ad',
  ),
  geocodingProvider: optionalOneOf(
    'GEOCODING_PROVIDER',
    'Directory',
    ['mapbox', 'google'],
    'geocoding provider (`mapbox` or `google`)',
  ),
  mapboxAccessToken: mapboxToken('MAPBOX_ACCESS_TOKEN', 'Directory', 'Mapbox access token (pk.…)'),
  googleMapsApiKey: optional('GOOGLE_MAPS_API_KEY', 'Directory', 'Google Maps API key', true),
  locationEnabled: flag(
    'LOCATION_ENABLED',
    'Directory',
    true,
    'location features (geocoding, maps) on or off',
  ),
  geocodingTimeoutMs: integer(
    'GEOCODING_TIMEOUT_MS',
    'Directory',
    5000,
    'how long one geocoding provider may take before the other is tried',
    { min: 100, max: 60000 },
  ),
  locationIndexBatchSize: integer(
    'LOCATION_INDEX_BATCH_SIZE',
    'Directory',
    100,
    'items a location index rebuild reads (and geocodes, where they lack coordinates) per step',
    { min: 1, max: 1000 },
  ),
  importBatchSize: integer(
    'IMPORT_BATCH_SIZE',
    'Directory',
    500,
    'rows an import applies per batch, each batch one transaction (a restart resumes after the last whole batch)',
    { min: 1, max: 5000 },
  ),
  importMaxBytes: integer(
    'IMPORT_MAX_BYTES',
    'Directory',
    10 * 1024 * 1024,
    'the largest file an import takes, sent as `content` or fetched from its `url`',
    { min: 1024, max: 100 * 1024 * 1024 },
  ),
  importFetchTimeoutMs: integer(
    'IMPORT_FETCH_TIMEOUT_MS',
    'Directory',
    30_000,
    'how long fetching an import’s `url` may take, the whole download',
    { min: 100, max: 300_000 },
  ),
  importAllowedHosts: list(
    'IMPORT_ALLOWED_HOSTS',
    'Directory',
    'hosts or CIDRs an import `url` may point at although private (production blocks private addresses; a local instance allows all)',
  ),
  mapboxApiUrl: url('MAPBOX_API_URL', 'Directory', 'https://api.mapbox.com', 'Mapbox API base URL'),
  googleMapsApiUrl: url(
    'GOOGLE_MAPS_API_URL',
    'Directory',
    'https://maps.googleapis.com',
    'Google Maps API base URL',
  ),
  twentyApiUrl: url(
    'TWENTY_API_URL',
    'Directory',
    'https://api.twenty.com',
    'Twenty CRM API base URL: the CRM settings’ default, and a host their base URL may always reach',
  ),
  crmTimeoutMs: integer(
    'CRM_TIMEOUT_MS',
    'Directory',
    10_000,
    'time limit of one request to the CRM (a sync step, a connection test)',
    { min: 1 },
  ),
  crmRetryBaseMs: integer(
    'CRM_RETRY_BASE_MS',
    'Directory',
    30_000,
    'first retry delay of a CRM sync that failed for a passing reason (5xx, 429, timeout, no connection); each next one doubles, up to an hour',
    { min: 1 },
  ),
  crmMaxAttempts: integer(
    'CRM_MAX_ATTEMPTS',
    'Directory',
    8,
    'attempts at one CRM sync before it is `failed` (a refusal such as a 401 fails it at once)',
    { min: 1, max: 20 },
  ),
  linkCheckInterval: linkCheckInterval(
    'LINK_CHECK_INTERVAL',
    'Directory',
    'how often every published item’s URL is checked: a run starts when the latest is older than this (`30m`, `12h`, `1d`, `7d`; looked at every 5 minutes), or `off`',
  ),
  linkCheckFailures: integer(
    'LINK_CHECK_FAILURES',
    'Directory',
    3,
    'failed checks in a row that make an item’s link `broken` (the admins are told once, by the run that broke it)',
    { min: 1, max: 100 },
  ),
  linkCheckTimeoutMs: integer(
    'LINK_CHECK_TIMEOUT_MS',
    'Directory',
    10_000,
    'time limit of one request of a link check (each redirect hop, HEAD and GET apart)',
    { min: 100, max: 120_000 },
  ),
  linkCheckHostDelayMs: integer(
    'LINK_CHECK_HOST_DELAY_MS',
    'Directory',
    1000,
    'least time between the starts of two link-check requests to one host (at most 2 at once per host): one host gets at most 1000 / this requests per second',
    { min: 0, max: 600_000 },
  ),
  linkCheckConcurrency: integer(
    'LINK_CHECK_CONCURRENCY',
    'Directory',
    10,
    'link-check requests one instance makes at once, all hosts together',
    { min: 1, max: 200 },
  ),
  linkCheckBatchSize: integer(
    'LINK_CHECK_BATCH_SIZE',
    'Directory',
    100,
    'items a link check run checks per step (its progress is saved after each)',
    { min: 1, max: 1000 },
  ),
  linkCheckAllowedHosts: list(
    'LINK_CHECK_ALLOWED_HOSTS',
    'Directory',
    'hosts or CIDRs an item URL may point at although private, for the link check (production blocks private addresses; a local instance allows all)',
  ),
  directoryEncryptionKey: hexKey(
    'DIRECTORY_ENCRYPTION_KEY',
    'Directory',
    '64 hex chars; encrypts the secrets the directory stores (the CRM API key); required in production to store them',
  ),
  dataRepository: repository(
    'DATA_REPOSITORY',
    'Directory',
    "the directory's Git data repository (`owner/name`)",
  ),
  gitToken: optional('GIT_TOKEN', 'Directory', 'token for the data repository', true),

  smtpUrl: optionalUrl(
    'SMTP_URL',
    'Email',
    'SMTP server of outgoing email, credentials included: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://user:pass@host:465`; without it nothing is emailed',
    ['smtp:', 'smtps:'],
    true,
  ),
  smtpFrom: text(
    'SMTP_FROM',
    'Email',
    'Curio <no-reply@localhost>',
    'sender of outgoing email: `Name <address>` or an address',
  ),
  smtpTimeoutMs: integer(
    'SMTP_TIMEOUT_MS',
    'Email',
    10_000,
    'time limit of each step of an SMTP attempt: connecting, the greeting, each reply',
    { min: 1 },
  ),
  smtpRetryBaseMs: integer(
    'SMTP_RETRY_BASE_MS',
    'Email',
    30_000,
    'first retry delay of an email that failed for a passing reason (a 4xx reply, no connection, a timeout); each next one doubles, up to an hour',
    { min: 1 },
  ),
  smtpMaxAttempts: integer(
    'SMTP_MAX_ATTEMPTS',
    'Email',
    8,
    'attempts at one email before it is `failed` (a 5xx reply fails it at once)',
    { min: 1, max: 20 },
  ),
} satisfies Record<string, Setting<unknown>>

type Definitions = typeof definitions
type Parsed = { readonly [K in keyof Definitions]: ReturnType<Definitions[K]['parse']> }

export type Config = Omit<Parsed, 'appUrl'> & {
  /** APP_URL, or `http://localhost:<DIRECTORY_PORT>`: the origin the banner prints. */
  readonly appUrl: string
  readonly isProduction: boolean
  /** Postgres URL of the service, or undefined for the embedded database. */
  readonly platformDbUrl: string | undefined
  readonly directoryDbUrl: string | undefined
  /**
   * The environment variable a plugin setting names as its `x-envVar` (trimmed; undefined when unset or
   * blank). A variable defined above is validated as it is there; any other is read as text.
   */
  readonly pluginEnv: (name: string) => string | undefined
}

/** Reads and validates every setting; throws ConfigError naming the first wrong one. */
export function loadConfig(env: Env = process.env): Config {
  const parsed: Record<string, unknown> = {}
  for (const [key, setting] of Object.entries(definitions)) parsed[key] = setting.parse(env[setting.env])
  const values = parsed as Parsed
  const isProduction = values.nodeEnv === 'production'

  if (isProduction) {
    if (values.demoStandIns.length > 0) {
      throw new ConfigError(
        'DEMO_STAND_INS',
        'is refused when NODE_ENV=production: stand-ins are for a local demo (npm run demo), never for real users',
      )
    }
    if (!values.jwtSecret) throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production')
    // Without PLATFORM_ENCRYPTION_KEY a production instance starts, but stores no secret (SPEC.md: 400).
  }
  if (values.adminEmail && !values.adminPassword) {
    throw new ConfigError('ADMIN_PASSWORD', 'is required when ADMIN_EMAIL is set')
  }
  if (values.adminPassword && !values.adminEmail) {
    throw new ConfigError('ADMIN_EMAIL', 'is required when ADMIN_PASSWORD is set')
  }
  if (values.adminPassword && (values.adminPassword.length < 8 || values.adminPassword.length > 128)) {
    throw new ConfigError('ADMIN_PASSWORD', 'must be 8 to 128 characters long')
  }
  if (values.adminEmail && !/^[^\s@]+@[^\s@]+$/.test(values.adminEmail)) {
    throw new ConfigError('ADMIN_EMAIL', `must be an email address (got "${values.adminEmail}")`)
  }
  if (values.headersTimeoutMs > values.requestTimeoutMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS', 'must not be larger than REQUEST_TIMEOUT_MS')
  }
  if (values.webhookRetryMaxMs < values.webhookRetryBaseMs) {
    throw new ConfigError('WEBHOOK_RETRY_MAX_MS', 'must not be smaller than WEBHOOK_RETRY_BASE_MS')
  }
  if (!/^([^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(values.smtpFrom)) {
    throw new ConfigError(
      'SMTP_FROM',
      `must be an email address or \`Name <address>\` (got "${values.smtpFrom}")`,
    )
  }
  if (values.sessionCleanupCron.split(/\s+/).length !== 5) {
    throw new ConfigError(
      'SESSION_CLEANUP_CRON',
      `must be a 5-field cron expression (got "${values.sessionCleanupCron}")`,
    )
  }
  const appUrlValue = values.appUrl ?? `http://localhost:${values.directoryPort}`
  const appUrl = new URL(appUrlValue)
  if (appUrl.pathname !== '/' || appUrl.search || appUrl.hash) {
    throw new ConfigError('APP_URL', `must be an origin without a path (got "${appUrlValue}")`)
  }

  const byEnvName = new Map<string, Setting<unknown>>(
    (Object.values(definitions) as Setting<unknown>[]).map((setting) => [setting.env, setting]),
  )
  const environment: Env = { ...env }
  const pluginEnv = (name: string): string | undefined => {
    const raw = environment[name]
    if (!present(raw)) return undefined
    const setting = byEnvName.get(name)
    return setting ? String(setting.parse(raw)) : raw.trim()
  }

  return Object.freeze({
    ...values,
    pluginEnv,
    appUrl: appUrlValue,
    isProduction,
    platformDbUrl: values.platformDatabaseUrl ?? values.databaseUrl,
    directoryDbUrl: values.directoryDatabaseUrl ?? values.databaseUrl,
  })
}

/** A provider a local stand-in replaces (DEMO_STAND_INS), with its name and the stand-in's address. */
export interface StandIn {
  provider: StandInProvider
  name: string
  url: string
}

/** The stand-ins DEMO_STAND_INS names, each at the URL its provider's setting holds. */
export function standInsOf(
  config: Pick<Config, 'demoStandIns' | 'openaiApiUrl' | 'githubApiUrl' | 'vercelApiUrl'>,
): StandIn[] {
  const urls: Record<StandInProvider, string> = {
    openai: config.openaiApiUrl,
    github: config.githubApiUrl,
    vercel: config.vercelApiUrl,
  }
  return config.demoStandIns.map((provider) => ({
    provider,
    name: STAND_IN_PROVIDERS[provider],
    url: urls[provider],
  }))
}

/** docs/configuration.md's table, generated from the definitions above. */
export function configurationTable(): string {
  const rows = ['| Setting | Default | Meaning |', '|---|---|---|']
  let group = ''
  for (const setting of Object.values(definitions) as Setting<unknown>[]) {
    if (setting.group !== group) {
      group = setting.group
      rows.push(`| **${group}** | | |`)
    }
    rows.push(`| \`${setting.env}\` | ${setting.shown} | ${setting.meaning.replaceAll('|', '\\|')} |`)
  }
  return rows.join('\n')
}

/** Names of the settings that hold secrets: never logged. */
export const SECRET_SETTINGS: readonly string[] = (Object.values(definitions) as Setting<unknown>[])
  .filter((setting) => setting.secret)
  .map((setting) => setting.env)
