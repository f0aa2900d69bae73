/**
 * The server side of bench/content.ts, in its own process so autocannon never shares its event loop.
 *
 * Opens Postgres at BENCH_CHILD_DB_URL, migrates the directory, seeds categories, tags, companies, N items
 * with their tags and a featured shelf (set-based SQL), sets each category's published count,
 * VACUUM ANALYZE, builds the real directory app (LOG_LEVEL=warn, RATE_LIMIT_BYPASS_LOCALHOST=true so the
 * public routes' per-address limits do not throttle the load), makes sure an admin exists and signs in
 * through POST /api/auth/signin, adds one bench-only route without authentication:
 *   GET /bench/explain?search=&status=&category=   EXPLAIN (ANALYZE, BUFFERS) of the statements one call
 *                                                  of the admin item list sends
 * then listens on 127.0.0.1 (a free port) and prints one JSON line on stdout:
 *   {"port", "cookie", "seed": {...}}
 *
 *   node bench/content-server.ts --items N
 */
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { loadConfig } from '../src/config.ts'
import { createPool, type Databases, serviceDatabase } from '../src/db/index.ts'
import { ensureAdmin } from '../src/directory/admin/bootstrap.ts'
import { buildDirectoryApp } from '../src/directory/app.ts'
import { itemCollections } from '../src/directory/collections/memberships.ts'
import type { AdminItemQuery } from '../src/directory/items/schemas.ts'
import { createItemCountCache, createItemService } from '../src/directory/items/service.ts'
import { itemLinkChecks } from '../src/directory/links/item-links.ts'
import { createJobs } from '../src/jobs/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import { slugify } from '../src/lib/slug.ts'
import { createRateLimiterFor } from '../src/runtime.ts'
import { migrateAll } from '../src/setup.ts'
import { COMPANY_SUFFIXES, COMPANY_WORDS, PLACES } from './admin-clients-data.ts'
import {
  ADJECTIVES,
  AUDIENCES,
  BRAND_ENDS,
  BRAND_MIDDLES,
  BRAND_STARTS,
  CATEGORIES,
  FEATURES,
  KINDS,
  NOUNS,
  type ServerReady,
  TAG_FORMS,
  TAG_TOPICS,
} from './content-data.ts'
import { directorySession, exitOnSignal, listenLocally } from './lib.ts'

const ADMIN_EMAIL = 'bench-admin@example.test'
const ADMIN_PASSWORD = 'bench-admin-password-not-secret'

const { values } = parseArgs({ options: { items: { type: 'string' } }, strict: true })
const itemCount = Number(values.items)
if (!Number.isInteger(itemCount) || itemCount < 1) throw new Error('--items must be a whole number >= 1')

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
      capture.push({ text, params: bound })
    }
    return original(...args)
  }
}

const migrateStarted = performance.now()
const databases = { platform: database, directory: database, close: closeDatabase } as Databases
await migrateAll(databases, ['directory'], log)
const migrateMs = performance.now() - migrateStarted

/** A Postgres `array[...]::text[]` of the strings, as SQL text. */
const arrayLiteral = (values: readonly string[]) =>
  `array[${values.map((value) => `'${value.replace(/'/g, "''")}'`).join(', ')}]::text[]`
const list = (values: readonly string[]) => sql.raw(arrayLiteral(values))
/** A random one of the strings, uniform or (skew > 1) the first ones more often. */
const pick = (values: readonly string[], skew = 1) =>
  sql.raw(
    `(${arrayLiteral(values)})[1 + floor(${skew === 1 ? 'random()' : `power(random(), ${skew})`} * ${values.length})::int]`,
  )
const companyUuid = (n: string) =>
  sql.raw(`('00000000-0000-4000-b000-' || lpad(to_hex(${n}), 12, '0'))::uuid`)
const itemUuid = (n: string) => sql.raw(`('00000000-0000-4000-c000-' || lpad(to_hex(${n}), 12, '0'))::uuid`)

const TAGS = TAG_TOPICS.flatMap((topic) => TAG_FORMS.map((form) => `${topic}${form}`)).map(
  (name) => [slugify(name, 100), name] as const,
)
const companyCount = COMPANY_WORDS.length * COMPANY_SUFFIXES.length

/** The rows of a raw statement. */
async function rowsOf<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] }
  return result.rows
}

