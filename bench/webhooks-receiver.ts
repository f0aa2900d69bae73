/** The bench's webhook receiver (bench/webhooks-receiver-worker.ts), driven from the bench process. */
import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { ReceiverReport } from './webhooks-receiver-worker.ts'

export type { ReceiverReport }

export interface Receiver {
  /** `http://127.0.0.1:<port>/hooks/`: subscription n's URL is this followed by n. */
  base: string
  /** The URL of subscription `n`: the receiver checks its signatures with `secrets[n]`. */
  urlFor(n: number): string
  setSecrets(secrets: string[]): void
  /** Requests so far, read without a round trip. */
  requests(): number
  /** Distinct delivery ids so far. */
  distinct(): number
  report(): Promise<ReceiverReport>
  reset(): void
  close(): Promise<void>
}

/** `slow`: subscriptions 0 to `subscriptions - 1` answer only after `ms`. */
export async function startReceiver(slow = { subscriptions: 0, ms: 0 }): Promise<Receiver> {
  const counters = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT)
  const view = new Int32Array(counters)
  const worker = new Worker(new URL('./webhooks-receiver-worker.ts', import.meta.url), {
    workerData: { counters, slow },
  })
  const [ready] = (await once(worker, 'message')) as [{ port: number }]
  const base = `http://127.0.0.1:${ready.port}/hooks/`
  return {
    base,
    urlFor: (n) => `${base}${n}`,
    setSecrets: (secrets) => worker.postMessage({ secrets }),
    requests: () => Atomics.load(view, 0),
    distinct: () => Atomics.load(view, 1),
    async report() {
      worker.postMessage({ report: true })
      const [report] = (await once(worker, 'message')) as [ReceiverReport]
      return report
    },
    reset: () => worker.postMessage({ reset: true }),
    async close() {
      worker.postMessage({ close: true })
      await Promise.race([once(worker, 'exit'), new Promise((done) => setTimeout(done, 2000))])
      await worker.terminate()
    },
  }
}
