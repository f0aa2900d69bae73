import assert from 'node:assert/strict'
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { createEmptyDatabase, NEEDS_POSTGRES, TEST_DATABASE_URL } from './helpers/database.ts'
import { freePort } from './helpers/ports.ts'
import { databaseUrlWithName } from './helpers/template.ts'

const root = fileURLToPath(new URL('../', import.meta.url))
const main = join(root, 'src/main.ts')
/** The CLI's working folder: empty, so a developer's own `.env` in the repository never reaches a test. */
const workdir = mkdtempSync(join(tmpdir(), 'curio-cli-cwd-'))

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

function run(args: string[], env: Record<string, string>, cwd = workdir) {
  return spawn(process.execPath, [main, ...args], {
    cwd,
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

async function start(env: Record<string, string>, args: string[] = []): Promise<Started> {
  const child = run(['start', ...args], env)
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

const cleanups: (() => Promise<void>)[] = [async () => rmSync(workdir, { recursive: true, force: true })]
after(async () => {
  for (const cleanup of cleanups) await cleanup()
})

/** A run of the CLI to its end, with only the given environment (no settings of the test's own). */
async function runToEnd(
  args: string[],
  env: Record<string, string>,
  { cwd = workdir, timeoutMs = 60_000 } = {},
): Promise<{ code: number | string | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [main, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  try {
    return { code: await exited(child, timeoutMs), stdout, stderr }
  } finally {
    child.kill('SIGKILL')
  }
}

/** Something else listening on a port of 127.0.0.1. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as { port: number }).port, server }
}

const NEW_PASSWORD = 'a-new-admin-password'

/** The banner's "Lost it?" line, and its command with `password` filled in: environment and CLI arguments. */
function recoveryCommand(output: string, password: string) {
  const line = output.split('\n').find((text) => text.includes('Lost it?')) ?? ''
  const command = line.match(/(?:DATA_DIR=(\S+) )?npm run cli -- (admin create .*)$/)
  assert.ok(command, `the banner names an admin create command: ${output}`)
  const args = (command[2] as string).replace('<new password>', password).split(' ')
  return { line, env: command[1] ? { DATA_DIR: command[1] } : ({} as Record<string, string>), args }
}

async function signinStatus(directory: string, email: string, password: string): Promise<number> {
  const res = await fetch(`${directory}/api/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  return res.status
}

describe('the command line', () => {
  it('start brings both services up, prints the admin login once, and stops on SIGTERM with 0', async () => {
    const data = await storage()
    cleanups.push(data.cleanup)
    const first = await start(data.env)
    const recovery = recoveryCommand(first.output(), NEW_PASSWORD)
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

      // The banner's "Lost it?" line, followed as it says while the server runs.
      if (TEST_DATABASE_URL) {
        assert.equal(
          recovery.line,
          '  Lost it? npm run cli -- admin create --email admin@localhost --password <new password>',
        )
        const reset = await runToEnd(recovery.args, { ...data.env, ...recovery.env })
        assert.equal(reset.code, 0, reset.stderr)
        assert.match(reset.stdout, /admin@localhost is an active admin \(account updated\)/)
        assert.equal(
          await signinStatus(first.urls.directory, 'admin@localhost', NEW_PASSWORD),
          200,
          'the running server takes the new password',
        )
      } else {
        assert.equal(
          recovery.line,
          '  Lost it? Stop Curio (Ctrl+C) first, as the data folder is open in one process at a time, then: ' +
            `DATA_DIR=${data.env.DATA_DIR} npm run cli -- admin create --email admin@localhost --password <new password>`,
        )
        const early = await runToEnd(recovery.args, recovery.env)
        assert.equal(early.code, 1, 'what the banner warns of: the folder is open')
        assert.equal(
          early.stderr,
          `DATA_DIR ${data.env.DATA_DIR} is in use by another Curio process (pid ${first.child.pid}): an embedded ` +
            `data folder is open in one process at a time. Stop that process (Ctrl+C where it runs, or kill ` +
            `${first.child.pid}) and run this command again, or point DATA_DIR at another folder.\n`,
        )
      }
    } finally {
      first.child.kill('SIGTERM')
    }
    assert.equal(await exited(first.child, 15_000), 0, first.output())
    if (!TEST_DATABASE_URL) {
      const reset = await runToEnd(recovery.args, recovery.env)
      assert.equal(reset.code, 0, reset.stderr)
      assert.match(reset.stdout, /admin@localhost is an active admin \(account updated\)/)
    }

    // The second start finds the admin and prints no login; the new password is the admin's.
    const second = await start(data.env)
    try {
      assert.doesNotMatch(second.output(), /admin login/)
      assert.equal(await signinStatus(second.urls.directory, 'admin@localhost', NEW_PASSWORD), 200)
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

  it('admin create names what is wrong with its arguments, exits 2 and opens nothing', async () => {
    const data = join(workdir, 'never-created-by-admin-create')
    const cases: [string[], string][] = [
      [['--password', 'a-good-password'], 'admin create needs --email'],
      [
        ['--email', 'x', '--password', 'a-good-password'],
        'admin create: --email "x" is not an email address (like name@example.com)',
      ],
      [['--email', 'owner@example.com'], 'admin create needs --password (8 to 128 characters)'],
      [
        ['--email', 'owner@example.com', '--password', 'short'],
        'admin create: --password must be 8 to 128 characters long (it has 5)',
      ],
    ]
    for (const [args, said] of cases) {
      const { code, stdout, stderr } = await runToEnd(['admin', 'create', ...args], { DATA_DIR: data })
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`)
      assert.equal(stderr.split('\n')[0], said)
      assert.match(stderr, /Usage: npm run cli/)
      assert.equal(stdout, '')
    }
    assert.equal(existsSync(data), false)
  })

  it('seed --demo fills a living site once; a second run adds nothing; the site then serves it', async () => {
    const data = await storage()
    cleanups.push(data.cleanup)
    const first = await runToEnd(['seed', '--demo'], data.env)
    assert.equal(first.code, 0, first.stderr)
    assert.match(
      first.stdout,
      /Demo content added in \d+ ms: 12 categories, 40 tags, 30 companies, 300 items, 5 collections, 8 featured, 5 members/,
    )
    const second = await runToEnd(['seed', '--demo'], data.env)
    assert.equal(second.code, 0, second.stderr)
    assert.match(second.stdout, /already there; nothing added/)
    const wrong = await runToEnd(['seed'], data.env)
    assert.equal(wrong.code, 2)
    assert.match(wrong.stderr, /seed needs --demo/)

    const started = await start(data.env)
    try {
      const list = (await (await fetch(`${started.urls.directory}/api/items?limit=5`)).json()) as {
        data: { slug: string; category: unknown; description: string }[]
        meta: { total: number }
      }
      assert.equal(list.data.length, 5)
      assert.ok(list.meta.total > 200 && list.meta.total < 300, `mostly published: ${list.meta.total}`)
      const first = list.data[0]!
      assert.ok(first.category && first.description, 'items carry their category and description')
      const page = await fetch(`${started.urls.directory}/api/items/${first.slug}`)
      assert.equal(page.status, 200)
      const shelf = (await (await fetch(`${started.urls.directory}/api/featured-items`)).json()) as {
        count: number
      }
      assert.equal(shelf.count, 6, 'the shelf shows its default 6 of the 8 featured')
      const exists = await (await fetch(`${started.urls.directory}/api/collections/exists`)).json()
      assert.deepEqual(exists, { exists: true, count: 5 })
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

  it('an unknown command prints the usage on stderr and exits 2', async () => {
    const { code, stdout, stderr } = await runToEnd(['launch'], {})
    assert.equal(code, 2)
    assert.match(stderr, /Unknown command "launch"/)
    assert.match(stderr, /Usage: npm run cli/)
    assert.equal(stdout, '')
  })

  it('no arguments, help, --help and -h print the commands and exit 0 without starting anything', async () => {
    for (const args of [[], ['help'], ['--help'], ['-h']]) {
      // A data folder that is never created shows nothing was opened.
      const data = join(workdir, 'never-created')
      const { code, stdout, stderr } = await runToEnd(args, { DATA_DIR: data }, { timeoutMs: 15_000 })
      assert.equal(code, 0, `${args.join(' ')}: ${stderr}`)
      assert.match(stdout, /Usage: npm run cli/)
      for (const command of ['start', 'migrate', 'admin create', 'config docs']) {
        assert.ok(stdout.includes(command), `${args.join(' ') || '(none)'} lists ${command}`)
      }
      assert.doesNotMatch(stdout, /Curio is running/)
      assert.equal(stderr, '')
      assert.equal(existsSync(data), false)
    }
  })

  it('a port in use stops start with one line naming the port and its setting, no stack, exit 1, before anything is opened', async () => {
    const data = await storage()
    cleanups.push(data.cleanup)
    for (const setting of ['PLATFORM_PORT', 'DIRECTORY_PORT']) {
      const { port, server } = await occupiedPort()
      try {
        const other = setting === 'PLATFORM_PORT' ? 'DIRECTORY_PORT' : 'PLATFORM_PORT'
        const { code, stdout, stderr } = await runToEnd(['start'], {
          ...data.env,
          [setting]: String(port),
          [other]: '0',
        })
        assert.equal(code, 1, stderr)
        const lines = stderr.split('\n').filter((line) => line !== '')
        assert.deepEqual(lines, [
          `Port ${port} is in use (${setting}): stop what uses it or choose another port`,
        ])
        assert.doesNotMatch(`${stdout}${stderr}`, /EADDRINUSE|\n\s+at /)
        assert.doesNotMatch(stdout, /Curio is running/)
      } finally {
        await new Promise((resolve) => server.close(resolve))
      }
    }
    // Refused before the database was opened: nothing was created or migrated.
    if (data.env.DATA_DIR) {
      assert.deepEqual(readdirSync(data.env.DATA_DIR), [], 'the data folder is as it was')
    } else {
      const client = new pg.Client({ connectionString: data.env.DATABASE_URL })
      await client.connect()
      try {
        const { rows } = await client.query(
          `select schema_name from information_schema.schemata where schema_name in ('platform', 'directory')`,
        )
        assert.deepEqual(rows, [], 'the database is as it was')
      } finally {
        await client.end()
      }
    }
  })

  it(
    'a DATABASE_URL naming a missing database stops with one line naming the command that creates it, which works',
    NEEDS_POSTGRES,
    async () => {
      const name = `curio_newcomer_${randomBytes(4).toString('hex')}`
      const url = databaseUrlWithName(TEST_DATABASE_URL as string, name)
      cleanups.push(async () => {
        const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
        await admin.connect()
        try {
          await admin.query(`drop database if exists "${name}"`)
        } finally {
          await admin.end()
        }
      })
      const server = new URL(url)
      let told = ''
      for (const command of [['migrate'], ['start']]) {
        const refused = await runToEnd(command, {
          DATABASE_URL: url,
          PLATFORM_PORT: '0',
          DIRECTORY_PORT: '0',
        })
        assert.equal(refused.code, 1, refused.stderr)
        const lines = refused.stderr.split('\n').filter((line) => line !== '')
        assert.equal(lines.length, 1, `${command}: one line, no stack: ${refused.stderr}`)
        assert.equal(
          lines[0],
          `Database "${name}" does not exist on ${server.hostname}:${server.port || 5432} (DATABASE_URL). ` +
            'Curio creates its tables but not the database: create it with ' +
            `\`createdb -h ${server.hostname} -p ${server.port || 5432} -U ${server.username || 'postgres'} ${name}\`` +
            ` (or in psql: \`create database "${name}";\`), then run this command again`,
        )
        assert.doesNotMatch(refused.stdout, /Curio is running/)
        told = lines[0] as string
      }
      // The command as the line gives it; its password, if the URL has one, as createdb reads it.
      const createdb = told.match(/create it with `([^`]+)`/)?.[1]
      assert.ok(createdb, told)
      execFileSync('sh', ['-c', createdb], {
        env: { ...process.env, PGPASSWORD: decodeURIComponent(server.password) },
        stdio: 'pipe',
      })
      const applied = await runToEnd(['migrate'], { DATABASE_URL: url })
      assert.equal(applied.code, 0, applied.stderr)
      assert.match(applied.stdout, /Migrations applied/)
    },
  )

  it('a Postgres server that cannot be reached stops start with one line naming the setting and the cause, never the password', async () => {
    const port = await freePort()
    const { code, stdout, stderr } = await runToEnd(['start'], {
      DIRECTORY_DATABASE_URL: `postgres://curio:a-secret-password@127.0.0.1:${port}/curio`,
      PLATFORM_PORT: '0',
      DIRECTORY_PORT: '0',
    })
    assert.equal(code, 1, stderr)
    assert.deepEqual(
      stderr.split('\n').filter((line) => line !== ''),
      [
        `Postgres at 127.0.0.1:${port} (DIRECTORY_DATABASE_URL) could not be reached: connection refused ` +
          `(connect ECONNREFUSED 127.0.0.1:${port}). Is the server running, and is the address right?`,
      ],
    )
    assert.doesNotMatch(`${stdout}${stderr}`, /a-secret-password|\n\s+at /)
  })

  it('a .env file in the working folder is read, and a variable already set wins over it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'curio-cli-env-'))
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }))
    const data = join(folder, 'data-from-env-file')
    writeFileSync(
      join(folder, '.env'),
      `# settings of this folder\nDATA_DIR=${data}\nSHUTDOWN_TIMEOUT_MS=soon\n`,
    )
    // The file's wrong value is read: the one-line error names the setting and the value from the file.
    const refused = await runToEnd(['migrate'], {}, { cwd: folder })
    assert.equal(refused.code, 1, refused.stderr)
    assert.match(refused.stderr, /^Invalid configuration: SHUTDOWN_TIMEOUT_MS .*"soon"/)

    // Set in the environment, the variable wins; the file's DATA_DIR is used.
    const applied = await runToEnd(['migrate'], { SHUTDOWN_TIMEOUT_MS: '5000' }, { cwd: folder })
    assert.equal(applied.code, 0, applied.stderr)
    assert.match(applied.stdout, /Migrations applied/)
    assert.ok(existsSync(data), 'the data folder named in .env was created')
  })

  it('start prints localhost URLs, which answer GET /, and a session write works from localhost, 127.0.0.1 and [::1]', async () => {
    const data = await storage()
    cleanups.push(data.cleanup)
    const [platformPort, directoryPort] = [await freePort(), await freePort()]
    const started = await start({
      ...data.env,
      PLATFORM_PORT: String(platformPort),
      DIRECTORY_PORT: String(directoryPort),
      ADMIN_EMAIL: 'first@example.com',
      ADMIN_PASSWORD: 'first-run-password',
    })
    try {
      assert.equal(started.urls.platform, `http://localhost:${platformPort}`)
      assert.equal(started.urls.directory, `http://localhost:${directoryPort}`)
      assert.match(started.output(), new RegExp(`API reference: http://localhost:${directoryPort}/docs`))
      assert.match(
        started.output(),
        new RegExp(`admin +http://localhost:${directoryPort}/admin +the directory's admin console`),
      )
      assert.match(
        started.output(),
        new RegExp(`console +http://localhost:${platformPort}/console +the platform console`),
      )
      for (const [service, url] of Object.entries(started.urls)) {
        const about = (await (await fetch(`http://127.0.0.1:${new URL(url).port}/`)).json()) as {
          service: string
          links: { docs: string }
        }
        assert.equal(about.service, service)
        assert.equal(about.links.docs, '/docs')
      }
      // What "Try it out" on /docs sends: the page's own origin, whichever loopback name the browser used.
      const base = `http://127.0.0.1:${directoryPort}`
      // The admin console the banner names is there: npm install built it.
      const consolePage = await fetch(`http://localhost:${directoryPort}/admin`)
      assert.equal(consolePage.status, 200)
      assert.match(await consolePage.text(), /<div id="app"><\/div>/)
      const platformConsole = await fetch(`http://localhost:${platformPort}/console/works`)
      assert.equal(platformConsole.status, 200)
      assert.match(await platformConsole.text(), /<div id="app"><\/div>/)
      for (const host of ['localhost', '127.0.0.1', '[::1]']) {
        const signin = await fetch(`${base}/api/auth/signin`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'first@example.com', password: 'first-run-password' }),
        })
        assert.equal(signin.status, 200)
        const cookie = signin.headers.getSetCookie()[0]!.split(';')[0]!
        const signout = await fetch(`${base}/api/auth/signout`, {
          method: 'POST',
          headers: { cookie, origin: `http://${host}:${directoryPort}` },
        })
        assert.equal(signout.status, 200, `${host}: ${await signout.text()}`)
      }
      const elsewhere = await fetch(`${base}/api/auth/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'first@example.com', password: 'first-run-password' }),
      })
      const cookie = elsewhere.headers.getSetCookie()[0]!.split(';')[0]!
      const refused = await fetch(`${base}/api/auth/signout`, {
        method: 'POST',
        headers: { cookie, origin: `http://localhost:${platformPort}` },
      })
      assert.equal(refused.status, 403)
    } finally {
      started.child.kill('SIGTERM')
    }
    assert.equal(await exited(started.child, 15_000), 0, started.output())
  })
})

