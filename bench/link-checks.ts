/**
 * Issue 31's measure of link health: one link check run over ITEMS published items against local sites that
 * answer a mix of 200 (70 %), a 301 to a 200 (15 %), 404 (10 %) and no answer at all (5 %, a timeout), with
 * the politeness rules on. The duration is dominated by those rules, so the figures also say what one host
 * was asked per second, the most it had at once, and the least time between two starts at one host.
 *
 * The directory app runs in this process (the test harness's: an embedded database in memory, or Postgres
 * when TEST_DATABASE_URL is set), with HOSTS sites on 127.0.0.1, 127.0.0.2 … (each a host to the checker), the
 * items inserted in one statement, their URLs spread over the hosts in turn. POST /api/admin/link-checks
 * queues the run; it is timed until GET /api/admin/link-checks says completed.
 *
 *   npm run bench:links [-- --items 10000] [-- --hosts 20] [-- --delay 100] [-- --timeout 500]
 *     [-- --concurrency 50] [-- --batch 1000]
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { MAX_REDIRECTS } from '../src/directory/links/checker.ts'
import { PER_HOST_CONCURRENCY } from '../src/directory/links/module.ts'
import { type LinkTarget, startLinkTarget } from '../test/fakes/link-target.ts'
import { startDirectory } from '../test/helpers/apps.ts'
import { siteRequests } from '../test/helpers/requests.ts'
import { machine, round, sleep, table, writeResults } from './lib.ts'

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '10000' },
    hosts: { type: 'string', default: '20' },
    delay: { type: 'string', default: '100' },
    timeout: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '50' },
    batch: { type: 'string', default: '1000' },
    serve: { type: 'boolean', default: false },
  },
  strict: true,
})
const ITEMS = Number(values.items)
const HOSTS = Number(values.hosts)
const settings = {
  LINK_CHECK_INTERVAL: 'off',
  LINK_CHECK_HOST_DELAY_MS: String(Number(values.delay)),
  LINK_CHECK_TIMEOUT_MS: String(Number(values.timeout)),
  LINK_CHECK_CONCURRENCY: String(Number(values.concurrency)),
  LINK_CHECK_BATCH_SIZE: String(Number(values.batch)),
}

/**
 * The path of item `index`, on host `index mod HOSTS`: of each 20 items of a host, 14 answer 200, 3 redirect
 * once, 2 are 404, 1 never answers (the mix taken by `index div HOSTS`, so that every host gets it).
 */
const pathOf = (index: number) => {
  const slot = Math.floor(index / HOSTS) % 20
  return slot < 14 ? '/ok' : slot < 17 ? '/redirect/1' : slot < 19 ? '/404' : '/hang'
}
/** Requests each kind costs: HEAD; HEAD twice (the hop); HEAD then GET; HEAD until the timeout. */
const REQUESTS_PER_ITEM = (14 * 1 + 3 * 2 + 2 * 2 + 1 * 1) / 20

/** What one host saw: its requests' arrival times, and the most it had at once. */
function hostFigures(site: LinkTarget) {
  const starts = site.requests.map((request) => request.at).sort((a, b) => a - b)
  const gaps = starts.slice(1).map((at, index) => at - (starts[index] as number))
  // The busiest second: the most arrivals within any 1,000 ms.
  let busiest = 0
  for (let from = 0, to = 0; to < starts.length; to++) {
    while ((starts[to] as number) - (starts[from] as number) >= 1000) from++
    busiest = Math.max(busiest, to - from + 1)
  }
  return {
    requests: starts.length,
    busiestSecond: busiest,
    leastGapMs: gaps.length ? Math.min(...gaps) : 0,
    mostAtOnce: site.maxInFlight,
  }
}

if (values.serve) {
  // The sites, in a process of their own: the checker's event loop never delays what they see.
  const sites: LinkTarget[] = []
  for (let host = 1; host <= HOSTS; host++) sites.push(await startLinkTarget(`127.0.0.${host}`))
  process.stdout.write(`${JSON.stringify(sites.map((site) => site.origin))}\n`)
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'figures') process.stdout.write(`${JSON.stringify(sites.map(hostFigures))}\n`)
  }
  for (const site of sites) await site.close()
  process.exit(0)
}

