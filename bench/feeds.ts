/**
 * The directory's machine reads on Postgres with 100,000 published items:
 * (1) `GET /api/items.json`, the whole directory as one streamed document: time to last byte, bytes, and the
 *     server's peak RSS growth during the request (target: under 2 s and under 50 MB), over a few runs;
 * (2) `GET /feed.xml` at 50 connections against a bare node:http server answering the same bytes and
 *     headers (target: at least 60 % of its throughput).
 *
 * The server is bench/content-server.ts (the content benchmark's): a fresh database `curio_bench_<random>` on
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres, dropped at the end and on Ctrl-C),
 * seeded with set-based SQL (85 % of the items published, with categories, 0–3 tags, companies), the real
 * directory app with the memory settings `npm start` gives a server (`--max-semi-space-size=8`,
 * `MALLOC_ARENA_MAX=2`), rate limits bypassed for 127.0.0.1. It is seeded with enough items for
 * `--published` of them to be published (about; the figure shows the exact count).
 *
 * Peak RSS growth: the server's peak (VmHWM) is reset through /proc/<pid>/clear_refs before each request and
 * read after it, and RSS is also sampled every 5 ms; growth is the larger peak minus the RSS before. On a
 * machine of two CPUs or more, this process (the client and autocannon) runs on CPU 0 and each server on
 * CPU 1 (taskset); Postgres runs where the system puts it.
 *
 *   npm run bench:feeds [-- --published 100000] [-- --runs 3] [-- --duration 10] [-- --warmup 2]
 *     [-- --connections 50]
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import type { BareRoute } from './bare-server.ts'
import type { ServerReady } from './content-data.ts'
import { measureDocument } from './feeds-memory.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  checkWholeNumbers,
  codeVersion,
  cpuMsOf,
  differences,
  dropDatabaseOnSignal,
  dropScratchDatabase,
  freePort,
  getRecorded,
  killChild,
  LOAD_OPTIONS,
  type LoadFigures,
  loadFigures,
  loadSettings,
  machine,
  pinLoadAndServer,
  round,
  spawnNode,
  stopChild,
  table,
  waitFor200,
  waitForReady,
  withoutHopByHop,
  writeResults,
} from './lib.ts'

const TARGET_TTLB_MS = 2000
const TARGET_RSS_GROWTH_MB = 50
const TARGET_RATIO = 0.6
/** The content seed publishes this share of its items. */
const PUBLISHED_SHARE = 0.85
const FEED_PATH = '/feed.xml'

const { values } = parseArgs({
  options: { ...LOAD_OPTIONS, published: { type: 'string' }, runs: { type: 'string' } },
  strict: true,
})
const published = Number(values.published ?? 100_000)
const runs = Number(values.runs ?? 3)
const { duration, warmup, connections } = loadSettings(values, { connections: 50 })
checkWholeNumbers([
  ['--published', published, 1],
  ['--runs', runs, 1],
])
const itemCount = Math.ceil(published / PUBLISHED_SHARE)

const { adminUrl, shownUrl } = benchDatabaseUrl()
const setDropOnSignal = dropDatabaseOnSignal(adminUrl)

/** Sends GET and reads the whole answer, timing the first and the last byte. */
function download(
  url: string,
): Promise<{ status: number; bytes: number; firstByteMs: number; lastByteMs: number; body: Buffer }> {
  return new Promise((done, fail) => {
    const started = performance.now()
    const req = request(url, { agent: false }, (res) => {
      const firstByteMs = performance.now() - started
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', fail)
      res.on('end', () => {
        const body = Buffer.concat(chunks)
        done({
          status: res.statusCode ?? 0,
          bytes: body.length,
          firstByteMs: round(firstByteMs, 1),
          lastByteMs: round(performance.now() - started, 1),
          body,
        })
      })
    })
    req.setTimeout(120_000, () => req.destroy(new Error(`GET ${url} timed out`)))
    req.on('error', fail)
    req.end()
  })
}

interface FeedRun extends LoadFigures {
  server: 'bare' | 'curio'
  serverCpuMsPerRequest: number | null
}

