/**
 * Shared helpers of the benchmarks: free ports, spawning the real CLI, polling readiness, stopping
 * children, small tables and the JSON summaries in bench/results/.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import type { Result } from 'autocannon'
import pg from 'pg'
import type { JobDefinition, Jobs } from '../src/jobs/index.ts'

export const REPO_ROOT = resolve(import.meta.dirname, '..')
export const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results')

/** Settings that would take Curio away from the embedded database or change what is measured. */
const STRIPPED_ENV = [
  'DATABASE_URL',
  'PLATFORM_DATABASE_URL',
  'DIRECTORY_DATABASE_URL',
  'REDIS_URL',
  'ADMIN_EMAIL',
  'ADMIN_PASSWORD',
  'NODE_OPTIONS',
]

/** Children still alive: killed when the bench process exits, however it exits. */
const live = new Set<ChildProcess>()
let exitHooked = false
function hookExit() {
  if (exitHooked) return
  exitHooked = true
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL')
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the benchmark\n`)
      process.exit(130)
    })
  }
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms))

/** A port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer()
    server.unref()
    server.on('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => done(port))
    })
  })
}

export interface OutputLine {
  /** Milliseconds since the child was spawned. */
  atMs: number
  stream: 'stdout' | 'stderr'
  text: string
}

export interface Child {
  process: ChildProcess
  pid: number
  /** performance.now() just before spawn. */
  spawnedAt: number
  /** Every line the child printed, with its time (kept only when `keepOutput`). */
  output: OutputLine[]
  /** Last lines printed, whatever `keepOutput` says: for error messages. */
  tail(): string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Stops looking at the output: it is still drained (read and thrown away) so the child never blocks. */
  discardOutput(): void
}

export interface SpawnOptions {
  args: string[]
  env?: Record<string, string>
  /** Record every output line with its time (start-up breakdown); otherwise output is drained. */
  keepOutput?: boolean
  nodeArgs?: string[]
  /** Folder the child runs in (another checkout, for instance); the repository root by default. */
  cwd?: string
  /** Runs the child (and every thread it starts) on this CPU only, through `taskset`. */
  cpu?: number
}

/** Spawns `node <args>` from the repository root (or `cwd`), stdout and stderr piped and always drained. */
export function spawnNode({
  args,
  env = {},
  keepOutput = false,
  nodeArgs = [],
  cwd = REPO_ROOT,
  cpu,
}: SpawnOptions): Child {
  const childEnv: Record<string, string | undefined> = { ...process.env }
  for (const name of STRIPPED_ENV) delete childEnv[name]
  Object.assign(childEnv, env)
  const spawnedAt = performance.now()
  // BENCH_CPU_PROF=<dir>: every server child writes a V8 CPU profile there when it exits.
  const profile = process.env.BENCH_CPU_PROF
  const profileArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []
  const command = [process.execPath, ...profileArgs, ...nodeArgs, ...args]
  // taskset runs node in its own process (exec): the pid is the server's.
  const pinned = cpu === undefined ? command : ['taskset', '--cpu-list', String(cpu), ...command]
  const child = spawn(pinned[0]!, pinned.slice(1), {
    cwd,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  hookExit()
  live.add(child)
  child.once('exit', () => live.delete(child))
  const output: OutputLine[] = []
  const recent: string[] = []
  const listeners: (() => void)[] = []
  const collect = (stream: 'stdout' | 'stderr') => {
    let pending = ''
    const source = child[stream]!
    source.setEncoding('utf8')
    const onData = (chunk: string) => {
      const atMs = performance.now() - spawnedAt
      const lines = (pending + chunk).split('\n')
      pending = lines.pop() ?? ''
      for (const text of lines) {
        if (keepOutput) output.push({ atMs, stream, text })
        recent.push(text)
        if (recent.length > 40) recent.shift()
      }
    }
    source.on('data', onData)
    source.resume()
    listeners.push(() => {
      source.off('data', onData)
      source.resume()
    })
  }
  collect('stdout')
  collect('stderr')
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => done({ code, signal }))
  })
  // Spawn failures surface as 'error'; 'exit' may not follow, so resolve from here too.
  child.once('error', () => {})
  if (child.pid === undefined) throw new Error(`could not spawn ${pinned[0]}`)
  return {
    process: child,
    pid: child.pid,
    spawnedAt,
    output,
    tail: () => recent.join('\n'),
    exited,
    discardOutput: () => {
      for (const stop of listeners.splice(0)) stop()
    },
  }
}

/**
 * Where a load test runs when the machine has two CPUs or more and `taskset`: the load generator (this
 * process) on CPU 0 and the server under test on CPU 1, so that neither takes the other's core and a
 * server's throughput is what one core gives it. Undefined (nothing pinned) otherwise.
 */
export function pinLoadAndServer(): { loadCpu: number; serverCpu: number } | undefined {
  if (availableParallelism() < 2) return undefined
  const pinned = spawnSync('taskset', ['--all-tasks', '--cpu-list', '--pid', '0', String(process.pid)], {
    stdio: 'ignore',
  })
  return pinned.status === 0 ? { loadCpu: 0, serverCpu: 1 } : undefined
}

export function isRunning(child: Child): boolean {
  return child.process.exitCode === null && child.process.signalCode === null
}

export interface CurioPorts {
  platformPort: number
  directoryPort: number
}

/**
 * `node src/cli.mjs start` (what `npm start` runs) with the given ports and settings (of the checkout in
 * `options.cwd`, if given); both services, or the one `options.service` names.
 */
export function startCurio(
  ports: CurioPorts,
  env: Record<string, string>,
  { service, ...options }: Omit<SpawnOptions, 'args' | 'env'> & { service?: 'platform' | 'directory' } = {},
): Child {
  // A checkout from before src/cli.mjs (a bench's --before ref) started with `node src/main.ts start`.
  const entry = existsSync(join(options.cwd ?? REPO_ROOT, 'src', 'cli.mjs')) ? 'src/cli.mjs' : 'src/main.ts'
  return spawnNode({
    ...options,
    args: [entry, 'start', ...(service ? [service] : [])],
    env: {
      PLATFORM_PORT: String(ports.platformPort),
      DIRECTORY_PORT: String(ports.directoryPort),
      HOST: '127.0.0.1',
      ...env,
    },
  })
}

export async function pickPorts(): Promise<CurioPorts> {
  const platformPort = await freePort()
  let directoryPort = await freePort()
  while (directoryPort === platformPort) directoryPort = await freePort()
  return { platformPort, directoryPort }
}

async function answers200(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) })
    await response.arrayBuffer()
    return response.status === 200
  } catch {
    return false
  }
}

/**
 * Polls every `intervalMs` until every URL answers 200; returns performance.now() at that moment.
 * Throws when the child exits first or the deadline passes.
 */
export async function waitFor200(
  child: Child,
  urls: string[],
  { intervalMs = 25, timeoutMs = 120_000 } = {},
): Promise<number> {
  const deadline = performance.now() + timeoutMs
  const pending = new Set(urls)
  while (true) {
    if (!isRunning(child)) {
      throw new Error(
        `child ${child.pid} exited (code ${child.process.exitCode}, signal ${child.process.signalCode}) ` +
          `before ${[...pending].join(', ')} answered 200. Last output:\n${child.tail()}`,
      )
    }
    const results = await Promise.all([...pending].map(async (url) => [url, await answers200(url)] as const))
    for (const [url, ok] of results) if (ok) pending.delete(url)
    if (pending.size === 0) return performance.now()
    if (performance.now() > deadline) {
      throw new Error(
        `${[...pending].join(', ')} not 200 after ${timeoutMs} ms. Last output:\n${child.tail()}`,
      )
    }
    await sleep(intervalMs)
  }
}

export interface StopResult {
  code: number | null
  signal: NodeJS.Signals | null
  /** From SIGTERM to the exit event. */
  ms: number
  /** True when SIGTERM was not enough and the child had to be killed. */
  killed: boolean
}

/** SIGTERM, then waits for the exit (SIGKILL after `graceMs`). */
export async function stopChild(child: Child, graceMs = 20_000): Promise<StopResult> {
  const startedAt = performance.now()
  if (!isRunning(child)) {
    const { code, signal } = await child.exited
    return { code, signal, ms: 0, killed: false }
  }
  child.process.kill('SIGTERM')
  let killed = false
  const timer = setTimeout(() => {
    killed = true
    child.process.kill('SIGKILL')
  }, graceMs)
  const { code, signal } = await child.exited
  clearTimeout(timer)
  return { code, signal, ms: performance.now() - startedAt, killed }
}

/** For finally blocks: makes sure the child is gone, whatever state it is in. */
export async function killChild(child: Child | undefined): Promise<void> {
  if (!child || !isRunning(child)) return
  child.process.kill('SIGKILL')
  await child.exited
}

/** Resident set size and its peak of a live process, in MB (Linux /proc); null elsewhere. */
export function memoryOf(pid: number): { rssMb: number; peakRssMb: number } | null {
  let status: string
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return null
  }
  const kb = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)
    return match ? Number(match[1]) / 1024 : Number.NaN
  }
  return { rssMb: kb('VmRSS'), peakRssMb: kb('VmHWM') }
}

/**
 * CPU time (user + system) a live process has used so far, in ms (Linux /proc, 100 ticks a second);
 * null elsewhere. Far below the wall time means the process waited (I/O, or other work on the machine).
 * `withEndedChildren` adds what its children that ended and were waited for used (a cluster's preparing
 * worker, for instance).
 */
export function cpuMsOf(pid: number, { withEndedChildren = false } = {}): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // After the command: state is field 3, utime 14, stime 15, cutime 16, cstime 17 (1-based over the line).
    const ticks = Number(fields[11]) + Number(fields[12])
    return (withEndedChildren ? ticks + Number(fields[13]) + Number(fields[14]) : ticks) * 10
  } catch {
    return null
  }
}

/** The live processes whose parent is `pid`, lowest pid first (Linux /proc): a cluster primary's workers. */
export function childrenOf(pid: number): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  const children: number[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // After the command: state, then the parent's pid.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry))
    } catch {
      // Gone meanwhile.
    }
  }
  return children.sort((a, b) => a - b)
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export const round = (value: number, digits = 0) => {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}

/** What one autocannon run showed, as every bench records it: throughput, latency, how requests ended. */
export interface LoadFigures {
  requestsPerSec: number
  latencyAvgMs: number
  latencyP50Ms: number
  latencyP99Ms: number
  latencyMaxMs: number
  total: number
  non2xx: number
  errors: number
  timeouts: number
  statusCodes: Record<string, number>
}

export function loadFigures(result: Result): LoadFigures {
  return {
    requestsPerSec: round(result.requests.average),
    latencyAvgMs: round(result.latency.average, 2),
    latencyP50Ms: round(result.latency.p50, 2),
    latencyP99Ms: round(result.latency.p99, 2),
    latencyMaxMs: round(result.latency.max, 2),
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]),
    ),
  }
}

/** A plain-text table: first row is the header; numbers align right. */
export function table(rows: (string | number)[][]): string {
  const cells = rows.map((row) => row.map(String))
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)))
  const line = (row: string[], original: (string | number)[]) =>
    row
      .map((cell, column) =>
        typeof original[column] === 'number' ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd()
  const out = [line(cells[0]!, rows[0]!), widths.map((width) => '-'.repeat(width)).join('  ')]
  for (let index = 1; index < cells.length; index++) out.push(line(cells[index]!, rows[index]!))
  return out.join('\n')
}

export function machine() {
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    totalMemMb: round(totalmem() / 1024 / 1024),
    loadAverage: loadavg().map((value) => round(value, 2)),
  }
}

/** Writes bench/results/<name>.json and returns its path. */
export function writeResults(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true })
  const path = join(RESULTS_DIR, `${name}.json`)
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`)
  return path
}

