import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
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
export const PGLITE_SETTINGS = [
  '-c',
  'shared_buffers=32MB',
  '-c',
  'max_connections=10',
  // PGlite runs Postgres in single-user mode, where nothing checkpoints on its own: the WAL grows until
  // a CHECKPOINT (db/embedded-upkeep.ts runs them), which keeps at most these sizes of old segments for
  // reuse. 32 MB is the least a cluster with Postgres's default 16 MB segments accepts.
  '-c',
  'min_wal_size=32MB',
  '-c',
  'max_wal_size=64MB',
]

/**
 * initdb's options for a new cluster: WAL segments of 1 MB rather than 16 MB, so that a new cluster, and
 * each copy of it, holds a few MB of WAL rather than one 16 MB file (in memory with DATA_DIR=memory).
 */
export const PGLITE_INITDB_PARAMS = ['--wal-segsize=1']

/** Creates an embedded instance with Curio's extensions and settings; `dataDir` undefined keeps it in memory. */
export function createPglite(dataDir?: string, options: PGliteOptions = {}): Promise<PGlite> {
  const withExtensions = {
    ...options,
    extensions: PGLITE_EXTENSIONS,
    initDbStartParams: PGLITE_INITDB_PARAMS,
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
  // v4: 1 MB WAL segments, none kept for reuse.
  return join(root, 'node_modules', '.cache', 'curio', `pglite-base-v4-${pgliteVersion()}.tar`)
}

/**
 * Where a cluster with every migration and job-queue schema already applied is cached (made after
 * `npm install`). Its name carries a hash of the migrations and the job queue's version, so a cluster
 * made by other code is never used; migrations still run at every start and find nothing to do.
 */
export function migratedClusterPath(): string {
  // The recipe is part of the key: v2 holds the job queues and their schedules, v3 is compacted, v5
  // keeps no WAL segments for reuse.
  const hash = createHash('sha256').update('migrated v5').update(pgliteVersion())
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

/**
 * A cluster file's bytes as the Blob PGlite's `loadDataDir` takes. PGlite only asks a Blob for its
 * `arrayBuffer()`, which for a Blob made of a Buffer copies the 30–45 MB in chunks and joins them again
 * (~0.4 s, and a second copy in memory at the peak): this one hands over the bytes read from the file.
 */
class ClusterBytes extends Blob {
  #bytes: ArrayBuffer | undefined

  constructor(bytes: Buffer) {
    super([], { type: 'application/x-tar' })
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    this.#bytes = (
      whole ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    ) as ArrayBuffer
  }

  /**
   * The bytes, once: PGlite reads them once, when it starts, and keeps this Blob for as long as it runs
   * (in the options its module's callbacks hold), so the bytes are let go as they are handed over.
   */
  override arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#bytes
    this.#bytes = undefined
    return bytes ? Promise.resolve(bytes) : Promise.reject(new Error('the cluster file was read already'))
  }
}

/** A cluster file (a tar of a data directory) to load into a new in-memory instance. */
export function clusterFile(path: string): Blob {
  return new ClusterBytes(readFileSync(path))
}

function readCluster(path: string): Blob | undefined {
  try {
    return clusterFile(path)
  } catch {
    return undefined
  }
}

const baseCluster = () => [migratedClusterPath(), baseClusterPath()].find((path) => existsSync(path))

/**
 * Makes a cluster as small as a copy can be before it is saved: Curio never creates a database in its
 * embedded Postgres, so the two template databases go (a third of the files), and a checkpoint writes
 * every change to the data files, so the copy carries little WAL and its first start replays nothing.
 */
export async function compactCluster(pglite: PGlite): Promise<void> {
  await pglite.query(
    `update pg_database set datistemplate = false where datname in ('template0', 'template1')`,
  )
  await pglite.query('drop database if exists template1')
  await pglite.query('drop database if exists template0')
  await pglite.query('checkpoint')
}

/** Saves a cluster's data directory as the migrated cluster new embedded databases start from. */
export async function saveMigratedCluster(pglite: PGlite): Promise<void> {
  await compactCluster(pglite)
  await saveCluster(pglite, migratedClusterPath())
}

/** Saves the data directory of a freshly initialised cluster for the next new database. */
async function saveBaseCluster(pglite: PGlite): Promise<void> {
  await pglite.query('checkpoint')
  await saveCluster(pglite, baseClusterPath())
}

/**
 * A cluster's data directory as a cluster file, without the WAL segments a checkpoint kept for reuse
 * (named after the one in use): Postgres makes a segment when it needs one, and each copy of the file
 * would otherwise carry several MB of old WAL.
 */
