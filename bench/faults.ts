/**
 * What clients see while Postgres or Redis fails, at full length and with the default timeouts
 * (test/faults.test.ts checks the same with short ones). Curio (`node src/main.ts start`, both services)
 * runs on a scratch Postgres database and on Redis, each behind a fault proxy of
 * test/helpers/fault-proxy.ts, under one load for the whole run: 4 writers creating platform works
 * (`POST /api/works`, a new one as soon as the last is answered, 50 ms after a refusal), one reader of the
 * directory's cached public list (`GET /api/items`, every 100 ms) and a `/readyz` probe of the platform
 * every 250 ms.
 *
 * Faults, each after 3 s of normal traffic and followed by its recovery: Postgres refused, Postgres reset
 * (every 200 ms for 5 s: connections cut mid-transaction), Postgres blackholed, Redis refused, Redis
 * blackholed (the Redis ones skipped when Redis does not answer). For each: the writes' answers, their
 * median and max time, 500s and requests without an answer within 15 s, /readyz's answers and the cause it
 * named, the public list's answers, and the time from the restore to the first acknowledged write and to
 * /readyz ready again. Then every acknowledged write is looked up in the database (directly, not through
 * the proxy), the process must still run, and SIGTERM stops it. Last, the 50-way same-name races of
 * `POST /api/works`, `POST /api/admin/items` and `POST /api/submit`, on this Postgres and on the embedded
 * database (`DATA_DIR=memory`).
 *
 * Exits 1 when a hard invariant breaks: a 500, a request without an answer, an acknowledged write not
 * stored, the process exiting, no recovery within 60 s, two creates given one slug.
 *
 * Scratch database `curio_bench_<random>` on BENCH_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres), dropped at the end and on Ctrl-C; Redis at BENCH_REDIS_URL
 * (default redis://127.0.0.1:6379), keys under a prefix of the run's own, deleted at the end.
 *
 *   npm run bench:faults [-- --outage-seconds 20]
 */

import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import pg from 'pg'
import { type FaultProxy, startFaultProxy } from '../test/helpers/fault-proxy.ts'
import { deleteRedisKeys } from '../test/helpers/redis-keys.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  checkWholeNumbers,
  codeVersion,
  directorySession,
  dropDatabaseOnSignal,
  dropScratchDatabase,
  isRunning,
  killChild,
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

const WRITERS = 4
const PAUSE_AFTER_REFUSAL_MS = 50
const READ_EVERY_MS = 100
const PROBE_EVERY_MS = 250
const NORMAL_TRAFFIC_MS = 3000
const RESET_EVERY_MS = 200
const RESETS_FOR_MS = 5000
/** A request still unanswered after this is a hang. */
const NO_ANSWER_MS = 15_000
const RECOVERY_LIMIT_MS = 60_000
const RACE_SIZE = 50
const ADMIN = { email: 'admin@faults-bench.example.com', password: 'fault-bench-admin' }
const PASSWORD = 'fault-bench-password'

const { values } = parseArgs({ options: { 'outage-seconds': { type: 'string' } }, strict: true })
const outageSeconds = Number(values['outage-seconds'] ?? 20)
checkWholeNumbers([['--outage-seconds', outageSeconds, 1]])

const { adminUrl, shownUrl } = benchDatabaseUrl()
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'
const setDropOnSignal = dropDatabaseOnSignal(adminUrl)

type Status = number | 'no answer' | 'connection failed'

interface Answer {
  /** performance.now() when the request was sent. */
  at: number
  ms: number
  status: Status
  code: string | undefined
  retryAfter: string | null
}

interface Reply extends Answer {
  body: Record<string, unknown>
}

interface Probe extends Answer {
  /** What /readyz said of the database: its detail, or its status when it gave none. */
  database: string
  redis: string | undefined
}

interface Curio {
  child: Child
  platform: string
  directory: string
  directoryPort: number
}

const isBroken = (answer: Answer) =>
  typeof answer.status !== 'number' || (answer.status >= 500 && answer.status !== 503)
const answeredAt = (answer: Answer) => answer.at + answer.ms

function parsed(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>
  } catch {
    return {}
  }
}

