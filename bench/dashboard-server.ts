/**
 * The server side of bench/dashboard.ts, in its own process so autocannon never shares its event loop.
 *
 * Opens Postgres at BENCH_CHILD_DB_URL, migrates the directory, seeds (set-based SQL, one transaction)
 * N users with their client profiles (created over two years), N items (85 % published), N comments
 * (authors among the users, items among the items, 3 % pending) and a few hundred admin notifications
 * (some unread), VACUUM ANALYZE, builds the real directory app (LOG_LEVEL=warn,
 * RATE_LIMIT_BYPASS_LOCALHOST=true so the comment writer is not throttled), makes sure an admin exists
 * and signs in through POST /api/auth/signin, registers a member through POST /api/auth/register (the
 * comment writer), adds two bench-only routes without authentication:
 *   GET /bench/cold?runs=N   each figure of the dashboard counted N times one after the other by the
 *                            service calls the dashboard makes on a miss (items by status, comments by
 *                            status, unread notices, the clients' statistics), then every figure at once
 *                            (a whole miss), with EXPLAIN (ANALYZE, BUFFERS) of each figure's statements
 *   GET /bench/recounts      how many times each figure has been counted since the cold route (runs of
 *                            its first statement): every one during the load is a miss of the cache
 * then listens on 127.0.0.1 (a free port) and prints one JSON line on stdout:
 *   {"port", "cookie", "memberCookie", "origin", "publishedItemIds", "seed": {...}}
 *
 *   node bench/dashboard-server.ts --items N --clients N --comments N --notices N --unread N
 */
import { parseArgs } from 'node:util'
import { isNull, sql } from 'drizzle-orm'
import { loadConfig } from '../src/config.ts'
import { createPool, type Databases, serviceDatabase } from '../src/db/index.ts'
import { countRows } from '../src/db/queries.ts'
import { ensureAdmin } from '../src/directory/admin/bootstrap.ts'
import { buildDirectoryApp } from '../src/directory/app.ts'
import { computeClientStats } from '../src/directory/clients/stats.ts'
import { itemCollections } from '../src/directory/collections/memberships.ts'
import { createCommentService } from '../src/directory/comments/service.ts'
import { createDashboardCache, createDashboardService } from '../src/directory/dashboard/service.ts'
import { createItemCountCache, createItemService } from '../src/directory/items/service.ts'
import { itemLinkChecks } from '../src/directory/links/item-links.ts'
import { ADMIN_NOTICE_TYPES } from '../src/directory/notifications/schemas.ts'
import { adminNotifications } from '../src/directory/notifications/tables.ts'
import { createJobs } from '../src/jobs/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createRateLimiterFor } from '../src/runtime.ts'
import { migrateAll } from '../src/setup.ts'
import { seedClients } from './admin-clients-data.ts'
import { ADJECTIVES, AUDIENCES, BRAND_MIDDLES, BRAND_STARTS, KINDS, NOUNS } from './content-data.ts'
import { directorySession, exitOnSignal, listenLocally } from './lib.ts'

/** The figures of the dashboard, each counted by its own statements on a miss. */
export const FIGURES = ['items', 'comments', 'unread', 'clients'] as const
export type Figure = (typeof FIGURES)[number]

export interface ColdFigure {
  figure: Figure | 'all (one whole miss)'
  /** Wall time of each call, in order (the first may read pages from disk). */
  runsMs: number[]
  medianMs: number
  minMs: number
  maxMs: number
  /** EXPLAIN (ANALYZE, BUFFERS) of each statement of one call. */
  statements: { sql: string; params: unknown[]; executionMs: number | null; plan: string }[]
}

export interface ServerReady {
  port: number
  /** `curio_session=...` of the seeded admin. */
  cookie: string
  /** `curio_session=...` of a member registered through the API: the comment writer. */
  memberCookie: string
  /** An origin the CSRF guard takes for writes carrying a session cookie. */
  origin: string
  /** Published items to comment on. */
  publishedItemIds: string[]
  seed: {
    items: number
    itemStatuses: Record<string, number>
    clients: number
    comments: number
    commentStatuses: Record<string, number>
    notices: number
    unread: number
    clientsNewThisWeek: number
    migrateMs: number
    seedClientsMs: number
    seedItemsMs: number
    seedCommentsMs: number
    seedNoticesMs: number
    vacuumAnalyzeMs: number
    totalMs: number
    tablesMb: Record<string, number | null>
    poolSize: number
    server: string
  }
}

const ADMIN_EMAIL = 'bench-admin@example.test'
const ADMIN_PASSWORD = 'bench-admin-password-not-secret'
const MEMBER_EMAIL = 'bench-member@example.test'
const MEMBER_PASSWORD = 'bench-member-password-not-secret'

