/**
 * The server side of bench/payment-webhooks.ts, in its own process so autocannon never shares its event
 * loop.
 *
 * Opens Postgres at BENCH_CHILD_DB_URL, migrates the directory, seeds (set-based SQL, one transaction)
 * the sponsors (users, ten ads each), the ads the load moves and a history:
 *   --cohort name:P:A   (once per phase of the load, each on its own ads) P ads `pending_payment` after a
 *                 Stripe checkout (their first payment is coming) and A ads `active` on a Stripe
 *                 subscription, ending 1 to 28 days from now (renewals are coming), with their first payment
 *                 and their subscription recorded
 *   --pool N      DATABASE_POOL_SIZE (Curio's default, 10, when not given)
 *   --history N   closed ads (expired, cancelled, rejected) with their payments and subscriptions, and
 *                 three processed webhook events each received within the last 23 hours (still inside the
 *                 idempotency window), so tables and indexes are not empty
 * one ad in four is weekly; VACUUM ANALYZE; builds the real directory app (LOG_LEVEL=warn,
 * RATE_LIMIT_BYPASS_LOCALHOST=true since one client sends the whole load, STRIPE_WEBHOOK_SECRET from
 * BENCH_STRIPE_WEBHOOK_SECRET; no SMTP, so no payment emails are queued; the job queue is not started, as
 * in the other benches). It watches, for the breakdown of where a request's time goes:
 *   - each webhook's time inside the server (Fastify's `reply.elapsedTime`, routing to answer sent),
 *   - every statement the driver sends (count and wall time by kind: verb and table, `for update`,
 *     begin/commit), patched into `pg.Client.prototype.query`,
 *   - the pool (sampled every 5 ms: connections in use, callers waiting for one),
 *   - the event loop's delay.
 * and adds one bench-only route without authentication:
 *   GET /bench/stats[?reset=1][&samples=1]   those figures since the last reset (then resets them when
 *                                asked), and the first text and parameters seen of each kind of statement
 * then listens on 127.0.0.1 (a free port) and prints one JSON line on stdout: {"port", "seed": {...}}
 *
 *   node bench/payment-webhooks-server.ts --cohort warm-up:P:A [--cohort run:P:A …] --history N [--pool N]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { loadConfig } from '../src/config.ts'
import { createPool, type Databases, serviceDatabase } from '../src/db/index.ts'
import { buildDirectoryApp } from '../src/directory/app.ts'
import { createJobs } from '../src/jobs/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createRateLimiterFor } from '../src/runtime.ts'
import { migrateAll } from '../src/setup.ts'
import { exitOnSignal, listenLocally } from './lib.ts'

/** Ads of one user: the sponsors each hold this many (on different items). */
const ADS_PER_USER = 10
const WEBHOOK_PATH = '/api/stripe/webhook'

/** A phase's seeded ads: ranges of the ad number `n` (ids, slugs and names are built from it). */
export interface Cohort {
  name: string
  pending: [number, number]
  active: [number, number]
}

export interface Timing {
  count: number
  meanMs: number
  p50Ms: number
  p90Ms: number
  p99Ms: number
  maxMs: number
}

export interface ServerStats {
  /** Webhook requests answered since the reset, and their time inside the server. */
  requests: number
  statusCodes: Record<string, number>
  serverTime: Timing
  /** Every statement by kind, most total time first. */
  statements: { kind: string; count: number; totalMs: number; meanMs: number; p99Ms: number }[]
  pool: {
    max: number
    samples: number
    meanInUse: number
    maxInUse: number
    meanWaiting: number
    maxWaiting: number
    /** Share of the samples in which at least one caller waited for a connection. */
    waitingShare: number
  }
  eventLoopDelay: { meanMs: number; p99Ms: number; maxMs: number }
}

export interface ServerReady {
  port: number
  seed: {
    users: number
    cohorts: Cohort[]
    history: [number, number]
    historyEvents: number
    migrateMs: number
    seedMs: number
    vacuumAnalyzeMs: number
    totalMs: number
    poolSize: number
    server: string
    settings: Record<string, string>
  }
}

