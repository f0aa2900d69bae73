/**
 * What the MCP endpoint costs over the REST route it wraps: `tools/call` of `list_works` on the platform's
 * `POST /mcp` (one raw JSON-RPC POST: the endpoint is stateless, so no `initialize` is needed first) against
 * `GET /api/works`, with the same API key and the same WORKS works.
 *
 * Starts the platform (`node src/cli.mjs start platform`, DATA_DIR=memory, RATE_LIMIT_BYPASS_LOCALHOST=true
 * so that neither side meets a limit), registers an account, makes its API key and WORKS works through the
 * API, checks that the tool's `structuredContent` is the REST answer, then loads each path REST, MCP, MCP,
 * REST (warm-up, then the run) so that drift of the shared machine falls on both alike; each side's
 * figures are the mean of its two runs, and its CPU per request is read from /proc over its runs. On a
 * machine of two CPUs or more, autocannon (this process) runs on CPU 0 and the server on CPU 1.
 *
 *   npm run bench:mcp [-- --duration 10] [-- --warmup 2] [-- --connections 20] [-- --works 20]
 */
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import {
  type Child,
  checkWholeNumbers,
  cpuMsOf,
  killChild,
  LOAD_OPTIONS,
  loadFigures,
  loadSettings,
  machine,
  pickPorts,
  pinLoadAndServer,
  round,
  startCurio,
  stopChild,
  table,
  waitFor200,
  writeResults,
} from './lib.ts'

const TARGET_RATIO = 0.5
const PROTOCOL_VERSION = '2025-06-18'

const { values } = parseArgs({ options: { ...LOAD_OPTIONS, works: { type: 'string' } }, strict: true })
const { duration, warmup, connections } = loadSettings(values, { connections: 20 })
const works = Number(values.works ?? 20)
checkWholeNumbers([['--works', works, 1]])

type Side = 'rest' | 'mcp'
const ORDER: readonly Side[] = ['rest', 'mcp', 'mcp', 'rest']

interface Run {
  side: Side
  requestsPerSec: number
  latencyP50Ms: number
  latencyP99Ms: number
  total: number
  non2xx: number
  errors: number
  cpuMs: number | null
}

const mean = (numbers: number[]) => numbers.reduce((sum, value) => sum + value, 0) / numbers.length

function summary(runs: Run[]) {
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

async function json(url: string, init: RequestInit & { expect: number }) {
  const response = await fetch(url, init)
  const text = await response.text()
  if (response.status !== init.expect) throw new Error(`${url} answered ${response.status}: ${text}`)
  return JSON.parse(text) as Record<string, unknown>
}

/** An account, its API key and `works` works, made through the platform's API. */
async function seed(base: string): Promise<string> {
  const headers = { 'content-type': 'application/json' }
  const registered = await json(`${base}/api/auth/register`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email: `bench-mcp-${Date.now()}@example.test`, password: 'a good password' }),
    expect: 201,
  })
  const bearer = { ...headers, authorization: `Bearer ${registered.accessToken as string}` }
  const key = await json(`${base}/api/auth/api-keys`, {
    method: 'POST',
    headers: bearer,
    body: JSON.stringify({ name: 'bench' }),
    expect: 200,
  })
  for (let index = 1; index <= works; index++) {
    await json(`${base}/api/works`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({
        name: `Bench work ${index}`,
        description: `The ${index}th work of the MCP benchmark: a directory of things worth listing.`,
      }),
      expect: 201,
    })
  }
  return key.key as string
}