/** One request, timed; a request without an answer within NO_ANSWER_MS is recorded, never thrown. */
async function send(url: string, init: RequestInit = {}): Promise<Reply> {
  const at = performance.now()
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(NO_ANSWER_MS) })
    const body = parsed(await response.text())
    return {
      at,
      ms: performance.now() - at,
      status: response.status,
      code: typeof body.code === 'string' ? body.code : undefined,
      retryAfter: response.headers.get('retry-after'),
      body,
    }
  } catch (error) {
    const status = (error as Error).name === 'TimeoutError' ? 'no answer' : 'connection failed'
    return { at, ms: performance.now() - at, status, code: undefined, retryAfter: null, body: {} }
  }
}

const post = (body: object, headers: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
})
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const session = (curio: Curio, cookie: string) => ({ cookie, origin: curio.directory })

function answerOf({ at, ms, status, code, retryAfter }: Reply): Answer {
  return { at, ms, status, code, retryAfter }
}

function probeOf(reply: Reply): Probe {
  const checks = reply.body.checks as Record<string, { status: string; detail?: string }> | undefined
  const database = checks?.database
  return {
    ...answerOf(reply),
    database: database ? (database.detail ?? database.status) : String(reply.status),
    redis: checks?.redis?.status,
  }
}

// --- Curio and its links.

async function startCurioWith(env: Record<string, string>): Promise<Curio> {
  const ports = await pickPorts()
  const directory = `http://127.0.0.1:${ports.directoryPort}`
  const child = startCurio(
    ports,
    {
      ...env,
      APP_URL: directory,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      RATE_LIMIT_BYPASS_LOCALHOST: 'true',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    },
    { keepOutput: true },
  )
  const curio = {
    child,
    platform: `http://127.0.0.1:${ports.platformPort}`,
    directory,
    directoryPort: ports.directoryPort,
  }
  await waitFor200(child, [`${curio.platform}/readyz`, `${directory}/readyz`])
  return curio
}

async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  redis.on('error', () => {})
  try {
    await redis.connect()
    return (await redis.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    redis.disconnect()
  }
}

/** A platform account's access token. */
async function platformToken(curio: Curio, email: string): Promise<string> {
  const reply = await send(`${curio.platform}/api/auth/register`, post({ email, password: PASSWORD }, {}))
  if (typeof reply.body.accessToken !== 'string') {
    throw new Error(`platform register answered ${reply.status}: ${JSON.stringify(reply.body)}`)
  }
  return reply.body.accessToken
}

/** One published item, read once so the public list is in the instance's cache before any fault. */
async function publishCachedItem(curio: Curio) {
  const admin = await directorySession(curio.directoryPort, '/api/auth/signin', ADMIN)
  const item = await send(
    `${curio.directory}/api/admin/items`,
    post(
      { name: 'Cached Coffee', url: 'https://coffee.example.com', status: 'published' },
      session(curio, admin),
    ),
  )
  const list = await send(`${curio.directory}/api/items`)
  if (item.status !== 201 || list.status !== 200) {
    throw new Error(`item create ${item.status}, public list ${list.status}: ${JSON.stringify(item.body)}`)
  }
}

// --- The load.

interface Load {
  writes: Answer[]
  reads: Answer[]
  probes: Probe[]
  acknowledged: string[]
  stop(): Promise<void>
}

function startLoad(curio: Curio, token: string): Load {
  let running = true
  const writes: Answer[] = []
  const reads: Answer[] = []
  const probes: Probe[] = []
  const acknowledged: string[] = []

  const writer = async (n: number) => {
    for (let turn = 0; running; turn++) {
      const reply = await send(
        `${curio.platform}/api/works`,
        post({ name: `Load ${n}-${turn}` }, bearer(token)),
      )
      writes.push(answerOf(reply))
      if (reply.status === 201) acknowledged.push(reply.body.id as string)
      else await sleep(PAUSE_AFTER_REFUSAL_MS)
    }
  }
  const paced = async (everyMs: number, act: () => Promise<void>) => {
    while (running) {
      const started = performance.now()
      await act()
      await sleep(Math.max(0, everyMs - (performance.now() - started)))
    }
  }
  const loops = Promise.all([
    ...Array.from({ length: WRITERS }, (_, n) => writer(n + 1)),
    paced(READ_EVERY_MS, async () => {
      reads.push(answerOf(await send(`${curio.directory}/api/items`)))
    }),
    paced(PROBE_EVERY_MS, async () => {
      probes.push(probeOf(await send(`${curio.platform}/readyz`)))
    }),
  ])
  return {
    writes,
    reads,
    probes,
    acknowledged,
    stop: async () => {
      running = false
      await loops
    },
  }
}

