/**
 * Memory that comes back: how far a burst of load raises the resident memory of `npm start` (both services
 * in one process) and where it stands a minute later, against its idle figure.
 *
 * For each case, `DATA_DIR=memory` and (with `--postgres`) a scratch Postgres database: starts the real
 * CLI (`node src/cli.mjs start`, with the flags `npm start` gives Node), puts READ_ITEMS published items and
 * a full featured shelf in the directory, signs an owner up on the platform with a few works, waits
 * IDLE_MS and reads the idle RSS. Then two bursts, each followed by AFTER_SECONDS of quiet with the RSS read
 * every 5 s:
 * 1. reads: 50 connections on each service at once for READS_SECONDS, each connection going through a
 *    list of different public and signed-in reads (pages, searches, item pages, the shelf, the current
 *    user, works, the activity log, the OpenAPI documents), so that every cache fills as far as its bound;
 * 2. malformed input: MALFORMED requests over both services (25 connections each), drawn with the
 *    malformed-request harness's own generators (test/harness/requests.ts) from each service's
 *    OpenAPI document: wrong types, missing fields, odd and huge text, bad ids, bad JSON, wrong methods,
 *    anonymous and signed in.
 * Each reading also gives process.memoryUsage() (bench/memory-preload.mjs, on SIGUSR2) and the resident
 * memory by kind of mapping (/proc/<pid>/smaps: malloc heap, V8 pages, WebAssembly memory, files).
 * Target (issue 29): within a minute of each burst, RSS is back within 50 MB of idle.
 *
 *   npm run bench:burst [-- --postgres] [-- --only memory|postgres] [-- --reads-seconds 30]
 *     [-- --malformed 70000] [-- --after-seconds 60] [-- --server-log <file>]
 *   BENCH_NODE_FLAGS='--trace-gc' npm run bench:burst …   (flags to try on the server)
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import type { Result } from 'autocannon'
import type { OpenApiDocument } from '../test/harness/openapi.ts'
import { ADMIN_EMAIL, ADMIN_PASSWORD, load, malformedRequests, readRequests, seed } from './burst-load.ts'
import { type Mappings, MEMORY_PRELOAD, rssOf, type Usage, usageOf } from './burst-memory.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  dropDatabaseOnSignal,
  dropScratchDatabase,
  killChild,
  machine,
  memoryOf,
  pickPorts,
  round,
  sleep,
  startCurio,
  stopChild,
  table,
  waitFor200,
  writeResults,
} from './lib.ts'

const TARGET_BACK_WITHIN_MB = 50
const SAMPLE_EVERY_MS = 5000

const { values } = parseArgs({
  options: {
    postgres: { type: 'boolean' },
    'reads-seconds': { type: 'string' },
    malformed: { type: 'string' },
    'after-seconds': { type: 'string' },
    'idle-ms': { type: 'string' },
    only: { type: 'string' },
    'server-log': { type: 'string' },
  },
  strict: true,
})
const READS_SECONDS = Number(values['reads-seconds'] ?? 30)
const MALFORMED = Number(values.malformed ?? 70_000)
const AFTER_SECONDS = Number(values['after-seconds'] ?? 60)
const IDLE_MS = Number(values['idle-ms'] ?? 5000)
for (const [name, value, min] of [
  ['--reads-seconds', READS_SECONDS, 1],
  ['--malformed', MALFORMED, 2],
  ['--after-seconds', AFTER_SECONDS, 5],
  ['--idle-ms', IDLE_MS, 0],
] as const) {
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number >= ${min}`)
}

/** Server errors of the malformed burst by operation: those SPEC.md prescribes, or a defect to chase. */
const serverErrors = new Map<string, number>()

interface Sample {
  atSeconds: number
  rssMb: number
}

interface BurstResult {
  burst: 'reads' | 'malformed'
  requests: number
  byStatusClass: Record<string, number>
  errors: number
  peakRssMb: number
  endRssMb: number
  afterRssMb: number
  /** process.memoryUsage() at the end of the burst and AFTER_SECONDS later. */
  usageAtEnd: Usage
  usageAfter: Usage
  /** Seconds after the burst at which RSS first read within the target of idle; null if it never did. */
  backWithinTargetAfterSeconds: number | null
  samples: Sample[]
}

interface CaseResult {
  name: string
  label: string
  idleRssMb: number
  idleUsage: Usage
  bursts: BurstResult[]
  /** 5xx answers of the malformed burst, by status and operation. */
  serverErrors: Record<string, number>
}

