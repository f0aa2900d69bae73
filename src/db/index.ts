import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import pg from 'pg'
import type { Config } from '../config.ts'
import { acquireDirectoryLock, type DirectoryLock } from './lock.ts'
import { openPglite } from './pglite.ts'

export type ServiceName = 'platform' | 'directory'
export const SERVICES: readonly ServiceName[] = ['platform', 'directory']

export type Db = PgDatabase<PgQueryResultHKT>
export type Tx = PgTransaction<PgQueryResultHKT>
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

export function createPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, application_name: 'curio' })
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {})
  return pool
}

export interface OpenOptions {
  /** Called once when an embedded database is opened, so start-up can say where data lives. */
  onEmbedded?: (where: string) => void
}

/**
 * Opens both services' databases as configured: Postgres where a URL is set (services on the same URL
 * share a pool), otherwise one embedded PGlite shared by both, in DATA_DIR (or in memory).
 */
export async function openDatabases(config: Config, options: OpenOptions = {}): Promise<Databases> {
  const pools = new Map<string, pg.Pool>()
  let pglite: PGlite | undefined
  let lock: DirectoryLock | undefined

  const sourceFor = async (url: string | undefined): Promise<DatabaseSource> => {
    if (url) {
      let pool = pools.get(url)
      if (!pool) {
        pool = createPool(url, config.databasePoolSize)
        pools.set(url, pool)
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
    const platform = serviceDatabase('platform', await sourceFor(config.platformDbUrl))
    const directory = serviceDatabase('directory', await sourceFor(config.directoryDbUrl))
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

/** Postgres error codes the services turn into answers. */
export const PG_UNIQUE_VIOLATION = '23505'

/** The constraint a unique violation broke, or undefined when the error is something else. */
export function uniqueViolation(error: unknown): { constraint: string } | undefined {
  let current: unknown = error
  // Drizzle wraps driver errors; the Postgres code sits on the cause.
  for (let depth = 0; depth < 3 && current && typeof current === 'object'; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown }
    if (candidate.code === PG_UNIQUE_VIOLATION) {
      return { constraint: typeof candidate.constraint === 'string' ? candidate.constraint : '' }
    }
    current = candidate.cause
  }
  return undefined
}

export function isUniqueViolation(error: unknown): boolean {
  return uniqueViolation(error) !== undefined
}
