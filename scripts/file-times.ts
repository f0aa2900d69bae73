/**
 * The ten slowest test files of a run by wall time (each file's process from start to exit, as
 * scripts/test-process.ts records it), printed by `npm test` at its end so it says where its minutes go.
 * CURIO_TEST_TIMES=times.json also writes the whole list, for a before-and-after comparison.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { relative } from 'node:path'

export function printSlowestFiles(recorded: string): void {
  if (!existsSync(recorded)) return
  const times = readFileSync(recorded, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { file: string; seconds: number; cpuSeconds?: number })
    .map((entry) => ({
      file: relative(process.cwd(), entry.file),
      seconds: Math.round(entry.seconds * 10) / 10,
      cpuSeconds: Math.round((entry.cpuSeconds ?? 0) * 10) / 10,
    }))
    .sort((a, b) => b.seconds - a.seconds)
  rmSync(recorded, { force: true })
  if (process.env.CURIO_TEST_TIMES)
    writeFileSync(process.env.CURIO_TEST_TIMES, JSON.stringify(times, null, 2))
  const total = times.reduce((sum, entry) => sum + entry.seconds, 0)
  const cpu = times.reduce((sum, entry) => sum + entry.cpuSeconds, 0)
  const lines = [
    `\nSlowest test files (${times.length} files, ${Math.round(total)} s of file time and ${Math.round(cpu)} s of CPU in all):`,
  ]
  for (const entry of times.slice(0, 10))
    lines.push(
      `  ${entry.seconds.toFixed(1).padStart(6)} s  ${entry.cpuSeconds.toFixed(1).padStart(6)} s CPU  ${entry.file}`,
    )
  process.stdout.write(`${lines.join('\n')}\n`)
}
