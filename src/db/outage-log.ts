import { databaseUnavailable } from './errors.ts'

/** How often a background task that keeps failing for one outage says so. */
const OUTAGE_LOG_INTERVAL_MS = 30_000

/**
 * A logger of a background task's failures (job polls, queue maintenance): an error of its own is logged
 * every time; a database that cannot be reached, which fails every poll of every queue alike, once per
 * interval with the number of failures left unsaid since.
 */
export function failureLogger(
  log: { error(fields: object, message: string): void; warn(fields: object, message: string): void },
  {
    intervalMs = OUTAGE_LOG_INTERVAL_MS,
    nowMs = Date.now,
  }: { intervalMs?: number; nowMs?: () => number } = {},
) {
  let lastAt = Number.NEGATIVE_INFINITY
  let unsaid = 0
  return (error: unknown, fields: Record<string, unknown>, message: string) => {
    const reason = databaseUnavailable(error)
    if (reason === undefined) {
      log.error({ err: error, ...fields }, message)
      return
    }
    if (nowMs() - lastAt < intervalMs) {
      unsaid++
      return
    }
    log.warn({ ...fields, reason, failuresSinceLastLine: unsaid }, `${message}: database unavailable`)
    lastAt = nowMs()
    unsaid = 0
  }
}
