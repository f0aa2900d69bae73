/**
 * What the real services cost per request against a bare node:http server answering the same bytes.
 *
 * For LOG_LEVEL=info (the default) and LOG_LEVEL=warn in turn: starts `node src/main.ts start` with
 * DATA_DIR=memory (its output piped and drained), puts FEATURED_ENTRIES entries on the directory's
 * featured shelf through the admin API, records GET /healthz (platform), GET /api/current-user
 * (directory, anonymous) and GET /api/featured-items (directory, public), and starts
 * bench/bare-server.ts in another child answering those exact bytes and headers. Each path is then
 * loaded bare, real, real, bare (2 s warm-up, then the run), so drift of the shared machine falls on
 * both servers alike; each server's figures are the mean of its two runs, and its CPU per request is
 * read from /proc (user + system) over its measured runs. On a machine of two CPUs or more, autocannon
 * (this process) runs on CPU 0 and each server on CPU 1 (taskset), so that neither takes the other's core
 * and each server is measured on one core of its own. On a shared virtual machine the figures still move
 * between runs (the bare server alone by a quarter): compare within a run.
 *
 *   npm run bench:http [-- --duration 10] [-- --warmup 2] [-- --connections 50] [-- --log-level info]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import type { BareRoute } from './bare-server.ts'
import {
  type Child,
  cpuMsOf,
  differences,
  directorySession,
  freePort,
  getRecorded,
  killChild,
  LOAD_OPTIONS,
  loadFigures,
  loadSettings,
  machine,
  pickPorts,
  pinLoadAndServer,
  type Recorded,
  round,
  spawnNode,
  startCurio,
  stopChild,
  table,
  waitFor200,
  withoutHopByHop,
  writeResults,
} from './lib.ts'

const TARGET_RATIO = 0.7
const ADMIN_EMAIL = 'bench-admin@example.test'
const ADMIN_PASSWORD = 'bench-admin-password'
/** The shelf's default `limit` is 6: a full default shelf. */
const FEATURED_ENTRIES = 6

const { values } = parseArgs({
  options: { ...LOAD_OPTIONS, 'log-level': { type: 'string' } },
  strict: true,
})
const { duration, warmup, connections } = loadSettings(values, { connections: 50 })

const LOG_LEVELS = ['info', 'warn'] as const
type LogLevel = (typeof LOG_LEVELS)[number]
const logLevels = values['log-level'] ? [values['log-level'] as LogLevel] : LOG_LEVELS
for (const level of logLevels) {
  if (!LOG_LEVELS.includes(level)) throw new Error(`--log-level must be one of ${LOG_LEVELS.join(', ')}`)
}

type Server = 'bare' | 'real'
/** Each path's runs in turn: the mean of each server's two has the same drift in it. */
const ORDER: readonly Server[] = ['bare', 'real', 'real', 'bare']

interface Run {
  server: Server
  requestsPerSec: number
  latencyP50Ms: number
  latencyP99Ms: number
  total: number
  non2xx: number
  errors: number
  cpuMs: number | null
}

/** One server on one path: the mean of its runs, and its CPU over all of them per request. */
interface Summary {
  requestsPerSec: number
  latencyP50Ms: number
  latencyP99Ms: number
  cpuUsPerRequest: number | null
  runs: Run[]
}

const mean = (numbers: number[]) => numbers.reduce((sum, value) => sum + value, 0) / numbers.length

function summary(runs: Run[]): Summary {
  const total = runs.reduce((sum, run) => sum + run.total, 0)
  const cpu = runs.every((run) => run.cpuMs !== null) ? runs.reduce((sum, run) => sum + run.cpuMs!, 0) : null
  return {
    requestsPerSec: round(mean(runs.map((run) => run.requestsPerSec))),
    latencyP50Ms: round(mean(runs.map((run) => run.latencyP50Ms)), 2),
    latencyP99Ms: round(mean(runs.map((run) => run.latencyP99Ms)), 2),
    cpuUsPerRequest: cpu === null || total === 0 ? null : round((cpu * 1000) / total, 1),
    runs,
  }
}

/** Warm-up, then the measured run, with the server's CPU over the measured part. */
async function measure(server: Server, url: string, pid: number): Promise<Run> {
  if (warmup > 0) await autocannon({ url, connections, duration: warmup })
  const cpuBefore = cpuMsOf(pid)
  const result: Result = await autocannon({ url, connections, duration })
  const cpuAfter = cpuMsOf(pid)
  const figures = loadFigures(result)
  return {
    server,
    requestsPerSec: figures.requestsPerSec,
    latencyP50Ms: figures.latencyP50Ms,
    latencyP99Ms: figures.latencyP99Ms,
    total: figures.total,
    non2xx: figures.non2xx,
    errors: figures.errors + figures.timeouts,
    cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
  }
}

