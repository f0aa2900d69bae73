/**
 * Preloaded into a Curio child by bench:heap (`--import`): on SIGUSR2 it writes a V8 heap snapshot to
 * `BENCH_HEAP_SNAPSHOT` and prints one line on stderr, `bench-heap {…}`, with process.memoryUsage()
 * before and after, once the file is complete. Plain JavaScript with node: built-ins only: a `.ts` file
 * loaded before src/cli.mjs turns the compile cache on would make Node load its TypeScript stripper.
 */
import { writeHeapSnapshot } from 'node:v8'

const path = process.env.BENCH_HEAP_SNAPSHOT
if (path) {
  process.on('SIGUSR2', () => {
    const before = process.memoryUsage()
    const startedAt = performance.now()
    // Synchronous: V8 collects garbage, walks the heap and writes the file before this returns.
    writeHeapSnapshot(path)
    const writeMs = Math.round(performance.now() - startedAt)
    const after = process.memoryUsage()
    process.stderr.write(`bench-heap ${JSON.stringify({ path, writeMs, before, after })}\n`)
  })
}
