/**
 * The platform console's weight and speed:
 *
 * 1. Its initial JavaScript and CSS, gzipped (level 9, as the platform serves them): what the page loads
 *    before it shows the works list, and a work's page on its Items tab (the page's own script and style,
 *    the chunks they import, the screen's chunk and the tab's, each file counted once), from Vite's
 *    manifest of the build in dist/web/console. Target: at most 150 KB.
 * 2. In Chromium (/usr/bin/chromium, Playwright) against Curio started as `npm start` starts it (the
 *    embedded database in memory, or `--postgres` on BENCH_DATABASE_URL's server in a database of its own),
 *    whose OpenAI is the local stand-in: a user's work generated with `--items` (1,000) items. The time from
 *    navigation to the work's page showing its Items tab's first rows, read in the page (`performance.now()`
 *    from the navigation's start), for a signed-in user opening a link: each of `--runs` (10) in a new
 *    browser context that holds only the session's refresh token (a first visit: nothing cached), and again
 *    on a reload (the assets cached). Target: a median of at most 1 s.
 *
 *   npm run bench:platform-console [-- --items 1000] [-- --runs 10] [-- --postgres]
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { chromium, type Page } from 'playwright-core'
import { DEFAULT_FAKE_API_KEY, startOpenAiFake } from '../test/fakes/openai.ts'
import { consoleWeigher, printWeights } from './console-weight.ts'
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
  pickPorts,
  round,
  sleep,
  startCurio,
  stopChild,
  table,
  waitFor200,
  writeResults,
} from './lib.ts'

const TARGET_MS = 1000
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const PASSWORD = 'a good password'

const { values } = parseArgs({
  options: { items: { type: 'string' }, runs: { type: 'string' }, postgres: { type: 'boolean' } },
  strict: true,
})
const itemCount = Number(values.items ?? 1000)
const runs = Number(values.runs ?? 10)
checkWholeNumbers([
  ['--items', itemCount, 1],
  ['--runs', runs, 1],
])

// 1. Weight --------------------------------------------------------------------------------------------

const { weightOf } = consoleWeigher('console')
const weights = {
  'works list': weightOf(['screens/works.tsx']),
  'work page, Items tab': weightOf(['screens/work.tsx', 'screens/work/items.tsx']),
}
printWeights(weights)

// 2. Speed ---------------------------------------------------------------------------------------------

const openai = await startOpenAiFake()
let curio: Child | undefined
let dbName: string | undefined
const postgres = values.postgres ? benchDatabaseUrl() : undefined
const setDropOnSignal = postgres ? dropDatabaseOnSignal(postgres.adminUrl) : () => {}
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
})

/** Milliseconds from the navigation's start until the Items tab shows its first rows, read in the page. */
async function shownAfter(page: Page): Promise<number> {
  const handle = await page.waitForFunction(
    `document.querySelectorAll('[role="tabpanel"] table[aria-busy="false"] tbody tr').length >= 25 && performance.now()`,
    undefined,
    { polling: 'raf', timeout: 30_000 },
  )
  return round((await handle.jsonValue()) as number, 1)
}

const timing = { firstVisitMs: [] as number[], cachedMs: [] as number[] }
let backend = 'embedded (in memory)'
try {
  const env: Record<string, string> = {
    DATA_DIR: 'memory',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_BYPASS_LOCALHOST: 'true',
    OPENAI_API_URL: openai.url,
    GENERATION_MAX_ITEMS: String(itemCount),
  }
  if (postgres) {
    dbName = `curio_bench_${randomBytes(6).toString('hex')}`
    await adminQuery(postgres.adminUrl, `create database "${dbName}"`)
    setDropOnSignal(dbName)
    const url = new URL(postgres.adminUrl)
    url.pathname = `/${dbName}`
    env.DATABASE_URL = url.toString()
    backend = `Postgres (${postgres.shownUrl})`
  }
  const ports = await pickPorts()
  curio = startCurio(ports, env, { service: 'platform', keepOutput: true })
  const base = `http://127.0.0.1:${ports.platformPort}`
  await waitFor200(curio, [`${base}/readyz`])
  curio.discardOutput()

  const call = async <T>(method: string, path: string, body?: unknown, token?: string): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }
  process.stdout.write(`\n${backend}: generating a work of ${itemCount.toLocaleString('en')} items… `)
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`
  const { accessToken } = await call<{ accessToken: string }>('POST', '/api/auth/register', {
    email,
    password: PASSWORD,
  })
  await call(
    'POST',
    '/api/plugins/openai/enable',
    { secretSettings: { apiKey: DEFAULT_FAKE_API_KEY } },
    accessToken,
  )
  const work = await call<{ id: string }>('POST', '/api/works', { name: 'Coffee roasters' }, accessToken)
  openai.next({ items: itemCount })
  await call('POST', `/api/works/${work.id}/generate`, {}, accessToken)
  for (;;) {
    const state = await call<{ generateStatus: { status: string; itemsCount: number } }>(
      'GET',
      `/api/works/${work.id}`,
      undefined,
      accessToken,
    )
    if (state.generateStatus.status === 'COMPLETED') {
      console.log(`${state.generateStatus.itemsCount} items`)
      break
    }
    if (['ERROR', 'CANCELLED'].includes(state.generateStatus.status)) throw new Error(JSON.stringify(state))
    await sleep(100)
  }

  // One visit first, so the server's own first-request costs are not in the figures.
  for (let run = 0; run <= runs; run++) {
    // A session as a reload finds it: only the refresh token, in the console's storage.
    const { refreshToken } = await call<{ refreshToken: string }>('POST', '/api/auth/login', {
      email,
      password: PASSWORD,
    })
    // The probe that reads the time is a string evaluated in the page, which the page's policy forbids.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true })
    await context.addInitScript(
      `if (!localStorage.getItem('curio.console.refreshToken')) localStorage.setItem('curio.console.refreshToken', ${JSON.stringify(refreshToken)})`,
    )
    const page = await context.newPage()
    await page.goto(`${base}/console/works/${work.id}`, { waitUntil: 'commit' })
    const first = await shownAfter(page)
    await page.reload({ waitUntil: 'commit' })
    const cached = await shownAfter(page)
    await context.close()
    if (run === 0) continue
    timing.firstVisitMs.push(first)
    timing.cachedMs.push(cached)
  }
} finally {
  await browser.close()
  if (curio) await stopChild(curio)
  await openai.close()
  if (postgres && dbName) {
    await dropScratchDatabase(postgres.adminUrl, dbName, setDropOnSignal)
  }
}

const firstMedian = round(median(timing.firstVisitMs), 1)
const cachedMedian = round(median(timing.cachedMs), 1)
console.log(
  `\nNavigation to a work's page with ${itemCount.toLocaleString('en')} items, median of ${runs} (target ≤ ${TARGET_MS} ms):`,
)
console.log(
  table([
    ['visit', 'median ms', 'min ms', 'max ms', 'target'],
    [
      'first (nothing cached)',
      firstMedian,
      Math.min(...timing.firstVisitMs),
      Math.max(...timing.firstVisitMs),
      firstMedian <= TARGET_MS ? 'met' : 'MISSED',
    ],
    [
      'reload (assets cached)',
      cachedMedian,
      Math.min(...timing.cachedMs),
      Math.max(...timing.cachedMs),
      cachedMedian <= TARGET_MS ? 'met' : 'MISSED',
    ],
  ]),
)
const file = writeResults('platform-console', {
  machine: machine(),
  code: codeVersion(),
  backend,
  items: itemCount,
  runs,
  weights,
  timing,
})
console.log(`\nResults: ${file}`)