const { values } = parseArgs({
  options: {
    cohort: { type: 'string', multiple: true },
    history: { type: 'string' },
    pool: { type: 'string' },
  },
  strict: true,
})
const wholeNumber = (name: string, text: string | undefined) => {
  const value = Number(text)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number >= 0`)
  return value
}
const cohortCounts = (values.cohort ?? []).map((spec) => {
  const [name, pending, active] = spec.split(':')
  if (!name) throw new Error('--cohort is name:pending:active')
  return {
    name,
    pending: wholeNumber(`--cohort ${name} pending`, pending),
    active: wholeNumber(`--cohort ${name} active`, active),
  }
})
const historyCount = wholeNumber('--history', values.history)

const url = process.env.BENCH_CHILD_DB_URL
if (!url) throw new Error('BENCH_CHILD_DB_URL is not set')
const secret = process.env.BENCH_STRIPE_WEBHOOK_SECRET
if (!secret) throw new Error('BENCH_STRIPE_WEBHOOK_SECRET is not set')

// Every statement's wall time by kind, from the driver: installed before the pool opens a connection.
const statementTimes = new Map<string, number[]>()
function kindOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim().toLowerCase()
  const verb = /^(select|insert into|update|delete from|begin|commit|rollback|savepoint|release)/.exec(
    flat,
  )?.[1]
  if (!verb) return flat.slice(0, 40)
  if (verb === 'begin' || verb === 'commit' || verb === 'rollback') return verb
  const table =
    verb === 'select'
      ? /\bfrom "?(?:directory"?\.)?"?(\w+)"?/.exec(flat)?.[1]
      : /^(?:insert into|update|delete from) "?(?:directory"?\.)?"?(\w+)"?/.exec(flat)?.[1]
  const extra = [
    / on conflict [^)]*\) do nothing/.test(flat) ? 'on conflict do nothing' : '',
    / on conflict [^)]*\) do update/.test(flat) ? 'on conflict do update' : '',
    / for update skip locked/.test(flat)
      ? 'for update skip locked'
      : / for update/.test(flat)
        ? 'for update'
        : '',
  ].filter(Boolean)
  return [verb, table ?? '?', ...extra].join(' ')
}
const kinds = new Map<string, string>()
/** The first text and parameters seen of each kind: `GET /bench/stats?samples=1` answers them. */
const statementSamples = new Map<string, { text: string; params: unknown[] }>()
function noteStatement(text: string, ms: number, params: unknown) {
  let kind = kinds.get(text)
  if (kind === undefined) {
    kind = kindOf(text)
    kinds.set(text, kind)
  }
  if (!statementSamples.has(kind))
    statementSamples.set(kind, { text, params: Array.isArray(params) ? params : [] })
  let list = statementTimes.get(kind)
  if (!list) {
    list = []
    statementTimes.set(kind, list)
  }
  list.push(ms)
}
{
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }
  const original = proto.query
  proto.query = function (this: unknown, ...args: unknown[]) {
    const [first] = args
    const text = typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? '')
    const params = Array.isArray(args[1]) ? args[1] : (first as { values?: unknown[] } | null)?.values
    const started = performance.now()
    const last = args.at(-1)
    if (typeof last === 'function') {
      args[args.length - 1] = (...cbArgs: unknown[]) => {
        noteStatement(text, performance.now() - started, params)
        return (last as (...a: unknown[]) => unknown)(...cbArgs)
      }
      return original.apply(this, args)
    }
    const result = original.apply(this, args)
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      return (result as Promise<unknown>).then(
        (value) => {
          noteStatement(text, performance.now() - started, params)
          return value
        },
        (error: unknown) => {
          noteStatement(text, performance.now() - started, params)
          throw error
        },
      )
    }
    return result
  }
}

const log = createLogger('warn')
const config = loadConfig({
  DATA_DIR: 'memory',
  LOG_LEVEL: 'warn',
  DIRECTORY_DATABASE_URL: url,
  RATE_LIMIT_BYPASS_LOCALHOST: 'true',
  STRIPE_WEBHOOK_SECRET: secret,
  ...(values.pool ? { DATABASE_POOL_SIZE: values.pool } : {}),
})
const startedAt = performance.now()
const pool = createPool(url, config.databasePoolSize, log)
const database = serviceDatabase('directory', { kind: 'postgres', pool, url })
const db = database.db
const closeDatabase = () => pool.end()

const migrateStarted = performance.now()
const databases = { platform: database, directory: database, close: closeDatabase } as Databases
await migrateAll(databases, ['directory'], log)
const migrateMs = performance.now() - migrateStarted

// Ad numbers: each cohort's pending then active ones, then the history, one after the other.
let next = 1
const range = (size: number): [number, number] => {
  const out: [number, number] = [next, next + size - 1]
  next += size
  return out
}
const cohorts: Cohort[] = cohortCounts.map(({ name, pending, active }) => ({
  name,
  pending: range(pending),
  active: range(active),
}))
const history = range(historyCount)
const adCount = next - 1
const userCount = Math.max(1, Math.ceil(adCount / ADS_PER_USER))
const userUuid = (n: string) => sql.raw(`('00000000-0000-4000-a000-' || lpad(to_hex(${n}), 12, '0'))::uuid`)
const adUuid = (n: string) => sql.raw(`('00000000-0000-4000-d000-' || lpad(to_hex(${n}), 12, '0'))::uuid`)
const anyRange = (ranges: [number, number][]) =>
  sql.raw(`(${['false', ...ranges.map(([from, to]) => `n between ${from} and ${to}`)].join(' or ')})`)
const isPending = anyRange(cohorts.map((cohort) => cohort.pending))
const isActive = anyRange(cohorts.map((cohort) => cohort.active))
const [historyFrom, historyTo] = history

const seedStarted = performance.now()
await db.transaction(async (tx) => {
  await tx.execute(sql`select setseed(0.14)`)
  await tx.execute(sql`
    insert into directory.users (id, username, email, name, provider, status, login_count, created_at, updated_at)
    select ${userUuid('u')}, 'sponsor' || u, 'sponsor' || u || '@example.test', 'Sponsor ' || u,
      'credentials', 'active', 1 + u % 7, now() - interval '400 days' + u * interval '1 minute',
      now() - interval '10 days'
    from generate_series(1, ${userCount}::int) as u`)
  // The ads. Active ones started 1 to 3 periods ago and end 1 to 28 days from now (never in the past
  // while the load runs, so each renewal extends from the end date); history ones ended long ago.
  await tx.execute(sql`
    create temporary table bench_ads on commit drop as
    select n, 1 + (n - 1) / ${ADS_PER_USER} as u,
      case when n % 4 = 0 then 'weekly' else 'monthly' end as "interval",
      case when ${isPending} then 'pending_payment' when ${isActive} then 'active'
        else (array['expired', 'cancelled', 'rejected'])[1 + n % 3] end as status,
      now() - (30 + n % 300) * interval '1 day' as created_at,
      now() + (1 + n % 28) * interval '1 day' + (n % 86400) * interval '1 second' as active_end
    from generate_series(1, ${adCount}::int) as n`)
  await tx.execute(sql`
    insert into directory.sponsor_ads
      (id, user_id, item_slug, item_name, item_icon_url, item_category, item_description, "interval", status,
       title, description, start_date, end_date, rejection_reason, cancel_reason, approved_at, rejected_at,
       cancelled_at, paid_at, unused_periods, payment_provider, checkout_id, subscription_id, customer_id,
       created_at, updated_at)
    select ${adUuid('n')}, ${userUuid('u')}, 'bench-item-' || n, 'Bench Item ' || n,
      'https://cdn.example/icons/' || n || '.png', 'tools', 'A tool the bench sponsors, number ' || n,
      "interval", status, 'Sponsor ad ' || n, 'Sponsored placement of Bench Item ' || n,
      case when status in ('active', 'expired', 'cancelled') then created_at + interval '1 day' end,
      case when status = 'active' then active_end
        when status in ('expired', 'cancelled') then created_at + interval '31 days' end,
      case when status = 'rejected' then 'Does not fit the directory' end,
      case when status = 'cancelled' then 'The subscription was cancelled at Stripe' end,
      case when status in ('active', 'expired', 'cancelled') then created_at + interval '1 day' end,
      case when status = 'rejected' then created_at + interval '1 day' end,
      case when status = 'cancelled' then created_at + interval '20 days' end,
      case when status <> 'pending_payment' then created_at + interval '1 hour' end,
      0, 'stripe', 'cs_bench_' || n,
      case when status <> 'pending_payment' then 'sub_bench_' || n end,
      'cus_bench_' || u, created_at, created_at + interval '1 day'
    from bench_ads`)
  // Their first payments and subscriptions (the pending ones have paid nothing yet).
  await tx.execute(sql`
    insert into directory.sponsor_ad_payments
      (provider, reference, kind, event_id, event_type, sponsor_ad_id, user_id, amount, currency,
       subscription_id, customer_id, effect, created_at)
    select 'stripe', 'initial:sub_bench_' || n, 'initial', 'evt_seed_cs_' || n, 'checkout.session.completed',
      ${adUuid('n')}, ${userUuid('u')}, case when "interval" = 'weekly' then 9000 else 30000 end, 'usd',
      'sub_bench_' || n, 'cus_bench_' || u, 'submitted', created_at + interval '1 hour'
    from bench_ads where status <> 'pending_payment'`)
  await tx.execute(sql`
    insert into directory.payment_subscriptions
      (provider, subscription_id, user_id, sponsor_ad_id, plan_id, status, start_date, end_date, price_id,
       customer_id, currency, amount, "interval", interval_count, cancelled_at, cancel_at_period_end, metadata,
       created_at, updated_at)
    select 'stripe', 'sub_bench_' || n, ${userUuid('u')}, ${adUuid('n')}, 'sponsor_ad_' || "interval",
      case when status in ('active', 'rejected') then 'active' else 'canceled' end,
      created_at + interval '1 hour', case when status = 'active' then active_end else created_at + interval '31 days' end,
      'price_bench_' || "interval", 'cus_bench_' || u, 'usd',
      case when "interval" = 'weekly' then 9000 else 30000 end,
      case when "interval" = 'weekly' then 'week' else 'month' end, 1,
      case when status = 'cancelled' then created_at + interval '20 days' end, false,
      jsonb_build_object('type', 'sponsor_ad', 'sponsorAdId', ${adUuid('n')}::text, 'itemSlug', 'bench-item-' || n),
      created_at + interval '1 hour', created_at + interval '1 day'
    from bench_ads where status <> 'pending_payment'`)
  // The history's webhook events: three processed events per closed ad, received over the last 23 hours.
  if (historyTo >= historyFrom) {
    await tx.execute(sql`
      insert into directory.payment_webhook_events
        (provider, event_id, type, provider_type, raw_body, status, attempts, outcome, received_at,
         processed_at, next_attempt_at)
      select 'stripe', 'evt_hist_' || n || '_' || k, t.type, t.provider_type,
        convert_to(json_build_object('id', 'evt_hist_' || n || '_' || k, 'object', 'event', 'type',
          t.provider_type, 'data', json_build_object('object', json_build_object('id', 'obj_' || md5(n || '.' || k),
          'customer', 'cus_bench_' || n, 'subscription', 'sub_bench_' || n, 'note',
          md5(n::text) || md5(k::text) || md5((n * k)::text) || md5((n + k)::text))))::text, 'UTF8'),
        'processed', 1, 'payment initial:sub_bench_' || n || ' was recorded before; nothing applied again',
        received, received + interval '20 milliseconds', null
      from generate_series(${historyFrom}::int, ${historyTo}::int) as n
      cross join (values (1, 'payment_succeeded', 'checkout.session.completed'),
                         (2, 'subscription_created', 'customer.subscription.created'),
                         (3, 'subscription_payment_succeeded', 'invoice.paid')) as t(k, type, provider_type)
      cross join lateral (select now() - random() * interval '23 hours' as received) as r`)
  }
})
const seedMs = performance.now() - seedStarted

const vacuumStarted = performance.now()
for (const table of [
  'users',
  'sponsor_ads',
  'sponsor_ad_payments',
  'payment_subscriptions',
  'payment_webhook_events',
]) {
  await db.execute(sql.raw(`vacuum (analyze) directory.${table}`))
}
const vacuumAnalyzeMs = performance.now() - vacuumStarted

const jobs = createJobs({ database, log })
const rateLimiter = await createRateLimiterFor(config, systemClock, log)
const { app } = await buildDirectoryApp({ config, database, clock: systemClock, log, jobs, rateLimiter })

// What the route costs inside the server: from routing to the answer sent.
let serverTimes: number[] = []
const statusCodes = new Map<number, number>()
app.addHook('onResponse', async (req, reply) => {
  if (req.method !== 'POST' || req.url !== WEBHOOK_PATH) return
  serverTimes.push(reply.elapsedTime)
  statusCodes.set(reply.statusCode, (statusCodes.get(reply.statusCode) ?? 0) + 1)
})

// The pool, sampled: connections in use and callers waiting for one.
let poolSamples = { count: 0, inUse: 0, maxInUse: 0, waiting: 0, maxWaiting: 0, anyWaiting: 0 }
const resetPoolSamples = () => {
  poolSamples = { count: 0, inUse: 0, maxInUse: 0, waiting: 0, maxWaiting: 0, anyWaiting: 0 }
}
setInterval(() => {
  const inUse = pool.totalCount - pool.idleCount
  poolSamples.count++
  poolSamples.inUse += inUse
  poolSamples.maxInUse = Math.max(poolSamples.maxInUse, inUse)
  poolSamples.waiting += pool.waitingCount
  poolSamples.maxWaiting = Math.max(poolSamples.maxWaiting, pool.waitingCount)
  if (pool.waitingCount > 0) poolSamples.anyWaiting++
}, 5).unref()

const LOOP_RESOLUTION_MS = 5
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS })
loopDelay.enable()

const round2 = (value: number) => Math.round(value * 100) / 100
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}
function timing(values: number[]): Timing {
  const sorted = [...values].sort((a, b) => a - b)
  const sum = sorted.reduce((total, value) => total + value, 0)
  return {
    count: sorted.length,
    meanMs: round2(sorted.length ? sum / sorted.length : Number.NaN),
    p50Ms: round2(percentile(sorted, 50)),
    p90Ms: round2(percentile(sorted, 90)),
    p99Ms: round2(percentile(sorted, 99)),
    maxMs: round2(sorted.at(-1) ?? Number.NaN),
  }
}

app.get('/bench/stats', { config: { access: 'public' }, schema: { hide: true } }, async (req) => {
  const reset = (req.query as Record<string, string>).reset === '1'
  const statements = [...statementTimes.entries()]
    .map(([kind, times]) => {
      const t = timing(times)
      return { kind, count: t.count, totalMs: round2(t.meanMs * t.count), meanMs: t.meanMs, p99Ms: t.p99Ms }
    })
    .sort((a, b) => b.totalMs - a.totalMs)
  const samples = Math.max(1, poolSamples.count)
  const stats: ServerStats = {
    requests: serverTimes.length,
    statusCodes: Object.fromEntries([...statusCodes].map(([code, count]) => [String(code), count])),
    serverTime: timing(serverTimes),
    statements,
    pool: {
      max: config.databasePoolSize,
      samples: poolSamples.count,
      meanInUse: round2(poolSamples.inUse / samples),
      maxInUse: poolSamples.maxInUse,
      meanWaiting: round2(poolSamples.waiting / samples),
      maxWaiting: poolSamples.maxWaiting,
      waitingShare: round2(poolSamples.anyWaiting / samples),
    },
    // The histogram holds whole intervals between the 5 ms timer's runs: the delay is what exceeds 5 ms.
    eventLoopDelay: {
      meanMs: round2(Math.max(0, loopDelay.mean / 1e6 - LOOP_RESOLUTION_MS)),
      p99Ms: round2(Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_RESOLUTION_MS)),
      maxMs: round2(Math.max(0, loopDelay.max / 1e6 - LOOP_RESOLUTION_MS)),
    },
  }
  if ((req.query as Record<string, string>).samples === '1') {
    ;(stats as ServerStats & { samples?: unknown }).samples = Object.fromEntries(statementSamples)
  }
  if (reset) {
    serverTimes = []
    statusCodes.clear()
    statementTimes.clear()
    resetPoolSamples()
    loopDelay.reset()
  }
  return stats
})

const port = await listenLocally(app)

const settingRows = (await db.execute(
  sql`select name, setting from pg_settings where name in ('synchronous_commit', 'fsync', 'shared_buffers',
        'wal_sync_method', 'commit_delay', 'max_connections', 'server_version')`,
)) as unknown as { rows: { name: string; setting: string }[] }
const settings = Object.fromEntries(settingRows.rows.map((row) => [row.name, row.setting]))
// Statements of the seeding and start-up are not the load's.
statementTimes.clear()
statementSamples.clear()

const ready: ServerReady = {
  port,
  seed: {
    users: userCount,
    cohorts,
    history,
    historyEvents: Math.max(0, historyTo - historyFrom + 1) * 3,
    migrateMs: Math.round(migrateMs),
    seedMs: Math.round(seedMs),
    vacuumAnalyzeMs: Math.round(vacuumAnalyzeMs),
    totalMs: Math.round(performance.now() - startedAt),
    poolSize: config.databasePoolSize,
    server: settings.server_version ?? 'unknown',
    settings,
  },
}
process.stdout.write(`${JSON.stringify(ready)}\n`)

exitOnSignal(
  () => app.close(),
  () => rateLimiter.close(),
  () => closeDatabase(),
)
