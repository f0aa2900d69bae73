/**
 * Loaded into each test file's process by scripts/test.ts (`--import`):
 * - at exit, appends the file's wall time, from the process' start (boot and imports included) to its
 *   end, and the CPU time its process used, to CURIO_FILE_TIMES as a JSON line (scripts/file-times.ts prints the slowest);
 * - ends the file past CURIO_TEST_FILE_TIMEOUT_MS (default 360 s): a file that hangs, in a hook or in a
 *   test that ignores its own timeout, fails with one line naming it, and the run goes on to the next.
 */
import { appendFileSync } from 'node:fs'
import { relative } from 'node:path'

const file = process.argv[1]
if (file?.endsWith('.test.ts')) {
  const out = process.env.CURIO_FILE_TIMES
  if (out) {
    process.on('exit', () => {
      const cpu = process.cpuUsage()
      const cpuSeconds = (cpu.user + cpu.system) / 1e6
      appendFileSync(out, `${JSON.stringify({ file, seconds: performance.now() / 1000, cpuSeconds })}\n`)
    })
  }
  const limitMs = Number(process.env.CURIO_TEST_FILE_TIMEOUT_MS ?? 360_000)
  setTimeout(() => {
    process.stderr.write(
      `${relative(process.cwd(), file)} ran for more than ${limitMs / 1000} s and was ended: look above for the test that did not finish\n`,
    )
    process.exit(1)
  }, limitMs).unref()
}