// --- Faults.

type Link = 'postgres' | 'redis'

interface Fault {
  name: string
  link: Link
  /** Fails the link, then restores it: answers when the fault started and when it ended. */
  inflict(proxy: FaultProxy, outageMs: number): Promise<{ start: number; end: number }>
}

function outage(name: string, link: Link, begin: (proxy: FaultProxy) => Promise<void> | void): Fault {
  return {
    name,
    link,
    async inflict(proxy, outageMs) {
      const start = performance.now()
      await begin(proxy)
      await sleep(outageMs - (performance.now() - start))
      await proxy.restore()
      return { start, end: performance.now() }
    },
  }
}

const resets: Fault = {
  name: `Postgres reset every ${RESET_EVERY_MS} ms for ${RESETS_FOR_MS / 1000} s`,
  link: 'postgres',
  async inflict(proxy) {
    const start = performance.now()
    while (performance.now() - start < RESETS_FOR_MS) {
      proxy.reset()
      await sleep(RESET_EVERY_MS)
    }
    return { start, end: performance.now() }
  },
}

const FAULTS: Fault[] = [
  outage('Postgres refused', 'postgres', (proxy) => proxy.refuse()),
  resets,
  outage('Postgres blackholed', 'postgres', (proxy) => proxy.blackhole()),
  outage('Redis refused', 'redis', (proxy) => proxy.refuse()),
  outage('Redis blackholed', 'redis', (proxy) => proxy.blackhole()),
]

interface Recovery {
  /** From the restore to the answer of the first write acknowledged after it. */
  writeMs: number | null
  /** From the restore to the first /readyz ready after it (for Redis: its check `ok` again). */
  readyMs: number | null
}

async function recovery(load: Load, since: number, link: Link): Promise<Recovery> {
  const ready = (probe: Probe) => probe.status === 200 && (link === 'postgres' || probe.redis === 'ok')
  const deadline = since + RECOVERY_LIMIT_MS
  while (true) {
    const write = load.writes.find((answer) => answer.at >= since && answer.status === 201)
    const probe = load.probes.find((answer) => answer.at >= since && ready(answer))
    if ((write && probe) || performance.now() > deadline) {
      return {
        writeMs: write ? answeredAt(write) - since : null,
        readyMs: probe ? answeredAt(probe) - since : null,
      }
    }
    await sleep(50)
  }
}

interface Window {
  name: string
  link: Link
  start: number
  end: number
  /** Null for normal traffic. */
  back: Recovery | null
}

async function runFault(fault: Fault, proxy: FaultProxy, load: Load, outageMs: number): Promise<Window> {
  process.stdout.write(`${fault.name}… `)
  await sleep(NORMAL_TRAFFIC_MS)
  const { start, end } = await fault.inflict(proxy, outageMs)
  const back = await recovery(load, end, fault.link)
  process.stdout.write(`back after ${shownMs(back.writeMs)} (write), ${shownMs(back.readyMs)} (/readyz)\n`)
  return { name: fault.name, link: fault.link, start, end, back }
}

// --- What the clients saw.

function tally(list: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const key of list) counts[key] = (counts[key] ?? 0) + 1
  return counts
}

const tallyText = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .map(([key, count]) => `${key} ×${count.toLocaleString('en')}`)
    .join(', ') || '—'

function writeKey({ status, code, retryAfter }: Answer): string {
  const refused = typeof status === 'number' && status >= 400
  return [status, code, refused ? `Retry-After ${retryAfter ?? 'none'}` : undefined].filter(Boolean).join(' ')
}

