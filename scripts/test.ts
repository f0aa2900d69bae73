/**
 * `npm test`: builds the migrated database template once (embedded, or on TEST_DATABASE_URL), then runs
 * every test file with node:test, each file on its own copy of the template. Extra arguments are passed
 * to node --test (e.g. a file path, or --test-name-pattern).
 */
import { spawn } from 'node:child_process'
import { globSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensurePgliteTemplate, ensurePostgresTemplate } from '../test/helpers/template.ts'
import { prepareBrowserTests } from './browser-tests.ts'
import { printSlowestFiles } from './file-times.ts'
import { usesServers } from './server-tests.ts'

const env = { ...process.env }
const started = performance.now()
if (env.TEST_DATABASE_URL) {
  env.CURIO_TEST_PG_TEMPLATE = await ensurePostgresTemplate(env.TEST_DATABASE_URL)
} else {
  env.CURIO_TEST_PGLITE_TEMPLATE = await ensurePgliteTemplate()
}
const backend = env.TEST_DATABASE_URL ? 'Postgres' : 'embedded PGlite'
const redis = env.TEST_REDIS_URL ? ', Redis' : ''
process.stdout.write(
  `Test database template ready on ${backend}${redis} in ${Math.round(performance.now() - started)} ms\n`,
)

env.CURIO_FILE_TIMES = join(tmpdir(), `curio-file-times-${process.pid}.jsonl`)
const args = process.argv.slice(2).filter((arg) => arg !== '--browser')
const browser = process.argv.includes('--browser')
// `npm test` runs every file but the browser tests, which `npm run test:browser` runs (they need Chromium).
const all = args.some((arg) => !arg.startsWith('-'))
  ? []
  : globSync(browser ? 'test/browser/**/*.test.ts' : 'test/**/*.test.ts')
      .filter((file) => browser || !file.startsWith(join('test', 'browser')))
      .sort()
// On the servers' pass, the files that never reach them (they answer alike on any database) are not run again.
const servers = !browser && Boolean(env.TEST_DATABASE_URL || env.TEST_REDIS_URL)
const files = servers ? all.filter((file) => usesServers(file)) : all
if (files.length < all.length) {
  process.stdout.write(
    `${all.length - files.length} test files use neither Postgres nor Redis: they ran on the embedded pass\n`,
  )
}
if (browser || args.some((arg) => arg.includes(join('test', 'browser')))) await prepareBrowserTests()
const concurrency = env.TEST_CONCURRENCY ?? String(Math.max(2, Math.min(4, availableParallelism())))
const child = spawn(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=120000',
    // A file whose tests have all ended exits, whatever timer or socket a timed-out test left behind.
    '--test-force-exit',
    '--import=./scripts/test-process.ts',
    // Each test file's process loads Curio's modules in 2 s of CPU instead of 5 (see the module's comment).
    '--import=./src/lib/module-hooks.ts',
    '--test-reporter=spec',
    ...args,
    ...files,
  ],
  { stdio: 'inherit', env },
)
child.on('exit', (code, signal) => {
  printSlowestFiles(env.CURIO_FILE_TIMES as string)
  process.exit(signal ? 1 : (code ?? 1))
})