async function burst(
  child: Child,
  name: BurstResult['burst'],
  idleRssMb: number,
  loads: () => Promise<Result>[],
): Promise<BurstResult> {
  let peak = rssOf(child)
  const watcher = setInterval(() => {
    const memory = memoryOf(child.pid)
    if (memory) peak = Math.max(peak, memory.rssMb)
  }, 250)
  let results: Result[]
  try {
    results = await Promise.all(loads())
  } finally {
    clearInterval(watcher)
  }
  const endRssMb = rssOf(child)
  peak = Math.max(peak, endRssMb)
  const usageAtEnd = await usageOf(child)
  const samples: Sample[] = [{ atSeconds: 0, rssMb: endRssMb }]
  for (let at = SAMPLE_EVERY_MS; at <= AFTER_SECONDS * 1000; at += SAMPLE_EVERY_MS) {
    await sleep(SAMPLE_EVERY_MS)
    samples.push({ atSeconds: at / 1000, rssMb: rssOf(child) })
  }
  const usageAfter = await usageOf(child)
  const back = samples.find((sample) => sample.rssMb <= idleRssMb + TARGET_BACK_WITHIN_MB)
  const byStatusClass: Record<string, number> = {}
  for (const result of results) {
    for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
      const key = `${status[0]}xx`
      byStatusClass[key] = (byStatusClass[key] ?? 0) + count
    }
  }
  return {
    burst: name,
    requests: results.reduce((sum, result) => sum + result.requests.total, 0),
    byStatusClass,
    errors: results.reduce((sum, result) => sum + result.errors + result.timeouts, 0),
    peakRssMb: round(peak, 1),
    endRssMb: round(endRssMb, 1),
    afterRssMb: round(samples.at(-1)!.rssMb, 1),
    usageAtEnd,
    usageAfter,
    backWithinTargetAfterSeconds: back ? back.atSeconds : null,
    samples: samples.map((sample) => ({ ...sample, rssMb: round(sample.rssMb, 1) })),
  }
}

