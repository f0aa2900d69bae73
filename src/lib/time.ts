/** Durations in milliseconds, named once. */
export const SECOND_MS = 1000
export const MINUTE_MS = 60 * SECOND_MS
export const HOUR_MS = 60 * MINUTE_MS
export const DAY_MS = 24 * HOUR_MS

/** Whole seconds in `ms`, for headers and cookie lifetimes. */
export const toSeconds = (ms: number): number => Math.floor(ms / SECOND_MS)