async function main() {
  const info = machine()
  const version = codeVersion()
  const pinning = pinLoadAndServer()
  console.log(
    `feeds benchmark: ${published.toLocaleString('en')} published items on Postgres (${shownUrl}); ` +
      `GET /api/items.json ${runs} times, GET ${FEED_PATH} at ${connections} connections against a bare ` +
      `node:http server (${warmup} s warm-up + ${duration} s per run)`,
  )
  console.log(
    `node ${info.node}, ${info.cpus} × ${info.cpuModel}, load ${info.loadAverage.join(' ')}; ` +
      `code ${version.head} (${version.uncommittedSrcFiles} files changed under src/); ` +
      (pinning ? `client on CPU ${pinning.loadCpu}, servers on CPU ${pinning.serverCpu}` : 'nothing pinned'),
  )

  let curio: Child | undefined
  let bare: Child | undefined
  const scratch = mkdtempSync(join(tmpdir(), 'curio-bench-feeds-'))
  const dbName = `curio_bench_${randomBytes(6).toString('hex')}`
  let created = false
  try {
    await adminQuery(adminUrl, `create database "${dbName}"`)
    created = true
    setDropOnSignal(dbName)
    const url = new URL(adminUrl)
    url.pathname = `/${dbName}`
    process.stdout.write(`seeding ${itemCount.toLocaleString('en')} items in database ${dbName}… `)
    curio = spawnNode({
      args: ['bench/content-server.ts', '--items', String(itemCount)],
      nodeArgs: ['--max-semi-space-size=8'],
      env: { BENCH_CHILD_DB_URL: url.toString(), MALLOC_ARENA_MAX: '2' },
      keepOutput: true,
      ...(pinning ? { cpu: pinning.serverCpu } : {}),
    })
    const ready = await waitForReady<ServerReady>(curio)
    curio.discardOutput()
    const s = ready.seed
    const publishedCount = s.statuses.published ?? 0
    console.log(
      `ready: ${publishedCount.toLocaleString('en')} published of ${s.items.toLocaleString('en')} items ` +
        `(seed ${s.seedMs} ms, vacuum analyze ${s.vacuumAnalyzeMs} ms), Postgres ${s.server}, pool ${s.poolSize}`,
    )
    const base = `http://127.0.0.1:${ready.port}`

    // (1) The whole directory, streamed.
    const exportRuns: {
      run: number
      status: number
      bytes: number
      items: number
      firstByteMs: number
      lastByteMs: number
      rssBeforeMb: number
      peakGrowthMb: number
      sampledPeakGrowthMb: number
      hwmPeakGrowthMb: number | null
      serverCpuMs: number | null
    }[] = []
    for (let run = 1; run <= runs; run++) {
      const cpuBefore = cpuMsOf(curio.pid)
      const { result, memory } = await measureDocument(curio.pid, () => download(`${base}/api/items.json`))
      const cpuAfter = cpuMsOf(curio.pid)
      const document = JSON.parse(result.body.toString('utf8')) as { data: unknown[]; total: number }
      if (result.status !== 200 || document.total !== document.data.length) {
        throw new Error(
          `GET /api/items.json: ${result.status}, total ${document.total} of ${document.data.length}`,
        )
      }
      exportRuns.push({
        run,
        status: result.status,
        bytes: result.bytes,
        items: document.total,
        firstByteMs: result.firstByteMs,
        lastByteMs: result.lastByteMs,
        ...memory,
        serverCpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
      })
    }
    console.log(`\nGET /api/items.json (${runs} runs, the first on a server that has not sent it yet)`)
    console.log(
      table([
        [
          'run',
          'items',
          'MB',
          'first byte ms',
          'last byte ms',
          'server CPU ms',
          'RSS before MB',
          'peak growth MB',
        ],
        ...exportRuns.map((r) => [
          r.run,
          r.items,
          round(r.bytes / 1024 / 1024, 1),
          r.firstByteMs,
          r.lastByteMs,
          r.serverCpuMs ?? '?',
          r.rssBeforeMb,
          r.peakGrowthMb,
        ]),
      ]),
    )
    const worstTtlb = Math.max(...exportRuns.map((r) => r.lastByteMs))
    const worstGrowth = Math.max(...exportRuns.map((r) => r.peakGrowthMb))

    // (2) The RSS feed: recorded warm, then served by a bare server too.
    for (let i = 0; i < 5; i++) await getRecorded(`${base}${FEED_PATH}`)
    const answer = await getRecorded(`${base}${FEED_PATH}`)
    if (answer.status !== 200) throw new Error(`GET ${FEED_PATH}: ${answer.status}`)
    const routes: Record<string, BareRoute> = {
      [FEED_PATH]: {
        status: answer.status,
        headers: withoutHopByHop(answer.headers),
        bodyBase64: answer.body.toString('base64'),
      },
    }
    const routesFile = join(scratch, 'routes.json')
    writeFileSync(routesFile, JSON.stringify(routes))
    const barePort = await freePort()
    bare = spawnNode({
      args: ['bench/bare-server.ts', String(barePort), routesFile],
      ...(pinning ? { cpu: pinning.serverCpu } : {}),
    })
    const bareBase = `http://127.0.0.1:${barePort}`
    await waitFor200(bare, [`${bareBase}${FEED_PATH}`])
    bare.discardOutput()
    const diff = differences(answer, await getRecorded(`${bareBase}${FEED_PATH}`))
    console.log(
      `\nGET ${FEED_PATH}: ${answer.body.length} bytes, ${String(answer.headers['content-type'])}; bare answer ` +
        (diff.length ? `DIFFERS: ${diff.join('; ')}` : 'identical (hop-by-hop headers aside)'),
    )
    const feedRuns: FeedRun[] = []
    // Bare, Curio, Curio, bare: drift of the shared machine falls on both alike.
    for (const [server, serverBase, pid] of [
      ['bare', bareBase, bare.pid],
      ['curio', base, curio.pid],
      ['curio', base, curio.pid],
      ['bare', bareBase, bare.pid],
    ] as const) {
      process.stdout.write(`${server}: warm-up ${warmup} s, run ${duration} s, ${connections} connections… `)
      const options = { url: `${serverBase}${FEED_PATH}`, connections }
      if (warmup > 0) await autocannon({ ...options, duration: warmup })
      const cpuBefore = cpuMsOf(pid)
      const result = await autocannon({ ...options, duration })
      const cpuAfter = cpuMsOf(pid)
      const figures = loadFigures(result)
      feedRuns.push({
        server,
        ...figures,
        serverCpuMsPerRequest:
          cpuBefore === null || cpuAfter === null || figures.total === 0
            ? null
            : round((cpuAfter - cpuBefore) / figures.total, 3),
      })
      process.stdout.write(`${figures.requestsPerSec} req/s, p99 ${figures.latencyP99Ms} ms\n`)
    }
    await stopChild(bare)
    bare = undefined
    const mean = (server: 'bare' | 'curio', pick: (run: FeedRun) => number | null) => {
      const picked = feedRuns.filter((run) => run.server === server).map(pick)
      const numbers = picked.filter((value): value is number => value !== null)
      return numbers.length < picked.length
        ? null
        : round(numbers.reduce((sum, value) => sum + value, 0) / numbers.length, 3)
    }
    const bareRps = mean('bare', (run) => run.requestsPerSec) ?? 0
    const curioRps = mean('curio', (run) => run.requestsPerSec) ?? 0
    const ratio = bareRps === 0 ? 0 : round(curioRps / bareRps, 3)
    const clean = feedRuns.every((run) => run.non2xx === 0 && run.errors === 0 && run.total > 0)
    console.log(
      `\n${table([
        ['server', 'req/s (mean of 2)', 'p99 ms', 'CPU ms/request'],
        ...(['bare', 'curio'] as const).map((server) => [
          server,
          mean(server, (run) => run.requestsPerSec) ?? '?',
          mean(server, (run) => run.latencyP99Ms) ?? '?',
          mean(server, (run) => run.serverCpuMsPerRequest) ?? '?',
        ]),
      ])}`,
    )

    const verdicts = [
      [
        `items.json time to last byte ≤ ${TARGET_TTLB_MS} ms (worst run)`,
        worstTtlb,
        worstTtlb <= TARGET_TTLB_MS,
      ],
      [
        `items.json peak RSS growth ≤ ${TARGET_RSS_GROWTH_MB} MB (worst run)`,
        worstGrowth,
        worstGrowth <= TARGET_RSS_GROWTH_MB,
      ],
      [
        `${FEED_PATH} ≥ ${TARGET_RATIO * 100} % of bare`,
        `${round(ratio * 100, 1)} %`,
        ratio >= TARGET_RATIO && clean,
      ],
    ] as const
    console.log(
      `\n${table([['target', 'measured', 'met'], ...verdicts.map(([what, value, met]) => [what, value, met ? 'yes' : 'NO'])])}`,
    )
    const path = writeResults('feeds', {
      machine: info,
      code: version,
      settings: { published, itemCount, runs, duration, warmup, connections, pinning: pinning ?? null },
      seed: s,
      itemsJson: exportRuns,
      feed: { path: FEED_PATH, bytes: answer.body.length, bareMatchesCurio: diff, runs: feedRuns, ratio },
      targets: verdicts.map(([what, value, met]) => ({ what, value, met })),
    })
    console.log(`\nresults written to ${path}`)
  } finally {
    await killChild(bare)
    if (curio) await stopChild(curio)
    rmSync(scratch, { recursive: true, force: true })
    if (created) await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
  }
}

await main()
