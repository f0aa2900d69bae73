/**
 * A node:test reporter that prints, at the end of a run, the ten slowest test files by wall time (each
 * file's process from start to exit, as scripts/test-process.ts records it), so `npm test` says where its
 * minutes go. CURIO_TEST_TIMES=times.json also writes the whole list, for a before-and-after comparison.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { relative } from 'node:path'

export default async function* fileTimes(source: AsyncIterable<unknown>) {
  for await (const _ of source) {
    // Only the end of the run matters.
  }
  const recorded = process.env.CURIO_FILE_TIMES
  if (!recorded || !existsSync(recorded)) return
  const times = readFileSync(recorded, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { file: string; seconds: number })
    .map((entry) => ({
      file: relative(process.cwd(), entry.file),
      seconds: Math.round(entry.seconds * 10) / 10,
    }))
    .sort((a, b) => b.seconds - a.seconds)
  rmSync(recorded, { force: true })
  if (process.env.CURIO_TEST_TIMES)
    writeFileSync(process.env.CURIO_TEST_TIMES, JSON.stringify(times, null, 2))
  const total = times.reduce((sum, entry) => sum + entry.seconds, 0)
  yield `\nSlowest test files (${times.length} files, ${Math.round(total)} s of file time in all):\n`
  for (const entry of times.slice(0, 10)) yield `  ${entry.seconds.toFixed(1).padStart(6)} s  ${entry.file}\n`
}