const shownMs = (ms: number | null) =>
  ms === null ? `none within ${RECOVERY_LIMIT_MS / 1000} s` : `${round(ms)} ms`
const maxMs = (list: Answer[]) => (list.length ? round(Math.max(...list.map((answer) => answer.ms))) : 0)

interface WindowFigures {
  fault: string
  seconds: number
  writes: Record<string, number>
  writeMedianMs: number
  writeMaxMs: number
  /** 500s (any 5xx but 503) and requests without an answer, of every kind, until the recovery. */
  broken: number
  readyz: Record<string, number>
  readyzMaxMs: number
  readyzNamed: Record<string, number>
  publicList: Record<string, number>
  publicListMaxMs: number
  back: Recovery | null
}

function figuresOf(window: Window, load: Load): WindowFigures {
  const settled = window.end + Math.max(window.back?.writeMs ?? 0, window.back?.readyMs ?? 0)
  // During a fault: in flight at some moment of it (a request sent before may be answered by it).
  // Normal traffic: sent and answered within the window.
  const within = <T extends Answer>(list: T[], to: number) =>
    window.back
      ? list.filter((answer) => answer.at < to && answeredAt(answer) > window.start)
      : list.filter((answer) => answer.at >= window.start && answeredAt(answer) <= to)
  const writes = within(load.writes, window.end)
  const probes = within(load.probes, window.end)
  const reads = within(load.reads, window.end)
  const untilSettled = [load.writes, load.reads, load.probes].flatMap((list) => within(list, settled))
  const named = probes.map((probe) =>
    window.link === 'redis' ? `redis ${probe.redis ?? 'unchecked'}` : probe.database,
  )
  return {
    fault: window.name,
    seconds: round((window.end - window.start) / 1000, 1),
    writes: tally(writes.map(writeKey)),
    writeMedianMs: writes.length ? round(median(writes.map((answer) => answer.ms))) : 0,
    writeMaxMs: maxMs(writes),
    broken: untilSettled.filter(isBroken).length,
    readyz: tally(probes.map((probe) => String(probe.status))),
    readyzMaxMs: maxMs(probes),
    readyzNamed: tally(named),
    publicList: tally(reads.map((answer) => String(answer.status))),
    publicListMaxMs: maxMs(reads),
    back: window.back,
  }
}

async function storedOf(databaseUrl: string, ids: string[]): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl })
  client.on('error', () => {})
  await client.connect()
  try {
    const { rows } = await client.query<{ found: number }>(
      'select count(*)::int as found from platform.works where id = any($1)',
      [ids],
    )
    return rows[0]?.found ?? 0
  } finally {
    await client.end().catch(() => {})
  }
}

const LEVELS: Record<number, string> = { 40: 'warn', 50: 'error', 60: 'fatal' }

/** Log lines at warn and above by level and message, and the first few errors and fatal ones as printed. */
function logSummary(child: Child) {
  const lines: string[] = []
  const serious: string[] = []
  for (const { text } of child.output) {
    const { level, msg } = parsed(text)
    if (typeof level !== 'number' || !LEVELS[level]) continue
    lines.push(`${LEVELS[level]} "${msg}"`)
    if (level >= 50 && serious.length < 5) serious.push(text.slice(0, 400))
  }
  return { byMessage: tally(lines), serious }
}

// --- Same-name races.

interface RaceFigures {
  created: number
  slugs: number
  others: Record<string, number>
  maxMs: number
}

async function race(create: () => Promise<Reply>, slugOf: (body: Record<string, unknown>) => unknown) {
  const replies = await Promise.all(Array.from({ length: RACE_SIZE }, create))
  const created = replies.filter((reply) => reply.status === 201)
  return {
    created: created.length,
    slugs: new Set(created.map((reply) => slugOf(reply.body))).size,
    others: tally(replies.filter((reply) => reply.status !== 201).map(writeKey)),
    maxMs: maxMs(replies),
  }
}

const dataSlug = (body: Record<string, unknown>) => (body.data as { slug?: string } | undefined)?.slug

