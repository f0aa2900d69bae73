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
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import fc from 'fast-check'
import { type OpenApiDocument, operationsOf } from '../test/harness/openapi.ts'
import { type FuzzRequest, requestsFor, wrongMethods } from '../test/harness/requests.ts'
import { Pools, render } from '../test/harness/send.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  directorySession,
  dropDatabaseOnSignal,
  dropScratchDatabase,
  killChild,
  machine,
  memoryOf,
  pickPorts,
  REPO_ROOT,
  round,
  sleep,
  startCurio,
  stopChild,
  table,
  waitFor200,
  writeResults,
} from './lib.ts'

const TARGET_BACK_WITHIN_MB = 50
const ADMIN_EMAIL = 'burst-admin@example.test'
const ADMIN_PASSWORD = 'burst-admin-password'
const OWNER_PASSWORD = 'burst-owner-password'
const READ_ITEMS = 300
const FEATURED_ENTRIES = 6
const SAMPLE_EVERY_MS = 5000
const SEED = 20261127

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

interface AutocannonRequest {
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
  onResponse?: (status: number) => void
}

/** Server errors of the malformed burst by operation: those SPEC.md prescribes, or a defect to chase. */
const serverErrors = new Map<string, number>()

interface Sample {
  atSeconds: number
  rssMb: number
}

/** process.memoryUsage() of the server in MB, as bench/memory-preload.mjs prints it. */
interface Usage {
  rss: number
  heapTotal: number
  heapUsed: number
  external: number
  arrayBuffers: number
  /** Resident memory by kind of mapping, read at the same moment. */
  mappings: Mappings
}

/** Resident memory by kind of mapping, in MB, from /proc/<pid>/smaps. */
interface Mappings {
  /** glibc's main heap (`[heap]`) and its other arenas (anonymous mappings of 64 MB reserved). */
  malloc: number
  /** V8's heap pages: anonymous mappings of 256 KB each. */
  v8Pages: number
  /** WebAssembly memory: the mapping right before its guard region (an anonymous reservation of GBs). */
  wasm: number
  /** The node binary, shared libraries and other files. */
  files: number
  other: number
}

const ARENA_RESERVE = 64 * 1024 * 1024
const GUARD_MIN = 4 * 1024 * 1024 * 1024

function mappingsOf(pid: number): Mappings {
  const found: { start: number; end: number; name: string; rssKb: number }[] = []
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head) {
      found.push({
        start: Number.parseInt(head[1]!, 16),
        end: Number.parseInt(head[2]!, 16),
        name: head[3]!,
        rssKb: 0,
      })
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss && found.length > 0) found.at(-1)!.rssKb = Number(rss[1])
  }
  const totals: Mappings = { malloc: 0, v8Pages: 0, wasm: 0, files: 0, other: 0 }
  for (const [index, mapping] of found.entries()) {
    const size = mapping.end - mapping.start
    const next = found[index + 1]
    const kind: keyof Mappings =
      mapping.name === '[heap]'
        ? 'malloc'
        : mapping.name.startsWith('/')
          ? 'files'
          : mapping.name !== ''
            ? 'other'
            : next && next.start === mapping.end && next.name === '' && next.end - next.start >= GUARD_MIN
              ? 'wasm'
              : size === 256 * 1024
                ? 'v8Pages'
                : mapping.start % ARENA_RESERVE === 0 && size <= ARENA_RESERVE
                  ? 'malloc'
                  : 'other'
    totals[kind] += mapping.rssKb / 1024
  }
  for (const key of Object.keys(totals) as (keyof Mappings)[]) totals[key] = round(totals[key], 1)
  return totals
}

const PRELOAD = pathToFileURL(join(REPO_ROOT, 'bench', 'memory-preload.mjs')).href

