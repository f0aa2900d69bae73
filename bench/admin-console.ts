/**
 * The admin console's weight and speed:
 *
 * 1. Its initial JavaScript and CSS, gzipped (level 9, as the directory serves them): what the page loads
 *    before it shows the items screen and the dashboard (the page's own script and style, the chunks they
 *    import, and the screen's chunk with its imports), from Vite's manifest of the build in dist/web/admin.
 *    Target: at most 150 KB.
 * 2. In Chromium (/usr/bin/chromium, Playwright) against the real directory on Postgres with 100,000 items
 *    (bench/exports-server.ts seeds them, in a database of its own on BENCH_DATABASE_URL, default
 *    postgres://postgres@127.0.0.1:5432/postgres, dropped at the end): the time from navigation to the items
 *    table showing its first page, and to the dashboard showing its figures and charts, read in the page
 *    (`performance.now()`, from the navigation's start). Each of `--runs` (10) in a new browser context
 *    (nothing cached: a first visit) and again on a reload (the assets cached, as every later visit).
 *    Target: a median of at most 1 s.
 *
 *   npm run bench:console [-- --items 100000] [-- --runs 10]
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { chromium, type Page } from 'playwright-core'
import { consoleWeigher, printWeights } from './console-weight.ts'
import type { ExportsServerReady } from './exports-server.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  checkWholeNumbers,
  codeVersion,
  dropDatabaseOnSignal,
  dropScratchDatabase,
  machine,
  median,
  round,
  spawnNode,
  stopChild,
  table,
  waitForReady,
  writeResults,
} from './lib.ts'

const TARGET_MS = 1000
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

const { values } = parseArgs({
  options: { items: { type: 'string' }, runs: { type: 'string' } },
  strict: true,
})
const itemCount = Number(values.items ?? 100_000)
const runs = Number(values.runs ?? 10)
checkWholeNumbers([
  ['--items', itemCount, 1],
  ['--runs', runs, 1],
])

// 1. Weight --------------------------------------------------------------------------------------------

const { weightOf } = consoleWeigher('admin')
const weights = {
  items: weightOf(['screens/items.tsx']),
  dashboard: weightOf(['screens/dashboard.tsx']),
}
printWeights(weights)

// 2. Speed ---------------------------------------------------------------------------------------------

const { adminUrl, shownUrl } = benchDatabaseUrl()
const setDropOnSignal = dropDatabaseOnSignal(adminUrl)
const dbName = `curio_bench_${randomBytes(6).toString('hex')}`
let server: Child | undefined
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
})

/** The screens measured: the address, and what the page shows once it is ready, as an expression. */
const SCREENS = {
  items: {
    path: '/admin/items',
    shown: `document.querySelectorAll('table[aria-busy="false"] tbody tr a').length >= 25`,
  },
  dashboard: {
    path: '/admin',
    shown: `document.querySelectorAll('svg.chart polyline').length >= 6 &&
      [...document.querySelectorAll('.figure-value')].every((figure) => figure.textContent !== '…')`,
  },
} as const

/** Milliseconds from the navigation's start until the screen shows, read in the page. */
async function shownAfter(page: Page, expression: string): Promise<number> {
  const handle = await page.waitForFunction(`(${expression}) && performance.now()`, undefined, {
    polling: 'raf',
    timeout: 30_000,
  })
  return round((await handle.jsonValue()) as number, 1)
}

const results: Record<string, { firstVisitMs: number[]; cachedMs: number[] }> = {}
try {
  await adminQuery(adminUrl, `create database "${dbName}"`)
  setDropOnSignal(dbName)
  const url = new URL(adminUrl)
  url.pathname = `/${dbName}`
  process.stdout.write(`\nPostgres (${shownUrl}): seeding ${itemCount.toLocaleString('en')} items… `)
  server = spawnNode({
    args: ['bench/exports-server.ts', '--items', String(itemCount)],
    nodeArgs: ['--max-semi-space-size=8'],
    env: { BENCH_CHILD_DB_URL: url.toString(), MALLOC_ARENA_MAX: '2' },
    keepOutput: true,
  })
  const ready = await waitForReady<ExportsServerReady>(server)
  server.discardOutput()
  console.log(`ready (seed ${ready.seed.seedMs} ms)`)
  const base = `http://127.0.0.1:${ready.port}`
  const [name = '', value = ''] = ready.cookie.split(';')[0]?.split('=') ?? []

  for (const [screen, { path, shown }] of Object.entries(SCREENS)) {
    const timing = { firstVisitMs: [] as number[], cachedMs: [] as number[] }
    // One visit first, so the server's own first-request costs are not in the figures.
    for (let run = 0; run <= runs; run++) {
      // The probe that reads the time is a string evaluated in the page, which the page's policy forbids.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true })
      await context.addCookies([{ name, value, url: base }])
      const page = await context.newPage()
      await page.goto(`${base}${path}`, { waitUntil: 'commit' })
      const first = await shownAfter(page, shown)
      await page.reload({ waitUntil: 'commit' })
      const cached = await shownAfter(page, shown)
      await context.close()
      if (run === 0) continue
      timing.firstVisitMs.push(first)
      timing.cachedMs.push(cached)
    }
    results[screen] = timing
  }
} finally {
  await browser.close()
  if (server) await stopChild(server)
  await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
}

console.log(
  `\nNavigation to the screen shown, ${itemCount.toLocaleString('en')} items on Postgres, ${runs} runs (target: median ≤ ${TARGET_MS} ms):`,
)
const rows: (string | number)[][] = [['screen', 'visit', 'median ms', 'min ms', 'max ms', 'target']]
for (const [screen, timing] of Object.entries(results)) {
  for (const [visit, list] of [
    ['first (nothing cached)', timing.firstVisitMs],
    ['later (assets cached)', timing.cachedMs],
  ] as const) {
    const middle = median([...list])
    rows.push([
      screen,
      visit,
      middle,
      Math.min(...list),
      Math.max(...list),
      middle <= TARGET_MS ? 'met' : 'MISSED',
    ])
  }
}
console.log(table(rows))
const file = writeResults('admin-console', {
  machine: machine(),
  code: codeVersion(),
  items: itemCount,
  runs,
  weights,
  results,
})
console.log(`\nResults: ${file}`)
