/**
 * `npm run typecheck`: the three TypeScript programs at once, each its own process (tsc is single-threaded):
 * the server, tests and tools (no DOM types), the consoles (web/), and the browser tests (DOM types).
 * Prints each one's errors under its name; fails if any failed.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'

const tsc = join(import.meta.dirname, '..', 'node_modules', '.bin', 'tsc')
const programs = [
  { name: 'server, tests and tools', args: ['--noEmit'] },
  { name: 'consoles (web/)', args: ['-p', 'web'] },
  { name: 'browser tests (test/browser/)', args: ['-p', 'test/browser'] },
]

const results = await Promise.all(
  programs.map(
    ({ name, args }) =>
      new Promise<{ name: string; code: number; output: string }>((resolve) => {
        const child = spawn(tsc, args, { stdio: ['ignore', 'pipe', 'pipe'] })
        let output = ''
        child.stdout.on('data', (chunk) => {
          output += chunk
        })
        child.stderr.on('data', (chunk) => {
          output += chunk
        })
        child.on('close', (code) => resolve({ name, code: code ?? 1, output }))
      }),
  ),
)
for (const { name, code, output } of results) {
  if (code !== 0) process.stdout.write(`\ntsc, ${name}: failed\n${output}`)
}
process.exit(results.every(({ code }) => code === 0) ? 0 : 1)
