/**
 * The server side of bench/activity-log.ts, in its own process so autocannon never shares its event loop.
 *
 * Opens the database (Postgres at BENCH_CHILD_DB_URL, or PGlite in memory), migrates the platform, seeds it
 * with set-based SQL, VACUUM ANALYZE, issues API keys through the real service, builds the real platform
 * app and adds two bench-only routes without authentication:
 *   GET /bench/activity-log   the list route's schemas and work, for the user named in `x-bench-user`
 *   GET /bench/explain        EXPLAIN (ANALYZE, BUFFERS) of the statements one list/export call runs
 * then listens on 127.0.0.1 (a free port) and prints one JSON line on stdout:
 *   {"port", "keys": [{userId, key}], "heavyUserId", "heavyKey", "seed": {...}}
 *
 *   node bench/activity-log-server.ts --db postgres|embedded --rows N --users N [--heavy-rows N] [--keys N]
 */
import { parseArgs } from 'node:util'
import type { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import type pg from 'pg'
import { Type } from 'typebox'
import { loadConfig } from '../src/config.ts'
import { createPool, type DatabaseSource, type Databases, serviceDatabase } from '../src/db/index.ts'
import { openPglite } from '../src/db/pglite.ts'
import { createJobs } from '../src/jobs/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import { badRequest } from '../src/lib/errors.ts'
import { createLogger } from '../src/lib/logger.ts'
import { ActivityList, ExportQuery, ListQuery } from '../src/platform/activity-log/schemas.ts'
import { buildPlatformApp } from '../src/platform/app.ts'
import { createRateLimiterFor } from '../src/runtime.ts'
import { migrateAll } from '../src/setup.ts'
import { BENCH_ACTION_TYPES, BENCH_WORDS, type ServerReady } from './activity-log-data.ts'
import { exitOnSignal, listenLocally } from './lib.ts'

/** Not a real hash of anything: nobody logs in during the benchmark. */
const DUMMY_PASSWORD_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$YmVuY2gtc2FsdC1ub3QtcmVhbA$YmVuY2gtZHVtbXktaGFzaC1ub3QtYS1wYXNzd29yZA'

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    rows: { type: 'string' },
    users: { type: 'string' },
    'heavy-rows': { type: 'string' },
    keys: { type: 'string' },
  },
  strict: true,
})
const backend = values.db
if (backend !== 'postgres' && backend !== 'embedded') throw new Error('--db must be postgres or embedded')
const totalRows = Number(values.rows)
const userCount = Number(values.users)
const heavyRows = Number(values['heavy-rows'] ?? 12_000)
const keyCount = Number(values.keys ?? 100)
if (!Number.isInteger(userCount) || userCount < 2) throw new Error('--users must be a whole number >= 2')
if (!Number.isInteger(heavyRows) || heavyRows < 1) throw new Error('--heavy-rows must be a whole number >= 1')
if (!Number.isInteger(totalRows) || totalRows <= heavyRows) {
  throw new Error(`--rows must be a whole number > --heavy-rows (${heavyRows})`)
}
if (!Number.isInteger(keyCount) || keyCount < 1 || keyCount >= userCount) {
  throw new Error('--keys must be a whole number between 1 and --users - 1')
}

const log = createLogger('warn')
const config = loadConfig({ DATA_DIR: 'memory', LOG_LEVEL: 'warn' })
const startedAt = performance.now()

let pool: pg.Pool | undefined
let pglite: PGlite | undefined
let source: DatabaseSource
if (backend === 'postgres') {
  const url = process.env.BENCH_CHILD_DB_URL
  if (!url) throw new Error('BENCH_CHILD_DB_URL is not set')
  pool = createPool(url, config.databasePoolSize, log)
  source = { kind: 'postgres', pool, url }
} else {
  pglite = await openPglite(undefined)
  source = { kind: 'pglite', pglite }
}
const database = serviceDatabase('platform', source)
const db = database.db

async function closeDatabase() {
  await pool?.end()
  if (pglite && !pglite.closed) await pglite.close()
}