// One drawing per item in a temporary table, then the items from it in creation order (as a live table
// grows), their tags, the shelf and the category counts. Distributions: status 85/7/5/3
// published/pending/draft/rejected; categories and companies skewed (a few big ones, a long tail); 80 %
// of items name a company; 0–3 tags each, the first tags far more used; created over the last year,
// published within a week of creation.
const seedStarted = performance.now()
await db.transaction(async (tx) => {
  await tx.execute(sql`select setseed(0.42)`)
  await tx.execute(sql`
    insert into directory.categories (id, name, is_active, item_count, sort_order, created_at, updated_at)
    select id, name, true, 0, ord::int, now() - interval '400 days', now() - interval '400 days'
    from unnest(${list(CATEGORIES.map(([id]) => id))}, ${list(CATEGORIES.map(([, name]) => name))})
      with ordinality as c(id, name, ord)`)
  await tx.execute(sql`
    insert into directory.tags (id, name, created_at, updated_at)
    select id, name, now() - interval '400 days', now() - interval '400 days'
    from unnest(${list(TAGS.map(([id]) => id))}, ${list(TAGS.map(([, name]) => name))}) as t(id, name)`)
  await tx.execute(sql`
    insert into directory.companies
      (id, slug, name, description, website, logo_url, is_active, created_at, updated_at)
    select ${companyUuid('i + 1')}, lower(word) || '-' || lower(suffix), word || ' ' || suffix,
      case when i % 3 <> 0 then word || ' ' || suffix || ' builds software for ' ||
        (${list(AUDIENCES)})[1 + i % ${AUDIENCES.length}] || '.' end,
      'https://' || lower(word) || lower(suffix) || '.example',
      case when i % 2 = 0 then 'https://cdn.example/logos/' || (i + 1) || '.png' end,
      i % 25 <> 0, now() - interval '400 days' + i * interval '1 hour', now() - interval '30 days'
    from (select i, (${list(COMPANY_WORDS)})[1 + i / ${COMPANY_SUFFIXES.length}] as word,
            (${list(COMPANY_SUFFIXES)})[1 + i % ${COMPANY_SUFFIXES.length}] as suffix
          from generate_series(0, ${companyCount - 1}::int) as i) as c`)
  await tx.execute(sql`
    create temporary table bench_draw on commit drop as
    select n,
      1 + floor(power(random(), 1.5) * ${CATEGORIES.length})::int as category,
      case when random() < 0.8 then 1 + floor(power(random(), 1.4) * ${companyCount})::int end as company,
      ${pick(BRAND_STARTS)} || ${pick(BRAND_MIDDLES)} ||
        case when random() < 0.2 then ${pick(BRAND_ENDS)} else '' end as brand,
      case when random() < 0.7 then ${pick(KINDS)} end as kind,
      ${pick(ADJECTIVES)} as adjective,
      ${pick(NOUNS)} as noun,
      ${pick(AUDIENCES)} as audience,
      1 + floor(power(random(), 1.3) * ${FEATURES.length})::int as f1,
      1 + floor(power(random(), 1.3) * ${FEATURES.length})::int as f2,
      case when random() < 0.5 then 1 + floor(power(random(), 1.3) * ${FEATURES.length})::int end as f3,
      case when random() < 0.4 then 1 + floor(random() * ${PLACES.length})::int end as place,
      random() < 0.3 as remote,
      floor(power(random(), 1.3) * 4)::int as tag_count,
      random() as r_status, random() as r_extra, random() as r_media,
      now() - random() * interval '365 days' as created_at
    from generate_series(1, ${itemCount}::int) as n`)
  // Two different features at least (the second moves on when it drew the first).
  await tx.execute(sql`
    update bench_draw set f2 = f2 % ${FEATURES.length} + 1 where f2 = f1`)
  await tx.execute(sql`
    insert into directory.items
      (id, slug, name, description, url, icon_url, image_url, category_id, company_id, status, address,
       city, country, latitude, longitude, is_remote, service_area, submitted_by, review_note,
       reviewed_by, reviewed_at, published_at, created_at, updated_at)
    select ${itemUuid('n')},
      brand || coalesce('-' || lower(kind), '') || '-' || n,
      initcap(brand) || coalesce(' ' || kind, ''),
      initcap(adjective) || ' ' || lower((${list(CATEGORIES.map(([, name]) => name))})[category]) || ' ' ||
        noun || ' for ' || audience || '. Offers ' || (${list(FEATURES)})[f1] || ', ' ||
        (${list(FEATURES)})[f2] ||
        coalesce(case when f3 not in (f1, f2) then ' and ' || (${list(FEATURES)})[f3] end, '') || '.' ||
        coalesce(' Based in ' || (${list(PLACES.map(([city]) => city))})[place] || '.', '') ||
        case when remote then ' Works fully remote.' else '' end,
      'https://' || brand || '.example/' || n,
      case when r_media < 0.6 then 'https://cdn.example/icons/' || n || '.png' end,
      case when r_media < 0.3 then 'https://cdn.example/images/' || n || '.jpg' end,
      (${list(CATEGORIES.map(([id]) => id))})[category],
      case when company is not null then ${companyUuid('company')} end,
      status, null,
      (${list(PLACES.map(([city]) => city))})[place],
      (${list(PLACES.map(([, country]) => country))})[place],
      case when place is not null then round((r_extra * 140 - 60)::numeric, 4)::float8 end,
      case when place is not null then round((r_media * 340 - 170)::numeric, 4)::float8 end,
      remote, null, null,
      case when status = 'rejected' then 'Does not fit the directory' end,
      null,
      case when status in ('published', 'rejected') then published end,
      case when status = 'published' then published end,
      created_at, coalesce(published, created_at)
    from (select *,
            case when r_status < 0.85 then 'published' when r_status < 0.92 then 'pending'
              when r_status < 0.97 then 'draft' else 'rejected' end as status,
            least(now(), created_at + r_extra * interval '7 days') as published
          from bench_draw) as d
    order by created_at`)
  await tx.execute(sql`
    insert into directory.item_tags (item_id, tag_id)
    select distinct ${itemUuid('d.n')}, (${list(TAGS.map(([id]) => id))})[t.tag]
    from bench_draw as d
    cross join lateral (
      select 1 + floor(power(random(), 1.6) * ${TAGS.length})::int as tag
      from generate_series(1, d.tag_count)
    ) as t`)
  // 12 entries: 8 on the shelf (one until next month), 2 active but expired, 2 inactive; the shelf shows 6.
  await tx.execute(sql`
    insert into directory.featured_items
      (item_slug, item_name, item_description, item_icon_url, item_image_url, featured_order, is_active,
       featured_at, featured_until, created_at, updated_at)
    select slug, name, description, icon_url, image_url, (12 - k) / 3, k <= 10,
      now() - k * interval '3 days',
      case when k in (7, 8) then now() - interval '1 day' when k = 3 then now() + interval '30 days' end,
      now() - k * interval '3 days', case when k % 2 = 0 then now() - interval '1 day' end
    from (select i.*, row_number() over (order by md5(i.id::text)) as k
          from directory.items as i where status = 'published'
          order by md5(i.id::text) limit 12) as f`)
  await tx.execute(sql`
    update directory.categories as c set item_count = coalesce(p.count, 0)
    from (select c2.id, (select count(*) from directory.items as i
                         where i.category_id = c2.id and i.status = 'published')::int as count
          from directory.categories as c2) as p
    where p.id = c.id`)
})
const seedMs = performance.now() - seedStarted

