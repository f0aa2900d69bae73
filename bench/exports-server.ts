/**
 * The server side of bench/exports.ts, in its own process so its memory is measured alone.
 *
 * Opens the directory's database (Postgres at BENCH_CHILD_DB_URL, else the embedded PGlite in a scratch
 * DATA_DIR given as BENCH_CHILD_DATA_DIR), migrates it, seeds 40 categories, 120 tags, 60 companies and N
 * items with set-based SQL (90 % published, 5 % without a category, 0–3 tags each, every field set on some),
 * builds the real directory app (rate limits bypassed for 127.0.0.1), signs an admin in, listens on
 * 127.0.0.1 and prints one JSON line on stdout: {"port", "cookie", "seed": {...}}.
 *
 *   node bench/exports-server.ts --items N
 */
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { loadConfig } from '../src/config.ts'
import { openDatabases } from '../src/db/index.ts'
import { ensureAdmin } from '../src/directory/admin/bootstrap.ts'
import { buildDirectoryApp } from '../src/directory/app.ts'
import { createJobs } from '../src/jobs/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createRateLimiterFor } from '../src/runtime.ts'
import { migrateAll } from '../src/setup.ts'
import { directorySession, exitOnSignal, listenLocally } from './lib.ts'

const ADMIN_EMAIL = 'bench-admin@example.test'
const ADMIN_PASSWORD = 'bench-admin-password-not-secret'
const CATEGORIES = 40
const TAGS = 120
const COMPANIES = 60

/** What the server prints when it is ready. */
export interface ExportsServerReady {
  port: number
  cookie: string
  seed: { items: number; published: number; itemTags: number; seedMs: number; database: string }
}

const { values } = parseArgs({ options: { items: { type: 'string' } }, strict: true })
const itemCount = Number(values.items)
if (!Number.isInteger(itemCount) || itemCount < 1) throw new Error('--items must be a whole number >= 1')

const url = process.env.BENCH_CHILD_DB_URL
const dataDir = process.env.BENCH_CHILD_DATA_DIR
if (!url && !dataDir) throw new Error('set BENCH_CHILD_DB_URL (Postgres) or BENCH_CHILD_DATA_DIR (embedded)')
const log = createLogger('warn')
const config = loadConfig({
  DATA_DIR: dataDir ?? 'memory',
  LOG_LEVEL: 'warn',
  ...(url ? { DIRECTORY_DATABASE_URL: url, PLATFORM_DATABASE_URL: url } : {}),
  RATE_LIMIT_BYPASS_LOCALHOST: 'true',
  // The seed's statements take longer than a request's bound.
  DATABASE_QUERY_TIMEOUT_MS: '600000',
})
const databases = await openDatabases(config, { log })
const database = databases.directory
const db = database.db
await migrateAll(databases, ['directory'], log)

const seedStarted = performance.now()
await db.transaction(async (tx) => {
  await tx.execute(sql`select setseed(0.42)`)
  await tx.execute(sql`
    insert into directory.categories (id, name, is_active, item_count, sort_order, created_at, updated_at)
    select 'category-' || i, 'Category ' || i || case when i % 7 = 0 then ' & more' else '' end, true, 0,
      (i * 17) % ${CATEGORIES}, now(), now()
    from generate_series(1, ${CATEGORIES}::int) as i`)
  await tx.execute(sql`
    insert into directory.tags (id, name, created_at, updated_at)
    select 'tag-' || i, 'Tag ' || i, now(), now() from generate_series(1, ${TAGS}::int) as i`)
  await tx.execute(sql`
    insert into directory.companies (id, slug, name, is_active, created_at, updated_at)
    select ('00000000-0000-4000-b000-' || lpad(to_hex(i), 12, '0'))::uuid, 'company-' || i, 'Company ' || i,
      true, now(), now()
    from generate_series(1, ${COMPANIES}::int) as i`)
  await tx.execute(sql`
    insert into directory.items
      (id, slug, name, description, url, icon_url, image_url, category_id, company_id, status, address, city,
       country, latitude, longitude, is_remote, service_area, published_at, created_at, updated_at)
    select ('00000000-0000-4000-c000-' || lpad(to_hex(n), 12, '0'))::uuid,
      'item-' || md5(n::text), 'Item ' || n || case when n % 11 = 0 then ' [beta] *new*' else '' end,
      case when n % 5 <> 0 then 'A tool for ' || (array['teams', 'cafés', 'makers', 'writers'])[1 + n % 4] ||
        ', with "quotes", commas and a longer sentence that describes what it does. ' || n end,
      case when n % 13 <> 0 then 'https://item-' || n || '.example/path?ref=' || n end,
      case when n % 3 = 0 then 'https://cdn.example/icons/' || n || '.png' end,
      case when n % 6 = 0 then 'https://cdn.example/images/' || n || '.jpg' end,
      case when n % 20 <> 0 then 'category-' || (1 + floor(power(random(), 1.5) * ${CATEGORIES})::int) end,
      case when n % 4 = 0 then ('00000000-0000-4000-b000-' || lpad(to_hex(1 + n % ${COMPANIES}), 12, '0'))::uuid end,
      case when n % 10 = 0 then 'draft' when n % 10 = 5 and n % 20 <> 5 then 'pending' else 'published' end,
      case when n % 8 = 0 then n || ' Main Street' end,
      case when n % 8 = 0 then 'Berlin' end,
      case when n % 8 = 0 then 'DE' end,
      case when n % 8 = 0 then 52.52 end,
      case when n % 8 = 0 then 13.405 end,
      n % 9 = 0, null,
      now() - n * interval '7 minutes', now() - n * interval '7 minutes', now()
    from generate_series(1, ${itemCount}::int) as n`)
  await tx.execute(sql`
    insert into directory.item_tags (item_id, tag_id)
    select distinct item.id, 'tag-' || (1 + floor(power(random(), 1.6) * ${TAGS})::int)
    from directory.items as item
    cross join lateral generate_series(1, (abs(hashtext(item.slug)) % 4)) as k`)
  await tx.execute(sql`update directory.items set published_at = null where status <> 'published'`)
})
const seedMs = Math.round(performance.now() - seedStarted)
for (const table of ['items', 'item_tags', 'categories', 'tags', 'companies']) {
  await db.execute(sql.raw(`vacuum (analyze) directory.${table}`))
}

const jobs = createJobs({ database, log })
const rateLimiter = await createRateLimiterFor(config, systemClock, log)
const { app } = await buildDirectoryApp({ config, database, clock: systemClock, log, jobs, rateLimiter })
await ensureAdmin({ db, clock: systemClock }, ADMIN_EMAIL, ADMIN_PASSWORD)
const port = await listenLocally(app)
const cookie = await directorySession(port, '/api/auth/signin', {
  email: ADMIN_EMAIL,
  password: ADMIN_PASSWORD,
})

const count = async (statement: ReturnType<typeof sql>) =>
  ((await db.execute(statement)) as unknown as { rows: { count: number }[] }).rows[0]?.count ?? 0
const ready: ExportsServerReady = {
  port,
  cookie,
  seed: {
    items: itemCount,
    published: await count(
      sql`select count(*)::int as count from directory.items where status = 'published'`,
    ),
    itemTags: await count(sql`select count(*)::int as count from directory.item_tags`),
    seedMs,
    database: url ? 'postgres' : 'embedded',
  },
}
process.stdout.write(`${JSON.stringify(ready)}\n`)

exitOnSignal(
  () => app.close(),
  () => rateLimiter.close(),
  () => databases.close(),
)
