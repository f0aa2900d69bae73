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

// The compile cache first, before any TypeScript is read (see lib/compile-cache.mjs); then module loading
// made faster (see lib/module-hooks.ts) before the rest is loaded.
await import('./lib/compile-cache.mjs')
await import('./lib/module-hooks.ts')
await import('./main.ts')
