/**
 * No regression from a refactor: requests per second of two platform routes on the code before it and
 * on the code after it, side by side with a bare node:http server answering the same bytes, in one run.
 *
 *   before  a git ref (`--before`, default ddd6a24), checked out with `git worktree add --detach` in a
 *           temporary folder whose node_modules links to this one; removed at the end, also on failure
 *   after   this working tree as it is now (or, with `--after <ref>`, another temporary worktree)
 *
 * Each side runs `node src/cli.mjs start` (`src/main.ts` where the checkout predates it) from its own
 * folder (DATA_DIR=memory, LOG_LEVEL=info, output piped and drained) and is set up through the API: one
 * account (POST /api/auth/register), one API key, 60 works, so the activity log holds 61 rows. The routes:
 *   GET /healthz                          no authentication
 *   GET /api/activity-log?limit=25        x-api-key, 25 activities per answer
 * bench/bare-server.ts answers the bytes the "after" side gave for each route. For each route autocannon
 * runs against bare, then before, after, after, before (warm-up, then the run each time); a side's figure
 * is the mean of its two runs, so neither side always goes first. The Curio process not being measured
 * is paused (SIGSTOP) meanwhile, and both are paused while the bare server is measured.
 *
 *   npm run bench:spine [-- --before <ref>] [-- --duration 10] [-- --warmup 2] [-- --connections 50]
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
  isRunning,
  killChild,
  LOAD_OPTIONS,
  type LoadFigures,
  loadFigures,
  loadSettings,
  machine,
  pickPorts,
  REPO_ROOT,
  type Recorded,
  round,
  sleep,
  spawnNode,
  startCurio,
  stopChild,
  table,
  waitFor200,
  withoutHopByHop,
  writeResults,
} from './lib.ts'
import { addWorktree, commitOf, removeWorktrees, workingTree } from './worktrees.ts'

const DEFAULT_BEFORE = 'ddd6a24'
const WORKS = 60
const PAGE = 25

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    // Not in the usage line: measures another ref instead of the working tree (for instance when the
    // working tree is mid-edit and does not start).
    after: { type: 'string' },
    ...LOAD_OPTIONS,
  },
  strict: true,
})
const { duration, warmup, connections } = loadSettings(values, { connections: 50 })

const beforeRef = values.before ?? DEFAULT_BEFORE
const beforeCommit = commitOf(beforeRef)
const afterRef = values.after
const afterCommit = afterRef === undefined ? undefined : commitOf(afterRef)
const { head, uncommittedFiles } =
  afterRef === undefined ? workingTree() : { head: commitOf('HEAD'), uncommittedFiles: 0 }

type Side = 'before' | 'after'
type Target = 'bare' | Side

interface Route {
  path: string
  apiKey: boolean
}
const ROUTES: Route[] = [
  { path: '/healthz', apiKey: false },
  { path: `/api/activity-log?limit=${PAGE}`, apiKey: true },
]

/** Header names one answer has and the other lacks: the parts of an answer that may change with the code. */
function headerNamesDiffer(a: Recorded, b: Recorded): string[] {
  const ha = Object.keys(withoutHopByHop(a.headers))
  const hb = Object.keys(withoutHopByHop(b.headers))
  return [
    ...ha.filter((name) => !hb.includes(name)).map((name) => `-${name}`),
    ...hb.filter((name) => !ha.includes(name)).map((name) => `+${name}`),
  ]
}

interface Instance {
  side: Side
  /** What was checked out: a ref with its commit, or this working tree. */
  source: string
  cwd: string
  child: Child
  platform: string
  apiKey: string
}
const instances: Instance[] = []

