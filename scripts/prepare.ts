/**
 * Runs after `npm install`: caches a pristine embedded-database cluster, and one migrated with the job
 * queues declared, so the first `npm start` copies it instead of running initdb and the migrations; and
 * builds the browser consoles. Never fails the install; start-up creates the cache itself if missing.
 */
// The compile cache goes on before the rest is read, so this run also leaves it warm for the first start
// (package.json runs it with the V8 flag `npm start` adds: the cache is kept per set of flags).
import '../src/lib/compile-cache.mjs'
import { existsSync } from 'node:fs'

const { databasesOn, SERVICES } = await import('../src/db/index.ts')
const { createPristinePglite, migratedClusterPath, prepareBaseCluster, saveMigratedCluster } = await import(
  '../src/db/pglite.ts'
)
const { createLogger } = await import('../src/lib/logger.ts')
const { declareJobQueues } = await import('../src/runtime.ts')
const { migrateAll } = await import('../src/setup.ts')

try {
  if (await prepareBaseCluster()) process.stdout.write('curio: embedded database cluster prepared\n')
  if (!existsSync(migratedClusterPath())) {
    // The pristine cluster just prepared, not a second initdb.
    const pglite = await createPristinePglite()
    const databases = databasesOn({ kind: 'pglite', pglite }, () => pglite.close())
    const log = createLogger('silent')
    await migrateAll(databases, SERVICES, log)
    // With both services' job queues and schedules, so a new embedded database's first start writes none.
    await declareJobQueues(databases, log)
    await saveMigratedCluster(pglite)
    await pglite.close()
    process.stdout.write('curio: migrated embedded database cluster prepared\n')
  }
} catch (error) {
  process.stdout.write(`curio: embedded database cluster not prepared (${(error as Error).message})\n`)
}

// The browser consoles (web/), so `npm start` serves them. A failed build never fails the install: the
// console's address then says how to build it.
try {
  const { buildConsoles } = await import('./build-web.ts')
  const built = await buildConsoles({ ifNeeded: true })
  if (built.length) process.stdout.write(`curio: built the ${built.join(' and ')} console\n`)
} catch (error) {
  process.stdout.write(
    `curio: the consoles were not built (${(error as Error).message}); run npm run build:web\n`,
  )
}
