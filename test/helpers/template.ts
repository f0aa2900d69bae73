import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { createPool, databasesOn, SERVICES } from '../../src/db/index.ts'
import { compactCluster, createPristinePglite, dumpCluster } from '../../src/db/pglite.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { declareJobQueues } from '../../src/runtime.ts'
import { migrateAll } from '../../src/setup.ts'

const root = fileURLToPath(new URL('../../', import.meta.url))

/** Changes whenever a migration or the job queue's version does, so a stale template is never reused. */
export function templateKey(): string {
  // The template's own recipe is part of the key: v2 has no template0 or template1, v3 has the job queues,
  // v4 starts from a cluster with 1 MB WAL segments,
  // v5 keeps none of them for reuse.
  const hash = createHash('sha256').update('template v5')
  for (const service of SERVICES) {
    const folder = join(root, 'drizzle', service)
    for (const file of readdirSync(folder).sort()) {
      if (file.endsWith('.sql')) hash.update(file).update(readFileSync(join(folder, file)))
    }
  }
  hash.update(readFileSync(join(root, 'node_modules/pg-boss/package.json')))
  hash.update(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json')))
  return hash.digest('hex').slice(0, 16)
}

const silent = createLogger('silent')

/** A migrated embedded database, dumped to a file once; each test loads a copy in a fraction of initdb. */
export async function ensurePgliteTemplate(): Promise<string> {
  const dir = join(root, '.cache')
  const file = join(dir, `test-template-${templateKey()}.tar`)
  if (existsSync(file)) return file
  mkdirSync(dir, { recursive: true })
  // The pristine cluster `npm install` prepared, not another initdb.
  const pglite = await createPristinePglite()
  const databases = databasesOn({ kind: 'pglite', pglite }, () => pglite.close())
  await migrateAll(databases, SERVICES, silent)
  await declareJobQueues(databases, silent)
  // Without template0 and template1 (tests never create a database on PGlite) and checkpointed: the file
  // each test loads is a third smaller, and its first start replays no WAL.
  await compactCluster(pglite)
  const dump = await dumpCluster(pglite)
  await pglite.close()
  const partial = `${file}.${process.pid}`
  writeFileSync(partial, dump)
  renameSync(partial, file)
  return file
}

export function databaseUrlWithName(url: string, name: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

/** A migrated Postgres database to copy each test's database from (CREATE DATABASE … TEMPLATE). */
export async function ensurePostgresTemplate(adminUrl: string): Promise<string> {
  const name = `curio_template_${templateKey()}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name])
    if (rowCount) return name
    const building = `${name}_${process.pid}`
    await admin.query(`drop database if exists "${building}"`)
    await admin.query(`create database "${building}"`)
    const pool = createPool(databaseUrlWithName(adminUrl, building), 4, silent)
    const source = { kind: 'postgres', pool, url: databaseUrlWithName(adminUrl, building) } as const
    const databases = databasesOn(source, () => pool.end())
    await migrateAll(databases, SERVICES, silent)
    await declareJobQueues(databases, silent)
    await pool.end()
    await admin.query(`alter database "${building}" rename to "${name}"`).catch(async (error: unknown) => {
      // Another run finished first: use theirs.
      await admin.query(`drop database if exists "${building}"`)
      const again = await admin.query('select 1 from pg_database where datname = $1', [name])
      if (!again.rowCount) throw error
    })
    return name
  } finally {
    await admin.end()
  }
}
