import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'

const root = fileURLToPath(new URL('../../', import.meta.url))

// The package's exports hide its package.json; the entry point's folder holds it.
function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite')
  let dir = dirname(entry)
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir)
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version
}

/** Extensions the migrations use, loaded into every embedded instance (a server has them installed). */
export const PGLITE_EXTENSIONS = { pg_trgm } satisfies PGliteOptions['extensions']

/**
 * Postgres settings of an embedded instance, sized for a laptop. Its data files are already in memory
 * (or in the OS's page cache), so a buffer pool of 32 MB rather than Postgres's 128 MB costs copies, not
 * disk reads, and leaves about 100 MB of WebAssembly memory untouched; PGlite serves one connection, so
 * shared memory is sized for 10, not 100. Idle RSS of a started instance on a reused data folder: 469 MB
 * with the defaults, 354 MB with these (bench/README.md, start-up).
 */
export const PGLITE_SETTINGS = ['-c', 'shared_buffers=32MB', '-c', 'max_connections=10']

/** Creates an embedded instance with Curio's extensions and settings; `dataDir` undefined keeps it in memory. */
export function createPglite(dataDir?: string, options: PGliteOptions = {}): Promise<PGlite> {
  const withExtensions = {
    ...options,
    extensions: PGLITE_EXTENSIONS,
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
  }
  return dataDir ? PGlite.create(dataDir, withExtensions) : PGlite.create(withExtensions)
}

/**
 * Where the pristine cluster is cached: node_modules/.cache, the conventional home of a project's
 * regenerable build output. A new embedded database is a copy of it, which takes a fraction of a second,
 * where PGlite's initdb in WebAssembly takes several.
 */
export function baseClusterPath(): string {
  return join(root, 'node_modules', '.cache', 'curio', `pglite-base-${pgliteVersion()}.tar`)
}

/**
 * Where a cluster with every migration and job-queue schema already applied is cached (made after
 * `npm install`). Its name carries a hash of the migrations and the job queue's version, so a cluster
 * made by other code is never used; migrations still run at every start and find nothing to do.
 */
export function migratedClusterPath(): string {
  // The recipe is part of the key: v2 holds the job queues and their schedules.
  const hash = createHash('sha256').update('migrated v2').update(pgliteVersion())
  for (const service of ['platform', 'directory']) {
    const folder = join(root, 'drizzle', service)
    for (const file of readdirSync(folder).sort()) {
      if (file.endsWith('.sql')) hash.update(file).update(readFileSync(join(folder, file)))
    }
  }
  hash.update(readFileSync(join(root, 'node_modules', 'pg-boss', 'package.json')))
  return join(
    root,
    'node_modules',
    '.cache',
    'curio',
    `pglite-migrated-${hash.digest('hex').slice(0, 16)}.tar`,
  )
}

function readCluster(path: string): Blob | undefined {
  try {
    return new Blob([readFileSync(path)])
  } catch {
    return undefined
  }
}

const readBaseCluster = () => readCluster(migratedClusterPath()) ?? readCluster(baseClusterPath())

/** Saves a cluster's data directory as the migrated cluster new embedded databases start from. */
export async function saveMigratedCluster(pglite: PGlite): Promise<void> {
  await saveCluster(pglite, migratedClusterPath())
}

/** Saves the data directory of a freshly initialised cluster for the next new database. */
async function saveBaseCluster(pglite: PGlite): Promise<void> {
  await saveCluster(pglite, baseClusterPath())
}

async function saveCluster(pglite: PGlite, path: string): Promise<void> {
  try {
    const dump = await pglite.dumpDataDir('none')
    mkdirSync(dirname(path), { recursive: true })
    const partial = `${path}.${process.pid}`
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()))
    renameSync(partial, path)
  } catch {
    // A read-only install only loses the shortcut.
  }
}

/**
 * Opens the embedded database in `dataDir`, or in memory when undefined. An existing folder is opened
 * as it is; a new one starts from the cached pristine cluster when there is one, and otherwise runs
 * initdb and caches the result before anything is written to it.
 */
export async function openPglite(dataDir: string | undefined): Promise<PGlite> {
  if (dataDir && existsSync(join(dataDir, 'PG_VERSION'))) return createPglite(dataDir)
  const base = readBaseCluster()
  if (base) return createPglite(dataDir, { loadDataDir: base })
  const pglite = await createPglite(dataDir)
  await saveBaseCluster(pglite)
  return pglite
}

/** A new in-memory cluster as initdb leaves it, loaded from the cached pristine cluster (made if missing). */
export async function createPristinePglite(): Promise<PGlite> {
  await prepareBaseCluster()
  const base = readCluster(baseClusterPath())
  return base ? createPglite(undefined, { loadDataDir: base }) : createPglite()
}

/** Creates the cached pristine cluster if it is missing (run after `npm install`). */
export async function prepareBaseCluster(): Promise<boolean> {
  if (existsSync(baseClusterPath())) return false
  const pglite = await createPglite()
  await saveBaseCluster(pglite)
  await pglite.close()
  return existsSync(baseClusterPath())
}