/** Runs one statement on the Postgres server as the admin connection (create or drop a database). */
export async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 })
  client.on('error', () => {})
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end().catch(() => {})
  }
}

/** For Ctrl-C, when nothing asynchronous runs any more: drops the database from a short child process. */
export function dropDatabaseSync(adminUrl: string, name: string) {
  const script =
    "import pg from 'pg'; const c = new pg.Client({ connectionString: process.env.ADMIN_URL }); " +
    "await c.connect(); await c.query('drop database if exists \"' + process.env.DB_NAME + '\" with (force)'); " +
    'await c.end()'
  spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ADMIN_URL: adminUrl, DB_NAME: name },
    stdio: 'ignore',
    timeout: 15_000,
  })
}

/**
 * Drops the bench's database when the run is interrupted (SIGINT, SIGTERM), then exits 130. Answers the
 * setter of the database to drop: the name once created, undefined once dropped.
 */
export function dropDatabaseOnSignal(adminUrl: string): (name: string | undefined) => void {
  let current: string | undefined
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (current) {
        process.stderr.write(`\n${signal}: dropping database ${current}\n`)
        dropDatabaseSync(adminUrl, current)
      }
      process.exit(130)
    })
  }
  return (name) => {
    current = name
  }
}

/** Drops a bench's scratch database at the end of its run (saying so if it cannot), and stops guarding it. */
export async function dropScratchDatabase(
  adminUrl: string,
  name: string,
  setDropOnSignal: (name: string | undefined) => void,
): Promise<void> {
  await adminQuery(adminUrl, `drop database if exists "${name}" with (force)`).catch((error: unknown) => {
    console.error(`could not drop database ${name}: ${(error as Error).message}`)
  })
  setDropOnSignal(undefined)
}

