/**
 * Where an idle Curio's heap goes, by a heap snapshot's dominators (issue 29): for both services, the
 * platform alone and the directory alone, on `DATA_DIR=memory`, once more with both services after each
 * served its /openapi.json, and with `--postgres` the same three on a scratch Postgres database
 * (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres).
 *
 *   npm run bench:heap [-- --postgres] [-- --idle-ms 3000] [-- --case memory-platform] [-- --keep]
 *   npm run bench:heap -- --analyse <file.heapsnapshot>       (the tables of a snapshot taken elsewhere)
 *
 * Each case starts the real CLI (`node src/cli.mjs start [platform|directory]`, LOG_LEVEL=warn) with
 * bench/heap-preload.mjs, waits for the started services' /readyz, idles, then sends SIGUSR2: the child
 * writes a V8 heap snapshot and prints process.memoryUsage(). The snapshot's dominator tree
 * (bench/heap-snapshot.ts) gives retained sizes; bench/heap-groups.ts says who owns each node.
 * `--keep` leaves the snapshots in the scratch folder, to open in Chrome's DevTools.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { type GroupFigures, type HeapGroups, heapGroups } from './heap-groups.ts'
import { checkDominatorTree, dominatorTree, readHeapSnapshot } from './heap-snapshot.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  codeVersion,
  dropDatabaseOnSignal,
  dropScratchDatabase,
  isRunning,
  killChild,
  machine,
  memoryOf,
  pickPorts,
  REPO_ROOT,
  round,
  sleep,
  spawnNode,
  startCurio,
  stopChild,
  table,
  waitFor200,
  writeResults,
} from './lib.ts'

const { values } = parseArgs({
  options: {
    postgres: { type: 'boolean' },
    'idle-ms': { type: 'string' },
    case: { type: 'string', multiple: true },
    keep: { type: 'boolean' },
    analyse: { type: 'string' },
  },
  strict: true,
})
const idleMs = Number(values['idle-ms'] ?? 3000)
if (!Number.isFinite(idleMs) || idleMs < 0) throw new Error(`--idle-ms must be >= 0 (got ${idleMs})`)

type Service = 'platform' | 'directory'
interface Case {
  name: string
  label: string
  storage: 'memory' | 'postgres'
  services: Service[]
  /** Each started service answers GET /openapi.json once before the idle wait. */
  openApi?: boolean
}
const BOTH: Service[] = ['platform', 'directory']
const ALL_CASES: Case[] = [
  { name: 'memory-both', label: 'memory, both services', storage: 'memory', services: BOTH },
  { name: 'memory-platform', label: 'memory, platform', storage: 'memory', services: ['platform'] },
  { name: 'memory-directory', label: 'memory, directory', storage: 'memory', services: ['directory'] },
  {
    name: 'memory-both-openapi',
    label: 'memory, both, after /openapi.json',
    storage: 'memory',
    services: BOTH,
    openApi: true,
  },
  { name: 'postgres-both', label: 'Postgres, both services', storage: 'postgres', services: BOTH },
  { name: 'postgres-platform', label: 'Postgres, platform', storage: 'postgres', services: ['platform'] },
  { name: 'postgres-directory', label: 'Postgres, directory', storage: 'postgres', services: ['directory'] },
]
const cases = ALL_CASES.filter((one) =>
  values.case ? values.case.includes(one.name) : one.storage === 'memory' || values.postgres,
)
if (cases.length === 0) throw new Error(`no case named ${values.case?.join(', ')}`)

const PRELOAD = pathToFileURL(join(REPO_ROOT, 'bench', 'heap-preload.mjs')).href
const mb = (bytes: number) => round(bytes / 1024 / 1024, 1)

interface MemoryUsage {
  rss: number
  heapTotal: number
  heapUsed: number
  external: number
  arrayBuffers: number
}
interface SnapshotLine {
  path: string
  writeMs: number
  before: MemoryUsage
  after: MemoryUsage
}

/** What a snapshot shows. Self sizes: inside the V8 heap, outside it, and of nodes no counted edge reaches. */
interface Analysis {
  snapshot: { fileMb: number; nodes: number; edges: number; writeMs: number; analyseMs: number }
  heapMb: number
  offHeapMb: number
  unreachableMb: number
  groups: (GroupFigures & { heapMb: number; offHeapMb: number })[]
  top: HeapGroups['top']
}