export async function dumpCluster(pglite: PGlite): Promise<Buffer> {
  const { rows } = await pglite.query<{ name: string }>(
    'select pg_walfile_name(pg_current_wal_insert_lsn()) as name',
  )
  const current = rows[0]?.name
  const dump = Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer())
  if (!current) return dump
  return filterTar(dump, (path) => {
    const segment = /(?:^|\/)pg_wal\/([0-9A-F]{24})$/.exec(path)?.[1]
    return !segment || segment <= current
  })
}

async function saveCluster(pglite: PGlite, path: string): Promise<void> {
  try {
    const dump = await dumpCluster(pglite)
    mkdirSync(dirname(path), { recursive: true })
    const partial = `${path}.${process.pid}`
    writeFileSync(partial, dump)
    renameSync(partial, path)
  } catch {
    // A read-only install only loses the shortcut.
  }
}

/** A number field of a tar header: octal digits, ended by a space or NUL. */
function octal(header: Buffer, offset: number, length: number): number {
  const text = header
    .toString('latin1', offset, offset + length)
    .replace(/[\0 ]+$/, '')
    .trim()
  return text ? Number.parseInt(text, 8) : 0
}

interface TarEntry {
  path: string
  /** '0' (or NUL) a file, '5' a folder. */
  type: string
  mode: number
  data: Buffer
  /** The entry's header and data blocks, as they are in the archive. */
  blocks: Buffer
}

/** The entries of a ustar archive (as PGlite's dump makes it), in order. */
function* tarEntries(tar: Buffer): Generator<TarEntry> {
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512)
    if (header[0] === 0) return // two empty records end the archive
    const name = header.toString('latin1', 0, 100).replace(/\0.*$/s, '')
    const prefix = header.toString('latin1', 345, 500).replace(/\0.*$/s, '')
    const size = octal(header, 124, 12)
    const end = offset + 512 + Math.ceil(size / 512) * 512
    yield {
      path: (prefix ? `${prefix}/${name}` : name).replace(/^\/+/, ''),
      type: String.fromCharCode(header[156] ?? 0),
      mode: octal(header, 100, 8) & 0o777,
      data: tar.subarray(offset + 512, offset + 512 + size),
      blocks: tar.subarray(offset, end),
    }
    offset = end
  }
}

/** The archive with only the entries `keep` accepts. */
function filterTar(tar: Buffer, keep: (path: string) => boolean): Buffer {
  const kept: Buffer[] = []
  for (const entry of tarEntries(tar)) if (keep(entry.path)) kept.push(entry.blocks)
  kept.push(Buffer.alloc(1024))
  return Buffer.concat(kept)
}

/**
 * Writes the files of a cluster file (a ustar archive, as PGlite's dump makes it) into `dir`, which must
 * not exist: into a folder beside it first, renamed into place when complete, so a start that stops half
 * way leaves no half cluster that the next one would take for a database. Written with Node's file
 * system, not through PGlite's emulated one, which takes several times as long.
 */
export function extractCluster(tar: Buffer, dir: string): void {
  const partial = `${dir}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  mkdirSync(partial, { recursive: true, mode: 0o700 })
  try {
    for (const { path, type, mode, data } of tarEntries(tar)) {
      const target = join(partial, path)
      if (!target.startsWith(`${partial}/`) || path.split('/').includes('..')) {
        throw new Error(`cluster file has an entry outside its folder: ${path}`)
      }
      if (type === '5') {
        mkdirSync(target, { recursive: true, mode: 0o700 })
      } else if (type === '0' || type === '\0') {
        mkdirSync(dirname(target), { recursive: true, mode: 0o700 })
        writeFileSync(target, data, { mode: mode || 0o600 })
      } else {
        throw new Error(`cluster file has an entry of a type it should not (${type}): ${path}`)
      }
    }
    renameSync(partial, dir)
  } catch (error) {
    rmSync(partial, { recursive: true, force: true })
    throw error
  }
}

/**
 * Opens the embedded database in `dataDir`, or in memory when undefined. An existing folder is opened
 * as it is; a new one starts from the cached cluster when there is one (written to the folder directly,
 * or loaded into memory), and otherwise runs initdb and caches the result before anything is written.
 */
export async function openPglite(dataDir: string | undefined): Promise<PGlite> {
  if (dataDir && existsSync(join(dataDir, 'PG_VERSION'))) return createPglite(dataDir)
  const base = baseCluster()
  if (base && dataDir) {
    let tar: Buffer | undefined
    try {
      tar = readFileSync(base)
    } catch {
      // Unreadable: as if there were none.
    }
    // Only into a folder that is not there or is empty: anything else is left for PGlite to judge.
    if (tar && (!existsSync(dataDir) || readdirSync(dataDir).length === 0)) {
      rmSync(dataDir, { recursive: true, force: true })
      extractCluster(tar, dataDir)
      return createPglite(dataDir)
    }
  }
  const loaded = base ? readCluster(base) : undefined
  if (loaded) return createPglite(dataDir, { loadDataDir: loaded })
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
