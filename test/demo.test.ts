/**
 * `npm run demo` end to end, as a new user meets it: the script starts, its banner names each stand-in,
 * `GET /` says which providers are stand-ins, and through the API a new account enables the OpenAI plugin
 * (no key: the stand-in's is the server's fallback), makes a work, generates its items and deploys it to
 * READY, in real time; the READY deployment's address opens the stand-in's page. docs/demo.md's API
 * walkthrough runs as pasted against the same demo. NODE_ENV=production is refused, by the script and by
 * the configuration.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { ConfigError, loadConfig, standInsOf } from '../src/config.ts'
import { ROOT, type ShellBlock, shellBlocks } from './helpers/markdown.ts'

const DEMO = fileURLToPath(new URL('../scripts/demo.ts', import.meta.url))
const PASSWORD = 'a good password'

const folders: string[] = []
/** A new empty folder, removed after the file's tests. */
function folder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  folders.push(dir)
  return dir
}

interface Demo {
  child: ChildProcess
  output(): string
}

const running = new Set<ChildProcess>()
after(async () => {
  for (const child of running) await stop(child)
  for (const dir of folders) rmSync(dir, { recursive: true, force: true })
})

/** Runs the script in a folder of its own (no .env of the project's) with only `env` besides PATH. */
function runDemo(env: Record<string, string>, cwd = folder('curio-demo-cwd-')): Demo {
  const child = spawn(process.execPath, [DEMO], {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  child.once('exit', () => running.delete(child))
  let text = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk
  })
  return { child, output: () => text }
}

/** The exit code (or signal) once the process has ended, within `timeoutMs`. */
function exited(child: ChildProcess, timeoutMs: number): Promise<number | string | null> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve(child.exitCode ?? child.signalCode)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no exit within ${timeoutMs} ms`)), timeoutMs)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      resolve(code ?? signal)
    })
  })
}

/** The pids of `parent`'s child processes, from /proc (Linux). */
function childrenOf(parent: number): number[] {
  try {
    const children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim()
    return children ? children.split(/\s+/).map(Number) : []
  } catch {
    return []
  }
}

/** SIGTERM, as a terminal's Ctrl+C or a process manager stops it; SIGKILL for it and its server if it hangs. */
async function stop(child: ChildProcess): Promise<number | string | null> {
  const server = child.pid === undefined ? [] : childrenOf(child.pid)
  child.kill('SIGTERM')
  try {
    return await exited(child, 20_000)
  } catch (error) {
    child.kill('SIGKILL')
    for (const pid of server) process.kill(pid, 'SIGKILL')
    throw error
  }
}

/** Calls `check` until it answers something, for up to `timeoutMs`; fails naming `what`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const found = await check()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`)
}

/** The banner's address of `name` (`platform`, `openai`, …). */
const addressOf = (output: string, name: string) =>
  new RegExp(`^ {2}${name} +(http://\\S+)`, 'm').exec(output)?.[1]

/** The walkthrough of docs/demo.md that runs against the demo, as its marker says. */
function walkthrough(): ShellBlock {
  const guide = 'docs/demo.md'
  const found = shellBlocks(guide, readFileSync(join(ROOT, guide), 'utf8')).filter(
    (block) => block.marker?.kind === 'skip' && block.marker.reason.includes('runs it against npm run demo'),
  )
  assert.equal(found.length, 1, `${guide} has one walkthrough marked to run against the demo`)
  return found[0]!
}