/** What was measured: the commit, and files changed under src/ since (another engineer may be editing). */
export function codeVersion() {
  const git = (...args: string[]) =>
    spawnSync('git', ['-C', REPO_ROOT, ...args], { encoding: 'utf8' }).stdout?.trim() ?? ''
  const changed = git('status', '--porcelain', '--', 'src')
  return {
    head: git('rev-parse', '--short', 'HEAD'),
    uncommittedSrcFiles: changed ? changed.split('\n').length : 0,
  }
}

/** Headers that describe the connection or the framing, not the answer: node sets its own. */
export const HOP_BY_HOP = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
])

export interface Recorded {
  status: number
  /** Every header as sent, lower-cased names, repeated ones as arrays. */
  headers: Record<string, string | string[]>
  body: Buffer
}

/** GET `url` on a connection of its own and keep the whole answer: status, every header, body bytes. */
export function getRecorded(url: string, headers: Record<string, string> = {}): Promise<Recorded> {
  return new Promise((done, fail) => {
    const req = request(url, { method: 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', fail)
      res.on('end', () => {
        const answerHeaders: Record<string, string | string[]> = {}
        for (const [name, value] of Object.entries(res.headersDistinct)) {
          if (value) answerHeaders[name] = value.length === 1 ? value[0]! : value
        }
        done({ status: res.statusCode ?? 0, headers: answerHeaders, body: Buffer.concat(chunks) })
      })
    })
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${url} timed out`)))
    req.on('error', fail)
    req.end()
  })
}

export function withoutHopByHop(
  headers: Record<string, string | string[]>,
): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)))
}

/** What differs between two answers, ignoring hop-by-hop headers; empty when identical. */
export function differences(a: Recorded, b: Recorded): string[] {
  const out: string[] = []
  if (a.status !== b.status) out.push(`status ${a.status} vs ${b.status}`)
  if (!a.body.equals(b.body)) out.push('body bytes differ')
  const ha = withoutHopByHop(a.headers)
  const hb = withoutHopByHop(b.headers)
  for (const name of new Set([...Object.keys(ha), ...Object.keys(hb)])) {
    if (JSON.stringify(ha[name]) !== JSON.stringify(hb[name])) out.push(`header ${name} differs`)
  }
  return out
}

/** The options every load benchmark takes, for `parseArgs`. */
export const LOAD_OPTIONS = {
  duration: { type: 'string' },
  warmup: { type: 'string' },
  connections: { type: 'string' },
} as const

/** Fails unless each value is a whole number at least its minimum, naming the option. */
export function checkWholeNumbers(checks: readonly (readonly [string, number, number])[]): void {
  for (const [name, value, min] of checks) {
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number >= ${min}`)
  }
}

