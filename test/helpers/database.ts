import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createPool, type DatabaseSource, type Databases, serviceDatabase } from '../../src/db/index.ts'
import { clusterFile, createPglite, createPristinePglite } from '../../src/db/pglite.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { databaseUrlWithName, ensurePgliteTemplate, ensurePostgresTemplate } from './template.ts'

const silentLog = createLogger('silent')

/** Set by `npm test` (and CI) to run the whole suite against a Postgres server. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined

/**
 * Options of a test or suite that needs a Postgres server (a second connection, a dropped one, advisory
 * locks): on the embedded run it shows as skipped, saying why, instead of vanishing.
 */
export const NEEDS_POSTGRES = {
  skip: TEST_DATABASE_URL ? false : 'needs a Postgres server: runs when TEST_DATABASE_URL is set, as in CI',
}

/** Options of a test or suite that needs Redis: skipped, saying why, without TEST_REDIS_URL. */
export const NEEDS_REDIS = {
  skip: TEST_REDIS_URL ? false : 'needs Redis: runs when TEST_REDIS_URL is set, as in CI',
}

/**
 * The name of a test of a race. Races are run on both databases, but only Postgres runs connections
 * really at once (PGlite serialises them): CI's Postgres pass is where they prove something.
 */
export const race = (name: string) => `race: ${name}`

export interface TestDatabases extends Databases {
  source: DatabaseSource
  /** A connection URL for processes started by the test (Postgres only). */
  url: string | undefined
}

async function createDatabaseFromTemplate(admin: pg.Client, name: string, template: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`create database "${name}" template "${template}"`)
      return
    } catch (error) {
      // 55006: the template is briefly in use by a concurrent copy.
      if ((error as { code?: string }).code !== '55006' || attempt > 20) throw error
      await new Promise((resolve) => setTimeout(resolve, 100 + attempt * 50))
    }
  }
}

/** A fresh, migrated database for one test file: a copy of the run's template, dropped on close. */
export async function createTestDatabases(): Promise<TestDatabases> {
  if (!TEST_DATABASE_URL) {
    const file = process.env.CURIO_TEST_PGLITE_TEMPLATE ?? (await ensurePgliteTemplate())
    const pglite = await createPglite(undefined, { loadDataDir: clusterFile(file) })
    const source = { kind: 'pglite', pglite } as const
    return {
      source,
      url: undefined,
      platform: serviceDatabase('platform', source),
      directory: serviceDatabase('directory', source),
      close: async () => {
        if (!pglite.closed) await pglite.close()
      },
    }
  }
  const template = process.env.CURIO_TEST_PG_TEMPLATE ?? (await ensurePostgresTemplate(TEST_DATABASE_URL))
  const name = `curio_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await admin.connect()
  try {
    await createDatabaseFromTemplate(admin, name, template)
  } finally {
    await admin.end()
  }
  const url = databaseUrlWithName(TEST_DATABASE_URL, name)
  const pool = createPool(url, 5, silentLog)
  const source = { kind: 'postgres', pool, url } as const
  let closed = false
  return {
    source,
    url,
    platform: serviceDatabase('platform', source),
    directory: serviceDatabase('directory', source),
    close: async () => {
      if (closed) return
      closed = true
      await pool.end()
      const dropper = new pg.Client({ connectionString: TEST_DATABASE_URL })
      await dropper.connect()
      await dropper.query(`drop database if exists "${name}" with (force)`).catch(() => {})
      await dropper.end()
    },
  }
}

/** An empty database (no migrations) for tests of migration itself, and its URL when on Postgres. */
export async function createEmptyDatabase(): Promise<{ source: DatabaseSource; close(): Promise<void> }> {
  if (!TEST_DATABASE_URL) {
    // As initdb leaves a cluster, without paying for initdb in WebAssembly each time.
    const pglite = await createPristinePglite()
    return { source: { kind: 'pglite', pglite }, close: () => pglite.close() }
  }
  const name = `curio_empty_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await admin.connect()
  await admin.query(`create database "${name}"`)
  await admin.end()
  const url = databaseUrlWithName(TEST_DATABASE_URL, name)
  const pool = createPool(url, 5, silentLog)
  return {
    source: { kind: 'postgres', pool, url },
    close: async () => {
      await pool.end()
      const dropper = new pg.Client({ connectionString: TEST_DATABASE_URL })
      await dropper.connect()
      await dropper.query(`drop database if exists "${name}" with (force)`).catch(() => {})
      await dropper.end()
    },
  }
}
