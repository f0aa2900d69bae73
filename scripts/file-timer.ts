/**
 * Loaded into each test file's process by scripts/test.ts (`--import`): at exit, appends the file's wall
 * time, from the process' start (boot and imports included) to its end, to CURIO_FILE_TIMES as a JSON line.
 */
import { appendFileSync } from 'node:fs'

const out = process.env.CURIO_FILE_TIMES
const file = process.argv[1]
if (out && file?.endsWith('.test.ts')) {
  process.on('exit', () => {
    appendFileSync(out, `${JSON.stringify({ file, seconds: performance.now() / 1000 })}\n`)
  })
}
