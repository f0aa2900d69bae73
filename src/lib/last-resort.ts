/** How long an exiting process waits for stdout to take its last log lines. */
export const LOG_FLUSH_MS = 500

/**
 * The process's last resort, for an error nothing else handled. Every fault Curio expects has a handler of
 * its own (each database connection, the job queue, Redis, the notification connection, stdout, client
 * sockets), so an error that gets here is a bug whose effect on the process's state is unknown: it is
 * logged with its cause and the process exits 1, for its supervisor (or the cluster's primary) to start a
 * clean one, rather than serve on in a state nobody can vouch for.
 */
export function installLastResort(
  log: { fatal(object: object, message: string): void },
  flush: (timeoutMs: number) => Promise<void>,
) {
  let exiting = false
  const fatal = (what: string) => (error: unknown) => {
    if (exiting) return
    exiting = true
    log.fatal({ err: error }, `${what}: exiting so that a clean process takes over`)
    void flush(LOG_FLUSH_MS).finally(() => process.exit(1))
  }
  process.on('uncaughtException', fatal('uncaught exception'))
  process.on('unhandledRejection', fatal('unhandled promise rejection'))
}
