/**
 * A generation run's log as the work keeps it (`generateStatus.recentLogs`, its last lines, each stamped
 * with the server's UTC time): a live region, so a screen reader hears each new step while a run goes on.
 */

const STAMP = /^(\d\d:\d\d:\d\d) /

/** A log line's time (`HH:MM:SS`, UTC) and its text. */
export function splitLine(line: string): { time: string | undefined; text: string } {
  const stamp = STAMP.exec(line)
  return stamp ? { time: stamp[1], text: line.slice(stamp[0].length) } : { time: undefined, text: line }
}

/** The latest step of a run: its last line's text. */
export function lastStep(logs: readonly string[]): string | undefined {
  const last = logs.at(-1)
  return last === undefined ? undefined : splitLine(last).text
}

/** Why a run ended in ERROR: its `Failed:` line, else its last line. */
export function failureReason(logs: readonly string[]): string {
  for (let index = logs.length - 1; index >= 0; index--) {
    const { text } = splitLine(logs[index] ?? '')
    if (text.startsWith('Failed: ')) return text.slice('Failed: '.length)
  }
  return lastStep(logs) ?? 'The run left no reason in its log.'
}

export function RunLog({ logs, running }: { logs: readonly string[]; running: boolean }) {
  return (
    <section class="run-log" aria-labelledby="run-log-title">
      <h3 id="run-log-title">{running ? 'Log' : 'Log of the last run'}</h3>
      {logs.length === 0 ? (
        <p class="muted">No generation has run for this work yet.</p>
      ) : (
        // Focusable, so the log can be scrolled with the keyboard when it is taller than its box.
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to be scrolled by keys
        <div class="log-box" role="log" aria-label="Generation log" aria-live="polite" tabIndex={0}>
          <ol class="log-lines">
            {logs.map((line, index) => {
              const { time, text } = splitLine(line)
              return (
                <li key={index}>
                  {time && <span class="log-time">{time} UTC</span>} <span>{text}</span>
                </li>
              )
            })}
          </ol>
        </div>
      )}
    </section>
  )
}