const project = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string }
}
/** package.json's `engines.node` (`>=22.18`) as [major, minor]. */
const NODE_MINIMUM = (/^>=\s*(\d+)(?:\.(\d+))?/.exec(project.engines.node) ?? []).slice(1, 3).map(Number) as [
  number,
  number,
]

/** The machine's folders of programs: PATH without the project's node_modules/.bin (what a shell has). */
const machinePath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir && !dir.includes('node_modules'))
  .concat(['/usr/local/bin', '/usr/bin', '/bin'])

/** Where `name` is on the machine's PATH, if anywhere. */
const onMachine = (name: string) =>
  machinePath.map((dir) => join(dir, name)).filter((path) => existsSync(path))

/** A `node` of the machine older than the project needs (as `which -a node` lists them), if there is one. */
function oldNode(): { path: string; version: string } | undefined {
  for (const path of onMachine('node')) {
    const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '')
    const [major = 0, minor = 0] = version.split('.').map(Number)
    if (major < NODE_MINIMUM[0] || (major === NODE_MINIMUM[0] && minor < NODE_MINIMUM[1])) {
      return { path, version }
    }
  }
  return undefined
}

describe('the Node that runs the CLI', () => {
  const old = oldNode()
  const npm = onMachine('npm')[0]

  it('a Node too old to run Curio says in one line which Node to use, and exits 1', {
    skip: old ? false : `no node older than ${project.engines.node} on this machine's PATH`,
  }, async () => {
    const { path, version } = old as { path: string; version: string }
    const child = spawn(path, [join(root, 'src/cli.mjs'), 'help'], {
      cwd: workdir,
      env: { PATH: machinePath.join(delimiter) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const output = { stdout: '', stderr: '' }
    child.stdout.on('data', (chunk) => {
      output.stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      output.stderr += chunk
    })
    assert.equal(await exited(child, 15_000), 1, output.stderr)
    assert.equal(
      output.stderr,
      `Curio needs Node ${NODE_MINIMUM.join('.')} or newer (this is ${version}): run it through npm ` +
        "(npm start, npm run cli -- <command>), which uses the project's Node 24\n",
    )
    assert.equal(output.stdout, '')
  })

  it('npm run cli works whatever node the machine has: npm runs it on the project’s Node', {
    skip: npm ? false : 'npm is not on this machine’s PATH',
  }, async () => {
    const child = spawn(npm as string, ['run', '-s', 'cli', '--', 'help'], {
      cwd: root,
      env: { PATH: machinePath.join(delimiter), HOME: process.env.HOME ?? workdir },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const output = collect(child)
    assert.equal(await exited(child, 30_000), 0, output())
    assert.match(output(), /^Usage: npm run cli -- <command>/)
  })
})

describe('start through src/cli.mjs (npm start)', () => {
  it('runs the server with its memory settings, in the same process, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [join(root, 'src/cli.mjs'), 'start'], {
      cwd: workdir,
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: 'memory',
        LOG_LEVEL: 'warn',
        PLATFORM_PORT: '0',
        DIRECTORY_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const output = collect(child)
    try {
      const deadline = Date.now() + 60_000
      while (!/directory\s+http:\/\/\S+/.test(output()) && Date.now() < deadline) {
        assert.equal(child.exitCode, null, output())
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const directory = output().match(/directory\s+(http:\/\/\S+)/)?.[1]
      assert.ok(directory, output())
      assert.equal((await fetch(`${directory}/readyz`)).status, 200)
      // The process that answers is the one started, now running with the settings Node reads at start.
      const pid = child.pid as number
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      assert.ok(argv.includes('--max-semi-space-size=8'), argv.join(' '))
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
      for (const setting of [
        'MALLOC_ARENA_MAX=2',
        'MALLOC_MMAP_THRESHOLD_=131072',
        'MALLOC_TRIM_THRESHOLD_=131072',
      ]) {
        assert.ok(environ.includes(setting), setting)
      }
      child.kill('SIGTERM')
      assert.equal(await exited(child, 30_000), 0, output())
    } finally {
      child.kill('SIGKILL')
    }
  })
})

/** The pids of `parent`'s child processes, from /proc (Linux). */
function childrenOf(parent: number): number[] {
  const children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim()
  return children ? children.split(/\s+/).map(Number) : []
}

describe('start --workers', () => {
  it('refuses more than one worker on the embedded database: one line naming WORKERS, exit 1', async () => {
    const { code, stderr } = await runToEnd(['start', '--workers', '2'], { DATA_DIR: 'memory' })
    assert.equal(code, 1)
    assert.match(stderr, /^Invalid configuration: WORKERS is 2, but the embedded database .* DATABASE_URL/)
    assert.equal(stderr.trim().split('\n').length, 1, stderr)
    const bad = await runToEnd(['start'], { DATA_DIR: 'memory', WORKERS: 'many' })
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /WORKERS must be a whole number from 1 to 256, or auto/)
  })

  // Several processes need a database server: this runs in the Postgres pass.
  if (TEST_DATABASE_URL)
    it('runs N workers on the shared ports, replaces one that dies, and stops them all on SIGTERM', async () => {
      const { env, cleanup } = await storage()
      cleanups.push(cleanup)
      const metricsPort = await freePort()
      // Each process of the cluster writes the modules it loaded when it exits.
      const recorded = mkdtempSync(join(tmpdir(), 'curio-modules-'))
      cleanups.push(async () => rmSync(recorded, { recursive: true, force: true }))
      const started = await start(
        {
          ...env,
          METRICS_PORT: String(metricsPort),
          NODE_OPTIONS: `--import=${join(root, 'test/fixtures/record-modules.ts')}`,
          CURIO_RECORD_MODULES_DIR: recorded,
        },
        ['--workers', '2'],
      )
      const pid = started.child.pid as number
      try {
        assert.match(started.output(), /Curio is running \(2 workers\)/)
        const logins = started.output().match(/password {2}\S+/g) ?? []
        assert.equal(logins.length, 1, 'the admin login is printed once, by the primary')
        const workers = childrenOf(pid)
        assert.equal(workers.length, 2, started.output())
        for (let n = 0; n < 6; n++) {
          assert.equal((await fetch(`${started.urls.platform}/healthz`)).status, 200)
          assert.equal((await fetch(`${started.urls.directory}/api/current-user`)).status, 200)
        }
        // METRICS_PORT is the primary's: one scrape sums both workers' figures.
        assert.match(started.output(), new RegExp(`metrics\\s+http://localhost:${metricsPort}/metrics`))
        const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
        assert.equal(scrape.status, 200)
        const healthz = (await scrape.text())
          .split('\n')
          .find(
            (line) =>
              line.startsWith('curio_http_request_duration_seconds_count{') &&
              line.includes('route="/healthz"'),
          )
        assert.equal(
          Number(healthz?.split(' ').at(-1)),
          6,
          `${healthz}: the six /healthz requests, whichever worker took them`,
        )
        const password = started.output().match(/password {2}(\S+)/)?.[1]
        const signin = await fetch(`${started.urls.directory}/api/auth/signin`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@localhost', password }),
        })
        assert.equal(signin.status, 200, 'the one login works, whichever worker answers')

        process.kill(workers[0] as number, 'SIGKILL')
        const deadline = Date.now() + 20_000
        let replaced: number[] = []
        while (Date.now() < deadline) {
          replaced = childrenOf(pid)
          if (replaced.length === 2 && !replaced.includes(workers[0] as number)) break
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        assert.equal(replaced.length, 2, 'the dead worker was replaced')
        assert.ok(!replaced.includes(workers[0] as number))
        const readyAgain = Date.now() + 20_000
        let answered = 0
        while (answered < 6 && Date.now() < readyAgain) {
          const res = await fetch(`${started.urls.platform}/healthz`).catch(() => undefined)
          if (res?.status === 200) answered++
        }
        assert.equal(answered, 6)
      } finally {
        started.child.kill('SIGTERM')
      }
      assert.equal(await exited(started.child, 30_000), 0, started.output())
      assert.ok(!existsSync(`/proc/${pid}`) || childrenOf(pid).length === 0, 'no worker is left running')

      // The primary only supervised: a worker of its own prepared the database and exited, the workers
      // ran the apps, and the primary loaded neither the apps nor the database code.
      const modulesOf = (file: string): string[] => JSON.parse(readFileSync(join(recorded, file), 'utf8'))
      const appCode = (urls: string[]) =>
        urls.filter((url) => /\/src\/(platform|directory)\/app\.ts$|\/node_modules\/fastify\//.test(url))
      const databaseCode = (urls: string[]) =>
        urls.filter((url) =>
          /\/src\/setup\.ts$|\/src\/db\/index\.ts$|\/node_modules\/(pg|@electric-sql\/pglite|pg-boss)\//.test(
            url,
          ),
        )
      const primary = modulesOf(`${pid}.json`)
      assert.deepEqual(appCode(primary), [], 'the primary loads no app code')
      assert.deepEqual(databaseCode(primary), [], 'the primary loads no database code')
      const others = readdirSync(recorded)
        .filter((file) => file !== `${pid}.json`)
        .map((file) => ({ file, modules: modulesOf(file) }))
      const preparers = others.filter(({ modules }) => appCode(modules).length === 0)
      assert.equal(preparers.length, 1, 'one worker prepared the database')
      assert.ok(
        preparers[0]?.modules.some((url) => url.endsWith('/src/setup.ts')),
        'it ran the migrations',
      )
      // The worker killed above wrote nothing; one stopped by SIGTERM did.
      const workerFiles = others.filter(({ modules }) => appCode(modules).length > 0).map(({ file }) => file)
      assert.ok(workerFiles.length >= 1, 'a worker recorded its modules')
      for (const file of workerFiles)
        assert.notDeepEqual(appCode(modulesOf(file)), [], `${file}: a worker runs the apps`)
    })
})
