import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface CapturedEvent {
  api_key: string
  event: string
  distinct_id: string
  properties: Record<string, unknown>
  timestamp: string
}

/**
 * A stand-in for a PostHog-compatible collector on 127.0.0.1: `POST /capture/` with the capture API's
 * body. It records what it accepted, and can be told to answer 503 to the next requests.
 */
export async function startAnalyticsFake() {
  const captured: CapturedEvent[] = []
  let failuresLeft = 0
  let waiters: (() => void)[] = []

  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }

  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    if (req.method !== 'POST' || req.url !== '/capture/') {
      res.writeHead(404).end()
      return
    }
    if (failuresLeft > 0) {
      failuresLeft--
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"unavailable"}')
      return
    }
    captured.push(JSON.parse(body))
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":1}')
    for (const wake of waiters) wake()
    waiters = []
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    captured,
    failNext(count: number) {
      failuresLeft = count
    },
    /** Resolves once `predicate` holds for what was captured, or rejects after `timeoutMs`. */
    async waitFor(predicate: (events: CapturedEvent[]) => boolean, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs
      while (!predicate(captured)) {
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`analytics fake: condition not met within ${timeoutMs} ms`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 250))
          waiters.push(() => {
            clearTimeout(timer)
            resolve()
          })
        })
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
