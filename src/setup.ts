import type { Logger } from 'pino'
import type { Databases, ServiceName } from './db/index.ts'
import { migrateService } from './db/migrate.ts'
import { createJobs } from './jobs/index.ts'

/**
 * What runs before any service serves: the migrations and the job queues' schemas. Kept apart from the
 * runtime, which loads both apps, so that a cluster's primary (which prepares the database, then only
 * supervises its workers) loads no app code.
 */
/** Applies both services' migrations and installs their job queues' schemas. */
export async function migrateAll(
  databases: Databases,
  services: readonly ServiceName[],
  log: Logger,
): Promise<void> {
  for (const service of services) {
    await migrateService(databases[service])
    const jobs = createJobs({ database: databases[service], log })
    await jobs.start()
    await jobs.stop(1000)
  }
}
