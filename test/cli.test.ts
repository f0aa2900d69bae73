import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createEmptyDatabase, TEST_DATABASE_URL } from './helpers/database.ts'

const root = fileURLToPath(new URL('../', import.meta.url))
const main = join(root, 'src/main.ts')

interface Started {
  child: ChildProcess
  output: () => string
  urls: { platform: string; directory: string }
}

/** The data location of a CLI run: a fresh Postgres database in the Postgres pass, else an embedded folder. */
async function storage(): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  if (TEST_DATABASE_URL) {
    const database = await createEmptyDatabase()
    if (database.source.kind !== 'postgres') throw new Error('expected Postgres')
    // The CLI opens its own pool; the helper's stays idle until cleanup drops the database.
    return { env: { DATABASE_URL: database.source.url }, cleanup: () => database.close() }
  }
  const dir = mkdtempSync(join(tmpdir(), 'curio-cli-'))
  return { env: { DATA_DIR: dir }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) }
}

function run(args: string[], env: Record<string, string>) {
  return spawn(process.execPath, [main, ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', PLATFORM_PORT: '0', DIRECTORY_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

function collect(child: ChildProcess) {
  let text = ''
  child.stdout?.on('data', (chunk) => {
    text += chunk
  })
  child.stderr?.on('data', (chunk) => {
    text += chunk
  })
  return () => text
}

/** The exit code, or the signal's name when a signal ended the process (so a failure says which). */
function exited(child: ChildProcess, timeoutMs: number): Promise<number | string | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      return resolve(child.exitCode ?? child.signalCode)
    }
    const timer = setTimeout(
      () => reject(new Error(`process did not exit within ${timeoutMs} ms`)),
      timeoutMs,
    )
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      resolve(code ?? signal)
    })
  })
}

async function start(env: Record<string, string>): Promise<Started> {
  const child = run(['start'], env)
  const output = collect(child)
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const platform = output().match(/platform\s+(http:\/\/\S+)/)?.[1]
    const directory = output().match(/directory\s+(http:\/\/\S+)/)?.[1]
    if (platform && directory) return { child, output, urls: { platform, directory } }
    if (child.exitCode !== null) throw new Error(`start exited ${child.exitCode}: ${output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`start did not print its addresses: ${output()}`)
}

const cleanups: (() => Promise<void>)[] = []
after(async () => {
  for (const cleanup of cleanups) await cleanup()
})

describe('the command line', () => {
  it('start brings both services up, prints the admin login once, and stops on SIGTERM with 0', async () => {
    const data = await storage()
    cleanups.push(data.cleanup)
    const first = await start(data.env)
    try {
      for (const url of [first.urls.platform, first.urls.directory]) {
        const ready = await fetch(`${url}/readyz`)
        assert.equal(ready.status, 200)
        assert.equal(((await ready.json()) as { status: string }).status, 'ok')
        const docs = await fetch(`${url}/docs/`)
        assert.equal(docs.status, 200)
      }
      const email = first.output().match(/email\s+(\S+)/)?.[1]
      const password = first.output().match(/password\s+(\S+)/)?.[1]
      assert.equal(email, 'admin@localhost')
      assert.ok(password && password.length >= 12)
      const signin = await fetch(`${first.urls.directory}/api/auth/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      })
      assert.equal(signin.status, 200)
      const cookie = signin.headers.getSetCookie()[0]!.split(';')[0]!
      const me = await fetch(`${first.urls.directory}/api/current-user`, { headers: { cookie } })
      assert.equal(((await me.json()) as { isAdmin: boolean }).isAdmin, true)
    } finally {
      first.child.kill('SIGTERM')
    }
    assert.equal(await exited(first.child, 15_000), 0, first.output())

    // The second start finds the admin and prints no login.
    const second = await start(data.env)
    try {
      assert.doesNotMatch(second.output(), /admin login/)
    } finally {
      second.child.kill('SIGINT')
    }
    assert.equal(await exited(second.child, 15_000), 0, second.output())
  })

  it('admin create makes an admin who can sign in, and start then prints no generated login', async () => {
    const data = await storage()
    cleanups.push(data.cleanup)
    const create = run(
      ['admin', 'create', '--email', 'owner@example.com', '--password', 'owner-password'],
      data.env,
    )
    const createOutput = collect(create)
    assert.equal(await exited(create, 60_000), 0, createOutput())
    assert.match(createOutput(), /owner@example.com is an active admin/)

    const started = await start(data.env)
    try {
      assert.doesNotMatch(started.output(), /admin login/)
      const signin = await fetch(`${started.urls.directory}/api/auth/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'owner@example.com', password: 'owner-password' }),
      })
      assert.equal(signin.status, 200)
    } finally {
      started.child.kill('SIGTERM')
    }
    assert.equal(await exited(started.child, 15_000), 0, started.output())
  })

  it('ADMIN_EMAIL and ADMIN_PASSWORD make sure that admin exists at start', async () => {
    const data = await storage()
    cleanups.push(data.cleanup)
    const started = await start({
      ...data.env,
      ADMIN_EMAIL: 'ops@example.com',
      ADMIN_PASSWORD: 'ops-password-1',
    })
    try {
      assert.doesNotMatch(started.output(), /admin login/)
      const signin = await fetch(`${started.urls.directory}/api/auth/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ops@example.com', password: 'ops-password-1' }),
      })
      assert.equal(signin.status, 200)
    } finally {
      started.child.kill('SIGTERM')
    }
    assert.equal(await exited(started.child, 15_000), 0, started.output())
  })

  it('start of one service runs only that service', async () => {
    const data = await storage()
    cleanups.push(data.cleanup)
    const child = run(['start', 'platform'], data.env)
    const output = collect(child)
    try {
      const deadline = Date.now() + 60_000
      while (!/platform\s+http/.test(output()) && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const url = output().match(/platform\s+(http:\/\/\S+)/)?.[1]
      assert.ok(url, output())
      assert.equal((await fetch(`${url}/readyz`)).status, 200)
      assert.doesNotMatch(output(), /directory\s+http/)
    } finally {
      child.kill('SIGTERM')
    }
    assert.equal(await exited(child, 15_000), 0)
  })

  // Embedded only: the data folder's lock file is how the test sees that start-up is under way.
  if (!TEST_DATABASE_URL) {
    it('a SIGTERM during start-up lets the start finish, then stops with 0 and frees the data folder', async () => {
      const data = await storage()
      cleanups.push(data.cleanup)
      const child = run(['start'], data.env)
      const output = collect(child)
      const lock = join(data.env.DATA_DIR!, 'curio.lock')
      const deadline = Date.now() + 60_000
      while (!existsSync(lock) && child.exitCode === null && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      assert.ok(existsSync(lock), output())
      child.kill('SIGTERM')
      assert.equal(await exited(child, 30_000), 0, output())
      assert.doesNotMatch(output(), /Curio is running/)
      assert.equal(existsSync(lock), false)
    })
  }

  it('an unknown command prints the usage and exits 1', async () => {
    const child = run(['launch'], {})
    const output = collect(child)
    assert.equal(await exited(child, 15_000), 1)
    assert.match(output(), /Unknown command "launch"/)
    assert.match(output(), /Usage: npm run cli/)
  })
})