/** Signs in as the bench's admin and puts FEATURED_ENTRIES entries on the shelf, through the admin API. */
async function featureItems(directoryPort: number): Promise<void> {
  const cookie = await directorySession(directoryPort, '/api/auth/signin', {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
  })
  const origin = `http://127.0.0.1:${directoryPort}`
  for (let index = 1; index <= FEATURED_ENTRIES; index++) {
    const slug = `featured-tool-${index}`
    const response = await fetch(`${origin}/api/admin/featured-items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, origin },
      body: JSON.stringify({
        itemSlug: slug,
        itemName: `Featured tool ${index}`,
        itemDescription: `The ${index}th tool on the shelf: what it does, for whom, and why it is featured.`,
        itemIconUrl: `https://cdn.example.com/icons/${slug}.png`,
        itemImageUrl: `https://cdn.example.com/images/${slug}.jpg`,
        featuredOrder: FEATURED_ENTRIES - index,
      }),
    })
    if (response.status !== 201) {
      throw new Error(`POST /api/admin/featured-items answered ${response.status}: ${await response.text()}`)
    }
  }
}

interface PathResult {
  path: string
  bare: Summary
  real: Summary
  ratio: number
  withinTarget: boolean
}

interface VariantResult {
  logLevel: LogLevel
  recorded: Record<string, { status: number; headers: Record<string, string | string[]>; body: string }>
  bareMatchesReal: Record<string, string[]>
  paths: PathResult[]
}

async function runVariant(logLevel: LogLevel, scratch: string): Promise<VariantResult> {
  let real: Child | undefined
  let bare: Child | undefined
  try {
    const ports = await pickPorts()
    real = startCurio(
      ports,
      { DATA_DIR: 'memory', LOG_LEVEL: logLevel, ADMIN_EMAIL, ADMIN_PASSWORD },
      { cpu: pinned?.serverCpu },
    )
    const platform = `http://127.0.0.1:${ports.platformPort}`
    const directory = `http://127.0.0.1:${ports.directoryPort}`
    await waitFor200(real, [`${platform}/readyz`, `${directory}/readyz`])
    // From here on the real service's log lines are read and thrown away, nothing more.
    real.discardOutput()
    await featureItems(ports.directoryPort)

    const realUrls: Record<string, string> = {
      '/healthz': `${platform}/healthz`,
      '/api/current-user': `${directory}/api/current-user`,
      '/api/featured-items': `${directory}/api/featured-items`,
    }
    const recorded: Record<string, Recorded> = {}
    const routes: Record<string, BareRoute> = {}
    for (const [path, url] of Object.entries(realUrls)) {
      const answer = await getRecorded(url)
      if (answer.status !== 200) throw new Error(`GET ${url} answered ${answer.status}: ${answer.body}`)
      recorded[path] = answer
      routes[path] = {
        status: answer.status,
        headers: withoutHopByHop(answer.headers),
        bodyBase64: answer.body.toString('base64'),
      }
    }
    const routesFile = join(scratch, `routes-${logLevel}.json`)
    writeFileSync(routesFile, JSON.stringify(routes, null, 2))

    const barePort = await freePort()
    bare = spawnNode({ args: ['bench/bare-server.ts', String(barePort), routesFile], cpu: pinned?.serverCpu })
    const bareBase = `http://127.0.0.1:${barePort}`
    await waitFor200(
      bare,
      Object.keys(realUrls).map((path) => `${bareBase}${path}`),
    )
    bare.discardOutput()

    const bareMatchesReal: Record<string, string[]> = {}
    for (const path of Object.keys(realUrls)) {
      bareMatchesReal[path] = differences(recorded[path]!, await getRecorded(`${bareBase}${path}`))
    }

    const paths: PathResult[] = []
    for (const [path, realUrl] of Object.entries(realUrls)) {
      const runs: Run[] = []
      for (const server of ORDER) {
        process.stdout.write(
          `LOG_LEVEL=${logLevel}  ${server} ${path}: ${warmup} s warm-up + ${duration} s, ${connections} connections… `,
        )
        const child = server === 'bare' ? bare : real
        const run = await measure(server, server === 'bare' ? `${bareBase}${path}` : realUrl, child.pid)
        runs.push(run)
        const cpu = run.cpuMs === null ? '' : `, ${round((run.cpuMs * 1000) / run.total, 1)} µs CPU/request`
        process.stdout.write(`${run.requestsPerSec} req/s${cpu}\n`)
      }
      const bareSummary = summary(runs.filter((run) => run.server === 'bare'))
      const realSummary = summary(runs.filter((run) => run.server === 'real'))
      const ratio = realSummary.requestsPerSec / bareSummary.requestsPerSec
      paths.push({
        path,
        bare: bareSummary,
        real: realSummary,
        ratio: round(ratio, 3),
        withinTarget: ratio >= TARGET_RATIO,
      })
    }

    const stopped = await Promise.all([stopChild(real), stopChild(bare)])
    for (const [name, result] of [
      ['real', stopped[0]],
      ['bare', stopped[1]],
    ] as const) {
      if (result.code !== 0) {
        process.stdout.write(`note: ${name} server exited with ${result.code ?? result.signal}\n`)
      }
    }

    return {
      logLevel,
      recorded: Object.fromEntries(
        Object.entries(recorded).map(([path, answer]) => [
          path,
          { status: answer.status, headers: answer.headers, body: answer.body.toString('utf8') },
        ]),
      ),
      bareMatchesReal,
      paths,
    }
  } finally {
    await Promise.all([killChild(real), killChild(bare)])
  }
}