const scratch = mkdtempSync(join(tmpdir(), 'curio-bench-spine-routes-'))
process.on('exit', () => {
  for (const { child } of instances) if (isRunning(child)) child.process.kill('SIGKILL')
  removeWorktrees()
  rmSync(scratch, { recursive: true, force: true })
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the benchmark\n`)
    process.exit(130)
  })
}

async function call(
  instance: Pick<Instance, 'side' | 'platform'>,
  method: 'GET' | 'POST',
  path: string,
  expected: number,
  { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Record<string, unknown>> {
  const response = await fetch(`${instance.platform}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await response.text()
  if (response.status !== expected) {
    throw new Error(
      `${instance.side}: ${method} ${path} answered ${response.status}, expected ${expected}: ${text}`,
    )
  }
  return JSON.parse(text) as Record<string, unknown>
}

/** Starts one side and gives it an account, an API key and WORKS works; returns it ready to measure. */
async function startInstance(side: Side, source: string, cwd: string): Promise<Instance> {
  const ports = await pickPorts()
  const child = startCurio(ports, { DATA_DIR: 'memory', LOG_LEVEL: 'info' }, { cwd })
  const platform = `http://127.0.0.1:${ports.platformPort}`
  const instance: Instance = { side, source, cwd, child, platform, apiKey: '' }
  instances.push(instance)
  try {
    await waitFor200(child, [`${platform}/readyz`, `http://127.0.0.1:${ports.directoryPort}/readyz`])
  } catch (error) {
    throw new Error(`${side}, ${source}, did not start: ${(error as Error).message}`)
  }
  try {
    // One registration only: newer code allows three an hour from one address.
    const tokens = await call(instance, 'POST', '/api/auth/register', 201, {
      body: { email: `bench-${side}@example.com`, password: 'bench-password-1' },
    })
    const bearer = { authorization: `Bearer ${tokens.accessToken}` }
    const created = await call(instance, 'POST', '/api/auth/api-keys', 200, {
      body: { name: 'bench' },
      headers: bearer,
    })
    if (typeof created.key !== 'string') throw new Error(`${side}: POST /api/auth/api-keys gave no key`)
    for (let n = 1; n <= WORKS; n++) {
      await call(instance, 'POST', '/api/works', 201, { body: { name: `Bench work ${n}` }, headers: bearer })
    }
    const list = await call(instance, 'GET', `/api/activity-log?limit=${PAGE}`, 200, {
      headers: { 'x-api-key': created.key },
    })
    const activities = Array.isArray(list.activities) ? list.activities.length : -1
    if (activities !== PAGE)
      throw new Error(`${side}: the activity log listed ${activities} activities, expected ${PAGE}`)
    instance.apiKey = created.key
    // From here on the service's log lines are read and thrown away, nothing more.
    child.discardOutput()
    return instance
  } catch (error) {
    throw new Error(`${(error as Error).message}\nLast output of ${side}:\n${child.tail()}`)
  }
}

/** Lets only `active` run (or none, for the bare server), so an idle service takes no CPU from the one measured. */
async function focus(active: Instance | undefined) {
  for (const instance of instances) {
    if (instance !== active && isRunning(instance.child)) instance.child.process.kill('SIGSTOP')
  }
  if (active) {
    active.child.process.kill('SIGCONT')
    // Timers that fell due while it was paused fire now, not during the run.
    await sleep(250)
  }
}

interface Run extends LoadFigures {
  path: string
  target: Target
  /** 1 or 2: the order of the runs on one route was bare, before 1, after 1, after 2, before 2. */
  round: number
}

async function load(url: string, headers: Record<string, string>): Promise<Result> {
  if (warmup > 0) await autocannon({ url, connections, duration: warmup, headers })
  return autocannon({ url, connections, duration, headers })
}

async function measure(
  route: Route,
  target: Target,
  roundNumber: number,
  url: string,
  apiKey: string,
): Promise<Run> {
  const label = target === 'bare' ? 'bare' : `${target} ${roundNumber}`
  process.stdout.write(
    `${route.path}  ${label}: ${warmup} s warm-up + ${duration} s, ${connections} connections… `,
  )
  const result = await load(url, route.apiKey ? { 'x-api-key': apiKey } : {})
  const run: Run = {
    path: route.path,
    target,
    round: roundNumber,
    ...loadFigures(result),
  }
  const failed = run.non2xx + run.errors + run.timeouts
  process.stdout.write(
    `${run.requestsPerSec} req/s${failed ? `  !!! ${run.non2xx} non-2xx, ${run.errors} errors, ${run.timeouts} timeouts` : ''}\n`,
  )
  return run
}

interface Answers {
  /** What each side answered for each route, as recorded before the load. */
  recorded: Record<string, Record<Side, Recorded>>
  bareMatchesAfter: Record<string, string[]>
}

const machineBefore = machine()
const runs: Run[] = []
let answers: Answers | undefined
let bare: Child | undefined
try {
  const beforeTree = addWorktree(beforeCommit, 'spine')
  const before = await startInstance('before', `${beforeRef} (${beforeCommit.slice(0, 10)})`, beforeTree.dir)
  await focus(undefined)
  const after =
    afterCommit === undefined
      ? await startInstance(
          'after',
          `working tree (HEAD ${head.slice(0, 10)}, ${uncommittedFiles} uncommitted file(s))`,
          REPO_ROOT,
        )
      : await startInstance(
          'after',
          `${afterRef} (${afterCommit.slice(0, 10)})`,
          addWorktree(afterCommit, 'spine').dir,
        )
  const sides = { before, after }

  const recorded: Answers['recorded'] = {}
  const routes: Record<string, BareRoute> = {}
  for (const route of ROUTES) {
    const answerOf = async (instance: Instance) => {
      await focus(instance)
      return getRecorded(
        `${instance.platform}${route.path}`,
        route.apiKey ? { 'x-api-key': instance.apiKey } : {},
      )
    }
    const answer = { before: await answerOf(before), after: await answerOf(after) }
    recorded[route.path] = answer
    routes[route.path] = {
      status: answer.after.status,
      headers: withoutHopByHop(answer.after.headers),
      bodyBase64: answer.after.body.toString('base64'),
    }
  }
  // bare-server.ts matches the whole request target, query string included.
  const routesFile = join(scratch, 'routes.json')
  writeFileSync(routesFile, JSON.stringify(routes, null, 2))
  await focus(undefined)
  const barePort = await freePort()
  bare = spawnNode({ args: ['bench/bare-server.ts', String(barePort), routesFile] })
  const bareBase = `http://127.0.0.1:${barePort}`
  await waitFor200(
    bare,
    ROUTES.map((route) => `${bareBase}${route.path}`),
  )
  bare.discardOutput()
  const bareMatchesAfter: Answers['bareMatchesAfter'] = {}
  for (const route of ROUTES) {
    bareMatchesAfter[route.path] = differences(
      recorded[route.path]!.after,
      await getRecorded(`${bareBase}${route.path}`),
    )
  }
  answers = { recorded, bareMatchesAfter }

  for (const route of ROUTES) {
    runs.push(await measure(route, 'bare', 1, `${bareBase}${route.path}`, ''))
    for (const [side, roundNumber] of [
      ['before', 1],
      ['after', 1],
      ['after', 2],
      ['before', 2],
    ] as const) {
      const instance = sides[side]
      await focus(instance)
      runs.push(await measure(route, side, roundNumber, `${instance.platform}${route.path}`, instance.apiKey))
    }
  }

  for (const instance of instances) instance.child.process.kill('SIGCONT')
  for (const [name, child] of [
    ['before', before.child],
    ['after', after.child],
    ['bare', bare],
  ] as const) {
    const stopped = await stopChild(child)
    if (stopped.code !== 0)
      process.stdout.write(`note: ${name} server exited with ${stopped.code ?? stopped.signal}\n`)
  }
} finally {
  for (const instance of instances) {
    if (isRunning(instance.child)) instance.child.process.kill('SIGCONT')
  }
  await Promise.all([killChild(bare), ...instances.map((instance) => killChild(instance.child))])
  removeWorktrees()
  rmSync(scratch, { recursive: true, force: true })
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
const summary = ROUTES.map(({ path }) => {
  const figures = (target: Target) => {
    const of = runs.filter((run) => run.path === path && run.target === target)
    return {
      requestsPerSec: round(mean(of.map((run) => run.requestsPerSec))),
      latencyAvgMs: round(mean(of.map((run) => run.latencyAvgMs)), 2),
      latencyP99Ms: round(mean(of.map((run) => run.latencyP99Ms)), 2),
    }
  }
  const bareFigures = figures('bare')
  const before = figures('before')
  const after = figures('after')
  return {
    path,
    bare: bareFigures,
    before,
    after,
    afterOverBefore: round(after.requestsPerSec / before.requestsPerSec, 3),
    afterOverBare: round(after.requestsPerSec / bareFigures.requestsPerSec, 3),
    beforeOverBare: round(before.requestsPerSec / bareFigures.requestsPerSec, 3),
  }
})
const failures = runs.filter((run) => run.non2xx + run.errors + run.timeouts > 0)
const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`

process.stdout.write(
  `\nCurio refactor check: autocannon, ${connections} connections, ${warmup} s warm-up + ${duration} s per run\n` +
    `${machineBefore.node}, ${machineBefore.cpus} CPU(s), ${machineBefore.cpuModel}; ` +
    `load average at start ${machineBefore.loadAverage.join(' / ')}\n` +
    'autocannon runs in this process; each service and the bare server in its own child process, the one\n' +
    'not measured paused. Runs per route: bare, before, after, after, before; before and after are means of two.\n' +
    `load average at end ${machine().loadAverage.join(' / ')} (other work on this machine skews the figures)\n\n` +
    `before  ${instances.find((instance) => instance.side === 'before')?.source}\n` +
    `after   ${instances.find((instance) => instance.side === 'after')?.source}\n`,
)
for (const route of ROUTES) {
  const answer = answers!.recorded[route.path]!
  const diff = answers!.bareMatchesAfter[route.path]!
  const headerChange = headerNamesDiffer(answer.before, answer.after)
  process.stdout.write(
    `\n  ${route.path}: before ${answer.before.status}, ${answer.before.body.length} body bytes; ` +
      `after ${answer.after.status}, ${answer.after.body.length} body bytes` +
      `${headerChange.length ? `; headers after vs before ${headerChange.join(' ')}` : ''}\n` +
      `    bare answer ${diff.length ? `DIFFERS from after (${diff.join('; ')})` : 'identical to after (hop-by-hop headers aside)'}\n`,
  )
}

process.stdout.write('\nEvery run\n\n')
process.stdout.write(
  `${table([
    ['route', 'target', 'req/s (avg)', 'latency avg ms', 'p99 ms', 'requests', 'non-2xx', 'errors'],
    ...runs.map((run) => [
      run.path,
      run.target === 'bare' ? 'bare' : `${run.target} ${run.round}`,
      run.requestsPerSec,
      run.latencyAvgMs,
      run.latencyP99Ms,
      run.total,
      run.non2xx,
      run.errors + run.timeouts,
    ]),
  ])}\n`,
)

process.stdout.write('\nBefore and after: mean of two runs each\n\n')
process.stdout.write(
  `${table([
    ['route', 'target', 'req/s', 'p99 ms', 'after/before', 'after/bare', 'before/bare'],
    ...summary.flatMap((row) => [
      [row.path, 'bare', row.bare.requestsPerSec, row.bare.latencyP99Ms, '', '', ''],
      [
        row.path,
        'before',
        row.before.requestsPerSec,
        row.before.latencyP99Ms,
        '',
        '',
        percent(row.beforeOverBare),
      ],
      [
        row.path,
        'after',
        row.after.requestsPerSec,
        row.after.latencyP99Ms,
        percent(row.afterOverBefore),
        percent(row.afterOverBare),
        '',
      ],
    ]),
  ])}\n`,
)

if (failures.length > 0) {
  process.stdout.write(
    `\n!!! ${failures.length} run(s) had non-2xx answers or errors: their figures do not measure the route\n` +
      failures
        .map(
          (run) =>
            `!!!   ${run.path} ${run.target} ${run.round}: ${run.non2xx} non-2xx ${JSON.stringify(run.statusCodes)}, ` +
            `${run.errors} errors, ${run.timeouts} timeouts\n`,
        )
        .join(''),
  )
  process.exitCode = 1
}

const path = writeResults('spine', {
  benchmark: 'spine',
  at: new Date().toISOString(),
  machine: machineBefore,
  loadAverageAtEnd: machine().loadAverage,
  settings: {
    connections,
    durationSec: duration,
    warmupSec: warmup,
    dataDir: 'memory',
    logLevel: 'info',
    works: WORKS,
  },
  before: { ref: beforeRef, commit: beforeCommit },
  after:
    afterCommit === undefined
      ? { ref: null, workingTree: true, head, uncommittedFiles }
      : { ref: afterRef, commit: afterCommit },
  answers: Object.fromEntries(
    ROUTES.map(({ path }) => {
      const answer = answers!.recorded[path]!
      return [
        path,
        {
          before: {
            status: answer.before.status,
            headers: answer.before.headers,
            bodyBytes: answer.before.body.length,
          },
          after: {
            status: answer.after.status,
            headers: answer.after.headers,
            bodyBytes: answer.after.body.length,
          },
          bareDiffersFromAfter: answers!.bareMatchesAfter[path],
        },
      ]
    }),
  ),
  summary,
  failures: failures.length,
  runs,
})
process.stdout.write(`\nwrote ${path}\n`)
