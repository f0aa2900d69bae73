import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import type pg from 'pg'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { acquireDirectoryLock, type DirectoryLock } from './lock.ts'
import { openPglite } from './pglite.ts'
import { createPool, DatabasePool, drizzleOnPool } from './postgres.ts'
import { checkDatabaseServer } from './server-check.ts'

export { createPool } from './postgres.ts'
export { DatabaseStartError } from './server-check.ts'

export type ServiceName = 'platform' | 'directory'
export const SERVICES: readonly ServiceName[] = ['platform', 'directory']

export type Db = PgDatabase<PgQueryResultHKT>
/** The transaction `db.transaction` hands its callback (a savepoint when nested). */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
/** Either the database or an open transaction: what a write that may join a caller's transaction takes. */
export type DbOrTx = Db | Tx

/** Where a service's data lives: one embedded PGlite, or a pool on a Postgres server. */
export type DatabaseSource =
  | { kind: 'pglite'; pglite: PGlite }
  | { kind: 'postgres'; pool: pg.Pool; url: string }

export interface ServiceDatabase {
  service: ServiceName
  db: Db
  source: DatabaseSource
  /** Answers when the database does; throws otherwise. */
  ping(): Promise<void>
}

export interface Databases {
  platform: ServiceDatabase
  directory: ServiceDatabase
  /** Closes every pool and the embedded database once. */
  close(): Promise<void>
}

export function serviceDatabase(service: ServiceName, source: DatabaseSource): ServiceDatabase {
  const db = (source.kind === 'pglite'
    ? drizzlePglite(source.pglite)
    : source.pool instanceof DatabasePool
      ? drizzleOnPool(source.pool)
      : drizzlePg(source.pool)) as unknown as Db
  return {
    service,
    db,
    source,
    async ping() {
      await db.execute(sql`select 1`)
    },
  }
}

/** Both services' databases on one source; `close` closes the source. */
export function databasesOn(source: DatabaseSource, close: () => Promise<void>): Databases {
  return {
    platform: serviceDatabase('platform', source),
    directory: serviceDatabase('directory', source),
    close,
  }
}

export interface OpenOptions {
  log: Pick<Logger, 'warn'>
  /** Called once when an embedded database is opened, so start-up can say where data lives. */
  onEmbedded?: (where: string) => void
}

/**
 * Opens both services' databases as configured: Postgres where a URL is set (services on the same URL
 * share a pool), otherwise one embedded PGlite shared by both, in DATA_DIR (or in memory). A Postgres
 * server is asked for one connection at once: DatabaseStartError says in one line why it cannot serve.
 */
export async function openDatabases(config: Config, options: OpenOptions): Promise<Databases> {
  const pools = new Map<string, pg.Pool>()
  let pglite: PGlite | undefined
  let lock: DirectoryLock | undefined

  const sourceFor = async (url: string | undefined, setting: string): Promise<DatabaseSource> => {
    if (url) {
      let pool = pools.get(url)
      if (!pool) {
        pool = createPool(url, config.databasePoolSize, options.log, {
          connectTimeoutMs: config.databaseConnectTimeoutMs,
          queryTimeoutMs: config.databaseQueryTimeoutMs,
        })
        pools.set(url, pool)
        await checkDatabaseServer(pool, url, setting)
      }
      return { kind: 'postgres', pool, url }
    }
    if (!pglite) {
      if (config.dataDir === 'memory') {
        pglite = await openPglite(undefined)
        options.onEmbedded?.('memory')
      } else {
        const dir = resolve(config.dataDir)
        mkdirSync(dir, { recursive: true })
        lock = acquireDirectoryLock(dir)
        try {
          pglite = await openPglite(join(dir, 'pglite'))
        } catch (error) {
          lock.release()
          throw error
        }
        options.onEmbedded?.(dir)
      }
    }
    return { kind: 'pglite', pglite }
  }

  try {
    const platform = serviceDatabase(
      'platform',
      await sourceFor(
        config.platformDbUrl,
        config.platformDatabaseUrl ? 'PLATFORM_DATABASE_URL' : 'DATABASE_URL',
      ),
    )
    const directory = serviceDatabase(
      'directory',
      await sourceFor(
        config.directoryDbUrl,
        config.directoryDatabaseUrl ? 'DIRECTORY_DATABASE_URL' : 'DATABASE_URL',
      ),
    )
    return {
      platform,
      directory,
      async close() {
        await Promise.allSettled([...pools.values()].map((pool) => pool.end()))
        if (pglite && !pglite.closed) await pglite.close()
        lock?.release()
      },
    }
  } catch (error) {
    await Promise.allSettled([...pools.values()].map((pool) => pool.end()))
    if (pglite && !pglite.closed) await pglite.close()
    lock?.release()
    throw error
  }
}
