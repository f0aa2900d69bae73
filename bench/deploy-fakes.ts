/**
 * The outside APIs of bench/deploy.ts, in a child process of their own (forked with an IPC channel) so that
 * their CPU is not counted as the platform's: the GitHub stand-in (test/fakes/github.ts) with a template
 * repository whose `deploy_vercel.yaml` takes `workflow_dispatch`, and the Vercel stand-in
 * (test/fakes/vercel.ts) on the system clock (the platform's clock too: both are Date.now). Each is reached
 * through a loopback proxy that holds every request a random time in its latency range before passing it
 * on (BENCH_GITHUB_LATENCY_MS, BENCH_VERCEL_LATENCY_MS: `min-max` ms, `0` for none), as a remote API would.
 *
 * A dispatch accepted by the GitHub stand-in "runs the workflow": it creates a deployment of the project
 * named after the repository at Vercel (QUEUED, BUILDING after BENCH_BUILD_QUEUE_MS, READY after
 * BENCH_BUILD_MS more), as the website repository's workflow does.
 *
 * The parent asks over IPC ({ id, op, args } → { id, result } or { id, error }); see `ops` below.
 */
import { randomInt } from 'node:crypto'
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

export const GITHUB_TOKEN = 'ghp_bench_deploy_token'
export const VERCEL_TOKEN = 'vercel_bench_deploy_token'
export const GITHUB_LOGIN = 'curio-bot'
export const TEMPLATE_REPOSITORY = 'curio-templates/website-template'

export const WORKFLOW = `name: Deploy to Vercel
on:
  workflow_dispatch:
  push:
    branches: [main]
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: npx vercel deploy --prod --token "$VERCEL_TOKEN"
        env:
          VERCEL_TOKEN: \${{ secrets.VERCEL_TOKEN }}
`

/** A `min-max` (or single) latency in ms. */
export function parseLatency(text: string | undefined, fallback: [number, number]): [number, number] {
  if (text === undefined || text === '') return fallback
  const [low, high = low] = text.split('-').map(Number) as [number, number?]
  if (!Number.isFinite(low) || !Number.isFinite(high) || low < 0 || high! < low) {
    throw new Error(`latency must be "min-max" ms, got "${text}"`)
  }
  return [low, high!]
}

/** A request through a proxy: when it arrived (wall-clock ms), method and path with the query. */
export interface Arrival {
  at: number
  method: string
  path: string
}

const wallNow = () => performance.timeOrigin + performance.now()

/** A loopback proxy in front of `targetUrl` holding each request `latency` ms (uniform) before passing it on. */
async function startLatencyProxy(targetUrl: string, latency: [number, number], log: Arrival[]) {
  const target = new URL(targetUrl)
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const server = createServer((req, res) => {
    const at = wallNow()
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      log.push({ at, method: req.method ?? 'GET', path: req.url ?? '/' })
      const wait = latency[1] > 0 ? randomInt(latency[0], latency[1] + 1) : 0
      /**
       * Passes the request on; once more when a kept-alive connection turns out closed before any answer
       * (the stand-in's server drops idle ones after 5 s, racing this agent's reuse of them): a proxy's
       * artefact, not the remote API's behaviour, so the client must not see it.
       */
      const forward = (attempt: number) => {
        const upstream = request(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: target.host },
            agent,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(res)
          },
        )
        upstream.on('error', (error: NodeJS.ErrnoException) => {
          if (attempt === 0 && !res.headersSent && upstream.reusedSocket && error.code === 'ECONNRESET') {
            forward(1)
          } else res.destroy(error)
        })
        upstream.end(Buffer.concat(chunks))
      }
      setTimeout(() => forward(0), wait)
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      agent.destroy()
    },
  }
}

/** `GET /repos/curio-bot/x-website/actions/secrets/VERCEL_TOKEN` → `GET /repos/{owner}/{repo}/actions/secrets/{name}`. */
export function routeOf(method: string, path: string): string {
  const route = path
    .replace(/^\/repos\/[^/]+\/[^/]+/, '/repos/{owner}/{repo}')
    .replace(/\/actions\/(secrets|variables)\/(?!public-key$)[^/]+$/, '/actions/$1/{name}')
    .replace(/\/actions\/workflows\/[^/]+/, '/actions/workflows/{workflow}')
    .replace(/\/contents\/.+$/, '/contents/{path}')
  return `${method} ${route}`
}