/** Asks the server for its process.memoryUsage() (SIGUSR2 to the preload) and reads the answer. */
async function usageOf(child: Child): Promise<Usage> {
  const before = child.tail()
  child.process.kill('SIGUSR2')
  for (let waited = 0; waited < 5000; waited += 50) {
    await sleep(50)
    const lines = child.tail().split('\n')
    const line = lines.findLast((text) => text.startsWith('bench-memory '))
    if (line && child.tail() !== before) {
      return { ...JSON.parse(line.slice('bench-memory '.length)), mappings: mappingsOf(child.pid) } as Usage
    }
  }
  throw new Error(`the server did not print its memory use. Last output:\n${child.tail()}`)
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

const rssOf = (child: Child) => {
  const memory = memoryOf(child.pid)
  if (!memory) throw new Error(`the server (pid ${child.pid}) is gone. Last output:\n${child.tail()}`)
  return memory.rssMb
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: new URL(url).origin, ...headers },
    body: JSON.stringify(body),
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`POST ${url} answered ${response.status}: ${text}`)
  return text ? JSON.parse(text) : undefined
}

const WORDS = ['blue', 'quick', 'atlas', 'river', 'paper', 'signal', 'orbit', 'cedar', 'pixel', 'harbor']

interface Seeded {
  adminCookie: string
  slugs: string[]
  ownerToken: string
  workIds: string[]
}

/** Items and a shelf in the directory, an owner with works on the platform: all through the API. */
async function seed(platform: string, directory: string, directoryPort: number): Promise<Seeded> {
  const adminCookie = await directorySession(directoryPort, '/api/auth/signin', {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
  })
  const slugs: string[] = []
  for (let start = 0; start < READ_ITEMS; start += 10) {
    const created = await Promise.all(
      Array.from({ length: Math.min(10, READ_ITEMS - start) }, (_, offset) => {
        const index = start + offset
        const words = [WORDS[index % WORDS.length], WORDS[(index * 7 + 3) % WORDS.length]]
        return postJson(
          `${directory}/api/admin/items`,
          {
            name: `Burst ${words.join(' ')} tool ${index}`,
            description: `Tool ${index} of the burst benchmark: ${words.join(', ')}. `.repeat(8),
            url: `https://burst-${index}.example`,
            status: 'published',
          },
          { cookie: adminCookie },
        )
      }),
    )
    for (const answer of created) slugs.push(answer.data.slug)
  }
  for (let index = 0; index < FEATURED_ENTRIES; index++) {
    await postJson(
      `${directory}/api/admin/featured-items`,
      {
        itemSlug: slugs[index],
        itemName: `Featured ${index}`,
        itemDescription: `Featured entry ${index} of the burst benchmark.`,
        featuredOrder: index,
      },
      { cookie: adminCookie },
    )
  }
  const owner = await postJson(`${platform}/api/auth/register`, {
    email: 'burst-owner@example.test',
    password: OWNER_PASSWORD,
    name: 'Burst Owner',
  })
  const ownerToken = owner.accessToken as string
  const workIds: string[] = []
  for (let index = 0; index < 5; index++) {
    const work = await postJson(
      `${platform}/api/works`,
      { name: `Burst directory ${index}`, description: 'Made by the burst benchmark.' },
      { authorization: `Bearer ${ownerToken}` },
    )
    workIds.push((work.data ?? work).id)
  }
  return { adminCookie, slugs, ownerToken, workIds }
}

/** Every connection walks these in turn: different pages, searches and items, so each cache fills. */
function readRequests(seeded: Seeded): { directory: AutocannonRequest[]; platform: AutocannonRequest[] } {
  const directory: AutocannonRequest[] = []
  for (let index = 0; index < 400; index++) {
    const word = WORDS[index % WORDS.length]!
    const other = WORDS[(index * 3 + 1) % WORDS.length]!
    switch (index % 8) {
      case 0:
        directory.push({ method: 'GET', path: `/api/items?page=${1 + (index % 15)}&limit=20` })
        break
      case 1:
        directory.push({
          method: 'GET',
          path: `/api/items?search=${word}%20${other.slice(0, 3)}&limit=${10 + (index % 40)}`,
        })
        break
      case 2:
        directory.push({ method: 'GET', path: `/api/items/${seeded.slugs[index % seeded.slugs.length]}` })
        break
      case 3:
        directory.push({ method: 'GET', path: '/api/featured-items' })
        break
      case 4:
        directory.push({ method: 'GET', path: '/api/current-user' })
        break
      case 5:
        directory.push({
          method: 'GET',
          path: `/api/items?sort=name&page=${1 + (index % 5)}&limit=${20 + (index % 30)}`,
        })
        break
      case 6:
        directory.push({
          method: 'GET',
          path: `/api/admin/items?search=${word}&limit=10&page=${1 + (index % 3)}`,
          headers: { cookie: seeded.adminCookie },
        })
        break
      default:
        directory.push({ method: 'GET', path: index % 80 === 7 ? '/openapi.json' : '/healthz' })
    }
  }
  const bearer = { authorization: `Bearer ${seeded.ownerToken}` }
  const platform: AutocannonRequest[] = []
  for (let index = 0; index < 100; index++) {
    switch (index % 5) {
      case 0:
        platform.push({ method: 'GET', path: '/api/works', headers: bearer })
        break
      case 1:
        platform.push({
          method: 'GET',
          path: `/api/works/${seeded.workIds[index % seeded.workIds.length]}`,
          headers: bearer,
        })
        break
      case 2:
        platform.push({ method: 'GET', path: `/api/activity-log?limit=${5 + (index % 20)}`, headers: bearer })
        break
      case 3:
        platform.push({ method: 'GET', path: '/healthz' })
        break
      default:
        platform.push({ method: 'GET', path: index % 20 === 4 ? '/openapi.json' : '/readyz' })
    }
  }
  return { directory, platform }
}

