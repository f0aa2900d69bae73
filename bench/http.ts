/**
 * Requests per second of the real services against a bare node:http server answering the same bytes.
 *
 * For LOG_LEVEL=info (the default) and LOG_LEVEL=warn in turn: starts `node src/main.ts start` with
 * DATA_DIR=memory (its output piped and drained), records GET /healthz (platform) and GET
 * /api/current-user (directory, anonymous), starts bench/bare-server.ts in another child answering those
 * exact bytes, then runs autocannon against bare and real for each path (2 s warm-up, then the run).
 *
 *   npm run bench:http [-- --duration 10] [-- --warmup 2] [-- --connections 50]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import type { BareRoute } from './bare-server.ts'
import {
  type Child,
  differences,
  freePort,
  getRecorded,
  killChild,
  LOAD_OPTIONS,
  type LoadFigures,
  loadFigures,
  loadSettings,
  machine,
  pickPorts,
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

const { values } = parseArgs({
  options: LOAD_OPTIONS,
  strict: true,
})
const { duration, warmup, connections } = loadSettings(values, { connections: 50 })

const LOG_LEVELS = ['info', 'warn'] as const
type LogLevel = (typeof LOG_LEVELS)[number]

interface Measurement extends LoadFigures {
  logLevel: LogLevel
  path: string
  server: 'bare' | 'real'
  url: string
}

async function load(url: string): Promise<Result> {
  if (warmup > 0) await autocannon({ url, connections, duration: warmup })
  return autocannon({ url, connections, duration })
}

interface VariantResult {
  logLevel: LogLevel
  recorded: Record<string, { status: number; headers: Record<string, string | string[]>; body: string }>
  bareMatchesReal: Record<string, string[]>
  measurements: Measurement[]
}

async function runVariant(logLevel: LogLevel, scratch: string): Promise<VariantResult> {
  let real: Child | undefined
  let bare: Child | undefined
  try {
    const ports = await pickPorts()
    real = startCurio(ports, { DATA_DIR: 'memory', LOG_LEVEL: logLevel })
    const platform = `http://127.0.0.1:${ports.platformPort}`
    const directory = `http://127.0.0.1:${ports.directoryPort}`
    await waitFor200(real, [`${platform}/readyz`, `${directory}/readyz`])
    // From here on the real service's log lines are read and thrown away, nothing more.
    real.discardOutput()

    const realUrls: Record<string, string> = {
      '/healthz': `${platform}/healthz`,
      '/api/current-user': `${directory}/api/current-user`,
    }
    const recorded: Record<string, Recorded> = {}
    const routes: Record<string, BareRoute> = {}
    for (const [path, url] of Object.entries(realUrls)) {
      const answer = await getRecorded(url)
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
    bare = spawnNode({ args: ['bench/bare-server.ts', String(barePort), routesFile] })
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

    const measurements: Measurement[] = []
    for (const [path, realUrl] of Object.entries(realUrls)) {
      for (const [server, url] of [
        ['bare', `${bareBase}${path}`],
        ['real', realUrl],
      ] as const) {
        process.stdout.write(
          `LOG_LEVEL=${logLevel}  ${server} ${path}: ${warmup} s warm-up + ${duration} s, ${connections} connections… `,
        )
        const result = await load(url)
        const measurement: Measurement = {
          logLevel,
          path,
          server,
          url,
          ...loadFigures(result),
        }
        measurements.push(measurement)
        process.stdout.write(`${measurement.requestsPerSec} req/s\n`)
      }
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
      measurements,
    }
  } finally {
    await Promise.all([killChild(real), killChild(bare)])
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'curio-bench-http-'))
const variants: VariantResult[] = []
const machineBefore = machine()
try {
  for (const logLevel of LOG_LEVELS) variants.push(await runVariant(logLevel, scratch))
} finally {
  rmSync(scratch, { recursive: true, force: true })
}

const ratios = variants.flatMap(({ logLevel, measurements }) =>
  [...new Set(measurements.map((m) => m.path))].map((path) => {
    const bare = measurements.find((m) => m.path === path && m.server === 'bare')!
    const real = measurements.find((m) => m.path === path && m.server === 'real')!
    const ratio = real.requestsPerSec / bare.requestsPerSec
    return { logLevel, path, bare, real, ratio: round(ratio, 3), withinTarget: ratio >= TARGET_RATIO }
  }),
)

process.stdout.write(
  `\nCurio HTTP throughput: autocannon, ${connections} connections, ${warmup} s warm-up + ${duration} s per target\n` +
    `${machineBefore.node}, ${machineBefore.cpus} CPU(s), ${machineBefore.cpuModel}; ` +
    `load average at start ${machineBefore.loadAverage.join(' / ')}\n` +
    'autocannon runs in this process; the real services and the bare server in their own child processes.\n' +
    `load average at end ${machine().loadAverage.join(' / ')} (other work on this machine skews the figures)\n`,
)
for (const variant of variants) {
  process.stdout.write(`\nLOG_LEVEL=${variant.logLevel}\n`)
  for (const [path, answer] of Object.entries(variant.recorded)) {
    const diff = variant.bareMatchesReal[path]!
    process.stdout.write(
      `  recorded ${path}: ${answer.status}, ${Buffer.byteLength(answer.body)} body bytes ${JSON.stringify(answer.body)}; ` +
        `bare answer ${diff.length ? `DIFFERS (${diff.join('; ')})` : 'identical (hop-by-hop headers aside)'}\n`,
    )
  }
  process.stdout.write('\n')
  process.stdout.write(
    `${table([
      ['target', 'path', 'req/s (avg)', 'latency avg ms', 'p99 ms', 'requests', 'non-2xx', 'errors'],
      ...variant.measurements.map((m) => [
        m.server,
        m.path,
        m.requestsPerSec,
        m.latencyAvgMs,
        m.latencyP99Ms,
        m.total,
        m.non2xx,
        m.errors + m.timeouts,
      ]),
    ])}\n`,
  )
}

process.stdout.write('\nReal / bare requests per second (target >= 70%)\n\n')
process.stdout.write(
  `${table([
    ['LOG_LEVEL', 'path', 'bare req/s', 'real req/s', 'real/bare', 'target >= 70%'],
    ...ratios.map((r) => [
      r.logLevel,
      r.path,
      r.bare.requestsPerSec,
      r.real.requestsPerSec,
      `${(r.ratio * 100).toFixed(1)}%`,
      r.withinTarget ? 'ok' : 'MISS',
    ]),
  ])}\n`,
)

const path = writeResults('http', {
  benchmark: 'http',
  at: new Date().toISOString(),
  machine: machineBefore,
  loadAverageAtEnd: machine().loadAverage,
  settings: { connections, durationSec: duration, warmupSec: warmup, dataDir: 'memory' },
  target: { realOverBareAtLeast: TARGET_RATIO },
  ratios: ratios.map(({ logLevel, path, bare, real, ratio, withinTarget }) => ({
    logLevel,
    path,
    bareRequestsPerSec: bare.requestsPerSec,
    realRequestsPerSec: real.requestsPerSec,
    ratio,
    withinTarget,
  })),
  variants,
})
process.stdout.write(`\nwrote ${path}\n`)
