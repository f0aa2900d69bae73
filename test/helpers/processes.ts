import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after } from 'node:test'
import { loadConfig } from '../../src/config.ts'
import { type Databases, openDatabases } from '../../src/db/index.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { migrateAll } from '../../src/setup.ts'
import { createTestDatabases, TEST_DATABASE_URL, type TestDatabases } from './database.ts'

const ANNOUNCEMENT_TIMEOUT_MS = 45_000
const log = createLogger('silent')

/** A database that outlives the processes using it: a data folder (PGlite on disk) or one on the server. */
export interface DurableDatabase {
  /** The settings that point a service process at it. */
  env: Record<string, string>
  /** Opens it as a restarted service does. */
  open(): Promise<Databases>
  /** Opens it for an in-process harness (`startPlatform({ databases })`), as a restarted instance. */
  openForHarness(): Promise<TestDatabases>
  drop(): Promise<void>
}

export async function durableDatabase(): Promise<DurableDatabase> {
  if (TEST_DATABASE_URL) {
    const test = await createTestDatabases()
    assert.ok(test.url)
    const env = { DATABASE_URL: test.url }
    const open = () => openDatabases(loadConfig(env), { log })
    return {
      env,
      open,
      openForHarness: async () => ({ ...(await open()), source: test.source, url: test.url }),
      drop: () => test.close(),
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'curio-crash-'))
  const env = { DATA_DIR: dir }
  const open = () => openDatabases(loadConfig(env), { log })
  const databases = await open()
  try {
    await migrateAll(databases, ['platform'], log)
  } finally {
    await databases.close()
  }
  return {
    env,
    open,
    async openForHarness() {
      const opened = await open()
      return { ...opened, source: opened.platform.source, url: undefined }
    },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** A service in a process of its own, speaking one line per announcement on stdout. */
export interface ServiceProcess {
  /** The next line it announces; fails with its stderr when it exits or stays silent instead. */
  announcement(what: string): Promise<string>
  /** Kills it with SIGKILL and waits until it is gone. */
  kill(): Promise<void>
  /** What it wrote to stderr so far, for failure messages. */
  stderr(): string
}

const running = new Set<ChildProcess>()
after(() => {
  for (const child of running) child.kill('SIGKILL')
})

/** Starts `script` with Node and `env` (besides PATH); killed at the end of the test file at the latest. */
export function startServiceProcess(script: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [script], {
    // A folder of its own: a developer's .env in the project never changes the test's settings.
    cwd: mkdtempSync(join(tmpdir(), 'curio-process-')),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  exit.then(
    () => running.delete(child),
    () => running.delete(child),
  )
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]()

  return {
    stderr: () => stderr,
    async announcement(what) {
      let timer: NodeJS.Timeout | undefined
      const silence = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(`The service announced no ${what} within ${ANNOUNCEMENT_TIMEOUT_MS} ms:\n${stderr}`),
            ),
          ANNOUNCEMENT_TIMEOUT_MS,
        )
      })
      try {
        const next = await Promise.race([lines.next(), silence])
        if (next.done) {
          const [code, signal] = await exit
          throw new Error(`The service exited (${signal ?? code}) before announcing ${what}:\n${stderr}`)
        }
        return next.value
      } finally {
        clearTimeout(timer)
      }
    },
    async kill() {
      assert.ok(child.kill('SIGKILL'), `the service was running when killed:\n${stderr}`)
      const [, signal] = await exit
      assert.equal(signal, 'SIGKILL', `the service died of the kill:\n${stderr}`)
    },
  }
}
