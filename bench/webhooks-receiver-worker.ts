/**
 * The webhook receiver of bench/webhooks.ts, in a worker thread of the bench process so its event loop is
 * not the platform's: it answers 204 at once, counts every request by its `x-service-delivery` id, and
 * checks the signature against the secret of the subscription its path names (`/hooks/<n>`).
 *
 * With `workerData.slow` = { subscriptions: n, ms }, subscriptions 0 to n-1 answer only after ms: slow
 * endpoints among fast ones.
 *
 * Shared counters (Int32Array over `workerData.counters`): 0 requests, 1 distinct deliveries, 2 bad
 * signatures, 3 requests without a delivery id. Messages in: `{ secrets }`, `{ reset: true }`,
 * `{ report: true }` (answered with a ReceiverReport).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parentPort, workerData } from 'node:worker_threads'

export interface ReceiverReport {
  requests: number
  distinct: number
  /** Requests beyond the first for their delivery id. */
  duplicates: number
  /** A few ids that arrived more than once, with how many times. */
  duplicateSample: [string, number][]
  badSignatures: number
  /** Every distinct delivery id that arrived. */
  ids: string[]
  /** Requests per 100 ms since the first one (for the shape of the drain). */
  per100ms: number[]
  firstAt: number | null
  lastAt: number | null
}

const counters = new Int32Array(workerData.counters as SharedArrayBuffer)
const slow = workerData.slow as { subscriptions: number; ms: number }
const port = parentPort!
let secrets: string[] = []
let seen = new Map<string, number>()
let buckets: number[] = []
let firstAt: number | null = null
let lastAt: number | null = null

const wallNow = () => performance.timeOrigin + performance.now()

function signedWith(
  secret: string | undefined,
  body: Buffer,
  header: string | string[] | undefined,
): boolean {
  if (!secret || typeof header !== 'string') return false
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`)
  const given = Buffer.from(header)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    const at = wallNow()
    firstAt ??= at
    lastAt = at
    const bucket = Math.floor((at - firstAt) / 100)
    buckets[bucket] = (buckets[bucket] ?? 0) + 1
    Atomics.add(counters, 0, 1)
    const id = req.headers['x-service-delivery']
    if (typeof id !== 'string') Atomics.add(counters, 3, 1)
    else {
      const times = (seen.get(id) ?? 0) + 1
      seen.set(id, times)
      if (times === 1) Atomics.add(counters, 1, 1)
    }
    const subscription = Number(/^\/hooks\/(\d+)$/.exec(req.url ?? '')?.[1])
    if (!signedWith(secrets[subscription], Buffer.concat(chunks), req.headers['x-service-signature-256'])) {
      Atomics.add(counters, 2, 1)
    }
    if (subscription < slow.subscriptions) setTimeout(() => res.writeHead(204).end(), slow.ms)
    else res.writeHead(204).end()
  })
})

port.on('message', (message: { secrets?: string[]; reset?: boolean; report?: boolean; close?: boolean }) => {
  if (message.secrets) secrets = message.secrets
  if (message.reset) {
    seen = new Map()
    buckets = []
    firstAt = null
    lastAt = null
    counters.fill(0)
  }
  if (message.report) {
    const duplicated = [...seen].filter(([, times]) => times > 1)
    const report: ReceiverReport = {
      requests: Atomics.load(counters, 0),
      distinct: seen.size,
      duplicates: duplicated.reduce((sum, [, times]) => sum + times - 1, 0),
      duplicateSample: duplicated.slice(0, 10),
      badSignatures: Atomics.load(counters, 2),
      ids: [...seen.keys()],
      per100ms: Array.from(buckets, (count) => count ?? 0),
      firstAt,
      lastAt,
    }
    port.postMessage(report)
  }
  if (message.close) {
    server.closeAllConnections()
    server.close(() => port.close())
  }
})

server.listen(0, '127.0.0.1', () => {
  port.postMessage({ port: (server.address() as AddressInfo).port })
})