// The statements a call sends, for /bench/explain: the driver's query function is wrapped, and only
// records while `capture` is set, statements that carry the user's id (requests of a load run that
// are still queued may run meanwhile, for other users).
interface Statement {
  text: string
  params: unknown[]
}
let capture: { userId: string; statements: Statement[] } | undefined
if (pool) {
  const target = pool as unknown as { query: (...args: unknown[]) => unknown }
  const original = target.query.bind(pool)
  target.query = (...args: unknown[]) => {
    const [first, params] = args
    if (capture && Array.isArray(params) && params.includes(capture.userId)) {
      const text = typeof first === 'string' ? first : (first as { text: string }).text
      capture.statements.push({ text, params })
    }
    return original(...args)
  }
} else if (pglite) {
  const target = pglite as unknown as { query: (...args: unknown[]) => unknown }
  const original = target.query.bind(pglite)
  target.query = (...args: unknown[]) => {
    const [text, params] = args
    if (capture && Array.isArray(params) && params.includes(capture.userId)) {
      capture.statements.push({ text: String(text), params })
    }
    return original(...args)
  }
}

async function explain(statement: Statement): Promise<string> {
  const text = `explain (analyze, buffers) ${statement.text}`
  if (pool) {
    const result = await pool.query<{ 'QUERY PLAN': string }>(text, statement.params)
    return result.rows.map((row) => row['QUERY PLAN']).join('\n')
  }
  const result = await pglite!.query<{ 'QUERY PLAN': string }>(text, statement.params)
  return result.rows.map((row) => row['QUERY PLAN']).join('\n')
}

// Migrations and the job queue's schema, as `curio migrate` does (only the platform is opened).
const migrateStarted = performance.now()
const databases = { platform: database, directory: database, close: closeDatabase } as Databases
await migrateAll(databases, ['platform'], log)
const migrateMs = performance.now() - migrateStarted

// Deterministic ids: user n is ...-8000-<n>, work k of user n is ...-9000-<4n + k>.
const userUuid = (n: string) => sql.raw(`('00000000-0000-4000-8000-' || lpad(to_hex(${n}), 12, '0'))::uuid`)
const workUuid = (n: string, k: string) =>
  sql.raw(`('00000000-0000-4000-9000-' || lpad(to_hex(${n} * 4 + ${k}), 12, '0'))::uuid`)
const words = sql.raw(`array[${BENCH_WORDS.map((word) => `'${word}'`).join(', ')}]`)
const types = sql.raw(`array[${BENCH_ACTION_TYPES.map((type) => `'${type}'`).join(', ')}]`)
const workName = (n: string, k: string) =>
  sql`initcap((${words})[1 + (${sql.raw(`${n} * 3 + ${k}`)}) % 16]) || ' directory ' || ${sql.raw(n)}`
const idOfUser = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

const usersStarted = performance.now()
await db.execute(sql`
  insert into platform.users (id, email, name, password_hash, created_at, updated_at)
  select ${userUuid('n')}, 'bench-' || n || '@example.test', 'Bench user ' || n, ${DUMMY_PASSWORD_HASH},
    now() - interval '400 days', now() - interval '400 days'
  from generate_series(1, ${userCount}::int) as n`)
await db.execute(sql`
  insert into platform.works (id, owner_id, slug, name, description, created_at, updated_at)
  select ${workUuid('n', 'k')}, ${userUuid('n')}, 'work-' || k, ${workName('n', 'k')}, 'Seeded by the benchmark',
    now() - interval '380 days', now() - interval '380 days'
  from generate_series(1, ${userCount}::int) as n, generate_series(0, 2) as k`)
const usersAndWorksMs = performance.now() - usersStarted

// The heavy user is the last one; the other rows go round the other users. Rows are inserted in time order,
// as a live table grows, so one user's rows are spread over the whole heap.
const activityStarted = performance.now()
await db.transaction(async (tx) => {
  await tx.execute(sql`select setseed(0.42)`)
  await tx.execute(sql`
    insert into platform.activity_log
      (user_id, work_id, action_type, action, status, summary, details, ip_address, user_agent, created_at, updated_at)
    select ${userUuid('u')},
      case when t = 'user_login' then null else ${workUuid('u', 'k')} end,
      t, replace(t, '_', '.'),
      case when r_status < 0.85 then 'completed' when r_status < 0.95 then 'failed'
        when r_status < 0.98 then 'in_progress' else 'cancelled' end,
      initcap(replace(t, '_', ' ')) || ': ' || (1 + floor(r_word * 40))::int || ' ' ||
        (${words})[1 + floor(r_word * 16)::int] || ' entries in "' || ${workName('u', 'k')} || '"',
      jsonb_build_object('source', 'bench', 'count', (1 + floor(r_word * 40))::int),
      '203.0.113.' || (i % 250), 'curio-bench/1.0',
      at, at + interval '2 seconds'
    from (
      select i, u, t, k, r_status, r_word, now() - r_age * interval '365 days' as at
      from (
        select i,
          case when i < ${heavyRows}::int then ${userCount}::int
            else 1 + (i - ${heavyRows}::int) % (${userCount}::int - 1) end as u,
          (${types})[1 + floor(random() * 8)::int] as t,
          floor(random() * 3)::int as k,
          random() as r_status, random() as r_word, random() as r_age
        from generate_series(0, ${totalRows}::int - 1) as i
      ) as drawn
    ) as timed
    order by at`)
})
const activityMs = performance.now() - activityStarted

