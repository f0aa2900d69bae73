import { Script } from 'node:vm'

/** How often the nudge runs: well within the ~100 ms half-lives in which V8's allocation rates decay to 0. */
export const NUDGE_INTERVAL_MS = 30_000

/**
 * Lets V8's memory reducer see an idle server as idle, so that the heap a burst of requests grew is given
 * back within seconds of the burst rather than kept.
 *
 * The memory reducer looks every 8 s for a low allocation rate and then collects with compaction and
 * releases V8's pooled pages (after a burst on Postgres, 85 MB of them). Since V8 13.1 (Node 24) it also
 * asks for a low rate of allocation on the C++ heap (cppgc), measured with an exponential decay that reaches
 * exactly 0 in a process that allocates nothing there, which is Node unless `node:vm` is used; a rate of
 * 0 counts as the highest, so it never sees "low allocation" and only its watchdog collects, 100 s after
 * the last full collection (never, while the server keeps collecting now and then). Reported upstream:
 * https://issues.chromium.org/issues/570738027 and https://github.com/nodejs/node/issues/66564.
 *
 * The nudge compiles a one-character `vm.Script` now and every NUDGE_INTERVAL_MS: Node allocates its
 * handle on the C++ heap, a rate just above 0, which passes the test. It costs microseconds. Answers a
 * function that stops it; the timer never keeps the process alive.
 */
export function keepMemoryReducerWorking(
  schedule: (run: () => void, ms: number) => NodeJS.Timeout = setInterval,
  stop: (timer: NodeJS.Timeout) => void = clearInterval,
): () => void {
  const nudge = () => {
    new Script('0')
  }
  nudge()
  const timer = schedule(nudge, NUDGE_INTERVAL_MS)
  timer.unref()
  return () => stop(timer)
}
