import { fileURLToPath } from 'node:url'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { ServiceDatabase, ServiceName } from './index.ts'

export function migrationsFolder(service: ServiceName): string {
  return fileURLToPath(new URL(`../../drizzle/${service}`, import.meta.url))
}

/** Applies the service's committed migrations; its journal lives in its own schema. */
export async function migrateService(database: ServiceDatabase): Promise<void> {
  const options = {
    migrationsFolder: migrationsFolder(database.service),
    migrationsSchema: database.service,
    migrationsTable: '__drizzle_migrations',
  }
  if (database.source.kind === 'pglite') {
    // biome-ignore lint/suspicious/noExplicitAny: the migrator wants its own driver's database type
    await migratePglite(database.db as any, options)
    return
  }
  // Instances starting together must not apply the same migration twice: serialise on an advisory lock,
  // and migrate on the connection that holds it (a pool of one has no second connection to give).
  const client = await database.source.pool.connect()
  const lockKey = `curio:migrate:${database.service}`
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [lockKey])
    await migratePg(drizzle(client), options)
  } finally {
    await client.query('select pg_advisory_unlock(hashtext($1))', [lockKey]).catch(() => {})
    client.release()
  }
}