interface CaseResult extends Analysis {
  case: string
  label: string
  services: Service[]
  storage: Case['storage']
  readyMs: number
  /** VmRSS of the child just before the snapshot. */
  rssMb: number | null
  /** process.memoryUsage() of the child before the snapshot, and after it (the snapshot collects garbage first). */
  memoryUsageMb: { before: Record<keyof MemoryUsage, number>; after: Record<keyof MemoryUsage, number> }
}

const inMb = (usage: MemoryUsage) =>
  Object.fromEntries(Object.entries(usage).map(([key, value]) => [key, mb(value)])) as Record<
    keyof MemoryUsage,
    number
  >

/** Waits for the preload's line saying the snapshot is written; throws if the child dies or stays silent. */
async function snapshotWritten(child: Child, timeoutMs = 120_000): Promise<SnapshotLine> {
  const deadline = performance.now() + timeoutMs
  while (true) {
    const line = child.output.find((one) => one.stream === 'stderr' && one.text.startsWith('bench-heap '))
    if (line) return JSON.parse(line.text.slice('bench-heap '.length)) as SnapshotLine
    if (!isRunning(child)) throw new Error(`child exited before writing its snapshot:\n${child.tail()}`)
    if (performance.now() > deadline) throw new Error(`no snapshot after ${timeoutMs} ms:\n${child.tail()}`)
    await sleep(100)
  }
}

async function measure(one: Case, storage: Record<string, string>, scratch: string): Promise<CaseResult> {
  const ports = await pickPorts()
  const path = join(scratch, `${one.name}.heapsnapshot`)
  let child: Child | undefined
  let line: SnapshotLine
  let rssMb: number | null = null
  let readyMs: number
  try {
    child = startCurio(
      ports,
      { ...storage, LOG_LEVEL: 'warn', BENCH_HEAP_SNAPSHOT: path },
      {
        ...(one.services.length === 1 ? { service: one.services[0] } : {}),
        nodeArgs: [`--import=${PRELOAD}`],
        keepOutput: true,
      },
    )
    const bases = one.services.map(
      (service) => `http://127.0.0.1:${service === 'platform' ? ports.platformPort : ports.directoryPort}`,
    )
    const readyAt = await waitFor200(
      child,
      bases.map((base) => `${base}/readyz`),
    )
    readyMs = round(readyAt - child.spawnedAt)
    if (one.openApi) {
      for (const base of bases) {
        const response = await fetch(`${base}/openapi.json`)
        await response.arrayBuffer()
        if (response.status !== 200) throw new Error(`${base}/openapi.json answered ${response.status}`)
      }
    }
    await sleep(idleMs)
    rssMb = memoryOf(child.pid)?.rssMb ?? null
    child.process.kill('SIGUSR2')
    line = await snapshotWritten(child)
    await stopChild(child)
  } finally {
    await killChild(child)
  }

  return {
    case: one.name,
    label: one.label,
    services: one.services,
    storage: one.storage,
    readyMs,
    rssMb: rssMb === null ? null : round(rssMb, 1),
    memoryUsageMb: { before: inMb(line.before), after: inMb(line.after) },
    ...analyse(path, line.writeMs),
  }
}

/** The dominator tree of a snapshot file, and its groups (the file is removed unless `--keep`). */
function analyse(path: string, writeMs: number): Analysis {
  const startedAt = performance.now()
  const fileMb = mb(statSync(path).size)
  const snapshot = readHeapSnapshot(path)
  const tree = dominatorTree(snapshot)
  checkDominatorTree(snapshot, tree)
  const found = heapGroups(snapshot, tree)
  let allBytes = 0
  for (const size of snapshot.nodeSelfSize) allBytes += size
  const analyseMs = round(performance.now() - startedAt)
  if (!values.keep && !values.analyse) rmSync(path, { force: true })
  return {
    snapshot: { fileMb, nodes: snapshot.nodeCount, edges: snapshot.edgeCount, writeMs, analyseMs },
    heapMb: mb(found.heapBytes),
    offHeapMb: mb(found.offHeapBytes),
    unreachableMb: mb(allBytes - tree.reachableSize),
    groups: found.groups.map((group) => ({
      ...group,
      heapMb: round(group.heapBytes / 1024 / 1024, 2),
      offHeapMb: round(group.offHeapBytes / 1024 / 1024, 2),
    })),
    top: found.top,
  }
}

