// The CLI's entry (`npm start`, `npm run cli`): plain JavaScript, so that a Node too old to load the
// TypeScript sources still reads it and says in one line which Node to use, instead of failing on `.ts`.
import { existsSync, readFileSync } from 'node:fs'

const project = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const needed = /^>=\s*(\d+)(?:\.(\d+))?/.exec(project.engines.node)
const minimum = [Number(needed[1]), Number(needed[2] ?? 0)]
const [major, minor] = process.versions.node.split('.').map(Number)

if (major < minimum[0] || (major === minimum[0] && minor < minimum[1])) {
  const bundled = `Node ${/\d+/.exec(project.devDependencies.node)[0]}`
  const installed = existsSync(new URL('../node_modules/.bin/node', import.meta.url))
  const how = installed
    ? `run it through npm (npm start, npm run cli -- <command>), which uses the project's ${bundled}`
    : `run npm install, which brings the project's ${bundled}, then npm start or npm run cli -- <command>`
  process.stderr.write(
    `Curio needs Node ${minimum.join('.')} or newer (this is ${process.versions.node}): ${how}\n`,
  )
  process.exit(1)
}

// A server's memory settings, which Node reads only as it starts: `start` runs Node again in this same
// process (execve: same pid, same output, signals as before) with them, once. V8 lets its young generation
// grow to 32 MB semi-spaces while the modules load and keeps them: 8 MB ones take ~30 MB off an idle
// process and cost its requests nothing measurable (bench/README.md, memory). glibc gives each of V8's
// threads its own malloc arena, whose freed memory stays with the process: 2 take ~10 MB more off. And
// glibc raises its mmap threshold each time a large block is freed (up to 32 MB, its trim threshold to
// twice that), after which the buffers of a start or a burst come from the heap and stay there when freed:
// fixed 128 KB thresholds (glibc's own starting values) give ~50 MB back after PGlite's start and after a
// burst of load (bench:burst). A flag or MALLOC_* setting of your own wins; CURIO_RUNTIME_TUNED=1 (set by
// this re-run) skips it all.
const TUNED = 'CURIO_RUNTIME_TUNED'
const SEMI_SPACE = '--max-semi-space-size'
if (
  process.argv[2] === 'start' &&
  !process.env[TUNED] &&
  typeof process.execve === 'function' &&
  process.platform !== 'win32'
) {
  const own = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((flag) => flag.includes(SEMI_SPACE))
  process.execve(
    process.execPath,
    [process.execPath, ...(own ? [] : [`${SEMI_SPACE}=8`]), ...process.execArgv, ...process.argv.slice(1)],
    {
      ...process.env,
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
      MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072',
      MALLOC_TRIM_THRESHOLD_: process.env.MALLOC_TRIM_THRESHOLD_ ?? '131072',
      [TUNED]: '1',
    },
  )
}

// The compile cache first, before any TypeScript is read (see lib/compile-cache.mjs); then module loading
// made faster (see lib/module-hooks.ts) before the rest is loaded.
await import('./lib/compile-cache.mjs')
await import('./lib/module-hooks.ts')
await import('./main.ts')
