/**
 * The server side of bench/admin-clients.ts, in its own process so autocannon never shares its event loop.
 *
 * Opens Postgres at BENCH_CHILD_DB_URL, migrates the directory, seeds N users with their client profiles
 * (set-based SQL), VACUUM ANALYZE, builds the real directory app, makes sure an admin exists and signs in
 * through POST /api/auth/signin, adds one bench-only route without authentication:
 *   GET /bench/explain?kind=list|advanced|stats&...   EXPLAIN (ANALYZE, BUFFERS) of the statements one
 *                                                     call of the client service sends
 * then listens on 127.0.0.1 (a free port) and prints one JSON line on stdout:
 *   {"port", "cookie", "seed": {...}}
 *
 *   node bench/admin-clients-server.ts --clients N
 */
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { loadConfig } from '../src/config.ts'
import { createPool, type Databases, serviceDatabase } from '../src/db/index.ts'
import { createAccountService } from '../src/directory/accounts/service.ts'
import { ensureAdmin } from '../src/directory/admin/bootstrap.ts'
import { buildDirectoryApp } from '../src/directory/app.ts'
import { clientsModule } from '../src/directory/clients/module.ts'
import { createJobs } from '../src/jobs/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createRateLimiterFor } from '../src/runtime.ts'
import { migrateAll } from '../src/setup.ts'
import { type ServerReady, seedClients } from './admin-clients-data.ts'
import { directorySession, exitOnSignal, listenLocally } from './lib.ts'

const ADMIN_EMAIL = 'bench-admin@example.test'
const ADMIN_PASSWORD = 'bench-admin-password-not-secret'

const { values } = parseArgs({ options: { clients: { type: 'string' } }, strict: true })
const clientCount = Number(values.clients)
if (!Number.isInteger(clientCount) || clientCount < 1)
  throw new Error('--clients must be a whole number >= 1')

const url = process.env.BENCH_CHILD_DB_URL
if (!url) throw new Error('BENCH_CHILD_DB_URL is not set')
const log = createLogger('warn')
const config = loadConfig({ DATA_DIR: 'memory', LOG_LEVEL: 'warn', DIRECTORY_DATABASE_URL: url })
const startedAt = performance.now()
const pool = createPool(url, config.databasePoolSize, log)
const database = serviceDatabase('directory', { kind: 'postgres', pool, url })
const db = database.db
const closeDatabase = () => pool.end()

// The statements a service call sends, for /bench/explain: the driver's query function is wrapped and
// records while `capture` is set (the parent asks for plans only when no load runs).
interface Statement {
  text: string
  params: unknown[]
}
let capture: Statement[] | undefined
{
  const target = pool as unknown as { query: (...args: unknown[]) => unknown }
  const original = target.query.bind(pool)
  target.query = (...args: unknown[]) => {
    const [first, params] = args
    if (capture) {
      const text = typeof first === 'string' ? first : (first as { text: string }).text
      const bound = Array.isArray(params) ? params : ((first as { values?: unknown[] }).values ?? [])
      // Only the client service's statements (a session check of a late request may slip in otherwise).
      if (text.includes('"client_profiles"')) capture.push({ text, params: bound })
    }
    return original(...args)
  }
}

const migrateStarted = performance.now()
const databases = { platform: database, directory: database, close: closeDatabase } as Databases
await migrateAll(databases, ['directory'], log)
const migrateMs = performance.now() - migrateStarted

const seedStarted = performance.now()
await db.transaction(async (tx) => {
  await tx.execute(sql`select setseed(0.42)`)
  await seedClients(tx, clientCount)
})
const seedMs = performance.now() - seedStarted

// A settled table, as a live one is after autovacuum: visibility map set, statistics fresh.
const vacuumStarted = performance.now()
await db.execute(sql`vacuum (analyze) directory.users`)
await db.execute(sql`vacuum (analyze) directory.client_profiles`)
const vacuumAnalyzeMs = performance.now() - vacuumStarted

const jobs = createJobs({ database, log })
const rateLimiter = await createRateLimiterFor(config, systemClock, log)
const { app } = await buildDirectoryApp({
  config,
  database,
  clock: systemClock,
  log,
  jobs,
  rateLimiter,
})
await ensureAdmin({ db, clock: systemClock }, ADMIN_EMAIL, ADMIN_PASSWORD)

// The same service the routes use, for the plans of its statements.
const { clients } = clientsModule({
  db,
  clock: systemClock,
  log,
  accounts: createAccountService({ db, clock: systemClock }),
})

async function explain(statement: Statement): Promise<string> {
  const result = await pool.query<{ 'QUERY PLAN': string }>(
    `explain (analyze, buffers) ${statement.text}`,
    statement.params,
  )
  return result.rows.map((row) => row['QUERY PLAN']).join('\n')
}

app.get('/bench/explain', { config: { access: 'public' }, schema: { hide: true } }, async (req) => {
  const query = req.query as Record<string, string>
  const kind = query.kind
  const statements: Statement[] = []
  capture = statements
  try {
    if (kind === 'list') {
      await clients.list({ page: 1, limit: 10, search: query.search ?? 'ann' })
    } else if (kind === 'advanced') {
      await clients.advancedSearch({
        page: 1,
        limit: 10,
        status: 'active',
        plan: 'premium',
        accountType: 'business',
        industrySearch: query.industrySearch ?? 'tech',
        sortBy: 'createdAt',
        sortOrder: 'desc',
      })
    } else if (kind === 'stats') {
      await clients.stats()
    } else {
      throw new Error('kind must be list, advanced or stats')
    }
  } finally {
    capture = undefined
  }
  const plans: { sql: string; params: unknown[]; plan: string }[] = []
  for (const statement of statements) {
    plans.push({ sql: statement.text, params: statement.params, plan: await explain(statement) })
  }
  return { plans }
})

const port = await listenLocally(app)

const session = await directorySession(port, '/api/auth/signin', {
  email: ADMIN_EMAIL,
  password: ADMIN_PASSWORD,
})

/** The rows of a raw statement. */
async function rowsOf<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] }
  return result.rows
}
const [size] = await rowsOf<{ bytes: string }>(
  sql`select pg_total_relation_size('directory.client_profiles')::text as bytes`,
)
const [version] = await rowsOf<{ version: string }>(sql`select current_setting('server_version') as version`)

const ready: ServerReady = {
  port,
  cookie: session,
  seed: {
    clients: clientCount,
    migrateMs: Math.round(migrateMs),
    seedMs: Math.round(seedMs),
    vacuumAnalyzeMs: Math.round(vacuumAnalyzeMs),
    totalMs: Math.round(performance.now() - startedAt),
    tableMb: size ? Math.round((Number(size.bytes) / 1024 / 1024) * 10) / 10 : null,
    poolSize: config.databasePoolSize,
    server: version?.version ?? 'unknown',
  },
}
process.stdout.write(`${JSON.stringify(ready)}\n`)

exitOnSignal(
  () => app.close(),
  () => rateLimiter.close(),
  () => closeDatabase(),
)