const printable = (text: string) => /^[\x21-\x7e]*$/.test(text)
const headerSafe = (text: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(text)

/**
 * `count` malformed requests for a service, drawn (with a fixed seed) by the harness's generators from its
 * OpenAPI document, sent as `auths` names them. Requests that cannot go on the wire as raw HTTP/1.1 (a
 * space or a line break in the URL or a header) are left out: the in-process harness covers those.
 */
function malformedRequests(
  document: OpenApiDocument,
  auths: Record<string, Record<string, string>>,
  count: number,
): AutocannonRequest[] {
  const operations = operationsOf(document)
  const sources = { auths: Object.keys(auths).map((name) => [name, 1] as const) }
  const wrong = wrongMethods(operations, sources)
  const generator: fc.Arbitrary<FuzzRequest> = fc.oneof(
    ...operations.map((operation) => ({ weight: 10, arbitrary: requestsFor(operation, sources) })),
    ...(wrong ? [{ weight: 3, arbitrary: wrong }] : []),
  )
  const pools = new Pools()
  const requests: AutocannonRequest[] = []
  for (const request of fc.sample(generator, { numRuns: count, seed: SEED })) {
    const { url, headers, payload } = render(request, pools, auths[request.auth] ?? {})
    if (!printable(url)) continue
    if (!Object.entries(headers).every(([name, value]) => printable(name) && headerSafe(String(value))))
      continue
    requests.push({
      method: request.method,
      path: url,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
      onResponse: (status) => {
        if (status < 500) return
        const key = `${status} ${request.operation}`
        serverErrors.set(key, (serverErrors.get(key) ?? 0) + 1)
      },
    })
  }
  return requests
}

/**
 * Load from `connections` connections that share one walk through `requests`: each connection sends the
 * next request of the list not yet sent (autocannon alone would have every connection start at the
 * first), so that a run of N requests sends the first N of the list, each once, round and round.
 */
function load(
  url: string,
  requests: AutocannonRequest[],
  options: { connections: number; duration?: number; amount?: number },
) {
  let next = 0
  return autocannon({
    url,
    connections: options.connections,
    ...(options.duration ? { duration: options.duration } : {}),
    ...(options.amount ? { amount: options.amount } : {}),
    requests: [
      {
        setupRequest: (_request, context) => {
          const chosen = requests[next++ % requests.length]!
          context.sent = chosen
          return {
            method: chosen.method,
            path: chosen.path,
            headers: chosen.headers ?? {},
            ...(chosen.body === undefined ? {} : { body: chosen.body }),
          }
        },
        onResponse: (status, _body, context) => (context.sent as AutocannonRequest).onResponse?.(status),
      },
    ],
    timeout: 30,
  })
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
      NODE_OPTIONS: `--import ${PRELOAD}`,
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
    const malformed = {
      platform: malformedRequests(
        documents[0]!,
        { anonymous: {}, owner: { authorization: `Bearer ${seeded.ownerToken}` } },
        half,
      ),
      directory: malformedRequests(
        documents[1]!,
        { anonymous: {}, admin: { cookie: seeded.adminCookie } },
        half,
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