const pinned = pinLoadAndServer()
let server: Child | undefined
try {
  const ports = await pickPorts()
  server = startCurio(
    ports,
    { DATA_DIR: 'memory', LOG_LEVEL: 'warn', RATE_LIMIT_BYPASS_LOCALHOST: 'true' },
    { service: 'platform', cpu: pinned?.serverCpu },
  )
  const base = `http://127.0.0.1:${ports.platformPort}`
  await waitFor200(server, [`${base}/readyz`])
  server.discardOutput()
  const apiKey = await seed(base)

  const restRequest = { url: `${base}/api/works`, method: 'GET' as const, headers: { 'x-api-key': apiKey } }
  const mcpBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'list_works', arguments: {} },
  })
  const mcpRequest = {
    url: `${base}/mcp`,
    method: 'POST' as const,
    headers: {
      'x-api-key': apiKey,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
    },
    body: mcpBody,
  }

  // The two answer the same works before either is loaded.
  const restAnswer = await json(restRequest.url, { headers: restRequest.headers, expect: 200 })
  const mcpAnswer = await json(mcpRequest.url, { ...mcpRequest, expect: 200 })
  const structured = (mcpAnswer.result as { structuredContent?: unknown } | undefined)?.structuredContent
  if (JSON.stringify(structured) !== JSON.stringify(restAnswer)) {
    throw new Error(`list_works differs from GET /api/works: ${JSON.stringify(mcpAnswer).slice(0, 300)}`)
  }
  const bytes = {
    rest: Buffer.byteLength(JSON.stringify(restAnswer)),
    mcp: Buffer.byteLength(JSON.stringify(mcpAnswer)),
  }

  const runs: Run[] = []
  for (const side of ORDER) {
    const request = side === 'rest' ? restRequest : mcpRequest
    process.stdout.write(`${side}: ${warmup} s warm-up + ${duration} s, ${connections} connections… `)
    if (warmup > 0) await autocannon({ ...request, connections, duration: warmup })
    const cpuBefore = cpuMsOf(server.pid)
    const result: Result = await autocannon({ ...request, connections, duration })
    const cpuAfter = cpuMsOf(server.pid)
    const figures = loadFigures(result)
    const run: Run = {
      side,
      requestsPerSec: figures.requestsPerSec,
      latencyP50Ms: figures.latencyP50Ms,
      latencyP99Ms: figures.latencyP99Ms,
      total: figures.total,
      non2xx: figures.non2xx,
      errors: figures.errors + figures.timeouts,
      cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    }
    runs.push(run)
    const cpu = run.cpuMs === null ? '' : `, ${round((run.cpuMs * 1000) / run.total, 1)} µs CPU/request`
    process.stdout.write(`${run.requestsPerSec} req/s${cpu}\n`)
  }
  const stopped = await stopChild(server)
  if (stopped.code !== 0)
    process.stdout.write(`note: the server exited with ${stopped.code ?? stopped.signal}\n`)

  const rest = summary(runs.filter((run) => run.side === 'rest'))
  const mcp = summary(runs.filter((run) => run.side === 'mcp'))
  const ratio = mcp.requestsPerSec / rest.requestsPerSec
  const machineNow = machine()
  process.stdout.write(
    `\nMCP tools/call list_works against GET /api/works: the same API key, ${works} works (answers of ` +
      `${bytes.mcp} and ${bytes.rest} bytes), ${connections} connections, ${warmup} s warm-up + ${duration} s ` +
      `per run, runs ${ORDER.join(', ')}\n${machineNow.node}, ${machineNow.cpus} CPU(s), ${machineNow.cpuModel}; ` +
      `load average ${machineNow.loadAverage.join(' / ')}\n` +
      (pinned
        ? `autocannon pinned to CPU ${pinned.loadCpu}, the platform to CPU ${pinned.serverCpu} (taskset).\n\n`
        : 'nothing pinned.\n\n'),
  )
  process.stdout.write(
    `${table([
      ['path', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'non-2xx/errors'],
      ...(
        [
          ['GET /api/works', rest],
          ['POST /mcp list_works', mcp],
        ] as const
      ).map(([path, side]) => [
        path,
        side.requestsPerSec,
        side.latencyP50Ms,
        side.latencyP99Ms,
        side.cpuUsPerRequest ?? 'n/a',
        side.runs.reduce((sum, run) => sum + run.non2xx + run.errors, 0),
      ]),
    ])}\n\nMCP / REST: ${(ratio * 100).toFixed(1)}% (target >= ${TARGET_RATIO * 100}%: ${ratio >= TARGET_RATIO ? 'ok' : 'MISS'})\n`,
  )
  const path = writeResults('mcp', {
    benchmark: 'mcp',
    at: new Date().toISOString(),
    machine: machineNow,
    settings: {
      connections,
      durationSec: duration,
      warmupSec: warmup,
      works,
      order: ORDER,
      pinned: pinned ?? null,
    },
    answerBytes: bytes,
    target: { mcpOverRestAtLeast: TARGET_RATIO },
    rest,
    mcp,
    ratio: round(ratio, 3),
    withinTarget: ratio >= TARGET_RATIO,
  })
  process.stdout.write(`\nwrote ${path}\n`)
} finally {
  await killChild(server)
}
