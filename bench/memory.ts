/**
 * Where an idle embedded process's memory goes, part by part: each part measured in a child process of
 * its own, idle for `--idle-ms` and after a full garbage collection.
 *
 *   npm run bench:memory [-- --idle-ms 3000]
 *
 * Each child runs as `npm start` runs Curio (src/cli.mjs): 8 MB semi-spaces, MALLOC_ARENA_MAX=2 and
 * fixed 128 KB malloc mmap and trim thresholds, the compile cache on before any TypeScript is read.
 *
 * - `node`: a Node process with Curio's module hooks and nothing else, the floor of any;
 * - `modules`: Curio's modules loaded (both apps' code), nothing started;
 * - `pglite`: PGlite alone, from the migrated cluster with Curio's settings (db/pglite.ts), one query run;
 * - `curio`: both services started on `DATA_DIR=memory`, as `npm start` runs them, one request each.
 *
 * Each row: RSS, the V8 heap in use, V8's code space, and `external` (ArrayBuffers, PGlite's
 * WebAssembly memory among them, counted at their reserved size, of which RSS holds only what was touched).
 */
import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: { 'idle-ms': { type: 'string' }, part: { type: 'string' } },
  strict: true,
})
const idleMs = Number(values['idle-ms'] ?? 3000)
if (!Number.isFinite(idleMs) || idleMs < 0)
  throw new Error(`--idle-ms must be >= 0 (got ${values['idle-ms']})`)

const PARTS = ['node', 'modules', 'pglite', 'curio'] as const
type Part = (typeof PARTS)[number]

interface Figures {
  rssMb: number
  heapUsedMb: number
  codeSpaceMb: number
  externalMb: number
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10

/** In a child: brings up `part`, waits, collects garbage and prints its figures as one JSON line. */
async function measure(part: Part): Promise<void> {
  let stop = async () => {}
  if (part === 'modules') {
    await import('../src/runtime.ts')
  } else if (part === 'pglite') {
    const { openPglite } = await import('../src/db/pglite.ts')
    const pglite = await openPglite(undefined)
    await pglite.query('select 1')
    stop = () => pglite.close()
  } else if (part === 'curio') {
    const { loadConfig } = await import('../src/config.ts')
    const { startServices } = await import('../src/runtime.ts')
    const { createLogger } = await import('../src/lib/logger.ts')
    const config = loadConfig({
      DATA_DIR: 'memory',
      LOG_LEVEL: 'silent',
      PLATFORM_PORT: '0',
      DIRECTORY_PORT: '0',
    })
    const runtime = await startServices(config, ['platform', 'directory'], createLogger('silent'))
    for (const { url } of runtime.services) {
      const res = await fetch(`${url}/readyz`)
      if (res.status !== 200) throw new Error(`${url}/readyz answered ${res.status}`)
    }
    stop = () => runtime.stop()
  }
  await new Promise((resolve) => setTimeout(resolve, idleMs))
  ;(globalThis as { gc?: () => void }).gc?.()
  const usage = process.memoryUsage()
  const { getHeapSpaceStatistics } = await import('node:v8')
  const code = getHeapSpaceStatistics().find((space) => space.space_name === 'code_space')
  const figures: Figures = {
    rssMb: mb(usage.rss),
    heapUsedMb: mb(usage.heapUsed),
    codeSpaceMb: mb(code?.space_used_size ?? 0),
    externalMb: mb(usage.external),
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`)
  await stop()
}

if (values.part) {
  await measure(values.part as Part)
} else {
  // Loaded here only: a measured child imports nothing it does not measure.
  const { machine, REPO_ROOT, table, writeResults } = await import('./lib.ts')
  const rows: (string | number)[][] = [['part', 'RSS MB', 'V8 heap used MB', 'code space MB', 'external MB']]
  const results: Record<string, Figures> = {}
  for (const part of PARTS) {
    const child = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        // As `npm start` runs Curio (src/cli.mjs): the compile cache before any TypeScript, and Node's
        // memory settings for a server.
        '--max-semi-space-size=8',
        '--import=./src/lib/compile-cache.mjs',
        '--import=./src/lib/module-hooks.ts',
        'bench/memory.ts',
        '--part',
        part,
        '--idle-ms',
        String(idleMs),
      ],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 120_000,
        env: {
          ...process.env,
          MALLOC_ARENA_MAX: '2',
          MALLOC_MMAP_THRESHOLD_: '131072',
          MALLOC_TRIM_THRESHOLD_: '131072',
        },
      },
    )
    const line = child.stdout.split('\n').find((text) => text.startsWith('{'))
    if (!line) throw new Error(`${part}: no figures (exit ${child.status}): ${child.stderr}`)
    const figures = JSON.parse(line) as Figures
    results[part] = figures
    rows.push([part, figures.rssMb, figures.heapUsedMb, figures.codeSpaceMb, figures.externalMb])
  }
  process.stdout.write(`Idle memory by part, ${idleMs} ms idle then a full GC\n${table(rows)}\n`)
  process.stdout.write(`wrote ${writeResults('memory', { machine: machine(), idleMs, results })}\n`)
}
