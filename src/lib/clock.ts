/** Every time-driven rule reads time from an injected clock, so tests can move it. */
export interface Clock {
  now(): Date
  nowMs(): number
}

export const systemClock: Clock = {
  now: () => new Date(),
  nowMs: () => Date.now(),
}

/** A clock that only moves when told to: for tests and benchmarks of time-driven behaviour. */
export interface ManualClock extends Clock {
  set(at: Date | number): void
  advance(ms: number): void
}

export function createManualClock(start: Date | number = Date.now()): ManualClock {
  let current = typeof start === 'number' ? start : start.getTime()
  return {
    now: () => new Date(current),
    nowMs: () => current,
    set(at) {
      current = typeof at === 'number' ? at : at.getTime()
    },
    advance(ms) {
      current += ms
    },
  }
}