// A settled table, as a live one is after autovacuum: visibility map set, statistics fresh. Done here so
// autovacuum does not start in the middle of a measurement.
const vacuumStarted = performance.now()
await db.execute(sql`vacuum (analyze) platform.users`)
await db.execute(sql`vacuum (analyze) platform.works`)
await db.execute(sql`vacuum (analyze) platform.activity_log`)
const vacuumAnalyzeMs = performance.now() - vacuumStarted

const jobs = createJobs({ database, log })
const rateLimiter = await createRateLimiterFor(config, systemClock, log)
const { app, services } = await buildPlatformApp({
  config,
  database,
  clock: systemClock,
  log,
  jobs,
  rateLimiter,
})

const keysStarted = performance.now()
const keys: ServerReady['keys'] = []
for (let n = 1; n <= keyCount; n++) {
  const userId = idOfUser(n)
  const created = await services.apiKeys.create(userId, { name: 'bench' })
  keys.push({ userId, key: created.key })
}
const heavyUserId = idOfUser(userCount)
const heavyKey = (await services.apiKeys.create(heavyUserId, { name: 'bench heavy' })).key
const apiKeysMs = performance.now() - keysStarted

await db.execute(sql`analyze platform.api_keys`)

/** The rows of a raw statement, whichever driver answers. */
async function rowsOf<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] }
  return result.rows
}
const [size] = await rowsOf<{ bytes: string }>(
  sql`select pg_total_relation_size('platform.activity_log')::text as bytes`,
)
const [version] = await rowsOf<{ version: string }>(sql`select version() as version`)

function benchUser(header: string | string[] | undefined): string {
  const userId = Array.isArray(header) ? header[0] : header
  if (!userId) throw badRequest('x-bench-user header required')
  return userId
}

app.get(
  '/bench/activity-log',
  // Bench only: the user comes from a header, as the API key's owner would.
  {
    config: { access: 'public' },
    schema: { hide: true, querystring: ListQuery, response: { 200: ActivityList } },
  },
  async (req) => {
    const userId = benchUser(req.headers['x-bench-user'])
    await services.reconciler.run(userId)
    return services.activityLog.list(userId, req.query)
  },
)

app.get(
  '/bench/explain',
  {
    config: { access: 'public' },
    schema: {
      hide: true,
      querystring: Type.Object({
        ...ExportQuery.properties,
        kind: Type.Union([Type.Literal('list'), Type.Literal('export')]),
        limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
        offset: Type.Integer({ minimum: 0, default: 0 }),
      }),
    },
  },
  async (req) => {
    const userId = benchUser(req.headers['x-bench-user'])
    const { kind, ...filters } = req.query
    const statements: Statement[] = []
    capture = { userId, statements }
    try {
      if (kind === 'list') {
        await services.activityLog.list(userId, filters)
      } else {
        // The first batch of the export (read before it resolves) is enough: the others are the same
        // statement with a cursor.
        await services.activityLog.exportCsv(userId, filters)
      }
    } finally {
      capture = undefined
    }
    const plans: { sql: string; params: unknown[]; plan: string }[] = []
    for (const statement of statements) {
      plans.push({ sql: statement.text, params: statement.params, plan: await explain(statement) })
    }
    return { plans }
  },
)

const port = await listenLocally(app)

const ready: ServerReady = {
  port,
  keys,
  heavyUserId,
  heavyKey,
  seed: {
    users: userCount,
    works: userCount * 3,
    rows: totalRows,
    heavyRows,
    migrateMs: Math.round(migrateMs),
    usersAndWorksMs: Math.round(usersAndWorksMs),
    activityMs: Math.round(activityMs),
    vacuumAnalyzeMs: Math.round(vacuumAnalyzeMs),
    apiKeysMs: Math.round(apiKeysMs),
    totalMs: Math.round(performance.now() - startedAt),
    tableMb: size ? Math.round((Number(size.bytes) / 1024 / 1024) * 10) / 10 : null,
    poolSize: pool ? config.databasePoolSize : null,
    server: version?.version ?? 'unknown',
  },
}
process.stdout.write(`${JSON.stringify(ready)}\n`)

exitOnSignal(
  () => app.close(),
  () => closeDatabase(),
)