// Settled tables, as live ones are after autovacuum: visibility map set, GIN pending list merged,
// statistics fresh.
const vacuumStarted = performance.now()
for (const table of ['items', 'item_tags', 'categories', 'tags', 'companies', 'featured_items']) {
  await db.execute(sql.raw(`vacuum (analyze) directory.${table}`))
}
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

// The same service the admin routes use, for the plans of its statements (its count cache never listens,
// so every statement runs).
const items = createItemService({
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

async function explain(statement: Statement): Promise<string> {
  const result = await pool.query<{ 'QUERY PLAN': string }>(
    `explain (analyze, buffers) ${statement.text}`,
    statement.params,
  )
  return result.rows.map((row) => row['QUERY PLAN']).join('\n')
}

app.get('/bench/explain', { config: { access: 'public' }, schema: { hide: true } }, async (req) => {
  const query = req.query as Record<string, string>
  const listQuery: AdminItemQuery = {
    page: 1,
    limit: 10,
    sortBy: 'createdAt',
    sortOrder: 'desc',
    ...(query.search ? { search: query.search } : {}),
    ...(query.status ? { status: query.status as NonNullable<AdminItemQuery['status']> } : {}),
    ...(query.category ? { category: query.category } : {}),
  }
  const statements: Statement[] = []
  capture = statements
  try {
    await items.list(listQuery)
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

const [sizes] = await rowsOf<{ table: string; search: string }>(
  sql`select pg_total_relation_size('directory.items')::text as table,
        pg_relation_size('directory.items_search_idx')::text as search`,
)
const [counts] = await rowsOf<{
  categories: number
  tags: number
  companies: number
  item_tags: number
  featured: number
}>(sql`select (select count(*) from directory.categories)::int as categories,
          (select count(*) from directory.tags)::int as tags,
          (select count(*) from directory.companies)::int as companies,
          (select count(*) from directory.item_tags)::int as item_tags,
          (select count(*) from directory.featured_items)::int as featured`)
const statuses = await rowsOf<{ status: string; count: number }>(
  sql`select status, count(*)::int as count from directory.items group by status order by status`,
)
const [version] = await rowsOf<{ version: string }>(sql`select current_setting('server_version') as version`)
const mb = (bytes: string | undefined) =>
  bytes === undefined ? null : Math.round((Number(bytes) / 1024 / 1024) * 10) / 10

const ready: ServerReady = {
  port,
  cookie: session,
  seed: {
    items: itemCount,
    categories: counts?.categories ?? 0,
    tags: counts?.tags ?? 0,
    companies: counts?.companies ?? 0,
    itemTags: counts?.item_tags ?? 0,
    featured: counts?.featured ?? 0,
    statuses: Object.fromEntries(statuses.map(({ status, count }) => [status, count])),
    migrateMs: Math.round(migrateMs),
    seedMs: Math.round(seedMs),
    vacuumAnalyzeMs: Math.round(vacuumAnalyzeMs),
    totalMs: Math.round(performance.now() - startedAt),
    itemsTableMb: mb(sizes?.table),
    searchIndexMb: mb(sizes?.search),
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
