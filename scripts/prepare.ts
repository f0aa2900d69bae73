/**
 * Runs after `npm install`: caches a pristine embedded-database cluster so the first `npm start` copies
 * it instead of running initdb. Never fails the install; start-up creates the cache itself if missing.
 */
import { existsSync } from 'node:fs'
import { serviceDatabase } from '../src/db/index.ts'
import {
  createPglite,
  migratedClusterPath,
  prepareBaseCluster,
  saveMigratedCluster,
} from '../src/db/pglite.ts'
import { createLogger } from '../src/lib/logger.ts'
import { migrateAll } from '../src/runtime.ts'

try {
  if (await prepareBaseCluster()) process.stdout.write('curio: embedded database cluster prepared\n')
  if (!existsSync(migratedClusterPath())) {
    const pglite = await createPglite()
    const source = { kind: 'pglite', pglite } as const
    await migrateAll(
      {
        platform: serviceDatabase('platform', source),
        directory: serviceDatabase('directory', source),
        close: () => pglite.close(),
      },
      ['platform', 'directory'],
      createLogger('silent'),
    )
    await saveMigratedCluster(pglite)
    await pglite.close()
    process.stdout.write('curio: migrated embedded database cluster prepared\n')
  }
} catch (error) {
  process.stdout.write(`curio: embedded database cluster not prepared (${(error as Error).message})\n`)
}