/** `--duration` and `--warmup` (seconds) and `--connections`, checked, with the benchmark's defaults. */
export function loadSettings(
  values: { duration?: string | undefined; warmup?: string | undefined; connections?: string | undefined },
  defaults: { duration?: number; warmup?: number; connections: number },
): { duration: number; warmup: number; connections: number } {
  const duration = Number(values.duration ?? defaults.duration ?? 10)
  const warmup = Number(values.warmup ?? defaults.warmup ?? 2)
  const connections = Number(values.connections ?? defaults.connections)
  checkWholeNumbers([
    ['--duration', duration, 1],
    ['--warmup', warmup, 0],
    ['--connections', connections, 1],
  ])
  return { duration, warmup, connections }
}

/**
 * `jobs` with the definition of queue `name` replaced by `wrap`'s (to time or hold back its handler), and
 * `onSend` told of every job sent; everything else passes through.
 */
export function wrappedQueue(
  jobs: Jobs,
  name: string,
  wrap: (definition: JobDefinition) => JobDefinition,
  onSend?: (name: string, data: object, options: Parameters<Jobs['send']>[2]) => void,
): Jobs {
  return {
    get boss() {
      return jobs.boss
    },
    get started() {
      return jobs.started
    },
    define: (definition) =>
      jobs.define(definition.name === name ? wrap(definition as unknown as JobDefinition) : definition),
    wakeOn: (notifications) => jobs.wakeOn(notifications),
    start: () => jobs.start(),
    stop: (timeoutMs) => jobs.stop(timeoutMs),
    send: (queue, data, options) => {
      onSend?.(queue, data, options)
      return jobs.send(queue, data, options)
    },
  }
}