/** 50 creates of one name at once, without a slug: a work (one user), an admin item, a submission. */
async function races(curio: Curio): Promise<Record<string, RaceFigures>> {
  const tag = randomBytes(4).toString('hex')
  const token = await platformToken(curio, `race-${tag}@faults-bench.example.com`)
  const admin = await directorySession(curio.directoryPort, '/api/auth/signin', ADMIN)
  const visitor = await directorySession(
    curio.directoryPort,
    '/api/auth/register',
    { email: `visitor-${tag}@faults-bench.example.com`, password: PASSWORD, name: 'Race Visitor' },
    201,
  )
  return {
    'POST /api/works': await race(
      () => send(`${curio.platform}/api/works`, post({ name: 'Race Work' }, bearer(token))),
      (body) => body.slug,
    ),
    'POST /api/admin/items': await race(
      () => send(`${curio.directory}/api/admin/items`, post({ name: 'Race Item' }, session(curio, admin))),
      dataSlug,
    ),
    'POST /api/submit': await race(
      () =>
        send(
          `${curio.directory}/api/submit`,
          post({ name: 'Race Submission', url: 'https://race.example.com' }, session(curio, visitor)),
        ),
      dataSlug,
    ),
  }
}

async function embeddedRaces(): Promise<Record<string, RaceFigures>> {
  process.stdout.write('races on the embedded database (DATA_DIR=memory)… ')
  const curio = await startCurioWith({ DATA_DIR: 'memory' })
  try {
    return await races(curio)
  } finally {
    await stopChild(curio.child, 30_000)
    process.stdout.write('done\n')
  }
}

// --- The run.

interface FaultRunFigures {
  windows: WindowFigures[]
  /** 500s and requests without an answer over the whole run, faults or not. */
  brokenInRun: number
  acknowledged: number
  stored: number
  runningBeforeStop: boolean
  stop: { code: number | null; signal: string | null; ms: number; killed: boolean }
  logs: ReturnType<typeof logSummary>
  races: Record<string, RaceFigures>
}

/** The load through every fault, then what was stored, the races, and the stop of the process. */
async function faultRun(
  curio: Curio,
  proxies: Record<Link, FaultProxy | undefined>,
  databaseUrl: string,
): Promise<FaultRunFigures> {
  const token = await platformToken(curio, 'writer@faults-bench.example.com')
  await publishCachedItem(curio)
  const load = startLoad(curio, token)
  const windows: Window[] = []
  for (const fault of FAULTS) {
    const proxy = proxies[fault.link]
    if (proxy && isRunning(curio.child))
      windows.push(await runFault(fault, proxy, load, outageSeconds * 1000))
  }
  await sleep(NORMAL_TRAFFIC_MS)
  await load.stop()
  const first = windows[0]!
  const normal: Window = {
    name: `none (${NORMAL_TRAFFIC_MS / 1000} s before the first fault)`,
    link: 'postgres',
    start: first.start - NORMAL_TRAFFIC_MS,
    end: first.start,
    back: null,
  }
  const stored = await storedOf(databaseUrl, load.acknowledged)
  process.stdout.write('races on Postgres… ')
  const postgresRaces = isRunning(curio.child) ? await races(curio) : {}
  process.stdout.write('done\n')
  const runningBeforeStop = isRunning(curio.child)
  const stopped = await stopChild(curio.child, 30_000)
  return {
    windows: [normal, ...windows].map((window) => figuresOf(window, load)),
    brokenInRun: [load.writes, load.reads, load.probes].flat().filter(isBroken).length,
    acknowledged: load.acknowledged.length,
    stored,
    runningBeforeStop,
    stop: { code: stopped.code, signal: stopped.signal, ms: round(stopped.ms), killed: stopped.killed },
    logs: logSummary(curio.child),
    races: postgresRaces,
  }
}

