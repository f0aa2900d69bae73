/**
 * Runs after `npm install`: caches a pristine embedded-database cluster, and one migrated with the job
 * queues declared, so the first `npm start` copies it instead of running initdb and the migrations. Never fails the install; start-up creates the cache itself if missing.
 */
import { existsSync } from 'node:fs'
import { databasesOn, SERVICES } from '../src/db/index.ts'
import {
  createPristinePglite,
  migratedClusterPath,
  prepareBaseCluster,
  saveMigratedCluster,
} from '../src/db/pglite.ts'
import { createLogger } from '../src/lib/logger.ts'
import { declareJobQueues } from '../src/runtime.ts'
import { migrateAll } from '../src/setup.ts'

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
