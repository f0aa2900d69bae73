import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it, type TestContext } from 'node:test'
import { sql } from 'drizzle-orm'
import { createPool, type ServiceDatabase, type ServiceName, serviceDatabase } from '../../src/db/index.ts'
import { migrateService, migrationsFolder } from '../../src/db/migrate.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { migrateAll } from '../../src/setup.ts'
import { createEmptyDatabase, NEEDS_POSTGRES, race } from '../helpers/database.ts'

const silentLog = createLogger('silent')

const OWN_TABLES: Record<ServiceName, string[]> = {
  platform: ['users', 'refresh_tokens', 'instance_secrets'],
  directory: ['users', 'roles', 'sessions', 'client_profiles'],
}

interface JournalRow {
  id: number
  hash: string
  created_at: string
}

/** An empty database with both services on it. */
async function openEmpty() {
  const empty = await createEmptyDatabase()
  return {
    source: empty.source,
    platform: serviceDatabase('platform', empty.source),
    directory: serviceDatabase('directory', empty.source),
    close: () => empty.close(),
  }
}

/** An empty database for this test only, closed when the test ends. */
async function emptyServices(t: TestContext) {
  const services = await openEmpty()
  t.after(() => services.close())
  return services
}

async function rows<T>(database: ServiceDatabase, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = await database.db.execute(query)
  return (result as unknown as { rows: T[] }).rows
}

/** Every user table in the database, as `schema.table`. */
async function tablesOf(database: ServiceDatabase): Promise<string[]> {
  const found = await rows<{ name: string }>(
    database,
    sql`select table_schema || '.' || table_name as name from information_schema.tables
        where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'
        order by 1`,
  )
  return found.map((row) => row.name)
}

async function schemaNames(database: ServiceDatabase): Promise<string[]> {
  const found = await rows<{ name: string }>(database, sql`select nspname as name from pg_namespace`)
  return found.map((row) => row.name)
}

async function journal(database: ServiceDatabase): Promise<JournalRow[]> {
  return rows<JournalRow>(
    database,
    sql`select id, hash, created_at::text as created_at
        from ${sql.identifier(database.service)}.__drizzle_migrations order by id`,
  )
}

/** Number of migrations committed for the service, from drizzle-kit's journal. */
function committedMigrations(service: ServiceName): number {
  const meta = JSON.parse(readFileSync(join(migrationsFolder(service), 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[]
  }
  return meta.entries.length
}

describe('migrateService', () => {
  it('each service creates its tables only in its own schema, none in public', async (t) => {
    const { platform, directory } = await emptyServices(t)
    assert.deepEqual(await tablesOf(platform), [], 'the database starts empty')

    await migrateService(platform)
    const afterPlatform = await tablesOf(platform)
    assert.deepEqual(
      afterPlatform.filter((name) => !name.startsWith('platform.')),
      [],
      'the platform creates tables in the platform schema only',
    )
    for (const table of OWN_TABLES.platform) assert.ok(afterPlatform.includes(`platform.${table}`), table)

    await migrateService(directory)
    const added = (await tablesOf(directory)).filter((name) => !afterPlatform.includes(name))
    assert.deepEqual(
      added.filter((name) => !name.startsWith('directory.')),
      [],
      'the directory creates tables in the directory schema only',
    )
    for (const table of OWN_TABLES.directory) assert.ok(added.includes(`directory.${table}`), table)
    assert.ok(!added.includes('platform.roles'))
  })

  it('running the migrations again changes nothing', async (t) => {
    const { platform, directory } = await emptyServices(t)
    for (const database of [platform, directory]) await migrateService(database)
    const before = { platform: await journal(platform), directory: await journal(directory) }
    const tablesBefore = await tablesOf(platform)

    for (const database of [platform, directory]) await migrateService(database)

    assert.deepEqual({ platform: await journal(platform), directory: await journal(directory) }, before)
    assert.deepEqual(await tablesOf(platform), tablesBefore)
    const roles = await rows<{ count: number }>(
      directory,
      sql`select count(*)::int as count from directory.roles`,
    )
    assert.equal(roles[0]?.count, 2)
  })

  // The advisory lock is Postgres-only.
  it(
    race('two instances migrating the same fresh database at once both succeed, each migration applied once'),
    NEEDS_POSTGRES,
    async (t) => {
      const { source } = await emptyServices(t)
      assert.equal(source.kind, 'postgres')
      if (source.kind !== 'postgres') return
      // Two pools stand for two processes starting against the same server.
      const otherPool = createPool(source.url, 5, silentLog)
      t.after(() => otherPool.end())
      const other = { kind: 'postgres', pool: otherPool, url: source.url } as const

      for (const service of ['platform', 'directory'] as const) {
        const first = serviceDatabase(service, source)
        const second = serviceDatabase(service, other)
        await Promise.all([migrateService(first), migrateService(second)])
        const applied = await journal(first)
        assert.equal(applied.length, committedMigrations(service))
        assert.equal(new Set(applied.map((row) => row.hash)).size, applied.length)
      }
      const roles = await rows<{ count: number }>(
        serviceDatabase('directory', source),
        sql`select count(*)::int as count from directory.roles`,
      )
      assert.equal(roles[0]?.count, 2)
    },
  )
})

describe('a freshly migrated database', () => {
  let services: Awaited<ReturnType<typeof openEmpty>>
  before(async () => {
    services = await openEmpty()
    await migrateService(services.platform)
    await migrateService(services.directory)
  })
  after(() => services?.close())

  it('each service keeps its migration journal in its own schema', async () => {
    const { platform, directory } = services
    const tables = await tablesOf(platform)
    assert.deepEqual(tables.filter((name) => name.endsWith('__drizzle_migrations')).sort(), [
      'directory.__drizzle_migrations',
      'platform.__drizzle_migrations',
    ])
    assert.ok(
      !(await schemaNames(platform)).includes('drizzle'),
      'drizzle’s default journal schema is unused',
    )
    assert.equal((await journal(platform)).length, committedMigrations('platform'))
    assert.equal((await journal(directory)).length, committedMigrations('directory'))
  })

  it('the directory seeds an active admin role and a user role', async () => {
    const roles = await rows<{ id: string; is_admin: boolean; status: string }>(
      services.directory,
      sql`select id, is_admin, status from directory.roles where id in ('admin', 'user') order by id`,
    )
    assert.deepEqual(roles, [
      { id: 'admin', is_admin: true, status: 'active' },
      { id: 'user', is_admin: false, status: 'active' },
    ])
  })
})

describe('migrateAll', () => {
  it('installs each service’s job queue in its own <service>_jobs schema', async (t) => {
    const { platform, directory } = await emptyServices(t)
    await migrateAll(
      { platform, directory, close: async () => {} },
      ['platform', 'directory'],
      createLogger('silent'),
    )

    const schemas = await schemaNames(platform)
    assert.ok(schemas.includes('platform_jobs'), schemas.join(', '))
    assert.ok(schemas.includes('directory_jobs'), schemas.join(', '))
    const tables = await tablesOf(platform)
    assert.ok(tables.includes('platform_jobs.job'), 'pg-boss job table in platform_jobs')
    assert.ok(tables.includes('directory_jobs.job'), 'pg-boss job table in directory_jobs')
    assert.ok(tables.includes('platform.users') && tables.includes('directory.roles'), 'migrations ran too')
  })
})
