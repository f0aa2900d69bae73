import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** One request a receiver got: the exact bytes, as a signature is checked on them. */
export interface Received {
  method: string
  path: string
  headers: IncomingHttpHeaders
  raw: Buffer
  json: Record<string, unknown>
}

/** How the receiver answers the next request. */
export type ReceiverBehaviour =
  | { status: number; body?: string; headers?: Record<string, string> }
  | { hang: true }
  | { destroy: true }

/**
 * A webhook receiver on 127.0.0.1: it keeps every request's raw body and headers and answers with the
 * queued behaviours in order (then 200). `waitFor(n)` resolves once n requests have arrived.
 */
export async function startReceiver() {
  const received: Received[] = []
  const queue: ReceiverBehaviour[] = []
  const waiters: { count: number; resolve: () => void }[] = []
  const hung = new Set<ServerResponse>()
  const sockets = new Set<Socket>()

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      let json: Record<string, unknown> = {}
      try {
        json = JSON.parse(raw.toString('utf8'))
      } catch {}
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, json })
      for (const waiter of [...waiters]) {
        if (received.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve()
        }
      }
      const behaviour = queue.shift() ?? { status: 200, body: '{"ok":true}' }
      if ('hang' in behaviour) {
        hung.add(res)
        return
      }
      if ('destroy' in behaviour) {
        res.socket?.destroy()
        return
      }
      res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers })
      res.end(behaviour.body ?? '')
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    /** Queues answers for the next requests. */
    next(...behaviours: ReceiverBehaviour[]) {
      queue.push(...behaviours)
    },
    /**
     * Resolves once `count` requests in all have arrived; fails, saying how many did, if they have not
     * within `timeoutMs`, so a delivery that never comes fails its test instead of holding it.
     */
    waitFor(count: number, timeoutMs = 30_000): Promise<void> {
      if (received.length >= count) return Promise.resolve()
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const index = waiters.indexOf(waiter)
          if (index >= 0) waiters.splice(index, 1)
          reject(new Error(`${received.length} of ${count} requests arrived within ${timeoutMs} ms`))
        }, timeoutMs)
        const waiter = {
          count,
          resolve: () => {
            clearTimeout(timer)
            resolve()
          },
        }
        waiters.push(waiter)
      })
    },
    async close() {
      for (const res of hung) res.destroy()
      for (const socket of sockets) socket.destroy()
      server.close()
      await once(server, 'close')
    },
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>
