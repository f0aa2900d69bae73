import assert from 'node:assert/strict'

import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { loadConfig } from '../../src/config.ts'
import { openDatabases } from '../../src/db/index.ts'
import { acquireDirectoryLock, DataDirInUseError } from '../../src/db/lock.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { runNode } from '../helpers/run-node.ts'

const LOCK_FILE = 'curio.lock'
const lockModule = new URL('../../src/db/lock.ts', import.meta.url).href

const folders: string[] = []
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'curio-lock-'))
  folders.push(folder)
  return folder
}

interface ChildOutcome {
  acquired: boolean
  name?: string
  message?: string
}

/** Tries to take the folder's lock from a separate Node process and reports what happened. */
async function acquireInAnotherProcess(dir: string): Promise<ChildOutcome> {
  const script = `
    import { acquireDirectoryLock } from ${JSON.stringify(lockModule)}
    try {
      acquireDirectoryLock(process.env.CURIO_LOCK_DIR)
      process.stdout.write(JSON.stringify({ acquired: true }))
    } catch (error) {
      process.stdout.write(JSON.stringify({ acquired: false, name: error.name, message: error.message }))
    }
  `
  const { code, stdout, stderr } = await runNode(['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', CURIO_LOCK_DIR: dir },
  })
  assert.equal(code, 0, `child failed: ${stderr}`)
  return JSON.parse(stdout) as ChildOutcome
}

/** The pid of a process that has exited, so nothing answers to it. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.on('exit', resolve))
  assert.ok(child.pid)
  return child.pid
}

describe('data folder lock', () => {
  it('acquiring writes this process’s pid to the lock file, and release removes it', () => {
    const dir = tempFolder()
    const lock = acquireDirectoryLock(dir)
    assert.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), String(process.pid))
    lock.release()
    assert.equal(existsSync(join(dir, LOCK_FILE)), false)
  })

  it('release twice is harmless and the folder can be locked again', () => {
    const dir = tempFolder()
    const first = acquireDirectoryLock(dir)
    first.release()
    first.release()
    const second = acquireDirectoryLock(dir)
    assert.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), String(process.pid))
    second.release()
  })

  it('another process cannot take a held lock: DataDirInUseError names the folder and the holder’s pid', async () => {
    const dir = tempFolder()
    const lock = acquireDirectoryLock(dir)
    try {
      const outcome = await acquireInAnotherProcess(dir)
      assert.equal(outcome.acquired, false)
      assert.equal(outcome.name, 'DataDirInUseError')
      assert.ok(outcome.message?.includes(dir), outcome.message)
      assert.ok(outcome.message?.includes(`pid ${process.pid}`), outcome.message)
      assert.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), String(process.pid))
    } finally {
      lock.release()
    }
  })

  it('a lock left by a process that died is taken over', async () => {
    const dir = tempFolder()
    const pid = await deadPid()
    writeFileSync(join(dir, LOCK_FILE), String(pid))
    const lock = acquireDirectoryLock(dir)
    assert.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), String(process.pid))
    lock.release()
    assert.equal(existsSync(join(dir, LOCK_FILE)), false)
  })

  it('another process takes over a lock released by its holder', async () => {
    const dir = tempFolder()
    acquireDirectoryLock(dir).release()
    assert.deepEqual(await acquireInAnotherProcess(dir), { acquired: true })
    assert.equal(existsSync(join(dir, LOCK_FILE)), false, 'the other process releases its lock at exit')
  })

  it('the same process locking a held folder again is refused', () => {
    const dir = tempFolder()
    const lock = acquireDirectoryLock(dir)
    try {
      assert.throws(() => acquireDirectoryLock(dir), DataDirInUseError)
    } finally {
      lock.release()
    }
  })
})

describe('openDatabases on an embedded data folder', () => {
  it('a folder already open is refused until its first opener closes it, and opens with the laptop settings', async () => {
    const dir = tempFolder()
    const config = loadConfig({ DATA_DIR: dir })
    const first = await openDatabases(config, { log: createLogger('silent') })
    try {
      await assert.rejects(openDatabases(config, { log: createLogger('silent') }), (error: unknown) => {
        assert.ok(error instanceof DataDirInUseError)
        assert.ok(error.message.includes(dir), error.message)
        assert.ok(error.message.includes(`pid ${process.pid}`), error.message)
        return true
      })
      await first.platform.ping()
    } finally {
      await first.close()
    }
    assert.equal(existsSync(join(dir, LOCK_FILE)), false)

    const again = await openDatabases(config, { log: createLogger('silent') })
    try {
      await again.platform.ping()
      await again.directory.ping()
      // Sized for a laptop (src/db/pglite.ts), at every start of the folder.
      const shown = async (name: string) =>
        (
          (await again.platform.db.execute(sql.raw(`show ${name}`))) as unknown as {
            rows: Record<string, string>[]
          }
        ).rows[0]?.[name]
      assert.equal(await shown('shared_buffers'), '32MB')
      assert.equal(await shown('max_connections'), '10')
    } finally {
      await again.close()
    }
  })
})