/** The load generator on one CPU and each server on another, where the machine allows. */
const pinned = pinLoadAndServer()
const scratch = mkdtempSync(join(tmpdir(), 'curio-bench-http-'))
const variants: VariantResult[] = []
const machineBefore = machine()
try {
  for (const logLevel of logLevels) variants.push(await runVariant(logLevel, scratch))
} finally {
  rmSync(scratch, { recursive: true, force: true })
}

process.stdout.write(
  `\nCurio HTTP overhead: autocannon, ${connections} connections, ${warmup} s warm-up + ${duration} s per run, ` +
    `runs per path ${ORDER.join(', ')}\n` +
    `${machineBefore.node}, ${machineBefore.cpus} CPU(s), ${machineBefore.cpuModel}; ` +
    `load average at start ${machineBefore.loadAverage.join(' / ')}\n` +
    (pinned
      ? `autocannon runs in this process, pinned to CPU ${pinned.loadCpu}; the real services and the bare server in child processes pinned to CPU ${pinned.serverCpu} (taskset).\n`
      : 'autocannon runs in this process; the real services and the bare server in their own child processes (nothing pinned).\n') +
    `load average at end ${machine().loadAverage.join(' / ')} (other work on this machine skews the figures)\n`,
)
const cpuCell = (value: number | null) => value ?? 'n/a'
for (const variant of variants) {
  process.stdout.write(`\nLOG_LEVEL=${variant.logLevel}\n`)
  for (const [path, answer] of Object.entries(variant.recorded)) {
    const diff = variant.bareMatchesReal[path]!
    const body = answer.body.length > 80 ? `${answer.body.slice(0, 77)}...` : answer.body
    process.stdout.write(
      `  recorded ${path}: ${answer.status}, ${Buffer.byteLength(answer.body)} body bytes ${JSON.stringify(body)}, ` +
        `${Object.keys(withoutHopByHop(answer.headers)).length} headers; ` +
        `bare answer ${diff.length ? `DIFFERS (${diff.join('; ')})` : 'identical (hop-by-hop headers aside)'}\n`,
    )
  }
  process.stdout.write('\n')
  process.stdout.write(
    `${table([
      [
        'path',
        'bare req/s',
        'real req/s',
        'real/bare',
        'p50 bare/real ms',
        'p99 bare/real ms',
        'CPU µs/req bare',
        'CPU µs/req real',
        'CPU bare/real',
        'target >= 70%',
        'non-2xx/errors',
      ],
      ...variant.paths.map((p) => [
        p.path,
        p.bare.requestsPerSec,
        p.real.requestsPerSec,
        `${(p.ratio * 100).toFixed(1)}%`,
        `${p.bare.latencyP50Ms} / ${p.real.latencyP50Ms}`,
        `${p.bare.latencyP99Ms} / ${p.real.latencyP99Ms}`,
        cpuCell(p.bare.cpuUsPerRequest),
        cpuCell(p.real.cpuUsPerRequest),
        p.bare.cpuUsPerRequest && p.real.cpuUsPerRequest
          ? `${((p.bare.cpuUsPerRequest / p.real.cpuUsPerRequest) * 100).toFixed(1)}%`
          : 'n/a',
        p.withinTarget ? 'ok' : 'MISS',
        [...p.bare.runs, ...p.real.runs].reduce((sum, run) => sum + run.non2xx + run.errors, 0),
      ]),
    ])}\n`,
  )
}

const path = writeResults('http', {
  benchmark: 'http',
  at: new Date().toISOString(),
  machine: machineBefore,
  loadAverageAtEnd: machine().loadAverage,
  settings: {
    connections,
    durationSec: duration,
    warmupSec: warmup,
    order: ORDER,
    dataDir: 'memory',
    pinned: pinned ?? null,
  },
  target: { realOverBareAtLeast: TARGET_RATIO },
  variants,
})
process.stdout.write(`\nwrote ${path}\n`)
