/**
 * How hard the link checker may press one host: at most `perHost` requests to it at once, the starts of two
 * requests to it at least `delayMs` apart, and at most `concurrency` requests in all. Time is read from
 * `now` and waited with `sleep`, both injected, so tests run the rules without waiting.
 */

export interface PolitenessRules {
  /** Requests to one host at once. */
  perHost: number
  /** The least time between the starts of two requests to one host. */
  delayMs: number
  /** Requests at once, all hosts together. */
  concurrency: number
}

export interface Timer {
  /** A monotonic time in milliseconds. */
  now(): number
  sleep(ms: number): Promise<void>
}

export const realTimer: Timer = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}

interface HostState {
  active: number
  /** When the latest request to the host started. */
  lastStart: number
  /** The latest request's turn to start: each next one starts after it, at least the delay later. */
  turn: Promise<void>
  waiting: (() => void)[]
}

/** A slot in the global limit, queued first in, first out. */
function createLimit(size: number) {
  let active = 0
  const waiting: (() => void)[] = []
  return {
    async acquire(urgent: boolean) {
      if (active < size) {
        active++
        return
      }
      await new Promise<void>((resolve) => (urgent ? waiting.unshift(resolve) : waiting.push(resolve)))
    },
    release() {
      const next = waiting.shift()
      if (next) next()
      else active--
    },
  }
}

export type Politeness = ReturnType<typeof createPoliteness>

/**
 * The per-host queues of one process. `run(host, request)` waits for the host's turn, then runs the request;
 * an `urgent` one (an admin's check of one item) goes to the front of its host's queue, not past the rules.
 */
export function createPoliteness(rules: PolitenessRules, timer: Timer = realTimer) {
  const hosts = new Map<string, HostState>()
  const global = createLimit(rules.concurrency)

  /** Forgets hosts with nothing running, waiting or to keep, once there are many of them. */
  function prune() {
    if (hosts.size < 1000) return
    const now = timer.now()
    for (const [host, state] of hosts) {
      if (state.active === 0 && state.waiting.length === 0 && state.lastStart + rules.delayMs <= now) {
        hosts.delete(host)
      }
    }
  }

  async function enter(host: string, urgent: boolean) {
    let state = hosts.get(host)
    if (!state) {
      prune()
      state = { active: 0, lastStart: Number.NEGATIVE_INFINITY, turn: Promise.resolve(), waiting: [] }
      hosts.set(host, state)
    }
    if (state.active < rules.perHost && state.waiting.length === 0) state.active++
    else {
      // `leave` hands its slot over: `active` already counts this request when it wakes.
      const queued = state
      await new Promise<void>((resolve) =>
        urgent ? queued.waiting.unshift(resolve) : queued.waiting.push(resolve),
      )
    }
    // Starts are chained: each waits for the one before it to have started, then for the delay after that
    // start as it happened (a late timer cannot bring two starts closer). The slot is held meanwhile.
    const current = state
    const turn = current.turn.then(async () => {
      const wait = current.lastStart + rules.delayMs - timer.now()
      if (wait > 0) await timer.sleep(wait)
      current.lastStart = timer.now()
    })
    state.turn = turn
    await turn
    return state
  }

  function leave(state: HostState) {
    const next = state.waiting.shift()
    if (next) next()
    else state.active--
  }

  return {
    async run<T>(host: string, request: () => Promise<T>, options: { urgent?: boolean } = {}): Promise<T> {
      const urgent = options.urgent ?? false
      const state = await enter(host, urgent)
      try {
        await global.acquire(urgent)
        try {
          return await request()
        } finally {
          global.release()
        }
      } finally {
        leave(state)
      }
    },
    /** Hosts with a request running, waiting or a delay still to keep. */
    get hostCount() {
      return hosts.size
    },
  }
}