/** The groups and the biggest dominators of one snapshot, under a heading. */
function printAnalysis(heading: string, result: Analysis) {
  const rows: (string | number)[][] = [['group', 'heap MB', 'off-heap MB', '% of heap', 'nodes']]
  const row = (label: string, groups: CaseResult['groups']) => {
    const heap = groups.reduce((sum, group) => sum + group.heapBytes, 0) / 1024 / 1024
    const off = groups.reduce((sum, group) => sum + group.offHeapBytes, 0) / 1024 / 1024
    const nodes = groups.reduce((sum, group) => sum + group.nodes, 0)
    rows.push([label, round(heap, 2), round(off, 2), round((100 * heap) / result.heapMb, 1), nodes])
  }
  // Groups of 0.25 MB or more one by one (30 at most), the smaller ones summed by kind.
  const large = result.groups.filter((group) => group.heapMb + group.offHeapMb >= 0.25).slice(0, 30)
  for (const group of large) row(group.group, [group])
  const small = result.groups.filter((group) => !large.includes(group))
  for (const kind of ['code', 'objects', 'unattributed']) {
    const mine = small.filter((group) => group.group.startsWith(`${kind}: `))
    if (mine.length > 0) row(`${kind}: ${mine.length} smaller groups`, mine)
  }
  const others = small.filter((group) => !/^(code|objects|unattributed): /.test(group.group))
  if (others.length > 0) row(`${others.length} other smaller groups`, others)
  const top: (string | number)[][] = [['retained MB', 'type', 'name', 'held as', 'owner']]
  for (const holder of result.top) {
    top.push([mb(holder.retainedBytes), holder.type, holder.name, holder.heldAs || '-', holder.owner])
  }
  process.stdout.write(
    `${heading}\nsnapshot ${result.snapshot.fileMb} MB, ${result.snapshot.nodes} nodes, written in ` +
      `${result.snapshot.writeMs} ms, analysed in ${result.snapshot.analyseMs} ms: V8 heap ${result.heapMb} MB, ` +
      `outside it ${result.offHeapMb} MB, unreachable ${result.unreachableMb} MB\n\n` +
      `${table(rows)}\n\nbiggest single dominators:\n${table(top)}\n`,
  )
}

function printCase(result: CaseResult) {
  const after = result.memoryUsageMb.after
  printAnalysis(
    `\n== ${result.label} (${result.case}) ==\n` +
      `ready in ${result.readyMs} ms; RSS ${result.rssMb ?? '?'} MB before the snapshot; after its GC: ` +
      `heapUsed ${after.heapUsed} MB, external ${after.external} MB (arrayBuffers ${after.arrayBuffers} MB)`,
    result,
  )
}

/** The groups the comparison shows, and sums over families of groups. */
const COMPARED: [string, (group: string) => boolean][] = [
  ['PGlite: WebAssembly memory', (group) => group === 'PGlite: WebAssembly memory'],
  ['PGlite: in-memory files', (group) => group === 'PGlite: in-memory files (FSNode)'],
  ['PGlite: cluster file (loadDataDir)', (group) => group.startsWith('PGlite: cluster file')],
  [
    'PGlite: JS objects, instance',
    (group) => group === 'PGlite: JS objects' || group.startsWith('PGlite: WebAssembly instance'),
  ],
  ['fastify instances, route contexts', (group) => group.startsWith('fastify:')],
  ['find-my-way route tables', (group) => group.startsWith('find-my-way:')],
  ['TypeBox schemas', (group) => group === 'TypeBox schemas'],
  ['ajv validators, instances', (group) => group.startsWith('ajv:')],
  ['fast-json-stringify serializers', (group) => group.startsWith('fast-json-stringify:')],
  ['OpenAPI documents', (group) => group.startsWith('OpenAPI documents')],
  ['drizzle-orm objects', (group) => group === 'drizzle-orm'],
  ['pg-boss objects', (group) => group === 'pg-boss'],
  ['prom-client', (group) => group.startsWith('prom-client')],
  ['pg (node-postgres) objects', (group) => group === 'objects: pg' || group === 'objects: pg-pool'],
  ["Curio's objects (src/…)", (group) => group.startsWith('objects: src')],
  ["Curio's code (src/…)", (group) => group.startsWith('code: src')],
  [
    'code of npm packages',
    (group) =>
      group.startsWith('code: ') && !group.startsWith('code: src') && !group.startsWith('code: node'),
  ],
  ["Node's code and objects", (group) => /^(code|objects): node/.test(group) || group.includes(': node:')],
  ['unattributed', (group) => group.startsWith('unattributed')],
]