const child = spawn(process.execPath, [import.meta.filename, '--serve', '--hosts', String(HOSTS)], {
  stdio: ['pipe', 'pipe', 'inherit'],
})
const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
const nextLine = async () => JSON.parse((await lines.next()).value as string)
const origins = (await nextLine()) as string[]
const h = await startDirectory({ env: settings })
try {
  const api = siteRequests(h, { cookie: await h.adminCookie() })
  const db = h.databases.directory.db
  // The bench's own data, written as a seeder would: ITEMS published items, as `pathOf` says.
  await db.execute(sql`
    insert into directory.items (slug, name, url, status, published_at, created_at, updated_at)
    select 'site-' || i, 'Site ' || i,
           (string_to_array(${origins.join(',')}, ','))[(i % ${HOSTS}) + 1] ||
             (array['/ok','/ok','/ok','/ok','/ok','/ok','/ok','/ok','/ok','/ok','/ok','/ok','/ok','/ok',
                    '/redirect/1','/redirect/1','/redirect/1','/404','/404','/hang'])[((i / ${HOSTS}) % 20) + 1],
           'published', now(), now(), now()
    from generate_series(0, ${ITEMS - 1}) as i`)
  const expectedRequests = Array.from({ length: ITEMS }, (_, index) => pathOf(index)).reduce(
    (sum, path) => sum + (path === '/ok' || path === '/hang' ? 1 : 2),
    0,
  )

  const started = performance.now()
  const queued = await api.post('/api/admin/link-checks')
  if (queued.statusCode !== 202)
    throw new Error(`POST /api/admin/link-checks: ${queued.statusCode} ${queued.body}`)
  const runId = queued.json().data.id as string
  // The run's own row, read cheaply: the status route also counts every item by link status, which would
  // load the event loop the checks run on.
  for (;;) {
    const rows = (await db.execute(
      sql`select status from directory.link_check_runs where id = ${runId}`,
    )) as unknown as { rows: { status: string }[] }
    if (rows.rows[0]?.status === 'completed' || rows.rows[0]?.status === 'failed') break
    await sleep(200)
  }
  const seconds = (performance.now() - started) / 1000
  const run = (await api.get('/api/admin/link-checks')).json().data.run as Record<string, number | string>
  if (run.status !== 'completed') throw new Error(`the run ${run.status}: ${run.error}`)

  child.stdin.write('figures\n')
  const perHost = (await nextLine()) as ReturnType<typeof hostFigures>[]
  const requests = perHost.reduce((sum, host) => sum + host.requests, 0)
  const delayMs = Number(settings.LINK_CHECK_HOST_DELAY_MS)
  const ruleRate = delayMs > 0 ? 1000 / delayMs : Number.POSITIVE_INFINITY
  const figures = {
    items: ITEMS,
    hosts: HOSTS,
    seconds: round(seconds, 1),
    itemsPerSecond: round(ITEMS / seconds, 1),
    requests,
    expectedRequests,
    run,
    perHost: {
      meanPerSecond: round(requests / HOSTS / seconds, 2),
      busiestSecond: Math.max(...perHost.map((host) => host.busiestSecond)),
      leastGapMs: round(Math.min(...perHost.map((host) => host.leastGapMs)), 1),
      mostAtOnce: Math.max(...perHost.map((host) => host.mostAtOnce)),
    },
    rules: {
      perHostAtOnce: PER_HOST_CONCURRENCY,
      delayMs,
      ruleRatePerHost: ruleRate,
      maxRedirects: MAX_REDIRECTS,
    },
    // At the default delay (1,000 ms: 1 request per second per host) the same requests would take at least this.
    atDefaultDelaySeconds: round((requests / HOSTS) * 1, 0),
    settings,
    database: process.env.TEST_DATABASE_URL ? 'postgres' : 'embedded',
  }
  process.stdout.write(
    `${table([
      [
        'items',
        'hosts',
        'duration s',
        'items/s',
        'requests',
        'req/s per host (mean)',
        'busiest second',
        'least gap ms',
        'most at once',
      ],
      [
        ITEMS,
        HOSTS,
        figures.seconds,
        figures.itemsPerSecond,
        requests,
        figures.perHost.meanPerSecond,
        figures.perHost.busiestSecond,
        figures.perHost.leastGapMs,
        figures.perHost.mostAtOnce,
      ],
    ])}\n`,
  )
  process.stdout.write(
    `run: ${run.ok} ok, ${run.redirected} redirected, ${run.failed} failed; rules: ${PER_HOST_CONCURRENCY} at once per host, ` +
      `${delayMs} ms between starts (at most ${ruleRate} req/s per host), timeout ${settings.LINK_CHECK_TIMEOUT_MS} ms, ` +
      `${settings.LINK_CHECK_CONCURRENCY} at once in all, steps of ${settings.LINK_CHECK_BATCH_SIZE}; ` +
      `${REQUESTS_PER_ITEM} requests per item expected (${expectedRequests}); at the default 1,000 ms delay these ` +
      `requests would take at least ${figures.atDefaultDelaySeconds} s on ${HOSTS} hosts\n`,
  )
  const path = writeResults('link-checks', { machine: machine(), ...figures })
  process.stdout.write(`results: ${path}\n`)
} finally {
  await h.close()
  child.stdin.end()
  await once(child, 'exit')
}
