/**
 * A platform instance of bench/webhooks.ts' crash run, in a process of its own so the bench can SIGKILL it.
 * It builds the platform on BENCH_CHILD_DATABASE_URL (bench/webhooks-harness.ts) and announces on stdout,
 * one line each:
 * - `STARTED`: built, its job queue started, the start-up recovery done, deliveries held;
 * - with BENCH_CHILD_WORKS and BENCH_CHILD_SUBSCRIPTIONS: `SECRETS <json array>` once the account, its
 *   works and its subscriptions to `${BENCH_CHILD_RECEIVER}<n>` exist, then `FANNED <ms>` after one
 *   `WorkCreated` per work;
 * - `DRAINING`: deliveries let through. It then runs until SIGTERM (a clean stop) or SIGKILL.
 * BENCH_CHILD_CLOCK_AHEAD_MS puts its clock that far ahead of the real one (a restart "later", when the
 * lease of the attempts in flight at a kill has passed). Logs (warn and up) go to stderr as JSON lines.
 */
import pino from 'pino'
import { createPool } from '../src/db/index.ts'
import { type Clock, systemClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createLoad, fanOut, startWebhookInstance } from './webhooks-harness.ts'

const env = process.env
const url = env.BENCH_CHILD_DATABASE_URL
if (!url) throw new Error('BENCH_CHILD_DATABASE_URL is required')
const optional = (name: string) => (env[name] ? Number(env[name]) : undefined)
const ahead = optional('BENCH_CHILD_CLOCK_AHEAD_MS') ?? 0
const clock: Clock = ahead
  ? { now: () => new Date(Date.now() + ahead), nowMs: () => Date.now() + ahead }
  : systemClock

const log = createLogger('warn', pino.destination({ fd: 2, sync: true }))
const announce = (line: string) => process.stdout.write(`${line}\n`)

const instance = await startWebhookInstance({
  sourceFor: (poolSize, poolLog) => ({ kind: 'postgres', pool: createPool(url, poolSize, poolLog), url }),
  clock,
  log,
  settings: {
    concurrency: optional('WEBHOOK_CONCURRENCY'),
    timeoutMs: optional('WEBHOOK_TIMEOUT_MS'),
    poolSize: optional('DATABASE_POOL_SIZE'),
    pollingIntervalSeconds: optional('BENCH_CHILD_POLL_SECONDS') ?? 2,
  },
})
process.once('SIGTERM', () => {
  instance.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
})
announce('STARTED')

const works = optional('BENCH_CHILD_WORKS')
const subscriptions = optional('BENCH_CHILD_SUBSCRIPTIONS')
if (works && subscriptions) {
  const receiver = env.BENCH_CHILD_RECEIVER ?? ''
  const load = await createLoad(instance, (n) => `${receiver}${n}`, { works, subscriptions })
  announce(`SECRETS ${JSON.stringify(load.secrets)}`)
  announce(`FANNED ${Math.round(await fanOut(instance, load))}`)
}
instance.openGate()
announce('DRAINING')
setInterval(() => {}, 1 << 30)
