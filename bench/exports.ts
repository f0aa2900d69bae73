/**
 * The admins' export of the whole directory, `GET /api/admin/exports?format=markdown|csv|json`, at 100,000
 * items: time to last byte and the server's peak RSS growth during the request, per format, on the embedded
 * database (PGlite in a scratch DATA_DIR) and on Postgres (a database of its own, `curio_bench_<random>` on
 * BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres, dropped at the end and on
 * Ctrl-C). Targets: under 5 s and under 50 MB each (worst run).
 *
 * The server is bench/exports-server.ts (seeded with set-based SQL, the real directory app with the memory
 * settings `npm start` gives a server: `--max-semi-space-size=8`, `MALLOC_ARENA_MAX=2`). Peak RSS growth as
 * bench/feeds.ts reads it (bench/feeds-memory.ts): VmHWM reset before each request and RSS sampled every
 * 5 ms. Each answer is checked: 200, and as many items as the directory has (published ones for Markdown).
 *
 *   npm run bench:exports [-- --items 100000] [-- --runs 2] [-- --databases embedded,postgres]
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { ExportsServerReady } from './exports-server.ts'
import { measureDocument } from './feeds-memory.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  checkWholeNumbers,
  codeVersion,
  dropDatabaseOnSignal,
  dropScratchDatabase,
  machine,
  pinLoadAndServer,
  round,
  spawnNode,
  stopChild,
  table,
  waitForReady,
  writeResults,
} from './lib.ts'

const TARGET_TTLB_MS = 5000
const TARGET_RSS_GROWTH_MB = 50
const FORMATS = ['markdown', 'csv', 'json'] as const
type Format = (typeof FORMATS)[number]
type DatabaseKind = 'embedded' | 'postgres'

const { values } = parseArgs({
  options: { items: { type: 'string' }, runs: { type: 'string' }, databases: { type: 'string' } },
  strict: true,
})
const itemCount = Number(values.items ?? 100_000)
const runs = Number(values.runs ?? 2)
const kinds = (values.databases ?? 'embedded,postgres').split(',') as DatabaseKind[]
checkWholeNumbers([
  ['--items', itemCount, 1],
  ['--runs', runs, 1],
])
if (kinds.some((kind) => kind !== 'embedded' && kind !== 'postgres')) {
  throw new Error('--databases: a comma-separated list of embedded and postgres')
}

const { adminUrl, shownUrl } = benchDatabaseUrl()
const setDropOnSignal = dropDatabaseOnSignal(adminUrl)

/** GET with the admin's cookie, reading the whole answer and timing its first and last byte. */
function download(url: string, cookie: string) {
  return new Promise<{ status: number; firstByteMs: number; lastByteMs: number; body: Buffer }>(
    (done, fail) => {
      const started = performance.now()
      const req = request(url, { agent: false, headers: { cookie } }, (res) => {
        const firstByteMs = performance.now() - started
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', fail)
        res.on('end', () =>
          done({
            status: res.statusCode ?? 0,
            firstByteMs: round(firstByteMs, 1),
            lastByteMs: round(performance.now() - started, 1),
            body: Buffer.concat(chunks),
          }),
        )
      })
      req.setTimeout(120_000, () => req.destroy(new Error(`GET ${url} timed out`)))
      req.on('error', fail)
      req.end()
    },
  )
}

/** How many items a file holds, counted from its lines (each format writes one item per line). */
function itemsIn(format: Format, text: string): number {
  if (format === 'json') return (JSON.parse(text) as { items: unknown[] }).items.length
  if (format === 'csv') return text.split('\r\n').length - 2
  // Items link out (`](http`); the contents list links to anchors.
  return text.split('\n').filter((line) => line.startsWith('- [') && !line.includes('](#')).length
}

interface ExportRun {
  database: DatabaseKind
  format: Format
  run: number
  items: number
  bytes: number
  firstByteMs: number
  lastByteMs: number
  rssBeforeMb: number
  peakGrowthMb: number
  sampledPeakGrowthMb: number
  hwmPeakGrowthMb: number | null
}