function printComparison(results: CaseResult[]) {
  const header = ['MB (heap + off-heap)', ...results.map((result) => result.case)]
  const rows: (string | number)[][] = [header]
  const figure = (pick: (result: CaseResult) => number | null) => results.map((result) => pick(result) ?? '?')
  rows.push(['RSS before the snapshot', ...figure((result) => result.rssMb)])
  rows.push(['heapUsed after GC', ...figure((result) => result.memoryUsageMb.after.heapUsed)])
  rows.push(['external (arrayBuffers)', ...figure((result) => result.memoryUsageMb.after.external)])
  rows.push(['snapshot: V8 heap', ...figure((result) => result.heapMb)])
  rows.push(['snapshot: outside the heap', ...figure((result) => result.offHeapMb)])
  for (const [label, matches] of COMPARED) {
    rows.push([
      label,
      ...figure((result) =>
        round(
          result.groups
            .filter((group) => matches(group.group))
            .reduce((sum, group) => sum + group.heapMb + group.offHeapMb, 0),
          1,
        ),
      ),
    ])
  }
  process.stdout.write(`\n== comparison ==\n${table(rows)}\n`)
}

if (values.analyse) {
  printAnalysis(`== ${values.analyse} ==`, analyse(values.analyse, 0))
  process.exit(0)
}

/**
 * Starts both services once, unmeasured, on the storage a case uses: the compile cache then holds every
 * file a start reads, as `npm install` leaves it. On a cold cache Node loads its TypeScript stripper, 7 MB
 * of the snapshot, in whichever case starts first after a change.
 */
async function warmUp(storage: Record<string, string>) {
  const ports = await pickPorts()
  const child = startCurio(ports, { ...storage, LOG_LEVEL: 'warn' })
  try {
    await waitFor200(child, [
      `http://127.0.0.1:${ports.platformPort}/readyz`,
      `http://127.0.0.1:${ports.directoryPort}/readyz`,
    ])
    await stopChild(child)
  } finally {
    await killChild(child)
  }
}

const machineBefore = machine()
const scratch = mkdtempSync(join(tmpdir(), 'curio-bench-heap-'))
const results: CaseResult[] = []
const warmed = new Set<Case['storage']>()
const { adminUrl, shownUrl } = benchDatabaseUrl()
const databaseName = `curio_bench_heap_${process.pid}`
let databaseUrl: string | undefined
const setDropOnSignal = cases.some((one) => one.storage === 'postgres')
  ? dropDatabaseOnSignal(adminUrl)
  : undefined
try {
  for (const one of cases) {
    let storage: Record<string, string> = { DATA_DIR: 'memory' }
    if (one.storage === 'postgres') {
      if (!databaseUrl) {
        await adminQuery(adminUrl, `drop database if exists "${databaseName}" with (force)`)
        await adminQuery(adminUrl, `create database "${databaseName}"`)
        setDropOnSignal?.(databaseName)
        const url = new URL(adminUrl)
        url.pathname = `/${databaseName}`
        databaseUrl = url.toString()
        // Migrated once beforehand: every case then starts on a database that is already there.
        const migrate = spawnNode({ args: ['src/cli.mjs', 'migrate'], env: { DATABASE_URL: databaseUrl } })
        const { code } = await migrate.exited
        if (code !== 0) throw new Error(`migrate exited with ${code}:\n${migrate.tail()}`)
        process.stdout.write(`scratch database ${databaseName} on ${shownUrl}, migrated\n`)
      }
      storage = { DATABASE_URL: databaseUrl }
    }
    if (!warmed.has(one.storage)) {
      await warmUp(storage)
      warmed.add(one.storage)
    }
    const result = await measure(one, storage, scratch)
    results.push(result)
    printCase(result)
  }
} finally {
  if (setDropOnSignal && databaseUrl) await dropScratchDatabase(adminUrl, databaseName, setDropOnSignal)
  if (values.keep) process.stdout.write(`\nsnapshots kept in ${scratch}\n`)
  else rmSync(scratch, { recursive: true, force: true })
}

printComparison(results)
process.stdout.write(
  '\nheap = self sizes of the V8 heap objects a group owns; off-heap = what the snapshot reports outside\n' +
    '  that heap (ArrayBuffer and Blob data, WebAssembly memory at its reserved size, external strings).\n' +
    'A node belongs to the nearest dominator that says who made it (bench/heap-groups.ts); groups add up\n' +
    '  to the snapshot. The biggest single dominators list a holder once, not each link of its chain.\n',
)

const path = writeResults('heap', {
  benchmark: 'heap',
  at: new Date().toISOString(),
  machine: machineBefore,
  loadAverageAtEnd: machine().loadAverage,
  code: codeVersion(),
  settings: { idleMs, logLevel: 'warn', cases: cases.map((one) => one.name) },
  results,
})
process.stdout.write(`\nwrote ${path}\n`)
