/**
 * A Curio webhook receiver on Node's own `http` module, no framework and no dependency.
 *
 *   WEBHOOK_SECRET=whsec_… PORT=4000 node docs/examples/webhook-receiver.mjs
 *
 * It reads the raw body, checks `X-Service-Signature-256` against it in constant time (401 otherwise),
 * answers 204 at once, skips a delivery id it has already handled (a retry), and only then handles the
 * event. `WEBHOOK_SECRET` may hold several secrets separated by commas (while you rotate one).
 *
 * Imported, it runs nothing: `verifySignature` and `createReceiver` are yours to reuse.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import { pathToFileURL } from 'node:url'

/** Curio never sends a larger body. */
const MAX_BODY_BYTES = 1024 * 1024
/** Delivery ids remembered for de-duplication (in memory: a real receiver keeps them in its database). */
const REMEMBERED_DELIVERIES = 10_000

/**
 * Whether `header` (`sha256=<hex>`) is the HMAC-SHA256 of the raw body under `secret`, the whole
 * `whsec_…` string. `rawBody` is the bytes as received (a Buffer), never JSON parsed and serialised again.
 */
export function verifySignature(secret, rawBody, header) {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`)
  const received = Buffer.from(header)
  // timingSafeEqual throws on different lengths; the length of a hex digest is no secret.
  return received.length === expected.length && timingSafeEqual(received, expected)
}

/**
 * An `http.Server` (not yet listening) that receives Curio's webhooks.
 * - `secrets`: the signing secrets accepted, read on every request (add the new one when you rotate).
 * - `onEvent(event, deliveryId)`: called once per delivery id, after the answer has been sent.
 * - `log(line)`: one line per request (`accepted <id> <event>`, `duplicate <id>`, `refused <status> …`).
 */
export function createReceiver({ secrets, onEvent = () => {}, log = () => {} }) {
  const seen = new Set()

  return createServer((req, res) => {
    const answer = (status, why) => {
      if (why) log(`refused ${status} ${why}`)
      res.writeHead(status).end()
    }
    if (req.method !== 'POST') return answer(405, `method ${req.method}`)

    const chunks = []
    let size = 0
    req.on('data', (chunk) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return answer(413, 'body too large')
      const raw = Buffer.concat(chunks)

      // 1. Authenticate the exact bytes received, before anything else.
      const signature = req.headers['x-service-signature-256']
      if (!secrets.some((secret) => verifySignature(secret, raw, signature))) {
        return answer(401, signature ? 'bad signature' : 'no signature')
      }
      // 2. Only now parse. The event name is taken from the signed body, not from a header.
      let event
      try {
        event = JSON.parse(raw.toString('utf8'))
      } catch {
        return answer(400, 'not JSON')
      }
      // 3. A retry carries the same delivery id: acknowledge it again, handle it once.
      const deliveryId = String(req.headers['x-service-delivery'] ?? '')
      if (seen.has(deliveryId)) {
        log(`duplicate ${deliveryId}`)
        return answer(204)
      }
      if (deliveryId) seen.add(deliveryId)
      if (seen.size > REMEMBERED_DELIVERIES) seen.delete(seen.values().next().value)

      // 4. Answer first (Curio waits 10 s at most), then do the work.
      answer(204)
      log(`accepted ${deliveryId} ${event.event}`)
      setImmediate(() => onEvent(event, deliveryId))
    })
  })
}

// Run directly (not imported): a server on PORT with the secrets of WEBHOOK_SECRET.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secrets = (process.env.WEBHOOK_SECRET ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter(Boolean)
  if (secrets.length === 0) {
    console.error('Set WEBHOOK_SECRET to the signing secret (whsec_…) of your subscription')
    process.exit(1)
  }
  const server = createReceiver({
    secrets,
    log: (line) => console.log(line),
    onEvent: (event, deliveryId) => {
      // Your work goes here: update a record, enqueue a job, notify someone…
      console.log(`handled ${deliveryId}: ${JSON.stringify(event)}`)
    },
  })
  server.listen(Number(process.env.PORT ?? 4000), () => {
    console.log(`listening on http://localhost:${server.address().port}/`)
  })
}