const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    clients: { type: 'string' },
    comments: { type: 'string' },
    notices: { type: 'string' },
    unread: { type: 'string' },
  },
  strict: true,
})
const itemCount = Number(values.items)
const clientCount = Number(values.clients)
const commentCount = Number(values.comments)
const noticeCount = Number(values.notices)
const unreadCount = Number(values.unread)
for (const [name, value, min] of [
  ['--items', itemCount, 1],
  ['--clients', clientCount, 1],
  ['--comments', commentCount, 0],
  ['--notices', noticeCount, 0],
  ['--unread', unreadCount, 0],
] as const) {
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number >= ${min}`)
}
if (unreadCount > noticeCount) throw new Error('--unread must be at most --notices')

const url = process.env.BENCH_CHILD_DB_URL
if (!url) throw new Error('BENCH_CHILD_DB_URL is not set')
const log = createLogger('warn')
const config = loadConfig({
  DATA_DIR: 'memory',
  LOG_LEVEL: 'warn',
  DIRECTORY_DATABASE_URL: url,
  RATE_LIMIT_BYPASS_LOCALHOST: 'true',
})
const startedAt = performance.now()
const pool = createPool(url, config.databasePoolSize, log)
const database = serviceDatabase('directory', { kind: 'postgres', pool, url })
const db = database.db
const closeDatabase = () => pool.end()

// The driver's query function is wrapped: while `capture` is set it records every statement (for the
// plans of /bench/cold, asked only when no load runs); once the cold route has learnt the texts of the
// figures' statements, it counts every run of them (the recounts during the load).
interface Statement {
  text: string
  params: unknown[]
}
let capture: Statement[] | undefined
const watched = new Map<string, Figure>()
const recounts: Record<Figure, number> = { items: 0, comments: 0, unread: 0, clients: 0 }
{
  const target = pool as unknown as { query: (...args: unknown[]) => unknown }
  const original = target.query.bind(pool)
  target.query = (...args: unknown[]) => {
    const [first, params] = args
    const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text
    if (text !== undefined) {
      const figure = watched.get(text)
      if (figure) recounts[figure]++
      if (capture) {
        const bound = Array.isArray(params) ? params : ((first as { values?: unknown[] }).values ?? [])
        capture.push({ text, params: bound })
      }
    }
    return original(...args)
  }
}

const migrateStarted = performance.now()
const databases = { platform: database, directory: database, close: closeDatabase } as Databases
await migrateAll(databases, ['directory'], log)
const migrateMs = performance.now() - migrateStarted

const list = (words: readonly string[]) =>
  sql.raw(`array[${words.map((word) => `'${word.replace(/'/g, "''")}'`).join(', ')}]`)
/** A random one of the words, uniform. */
const pick = (words: readonly string[]) =>
  sql.raw(
    `(array[${words.map((word) => `'${word.replace(/'/g, "''")}'`).join(', ')}])` +
      `[1 + floor(random() * ${words.length})::int]`,
  )
const uuidOf = (prefix: string, n: string) =>
  sql.raw(`('00000000-0000-4000-${prefix}-' || lpad(to_hex(${n}), 12, '0'))::uuid`)
const userUuid = (n: string) => uuidOf('8000', n)
const itemUuid = (n: string) => uuidOf('c000', n)
const commentUuid = (n: string) => uuidOf('d000', n)
const noticeUuid = (n: string) => uuidOf('e000', n)

const COMMENT_OPENINGS = [
  'Been using this for a while.',
  'Tried it last month.',
  'Our team switched to it.',
  'Found it through a friend.',
  'Compared it with two others.',
  'Setup took ten minutes.',
  'The free plan is enough for us.',
  'Support answered within a day.',
] as const
const COMMENT_VERDICTS = [
  'Works well for small teams',
  'Does what it says',
  'A bit slow on large projects',
  'The export could be better',
  'Great value for the price',
  'The mobile app needs work',
  'Exactly what we needed',
  'Documentation is thin but the product is solid',
] as const

/** The rows of a raw statement. */
async function rowsOf<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] }
  return result.rows
}

// One transaction, each table from a drawing per row, in creation order (as a live table grows).
const timings = { clients: 0, items: 0, comments: 0, notices: 0 }
await db.transaction(async (tx) => {
  await tx.execute(sql`select setseed(0.42)`)
  // Users and their client profiles, as bench/admin-clients-server.ts seeds them (about 1 % created in
  // the last week).
  let started = performance.now()
  await seedClients(tx, clientCount)
  timings.clients = performance.now() - started

  // Items: status 85/7/5/3 published/pending/draft/rejected, created over the last two years, published
  // within a week of creation.
  started = performance.now()
  await tx.execute(sql`
    insert into directory.items
      (id, slug, name, description, url, status, review_note, reviewed_at, published_at, created_at,
       updated_at)
    select ${itemUuid('n')}, lower(brand) || '-' || n, initcap(brand) || ' ' || kind,
      initcap(adjective) || ' ' || noun || ' for ' || audience || '.',
      'https://' || lower(brand) || '.example/' || n, status,
      case when status = 'rejected' then 'Does not fit the directory' end,
      case when status in ('published', 'rejected') then published end,
      case when status = 'published' then published end,
      created_at, coalesce(published, created_at)
    from (select n, ${pick(BRAND_STARTS)} || ${pick(BRAND_MIDDLES)} as brand, ${pick(KINDS)} as kind,
            ${pick(ADJECTIVES)} as adjective, ${pick(NOUNS)} as noun, ${pick(AUDIENCES)} as audience,
            case when r < 0.85 then 'published' when r < 0.92 then 'pending' when r < 0.97 then 'draft'
              else 'rejected' end as status,
            created_at, least(now(), created_at + r * interval '7 days') as published
          from (select n, random() as r, now() - random() * interval '730 days' as created_at
                from generate_series(1, ${itemCount}::int) as n) as d) as i
    order by created_at`)
  timings.items = performance.now() - started

  // Comments: on items skewed towards the first ones (a few popular items, a long tail), by any user, over
  // the last year (more of them recently); 3 % pending (recent: moderation keeps up), 1.5 % rejected, the
  // rest approved. Ids follow the creation order.
  started = performance.now()
  await tx.execute(sql`
    insert into directory.comments
      (id, item_id, author_id, body, status, moderated_at, moderation_note, created_at, updated_at)
    select ${commentUuid('row_number() over (order by created_at)')}, item_id, author_id, body, status,
      case when status <> 'pending' then created_at + interval '3 hours' end,
      case when status = 'rejected' then 'Off topic' end,
      created_at,
      case when status <> 'pending' then created_at + interval '3 hours' else created_at end
    from (select ${itemUuid(`1 + floor(power(random(), 1.3) * ${itemCount})::int`)} as item_id,
            ${userUuid(`1 + floor(random() * ${clientCount})::int`)} as author_id,
            ${pick(COMMENT_OPENINGS)} || ' ' || ${pick(COMMENT_VERDICTS)} || '.' as body,
            case when r < 0.03 then 'pending' when r < 0.045 then 'rejected' else 'approved' end as status,
            case when r < 0.03 then now() - random() * interval '14 days'
              else now() - power(random(), 1.5) * interval '365 days' end as created_at
          from (select random() as r from generate_series(1, ${commentCount}::int)) as d) as c
    order by c.created_at`)
  timings.comments = performance.now() - started

  // Admin notifications, one every 5 hours up to now, of the four kinds; the newest `unread` unread.
  started = performance.now()
  await tx.execute(sql`
    insert into directory.admin_notifications (id, type, title, message, data, read_at, created_at)
    select ${noticeUuid('n')}, (${list(ADMIN_NOTICE_TYPES)})[1 + n % ${ADMIN_NOTICE_TYPES.length}],
      'Bench notice ' || n, 'Something for the admins to look at (' || n || ').',
      jsonb_build_object('n', n),
      case when n <= ${noticeCount - unreadCount}::int then created_at + interval '2 hours' end, created_at
    from (select n, now() - (${noticeCount}::int - n) * interval '5 hours' as created_at
          from generate_series(1, ${noticeCount}::int) as n) as a`)
  timings.notices = performance.now() - started
})

// Settled tables, as live ones are after autovacuum: visibility map set, statistics fresh.
const TABLES = ['users', 'client_profiles', 'items', 'comments', 'admin_notifications'] as const
const vacuumStarted = performance.now()
for (const table of TABLES) await db.execute(sql.raw(`vacuum (analyze) directory.${table}`))
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

const readsOnly = (): never => {
  throw new Error('the bench only reads items')
}

// The calls the dashboard makes on a miss, by the same services (nothing of theirs is cached here: the
// item service's count cache never listens, and the clients' statistics are computed directly).
const itemService = createItemService({
  db,
  clock: systemClock,
  log,
  caches: [],
  counts: createItemCountCache(systemClock),
  // Only its reads run here: the writes it hands to other modules are never asked for (an item's collection
  // ids are read in its admin answer, through the collections' own fragment).
  categories: { adjustCounts: readsOnly },
  collections: { ...itemCollections, unknownIds: readsOnly, set: readsOnly },
  links: itemLinkChecks,
  profiles: { countSubmission: readsOnly },
})
const commentService = createCommentService({ db, clock: systemClock, moderation: () => 'pre' })
const clientStats = { stats: () => computeClientStats(db, systemClock.now()) }
const loads: Record<Figure, () => Promise<unknown>> = {
  items: () => itemService.stats(),
  comments: () => commentService.stats(),
  unread: () => countRows(db, adminNotifications, isNull(adminNotifications.readAt)),
  clients: () => clientStats.stats(),
}
// A dashboard service on a cache that never listens, so never keeps anything: every call is a whole miss.
const uncached = createDashboardService({
  db,
  cache: createDashboardCache(systemClock),
  items: itemService,
  comments: commentService,
  clients: clientStats,
})

async function explain(statement: Statement): Promise<{ executionMs: number | null; plan: string }> {
  const result = await pool.query<{ 'QUERY PLAN': string }>(
    `explain (analyze, buffers) ${statement.text}`,
    statement.params,
  )
  const plan = result.rows.map((row) => row['QUERY PLAN']).join('\n')
  const match = /Execution Time: ([\d.]+) ms/.exec(plan)
  return { executionMs: match ? Number(match[1]) : null, plan }
}

const medianOf = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const ms = (value: number) => Math.round(value * 100) / 100

async function timed(runs: number, call: () => Promise<unknown>) {
  const runsMs: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    await call()
    runsMs.push(ms(performance.now() - started))
  }
  return {
    runsMs,
    medianMs: ms(medianOf(runsMs)),
    minMs: Math.min(...runsMs),
    maxMs: Math.max(...runsMs),
  }
}

app.get('/bench/cold', { config: { access: 'public' }, schema: { hide: true } }, async (req) => {
  const runs = Number((req.query as Record<string, string>).runs ?? 5)
  const figures: ColdFigure[] = []
  for (const figure of FIGURES) {
    const statements: Statement[] = []
    capture = statements
    try {
      await loads[figure]()
    } finally {
      capture = undefined
    }
    // Its first statement stands for the figure: one run of it is one recount.
    if (statements[0]) watched.set(statements[0].text, figure)
    const timing = await timed(runs, loads[figure])
    const plans: ColdFigure['statements'] = []
    for (const statement of statements) {
      plans.push({ sql: statement.text, params: statement.params, ...(await explain(statement)) })
    }
    figures.push({ figure, ...timing, statements: plans })
  }
  figures.push({
    figure: 'all (one whole miss)',
    ...(await timed(runs, () => uncached.stats())),
    statements: [],
  })
  for (const figure of FIGURES) recounts[figure] = 0
  return { figures }
})

app.get('/bench/recounts', { config: { access: 'public' }, schema: { hide: true } }, async () => ({
  ...recounts,
}))

const port = await listenLocally(app)
const cookie = await directorySession(port, '/api/auth/signin', {
  email: ADMIN_EMAIL,
  password: ADMIN_PASSWORD,
})
const memberCookie = await directorySession(
  port,
  '/api/auth/register',
  { email: MEMBER_EMAIL, password: MEMBER_PASSWORD, name: 'Bench Member' },
  201,
)

const publishedItemIds = (
  await rowsOf<{ id: string }>(
    sql`select id from directory.items where status = 'published' order by md5(id::text) limit 500`,
  )
).map((row) => row.id)
const countsBy = async (table: string) =>
  Object.fromEntries(
    (
      await rowsOf<{ status: string; count: number }>(
        sql.raw(
          `select status, count(*)::int as count from directory.${table} group by status order by status`,
        ),
      )
    ).map(({ status, count }) => [status, count]),
  )
const [figures] = await rowsOf<{ unread: number; new_this_week: number }>(sql`
  select (select count(*) from directory.admin_notifications where read_at is null)::int as unread,
    (select count(*) from directory.client_profiles
     where created_at >= now() - interval '7 days')::int as new_this_week`)
const sizes: Record<string, number | null> = {}
for (const table of TABLES) {
  const [size] = await rowsOf<{ bytes: string }>(
    sql.raw(`select pg_total_relation_size('directory.${table}')::text as bytes`),
  )
  sizes[table] = size ? Math.round((Number(size.bytes) / 1024 / 1024) * 10) / 10 : null
}
const [version] = await rowsOf<{ version: string }>(sql`select current_setting('server_version') as version`)

const ready: ServerReady = {
  port,
  cookie,
  memberCookie,
  origin: new URL(config.appUrl).origin,
  publishedItemIds,
  seed: {
    items: itemCount,
    itemStatuses: await countsBy('items'),
    clients: clientCount,
    comments: commentCount,
    commentStatuses: await countsBy('comments'),
    notices: noticeCount,
    unread: figures?.unread ?? 0,
    clientsNewThisWeek: figures?.new_this_week ?? 0,
    migrateMs: Math.round(migrateMs),
    seedClientsMs: Math.round(timings.clients),
    seedItemsMs: Math.round(timings.items),
    seedCommentsMs: Math.round(timings.comments),
    seedNoticesMs: Math.round(timings.notices),
    vacuumAnalyzeMs: Math.round(vacuumAnalyzeMs),
    totalMs: Math.round(performance.now() - startedAt),
    tablesMb: sizes,
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