/** Runs a shell block as pasted (bash, set -euo pipefail), its localhost:3000 being `platform`. */
async function runBlock(
  block: ShellBlock,
  platform: string,
): Promise<{ code: number | null; output: string }> {
  const text = block.text.replace(/\blocalhost:3000\b/g, `localhost:${new URL(platform).port}`)
  const bash = spawn('bash', ['-c', `set -euo pipefail\n${text}`], {
    cwd: folder('curio-demo-walkthrough-'),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(bash)
  let output = ''
  bash.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  bash.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  try {
    const code = await exited(bash, 60_000)
    return { code: typeof code === 'number' ? code : null, output }
  } finally {
    running.delete(bash)
  }
}

describe('npm run demo', () => {
  const dataDir = join(folder('curio-demo-data-'), 'data-demo')
  let demo: Demo
  let platform = ''
  const base = () => `http://127.0.0.1:${new URL(platform).port}`

  before(async () => {
    demo = runDemo({ DATA_DIR: dataDir, PLATFORM_PORT: '0', DIRECTORY_PORT: '0' })
    platform = await until(
      'the banner',
      async () => {
        if (demo.child.exitCode !== null) throw new Error(`the demo exited: ${demo.output()}`)
        return addressOf(demo.output(), 'platform')
      },
      60_000,
    )
  })

  it('names its stand-ins in its banner and in GET /, beside the directory’s demo content', async () => {
    const output = demo.output()
    assert.match(output, /OpenAI, GitHub and Vercel are local stand-ins on this machine/)
    assert.ok(output.includes(`  data       ${dataDir} (the demo’s own folder`), output)
    assert.match(output, /directory {2}Demo content added in \d+ ms: .*300 items/)
    assert.match(output, /console +http:\/\/localhost:\d+\/console/)
    const standIns = {
      openai: /^ {2}openai +(http:\/\/127\.0\.0\.1:\d+\/v1) +a local stand-in of OpenAI \(demo\)$/m,
      github: /^ {2}github +(http:\/\/127\.0\.0\.1:\d+) +a local stand-in of GitHub \(demo\)$/m,
      vercel: /^ {2}vercel +(http:\/\/127\.0\.0\.1:\d+) +a local stand-in of Vercel \(demo\)$/m,
    }
    for (const line of Object.values(standIns)) assert.match(output, line)
    const about = (await (await fetch(`${base()}/`)).json()) as { demo?: { standIns: object[] } }
    assert.deepEqual(about.demo?.standIns, [
      { provider: 'openai', name: 'OpenAI', url: standIns.openai.exec(output)?.[1] },
      { provider: 'github', name: 'GitHub', url: standIns.github.exec(output)?.[1] },
      { provider: 'vercel', name: 'Vercel', url: standIns.vercel.exec(output)?.[1] },
    ])
    const directory = new URL(addressOf(output, 'directory') ?? '')
    const items = await fetch(`http://127.0.0.1:${directory.port}/api/items`)
    assert.equal(items.status, 200, 'the directory serves its demo content')
  })

  describe('a new account', { concurrency: true }, () => {
    it('generates a work’s items and deploys it to READY through the API, in real time', async () => {
      const register = await fetch(`${base()}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ada@example.com', password: PASSWORD, name: 'Ada Lovelace' }),
      })
      assert.equal(register.status, 201)
      const { accessToken } = (await register.json()) as { accessToken: string }
      const api = async <T>(method: string, path: string, body?: object) => {
        const res = await fetch(`${base()}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${accessToken}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        })
        return { status: res.status, body: (await res.json()) as T }
      }

      const enabled = await api<{ configured: boolean }>('POST', '/api/plugins/openai/enable', {})
      assert.equal(enabled.status, 200)
      assert.equal(enabled.body.configured, true, 'the stand-in’s key is the server’s fallback')
      // Not the walkthrough's "Coffee Guide": both deploy as the stand-in's one GitHub account, at the same time.
      const work = await api<{ id: string }>('POST', '/api/works', { name: 'Lisbon Roasters' })
      assert.equal(work.status, 201)

      const generate = await api('POST', `/api/works/${work.body.id}/generate`, {
        prompt: 'Independent coffee roasters in Lisbon with an online shop',
      })
      assert.equal(generate.status, 202, JSON.stringify(generate.body))
      type Item = { name: string; description: string; url: string; category: string; tags: string[] }
      const generated = await until('the generated items', async () => {
        const { body } = await api<{ items: Item[] }>('GET', `/api/works/${work.body.id}/items`)
        return body.items.length > 0 ? body.items : undefined
      })
      assert.equal(generated.length, 8)
      assert.deepEqual(generated[0], {
        ...generated[0],
        name: 'Northwind Roasters',
        url: 'https://example.com/northwind-roasters',
        category: 'Popular',
        tags: ['independent-coffee-roasters', 'lisbon', 'popular'],
      })
      assert.match(generated[0]!.description, /“Independent coffee roasters in Lisbon with an online shop”/)

      const deploy = await api<{ repository: string }>('POST', `/api/deploy/works/${work.body.id}`, {})
      assert.equal(deploy.status, 200, JSON.stringify(deploy.body))
      assert.equal(deploy.body.repository, 'curio-demo/lisbon-roasters-website')
      type Lookup = { deployment: { state: string; url: string | null; error: string | null } | null }
      const seen = new Set<string>()
      const ready = await until('the deployment READY', async () => {
        const { body } = await api<Lookup>('POST', `/api/deploy/works/${work.body.id}/lookup`)
        if (body.deployment) seen.add(body.deployment.state)
        if (body.deployment?.state === 'ERROR') throw new Error(`deployment failed: ${body.deployment.error}`)
        return body.deployment?.state === 'READY' ? body.deployment : undefined
      })
      assert.ok(seen.has('QUEUED') || seen.has('BUILDING'), `it went through its states: ${[...seen]}`)
      assert.match(ready.url ?? '', /^http:\/\/127\.0\.0\.1:\d+\/lisbon-roasters-website$/)
      const site = await fetch(ready.url ?? '')
      assert.equal(site.status, 200)
      assert.match(await site.text(), /A deployment by the local stand-in of Vercel/)
    })

    it('does the same through docs/demo.md’s walkthrough, as pasted', async () => {
      const { code, output } = await runBlock(walkthrough(), platform)
      assert.equal(code, 0, output)
      assert.match(output, /^true$/m, 'the plugin is configured')
      assert.match(output, /^Northwind Roasters: https:\/\/example\.com\/northwind-roasters$/m)
      assert.match(output, /^Deploying "Coffee Guide" to Vercel/m)
      assert.match(output, /^READY$/m)
      assert.match(output, /^http:\/\/127\.0\.0\.1:\d+\/coffee-guide-website$/m)
    })
  })

  it('stops on SIGTERM with 0, its data kept in its own folder', async () => {
    assert.equal(await stop(demo.child), 0, demo.output())
    assert.ok(existsSync(dataDir))
  })

  it('refuses NODE_ENV=production, from the environment or from .env, before starting anything', async () => {
    const dataDir = join(folder('curio-demo-data-'), 'data-demo')
    const fromEnv = runDemo({ NODE_ENV: 'production', DATA_DIR: dataDir })
    assert.equal(await exited(fromEnv.child, 20_000), 1)
    assert.equal(
      fromEnv.output(),
      'npm run demo never runs with NODE_ENV=production: it points Curio at local stand-ins of OpenAI, ' +
        'GitHub and Vercel. Run it without NODE_ENV=production (in the environment and in .env).\n',
    )
    const cwd = folder('curio-demo-cwd-')
    writeFileSync(join(cwd, '.env'), 'NODE_ENV=production\n')
    const fromFile = runDemo({ DATA_DIR: dataDir }, cwd)
    assert.equal(await exited(fromFile.child, 20_000), 1)
    assert.match(fromFile.output(), /never runs with NODE_ENV=production/)
    assert.equal(existsSync(dataDir), false, 'no data folder was made')
  })

  it('DEMO_STAND_INS names known providers, and a production configuration refuses it', () => {
    const config = loadConfig({
      DEMO_STAND_INS: 'openai, vercel,openai',
      VERCEL_API_URL: 'http://127.0.0.1:9',
    })
    assert.deepEqual(standInsOf(config), [
      { provider: 'openai', name: 'OpenAI', url: 'https://api.openai.com/v1' },
      { provider: 'vercel', name: 'Vercel', url: 'http://127.0.0.1:9' },
    ])
    assert.deepEqual(loadConfig({}).demoStandIns, [])
    assert.throws(
      () => loadConfig({ DEMO_STAND_INS: 'openai,stripe' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message ===
          'Invalid configuration: DEMO_STAND_INS must name providers among openai, github, vercel (got "stripe")',
    )
    assert.throws(
      () =>
        loadConfig({
          NODE_ENV: 'production',
          JWT_SECRET: 'a-signing-secret-of-at-least-32-characters',
          DEMO_STAND_INS: 'openai',
        }),
      (error: unknown) => error instanceof ConfigError && error.setting === 'DEMO_STAND_INS',
    )
  })
})
