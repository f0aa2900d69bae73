import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export class DataDirInUseError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `DATA_DIR ${dir} is in use by another Curio process (pid ${pid}): an embedded data folder is open ` +
        `in one process at a time. Stop that process (Ctrl+C where it runs, or kill ${pid}) and run this ` +
        'command again, or point DATA_DIR at another folder.',
    )
    this.name = 'DataDirInUseError'
  }
}

export interface DirectoryLock {
  release(): void
}

const LOCK_FILE = 'curio.lock'

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * One process per embedded data folder: PGlite has no locking of its own and two writers would corrupt
 * it. A lock left by a process that died is taken over.
 */
export function acquireDirectoryLock(dir: string): DirectoryLock {
  const path = join(dir, LOCK_FILE)
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryLink(path)) return lockReleaser(path)
    let owner: number
    try {
      owner = Number.parseInt(readFileSync(path, 'utf8'), 10)
    } catch {
      continue // released meanwhile: try again
    }
    if (owner === process.pid || (Number.isInteger(owner) && isAlive(owner)))
      throw new DataDirInUseError(dir, owner)
    // Left by a process that died.
    try {
      unlinkSync(path)
    } catch {}
  }
  throw new Error(`Could not take the lock on ${path}`)
}

/** Creates the lock file holding our pid, atomically: written aside, then linked into place. */
function tryLink(path: string): boolean {
  const pending = `${path}.${process.pid}`
  writeFileSync(pending, String(process.pid))
  try {
    linkSync(pending, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return false
  } finally {
    unlinkSync(pending)
  }
}

function lockReleaser(path: string): DirectoryLock {
  let released = false
  const release = () => {
    if (released) return
    released = true
    process.off('exit', release)
    try {
      unlinkSync(path)
    } catch {}
  }
  process.on('exit', release)
  return { release }
}