function brokenInvariants(run: FaultRunFigures, embedded: Record<string, RaceFigures>): string[] {
  const broken: string[] = []
  if (run.brokenInRun > 0) broken.push(`${run.brokenInRun} answers were a 500 or never came`)
  for (const window of run.windows) {
    if (window.back && (window.back.writeMs === null || window.back.readyMs === null)) {
      broken.push(`${window.fault}: not recovered within ${RECOVERY_LIMIT_MS / 1000} s of the restore`)
    }
  }
  if (run.stored !== run.acknowledged) {
    broken.push(`${run.acknowledged - run.stored} acknowledged writes are not in the database`)
  }
  if (!run.runningBeforeStop) broken.push('Curio exited during the run')
  if (run.stop.code !== 0 || run.stop.killed) {
    broken.push(`SIGTERM: exit ${run.stop.code ?? run.stop.signal}${run.stop.killed ? ' (killed)' : ''}`)
  }
  const raced = [
    ['Postgres', run.races],
    ['embedded', embedded],
  ] as const
  for (const [database, results] of raced) {
    for (const [route, figures] of Object.entries(results)) {
      if (figures.slugs < figures.created) {
        broken.push(`${database} ${route}: ${figures.created} created with ${figures.slugs} slugs`)
      }
      const failed = Object.keys(figures.others).filter((key) => !/^[1-4]\d\d|^503/.test(key))
      if (failed.length > 0) broken.push(`${database} ${route}: ${failed.join(', ')}`)
    }
  }
  return broken
}

const recoveryCell = (back: Recovery | null, ms: keyof Recovery) => {
  if (!back) return '—'
  const value = back[ms]
  return value === null ? `none in ${RECOVERY_LIMIT_MS / 1000} s` : round(value)
}

function report(run: FaultRunFigures, embedded: Record<string, RaceFigures>) {
  console.log(
    `\nWrites (${WRITERS} writers, POST /api/works) in flight during each fault, and the time from the restore ` +
      'to the first acknowledged write and to /readyz ready (for Redis: its check ok again)',
  )
  console.log(
    table([
      ['fault', 's', 'writes answered', 'median ms', 'max ms', '500/hang', 'write back ms', 'ready ms'],
      ...run.windows.map((window) => [
        window.fault,
        window.seconds,
        tallyText(window.writes),
        window.writeMedianMs,
        window.writeMaxMs,
        window.broken,
        recoveryCell(window.back, 'writeMs'),
        recoveryCell(window.back, 'readyMs'),
      ]),
    ]),
  )
  console.log(
    `\n/readyz of the platform (every ${PROBE_EVERY_MS} ms) and the directory's cached public list ` +
      `(GET /api/items, every ${READ_EVERY_MS} ms) in flight during each fault`,
  )
  console.log(
    table([
      ['fault', '/readyz answers', 'max ms', '/readyz named', '/api/items answers', 'max ms'],
      ...run.windows.map((window) => [
        window.fault,
        tallyText(window.readyz),
        window.readyzMaxMs,
        tallyText(window.readyzNamed),
        tallyText(window.publicList),
        window.publicListMaxMs,
      ]),
    ]),
  )
  console.log('\nAfter the faults')
  console.log(
    table([
      ['check', 'result'],
      ['writes acknowledged / found in the database', `${run.acknowledged} / ${run.stored}`],
      ['500s or requests without an answer, whole run', run.brokenInRun],
      ['Curio still running after the faults', run.runningBeforeStop ? 'yes' : 'no'],
      [
        'SIGTERM',
        `exit ${run.stop.code ?? run.stop.signal} after ${run.stop.ms} ms${run.stop.killed ? ' (killed)' : ''}`,
      ],
    ]),
  )
  console.log("\nCurio's log lines at warn and above, by message")
  for (const [line, count] of Object.entries(run.logs.byMessage).sort(([, a], [, b]) => b - a)) {
    console.log(`${String(count).padStart(7)}  ${line}`)
  }
  for (const line of run.logs.serious) console.log(`  ${line}`)
  console.log(`\nSame-name races: ${RACE_SIZE} creates of one name at once, no slug`)
  console.log(
    table([
      [
        'route',
        'Postgres 201',
        'slugs',
        'other answers',
        'max ms',
        'embedded 201',
        'slugs',
        'other answers',
        'max ms',
      ],
      ...Object.keys(embedded).map((route) => {
        const onPostgres = run.races[route]
        const onEmbedded = embedded[route]!
        return [
          route,
          onPostgres?.created ?? '—',
          onPostgres?.slugs ?? '—',
          onPostgres ? tallyText(onPostgres.others) : '—',
          onPostgres?.maxMs ?? '—',
          onEmbedded.created,
          onEmbedded.slugs,
          tallyText(onEmbedded.others),
          onEmbedded.maxMs,
        ]
      }),
    ]),
  )
}