/** The Postgres a bench makes its databases on (`BENCH_DATABASE_URL`), and the same URL fit to print. */
export function benchDatabaseUrl(): { adminUrl: string; shownUrl: string } {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const url = new URL(adminUrl)
  if (url.password) url.password = '***'
  return { adminUrl, shownUrl: url.toString() }
}

/**
 * Waits for a server child's JSON line on stdout (`{"port", …}`; seeding takes a while); throws if the
 * child exits first or stays silent past `timeoutMs`.
 */
export async function waitForReady<T>(child: Child, timeoutMs = 30 * 60_000): Promise<T> {
  const deadline = performance.now() + timeoutMs
  while (true) {
    for (const line of child.output) {
      if (line.stream !== 'stdout' || !line.text.startsWith('{"port"')) continue
      return JSON.parse(line.text) as T
    }
    if (!isRunning(child)) {
      throw new Error(
        `server ${child.pid} exited (code ${child.process.exitCode}, signal ${child.process.signalCode}) ` +
          `before it was ready. Last output:\n${child.tail()}`,
      )
    }
    if (performance.now() > deadline)
      throw new Error(`server not ready after ${timeoutMs} ms:\n${child.tail()}`)
    await sleep(100)
  }
}

/**
 * CPU of a database's backends (Curio's pool and its LISTEN connection), read from /proc: what Postgres
 * spends per request. Null where /proc cannot be read.
 */
export function postgresCpu(monitor: pg.Client, dbName: string) {
  return async (): Promise<Map<number, number> | null> => {
    const { rows } = await monitor.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = $1',
      [dbName],
    )
    const out = new Map<number, number>()
    for (const { pid } of rows) {
      const ms = cpuMsOf(pid)
      if (ms === null) return null
      out.set(pid, ms)
    }
    return out
  }
}

/** The CPU the backends spent between two `postgresCpu` readings, in ms. */
export function cpuBetween(before: Map<number, number> | null, after: Map<number, number> | null) {
  if (!before || !after) return null
  let total = 0
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0)
  return total
}

/** Starts a bench's app on a free port of 127.0.0.1 and answers the port. */
export async function listenLocally(app: {
  listen(options: { host: string; port: number }): Promise<unknown>
  server: { address(): unknown }
}): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  return typeof address === 'object' && address ? (address as { port: number }).port : 0
}

/**
 * A directory session opened through the API (`/api/auth/signin` or `/api/auth/register`): answers the
 * `curio_session=…` cookie, or throws with the answer when it is not `status` with a cookie.
 */
export async function directorySession(
  port: number,
  path: string,
  body: object,
  status = 200,
): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const session = response.headers.getSetCookie().find((line) => line.startsWith('curio_session='))
  if (response.status !== status || !session) {
    throw new Error(`${path} answered ${response.status}: ${await response.text()}`)
  }
  return session.split(';')[0]!
}

/** On the first SIGTERM or SIGINT, runs each closer in turn (their failures ignored), then exits 0. */
export function exitOnSignal(...closers: (() => Promise<unknown>)[]) {
  let stopping = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      void (async () => {
        for (const close of closers) await close().catch(() => {})
        process.exit(0)
      })()
    })
  }
}