async function measure(kind: DatabaseKind, pinning: ReturnType<typeof pinLoadAndServer>) {
  let server: Child | undefined
  const scratch = mkdtempSync(join(tmpdir(), 'curio-bench-exports-'))
  const dbName = `curio_bench_${randomBytes(6).toString('hex')}`
  let created = false
  const results: ExportRun[] = []
  try {
    const env: Record<string, string> = { MALLOC_ARENA_MAX: '2' }
    if (kind === 'postgres') {
      await adminQuery(adminUrl, `create database "${dbName}"`)
      created = true
      setDropOnSignal(dbName)
      const url = new URL(adminUrl)
      url.pathname = `/${dbName}`
      env.BENCH_CHILD_DB_URL = url.toString()
    } else {
      env.BENCH_CHILD_DATA_DIR = scratch
    }
    process.stdout.write(`${kind}: seeding ${itemCount.toLocaleString('en')} items… `)
    server = spawnNode({
      args: ['bench/exports-server.ts', '--items', String(itemCount)],
      nodeArgs: ['--max-semi-space-size=8'],
      env,
      keepOutput: true,
      ...(pinning ? { cpu: pinning.serverCpu } : {}),
    })
    const ready = await waitForReady<ExportsServerReady>(server)
    server.discardOutput()
    console.log(
      `ready: ${ready.seed.published.toLocaleString('en')} published, ${ready.seed.itemTags.toLocaleString('en')} ` +
        `taggings (seed ${ready.seed.seedMs} ms)`,
    )
    for (const format of FORMATS) {
      for (let run = 1; run <= runs; run++) {
        const { result, memory } = await measureDocument(server.pid, () =>
          download(`http://127.0.0.1:${ready.port}/api/admin/exports?format=${format}`, ready.cookie),
        )
        const text = result.body.toString('utf8')
        const expected = format === 'markdown' ? ready.seed.published : ready.seed.items
        const items = result.status === 200 ? itemsIn(format, text) : -1
        if (items !== expected) {
          throw new Error(
            `${kind} ${format}: ${result.status}, ${items} items of ${expected}: ${text.slice(0, 300)}`,
          )
        }
        results.push({
          database: kind,
          format,
          run,
          items,
          bytes: result.body.length,
          firstByteMs: result.firstByteMs,
          lastByteMs: result.lastByteMs,
          ...memory,
        })
      }
    }
  } finally {
    if (server) await stopChild(server)
    rmSync(scratch, { recursive: true, force: true })
    if (created) await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
  }
  return results
}

async function main() {
  const info = machine()
  const version = codeVersion()
  const pinning = pinLoadAndServer()
  console.log(
    `exports benchmark: ${itemCount.toLocaleString('en')} items, GET /api/admin/exports in ${FORMATS.join(', ')}, ` +
      `${runs} runs each, on ${kinds.join(' and ')}${kinds.includes('postgres') ? ` (${shownUrl})` : ''}`,
  )
  console.log(
    `node ${info.node}, ${info.cpus} × ${info.cpuModel}, load ${info.loadAverage.join(' ')}; ` +
      `code ${version.head} (${version.uncommittedSrcFiles} files changed under src/); ` +
      (pinning ? `client on CPU ${pinning.loadCpu}, server on CPU ${pinning.serverCpu}` : 'nothing pinned'),
  )
  const results: ExportRun[] = []
  for (const kind of kinds) results.push(...(await measure(kind, pinning)))

  console.log(
    `\n${table([
      [
        'database',
        'format',
        'run',
        'items',
        'MB',
        'first byte ms',
        'last byte ms',
        'RSS before MB',
        'peak growth MB',
      ],
      ...results.map((r) => [
        r.database,
        r.format,
        r.run,
        r.items,
        round(r.bytes / 1024 / 1024, 1),
        r.firstByteMs,
        r.lastByteMs,
        r.rssBeforeMb,
        r.peakGrowthMb,
      ]),
    ])}`,
  )
  const worstTtlb = Math.max(...results.map((r) => r.lastByteMs))
  const worstGrowth = Math.max(...results.map((r) => r.peakGrowthMb))
  const verdicts = [
    [`time to last byte ≤ ${TARGET_TTLB_MS} ms (worst run)`, worstTtlb, worstTtlb <= TARGET_TTLB_MS],
    [
      `peak RSS growth ≤ ${TARGET_RSS_GROWTH_MB} MB (worst run)`,
      worstGrowth,
      worstGrowth <= TARGET_RSS_GROWTH_MB,
    ],
  ] as const
  console.log(
    `\n${table([['target', 'measured', 'met'], ...verdicts.map(([what, value, met]) => [what, value, met ? 'yes' : 'NO'])])}`,
  )
  const path = writeResults('exports', {
    machine: info,
    code: version,
    settings: { itemCount, runs, databases: kinds, pinning: pinning ?? null },
    runs: results,
    targets: verdicts.map(([what, value, met]) => ({ what, value, met })),
  })
  console.log(`\nresults written to ${path}`)
}

await main()