async function main() {
  const info = machine()
  const version = codeVersion()
  console.log(
    `faults benchmark: Curio on Postgres (${shownUrl}) and Redis (${redisUrl}) through fault proxies, ` +
      `default timeouts, ${outageSeconds} s outages`,
  )
  console.log(
    `node ${info.node}, ${info.cpus} × ${info.cpuModel}, ${info.totalMemMb} MB; load average at start ` +
      `${info.loadAverage.join(' / ')}; code ${version.head} (${version.uncommittedSrcFiles} files changed under src/)`,
  )
  try {
    await adminQuery(adminUrl, 'select 1')
  } catch (error) {
    console.error(
      `Postgres at ${shownUrl} does not answer (${(error as Error).message}): set BENCH_DATABASE_URL`,
    )
    process.exit(1)
  }
  const withRedis = await redisAnswers(redisUrl)
  if (!withRedis) console.log(`Redis at ${redisUrl} does not answer: the Redis faults are skipped`)

  const dbName = `curio_bench_${randomBytes(6).toString('hex')}`
  await adminQuery(adminUrl, `create database "${dbName}"`)
  setDropOnSignal(dbName)
  const url = new URL(adminUrl)
  url.pathname = `/${dbName}`
  const databaseUrl = url.toString()
  const redisKeyPrefix = `curio-bench-faults:${randomBytes(5).toString('hex')}:`
  const proxies: Record<Link, FaultProxy | undefined> = {
    postgres: await startFaultProxy(databaseUrl),
    redis: withRedis ? await startFaultProxy(redisUrl) : undefined,
  }
  let curio: Curio | undefined
  let run: FaultRunFigures
  let redisKeysDeleted: number | null = null
  try {
    curio = await startCurioWith({
      DATABASE_URL: proxies.postgres!.url,
      ...(proxies.redis ? { REDIS_URL: proxies.redis.url, REDIS_KEY_PREFIX: redisKeyPrefix } : {}),
    })
    run = await faultRun(curio, proxies, databaseUrl)
  } finally {
    await killChild(curio?.child)
    await proxies.postgres?.close()
    await proxies.redis?.close()
    if (withRedis) redisKeysDeleted = await deleteRedisKeys(redisUrl, redisKeyPrefix).catch(() => null)
    await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
  }
  const embedded = await embeddedRaces()

  report(run, embedded)
  const broken = brokenInvariants(run, embedded)
  const path = writeResults('faults', {
    when: new Date().toISOString(),
    machine: info,
    loadAverageAtEnd: loadavg().map((value) => round(value, 2)),
    code: version,
    database: shownUrl,
    redis: withRedis ? redisUrl : null,
    settings: {
      outageSeconds,
      writers: WRITERS,
      pauseAfterRefusalMs: PAUSE_AFTER_REFUSAL_MS,
      readEveryMs: READ_EVERY_MS,
      probeEveryMs: PROBE_EVERY_MS,
      normalTrafficMs: NORMAL_TRAFFIC_MS,
      resetEveryMs: RESET_EVERY_MS,
      resetsForMs: RESETS_FOR_MS,
      noAnswerMs: NO_ANSWER_MS,
      raceSize: RACE_SIZE,
      timeouts: 'defaults (DATABASE_CONNECT_TIMEOUT_MS and DATABASE_QUERY_TIMEOUT_MS unset)',
    },
    ...run,
    embeddedRaces: embedded,
    redisKeysDeleted,
    broken,
  })
  console.log(`\nwritten to ${path}`)
  if (broken.length > 0) {
    console.log(`\nBROKEN:\n${broken.map((line) => `  ${line}`).join('\n')}`)
    process.exitCode = 1
  }
}

await main()