async function runCase(name: string, label: string, storage: Record<string, string>): Promise<CaseResult> {
  serverErrors.clear()
  const ports = await pickPorts()
  const platform = `http://127.0.0.1:${ports.platformPort}`
  const directory = `http://127.0.0.1:${ports.directoryPort}`
  const child = startCurio(
    ports,
    {
      ...storage,
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      // Every request reaches its handler: a burst from one address would otherwise be mostly 429s.
      RATE_LIMIT_BYPASS_LOCALHOST: 'true',
      NODE_OPTIONS: `--import ${MEMORY_PRELOAD}`,
    },
    {
      keepOutput: values['server-log'] !== undefined,
      // BENCH_NODE_FLAGS: V8 or Node flags to try on the server (--trace-gc, for instance).
      nodeArgs: (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    },
  )
  try {
    await waitFor200(child, [`${platform}/readyz`, `${directory}/readyz`])
    // Its output is still read (the last lines kept): the memory figures come on it.
    const seeded = await seed(platform, directory, ports.directoryPort)
    const reads = readRequests(seeded)
    const documents = await Promise.all(
      [platform, directory].map(
        async (origin) => (await fetch(`${origin}/openapi.json`)).json() as Promise<OpenApiDocument>,
      ),
    )
    const half = Math.ceil(MALFORMED / 2)
    const countServerError = (key: string) => serverErrors.set(key, (serverErrors.get(key) ?? 0) + 1)
    const malformed = {
      platform: malformedRequests(
        documents[0]!,
        { anonymous: {}, owner: { authorization: `Bearer ${seeded.ownerToken}` } },
        half,
        countServerError,
      ),
      directory: malformedRequests(
        documents[1]!,
        { anonymous: {}, admin: { cookie: seeded.adminCookie } },
        half,
        countServerError,
      ),
    }
    // The documents and the generated requests were made here, in the bench; the server's idle comes after.
    await sleep(IDLE_MS)
    const idleRssMb = rssOf(child)
    const idleUsage = await usageOf(child)
    console.log(`${label}: idle ${round(idleRssMb, 1)} MB ${JSON.stringify(idleUsage)}`)
    const bursts: BurstResult[] = []
    bursts.push(
      await burst(child, 'reads', idleRssMb, () => [
        load(directory, reads.directory, { connections: 50, duration: READS_SECONDS }),
        load(platform, reads.platform, { connections: 50, duration: READS_SECONDS }),
      ]),
    )
    console.log(describeBurst(label, bursts.at(-1)!))
    bursts.push(
      await burst(child, 'malformed', idleRssMb, () => [
        load(directory, malformed.directory, { connections: 25, amount: half }),
        load(platform, malformed.platform, { connections: 25, amount: MALFORMED - half }),
      ]),
    )
    console.log(describeBurst(label, bursts.at(-1)!))
    await stopChild(child)
    if (values['server-log']) {
      const file = `${values['server-log']}.${name}`
      writeFileSync(file, child.output.map((line) => `${round(line.atMs)} ${line.text}`).join('\n'))
      console.log(`${label}: the server's output is in ${file}`)
    }
    return {
      name,
      label,
      idleRssMb: round(idleRssMb, 1),
      idleUsage,
      bursts,
      serverErrors: Object.fromEntries(serverErrors),
    }
  } finally {
    await killChild(child)
  }
}

const describeBurst = (label: string, result: BurstResult) =>
  `${label}: ${result.burst}: ${result.requests} requests (${Object.entries(result.byStatusClass)
    .filter(([, count]) => count > 0)
    .map(([key, count]) => `${key} ${count}`)
    .join(', ')}; ${result.errors} errors), peak ${result.peakRssMb} MB, at the end ${result.endRssMb} MB, ` +
  `${AFTER_SECONDS} s later ${result.afterRssMb} MB; at the end ${JSON.stringify(result.usageAtEnd)}, ` +
  `later ${JSON.stringify(result.usageAfter)}`

const cases: CaseResult[] = []
const { adminUrl, shownUrl } = benchDatabaseUrl()
const setDropOnSignal = dropDatabaseOnSignal(adminUrl)
if (values.only !== undefined && !['memory', 'postgres'].includes(values.only)) {
  throw new Error('--only must be memory or postgres')
}
if (values.only !== 'postgres') cases.push(await runCase('memory', 'DATA_DIR=memory', { DATA_DIR: 'memory' }))
if (values.postgres || values.only === 'postgres') {
  const dbName = `curio_bench_${Math.random().toString(36).slice(2, 10)}`
  await adminQuery(adminUrl, `create database "${dbName}"`)
  setDropOnSignal(dbName)
  try {
    const url = new URL(adminUrl)
    url.pathname = `/${dbName}`
    cases.push(
      await runCase('postgres', `Postgres (${shownUrl.replace(/\/[^/]*$/, `/${dbName}`)})`, {
        DATABASE_URL: url.toString(),
      }),
    )
  } finally {
    await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
  }
}

const rows: (string | number)[][] = [
  [
    'case',
    'burst',
    'requests',
    '5xx',
    'idle MB',
    'peak MB',
    'end MB',
    `+${AFTER_SECONDS} s MB`,
    'over idle',
    `≤ ${TARGET_BACK_WITHIN_MB} MB over idle after`,
    'V8 heap MB: idle, end, later',
    'external MB: idle, end, later',
  ],
]
for (const result of cases) {
  for (const entry of result.bursts) {
    rows.push([
      result.label,
      entry.burst,
      entry.requests,
      entry.byStatusClass['5xx'] ?? 0,
      result.idleRssMb,
      entry.peakRssMb,
      entry.endRssMb,
      entry.afterRssMb,
      `${round(entry.afterRssMb - result.idleRssMb, 1)} MB`,
      entry.backWithinTargetAfterSeconds === null
        ? 'not within the minute'
        : `${entry.backWithinTargetAfterSeconds} s`,
      [result.idleUsage, entry.usageAtEnd, entry.usageAfter].map((usage) => usage.heapTotal).join(', '),
      [result.idleUsage, entry.usageAtEnd, entry.usageAfter].map((usage) => usage.external).join(', '),
    ])
  }
}
console.log(`\n${table(rows)}`)
const kinds: [keyof Mappings, string][] = [
  ['malloc', 'malloc heap'],
  ['v8Pages', 'V8 pages'],
  ['wasm', 'WebAssembly memory'],
  ['files', 'code and files'],
  ['other', 'other'],
]
const byKind: (string | number)[][] = [
  ['case', 'moment', 'RSS MB', ...kinds.map(([, label]) => `${label} MB`)],
]
for (const result of cases) {
  const moments: [string, Usage][] = [['idle', result.idleUsage]]
  for (const entry of result.bursts) {
    moments.push(
      [`end of ${entry.burst}`, entry.usageAtEnd],
      [`${AFTER_SECONDS} s after ${entry.burst}`, entry.usageAfter],
    )
  }
  for (const [moment, usage] of moments) {
    byKind.push([result.label, moment, usage.rss, ...kinds.map(([key]) => usage.mappings[key])])
  }
}
console.log(`\nResident memory by kind of mapping (/proc/<pid>/smaps):\n${table(byKind)}`)
for (const result of cases) {
  const errors = Object.entries(result.serverErrors).sort((a, b) => b[1] - a[1])
  if (errors.length === 0) continue
  console.log(`\n${result.label}: 5xx answers of the malformed burst, by status and operation:`)
  for (const [key, count] of errors) console.log(`  ${count}  ${key}`)
}
const met = cases.every((result) =>
  result.bursts.every((entry) => entry.afterRssMb <= result.idleRssMb + TARGET_BACK_WITHIN_MB),
)
console.log(
  `\ntarget: RSS within ${TARGET_BACK_WITHIN_MB} MB of idle within ${AFTER_SECONDS} s of each burst: ${met ? 'met' : 'NOT met'}`,
)
console.log(
  `results: ${writeResults('burst', { machine: machine(), readsSeconds: READS_SECONDS, malformed: MALFORMED, afterSeconds: AFTER_SECONDS, cases })}`,
)