async function main() {
  // Imported here: the parent imports this file for its constants, without the stand-ins.
  const { startGitHubFake } = await import('../test/fakes/github.ts')
  const { startVercelFake } = await import('../test/fakes/vercel.ts')
  const send = (message: unknown) => process.send?.(message)
  const githubLatency = parseLatency(process.env.BENCH_GITHUB_LATENCY_MS, [0, 0])
  const vercelLatency = parseLatency(process.env.BENCH_VERCEL_LATENCY_MS, [0, 0])
  const queueMs = Number(process.env.BENCH_BUILD_QUEUE_MS ?? 3000)
  const buildMs = Number(process.env.BENCH_BUILD_MS ?? 30_000)

  const github = await startGitHubFake({ token: GITHUB_TOKEN, login: GITHUB_LOGIN })
  github.addOrg('curio-templates')
  github.addTemplate(TEMPLATE_REPOSITORY, {
    '.github/workflows/deploy_vercel.yaml': WORKFLOW,
    'README.md': '# Website template\n',
  })
  const vercel = await startVercelFake({ token: VERCEL_TOKEN, user: { username: 'curio-bench' } })
  github.onDispatch((dispatch) => {
    const project = dispatch.repo.split('/')[1]!
    vercel.createDeployment(project, {
      target: 'production',
      states: ['QUEUED', 'BUILDING', 'READY'],
      advanceAfterMs: [queueMs, buildMs],
    })
  })
  const githubArrivals: Arrival[] = []
  const vercelArrivals: Arrival[] = []
  const githubProxy = await startLatencyProxy(github.url, githubLatency, githubArrivals)
  const vercelProxy = await startLatencyProxy(vercel.url, vercelLatency, vercelArrivals)
  // The same, without the wait: for measuring one request's cost at a busy process's pace.
  const vercelDirect = await startLatencyProxy(vercel.url, [0, 0], [])
  /** Vercel deployment uid → its project, for telling apart the polls of each verification. */
  const projectOfUid = new Map<string, string>()

  const ops: Record<string, (args: never) => unknown> = {
    /** Lengths of the request logs now, to count from. */
    mark: () => ({ github: github.requests.length, vercel: vercelArrivals.length }),
    /** GitHub requests from index `from`: total, by route and by status. */
    githubRequests: ({ from }: { from: number }) => {
      const taken = github.requests.slice(from)
      const byRoute: Record<string, number> = {}
      const byStatus: Record<string, number> = {}
      for (const entry of taken) {
        const route = routeOf(entry.method, entry.path)
        byRoute[route] = (byRoute[route] ?? 0) + 1
        const status = `${entry.status}`
        byStatus[status] = (byStatus[status] ?? 0) + 1
      }
      return { total: taken.length, byRoute, byStatus }
    },
    /** Arrival times (wall-clock ms) of the GitHub requests in [from, to). */
    githubArrivals: ({ from, to }: { from: number; to: number }) =>
      githubArrivals.filter((arrival) => arrival.at >= from && arrival.at < to).map((arrival) => arrival.at),
    /** A Vercel deployment of each of `projects`, created at `createdAt`, in `states[0]` for good (no time mode). */
    createDeployments: ({
      projects,
      createdAt,
      states,
    }: {
      projects: string[]
      createdAt: number
      states: ('QUEUED' | 'BUILDING' | 'READY')[]
    }) =>
      projects.map((project) => {
        const made = vercel.createDeployment(project, { target: 'production', states, createdAt })
        projectOfUid.set(made.uid, project)
        return made.uid
      }),
    /**
     * Vercel requests that arrived in [from, to): by route, and for each project the arrival times of its
     * polls (the list by `projectId` and the single deployment reads), as gaps between consecutive ones.
     */
    vercelPolls: ({ from, to }: { from: number; to: number }) => {
      const byRoute: Record<string, number> = {}
      const times = new Map<string, number[]>()
      let polls = 0
      for (const arrival of vercelArrivals) {
        if (arrival.at < from || arrival.at >= to) continue
        const url = new URL(arrival.path, 'http://fake')
        const single = /^\/v13\/deployments\/([^/]+)$/.exec(url.pathname)
        const list = /^\/v[67]\/deployments$/.test(url.pathname)
        const route = single ? 'GET /v13/deployments/{id}' : `${arrival.method} ${url.pathname}`
        byRoute[route] = (byRoute[route] ?? 0) + 1
        const project = single
          ? projectOfUid.get(decodeURIComponent(single[1]!))
          : list
            ? (url.searchParams.get('projectId') ?? undefined)
            : undefined
        if (!project) continue
        polls++
        const series = times.get(project) ?? []
        series.push(arrival.at)
        times.set(project, series)
      }
      const gaps: number[] = []
      for (const series of times.values()) {
        for (let index = 1; index < series.length; index++) gaps.push(series[index]! - series[index - 1]!)
      }
      return { byRoute, polls, projects: times.size, gaps }
    },
    /** Vercel deployments by state now (time mode applied). */
    vercelStates: ({ uids }: { uids: string[] }) => {
      const counts: Record<string, number> = {}
      for (const uid of uids) {
        const state = vercel.deployment(uid).readyState
        counts[state] = (counts[state] ?? 0) + 1
      }
      return counts
    },
    close: async () => {
      await Promise.all([
        githubProxy.close(),
        vercelProxy.close(),
        vercelDirect.close(),
        github.close(),
        vercel.close(),
      ])
      setImmediate(() => process.exit(0))
      return true
    },
  }

  process.on('message', async (message: { id: number; op: string; args: never }) => {
    try {
      const op = ops[message.op]
      if (!op) throw new Error(`deploy fakes: no op ${message.op}`)
      send({ id: message.id, result: await op(message.args) })
    } catch (error) {
      send({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) })
    }
  })
  process.on('disconnect', () => process.exit(0))
  send({
    ready: {
      githubUrl: githubProxy.url,
      vercelUrl: vercelProxy.url,
      vercelDirectUrl: vercelDirect.url,
      githubLatency,
      vercelLatency,
      queueMs,
      buildMs,
    },
  })
}

if (process.send) await main()
