import { logLinesDropped } from './metrics.ts'

/** What the logger writes its lines to. */
export interface LogDestination {
  write(line: string): void
  /** Waits until what is buffered is written, or `timeoutMs` has passed, whichever comes first. */
  flush(timeoutMs: number): Promise<void>
  /** Lines dropped so far: the buffer was full, or the reader was gone. */
  readonly dropped: number
}

/** What stdout may hold unwritten before lines are dropped: a few seconds of a busy instance's logs. */
export const LOG_BUFFER_BYTES = 4 * 1024 * 1024

/**
 * Log lines written to `stream` (stdout) without ever blocking the process on it. Node writes a pipe or
 * socket asynchronously, buffering what the reader has not taken; once `maxBufferedBytes` are waiting, or
 * once the reader is gone (EPIPE), new lines are dropped and counted (`curio_log_lines_dropped_total`), and
 * the first line written after a gap says how many were lost. A synchronous write retried until the
 * reader takes it (pino's default destination on a full pipe) would hold the process, shutdown included,
 * for as long as nobody reads.
 */
export function streamDestination(
  stream: NodeJS.WritableStream & { writableLength: number },
  {
    maxBufferedBytes = LOG_BUFFER_BYTES,
    gapNote = (count: number) =>
      `${JSON.stringify({ level: 40, time: Date.now(), msg: `${count} log lines were dropped: the log reader did not keep up` })}\n`,
  }: { maxBufferedBytes?: number; gapNote?: (count: number) => string } = {},
): LogDestination {
  let gone = false
  let dropped = 0
  let unsaid = 0
  // EPIPE and the like: the reader closed its end. Without a listener the error would end the process.
  stream.on('error', () => {
    gone = true
  })

  const drop = () => {
    dropped++
    unsaid++
    logLinesDropped.inc()
  }

  return {
    get dropped() {
      return dropped
    },
    write(line) {
      if (gone || stream.writableLength + line.length > maxBufferedBytes) return drop()
      if (unsaid > 0) {
        stream.write(gapNote(unsaid))
        unsaid = 0
      }
      stream.write(line)
    },
    async flush(timeoutMs) {
      if (gone || stream.writableLength === 0) return
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, timeoutMs)
        timer.unref()
        function done() {
          clearTimeout(timer)
          stream.off('drain', done)
          stream.off('error', done)
          resolve()
        }
        stream.once('drain', done)
        stream.once('error', done)
      })
    },
  }
}
