import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** One request the site got. */
export interface TargetRequest {
  method: string
  path: string
  userAgent: string | undefined
  /** When it arrived (`performance.now()`). */
  at: number
}

/**
 * A web site on 127.0.0.1 (or another loopback address) answering every outcome a link check meets:
 *
 * - `/ok` 200; `/head-405` 405 to HEAD and 200 to GET; `/404`, `/500`; `/hang` never answers;
 * - `/redirect/<n>` redirects n times (301, 302, 307, 308 in turn) to `/redirect/<n-1>`, and `/redirect/0` is 200;
 * - `/loop` redirects to itself; `/to-metadata` redirects to the cloud metadata address;
 * - `/status/<name>` answers what `set(name, status)` last said (200 at first).
 */
export async function startLinkTarget(host = '127.0.0.1') {
  const requests: TargetRequest[] = []
  const statuses = new Map<string, number>()
  const hung = new Set<ServerResponse>()
  const sockets = new Set<Socket>()
  let inFlight = 0
  let maxInFlight = 0

  const server = createServer((req, res) => {
    const path = req.url ?? '/'
    requests.push({
      method: req.method ?? '',
      path,
      userAgent: req.headers['user-agent'],
      at: performance.now(),
    })
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    res.on('close', () => inFlight--)
    const answer = (status: number, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html', ...headers })
      res.end(req.method === 'HEAD' ? undefined : `<p>${status}</p>`)
    }
    const redirect = /^\/redirect\/(\d+)$/.exec(path)
    if (redirect) {
      const left = Number(redirect[1])
      if (left === 0) return answer(200)
      return answer([301, 302, 307, 308][left % 4] as number, { location: `/redirect/${left - 1}` })
    }
    const named = /^\/status\/([\w-]+)$/.exec(path)
    if (named) return answer(statuses.get(named[1] as string) ?? 200)
    switch (path) {
      case '/ok':
        return answer(200)
      case '/head-405':
        return answer(req.method === 'HEAD' ? 405 : 200)
      case '/404':
        return answer(404)
      case '/500':
        return answer(500)
      case '/loop':
        return answer(302, { location: '/loop' })
      case '/to-metadata':
        return answer(301, { location: 'http://169.254.169.254/latest/meta-data/' })
      case '/hang':
        hung.add(res)
        return
      default:
        return answer(404)
    }
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.listen(0, host)
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const origin = `http://${host}:${port}`

  return {
    origin,
    url: (path: string) => `${origin}${path}`,
    requests,
    /** The most requests the site had at once. */
    get maxInFlight() {
      return maxInFlight
    },
    /** Requests to `path`, by method. */
    calls(path: string, method?: string) {
      return requests.filter((request) => request.path === path && (!method || request.method === method))
        .length
    },
    set(name: string, status: number) {
      statuses.set(name, status)
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      hung.clear()
      server.close()
      await once(server, 'close')
    },
  }
}

export type LinkTarget = Awaited<ReturnType<typeof startLinkTarget>>

/** A port on which nothing listens: taken, then let go. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  server.close()
  await once(server, 'close')
  return port
}
