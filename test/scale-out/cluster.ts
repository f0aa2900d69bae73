import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.ts'
import { freePort } from '../helpers/ports.ts'
import { deleteRedisKeys } from '../helpers/redis-keys.ts'

/**
 * The scale-out check's machinery: N Curio instances (whole processes, `npm start`) on one Postgres
 * database and one Redis, behind HAProxy as `deploy/haproxy.cfg` configures it (round robin, no
 * stickiness, health checks on /readyz). Everything is local: 127.0.0.1 only. Each instance reaches the
 * database through a fault proxy of its own (`databaseLink`). The Redis database is the
 * one TEST_REDIS_URL names, which other runs and other programs may share: the instances write under a
 * REDIS_KEY_PREFIX of this run's own, and only keys under it are deleted.
 */

const root = fileURLToPath(new URL('../../', import.meta.url))
const main = join(root, 'src/main.ts')

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

export interface Instance {
  name: string
  platform: string
  directory: string
  child: ChildProcess
  output(): string
}

export interface ScaleOut {
  /** The balancer's addresses: what a client uses. */
  platform: string
  directory: string
  instances: Instance[]
  /** Starts instance `name` again after it was killed (same ports, so the balancer takes it back). */
  restart(name: string): Promise<Instance>
  /** SIGKILL: the process is gone at once, mid-request and mid-job. */
  kill(name: string): Promise<void>
  /**
   * The instance whose process holds the client end of a TCP connection on 127.0.0.1 from port `port` to
   * port `serverPort` (as the server sees it: `req.socket.remotePort` and `req.socket.localPort`), found
   * through Linux's /proc.
   */
  ownerOf(port: number, serverPort: number): Instance | undefined
  /** A raw query on the shared database. */
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>
  /** Instance `name`'s link to the database: a fault proxy of its own, to cut while the others serve. */
  databaseLink(name: string): FaultProxy
  close(): Promise<void>
}

/** Installs HAProxy from Debian's packages when it is missing (the machine's package manager, as root). */
export function ensureHaproxy(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).trim()
  } catch {
    execFileSync('apt-get', ['install', '-y', '-q', 'haproxy'], { stdio: 'ignore', timeout: 300_000 })
    return execFileSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).trim()
  }
}

/** Waits until `check` holds; `gone` says why it never will (a process that exited), ending the wait. */
async function waitFor(
  check: () => Promise<boolean>,
  what: string,
  gone: () => string | undefined = () => undefined,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs
  while (!(await check().catch(() => false))) {
    const reason = gone()
    if (reason) throw new Error(`${what}: never, ${reason}`)
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const ready = (url: string) => async () => (await fetch(`${url}/readyz`)).status === 200

/**
 * The inodes of the TCP sockets from local port `port` to remote port `remotePort` (/proc/net/tcp: local and
 * remote `address:PORT` in hex, 2nd and 3rd; inode 10th). Both ports, because Linux gives connections to
 * different destinations the same local port: a process's connection to Postgres may share the port of
 * another's connection to the server asking.
 */
function socketInodes(port: number, remotePort: number): Set<string> {
  const hex = (value: number) => `:${value.toString(16).toUpperCase().padStart(4, '0')}`
  const [local, remote] = [hex(port), hex(remotePort)]
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = ''
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields[1]?.endsWith(local) && fields[2]?.endsWith(remote) && fields[9] && fields[9] !== '0') {
        inodes.add(fields[9])
      }
    }
  }
  return inodes
}

/** How `deploy/haproxy.cfg` writes a value to fill in: `${NAME}`. */
const placeholder = (name: string) => `$${'{'}${name}}`

/** `deploy/haproxy.cfg` with this run's addresses in its placeholders. */
function haproxyConfig(
  listen: { platform: number; directory: number },
  instances: { platform: number; directory: number }[],
) {
  const servers = (kind: 'platform' | 'directory') =>
    instances.map((ports, n) => `server curio${n + 1} 127.0.0.1:${ports[kind]} check`).join('\n    ')
  return readFileSync(join(root, 'deploy/haproxy.cfg'), 'utf8')
    .replaceAll(placeholder('CURIO_LB_HOST'), '127.0.0.1')
    .replaceAll(placeholder('CURIO_LB_PLATFORM_PORT'), String(listen.platform))
    .replaceAll(placeholder('CURIO_LB_DIRECTORY_PORT'), String(listen.directory))
    .replaceAll(placeholder('CURIO_PLATFORM_SERVERS'), servers('platform'))
    .replaceAll(placeholder('CURIO_DIRECTORY_SERVERS'), servers('directory'))
    .replace(/^\s*log stdout.*$/m, '')
}

/**
 * Starts the whole setup: a fresh database, a Redis key prefix of the run's own, `count` instances with
 * `env` (settings of the check's own: short polls, fakes' URLs), and HAProxy in front.
 */
export async function startScaleOut(count: number, env: Record<string, string> = {}): Promise<ScaleOut> {
  const haproxy = ensureHaproxy()
  const dbName = `curio_scale_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: POSTGRES_URL })
  await admin.connect()
  await admin.query(`create database "${dbName}"`)
  await admin.end()
  const databaseUrl = new URL(POSTGRES_URL)
  databaseUrl.pathname = `/${dbName}`
  const pool = new pg.Pool({ connectionString: databaseUrl.toString(), max: 3 })
  const redisKeyPrefix = `curio-scale-${randomBytes(5).toString('hex')}:`
  await deleteRedisKeys(REDIS_URL, redisKeyPrefix)

  const ports = await Promise.all(
    Array.from({ length: count }, async () => ({ platform: await freePort(), directory: await freePort() })),
  )
  // Each instance reaches the database through a proxy of its own, so one link can fail alone.
  const links = await Promise.all(
    Array.from({ length: count }, () => startFaultProxy(databaseUrl.toString())),
  )
  const settings = (n: number) => ({
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    HOST: '127.0.0.1',
    PLATFORM_PORT: String(ports[n]?.platform),
    DIRECTORY_PORT: String(ports[n]?.directory),
    DATABASE_URL: links[n]!.url,
    DATABASE_POOL_SIZE: '5',
    REDIS_URL: REDIS_URL,
    REDIS_KEY_PREFIX: redisKeyPrefix,
    // HAProxy is the only proxy: the client's address is the last X-Forwarded-For hop.
    TRUST_PROXY: '1',
    ADMIN_EMAIL: 'admin@scale-out.test',
    ADMIN_PASSWORD: 'scale-out-admin-password',
    APP_URL: 'http://localhost:3001',
    ...env,
  })

  const instances: Instance[] = []
  const start = async (n: number): Promise<Instance> => {
    const child = spawn(process.execPath, [main, 'start'], {
      cwd: mkdtempSync(join(tmpdir(), 'curio-scale-')),
      env: settings(n),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let text = ''
    child.stdout?.on('data', (chunk) => {
      text += chunk
    })
    child.stderr?.on('data', (chunk) => {
      text += chunk
    })
    const instance: Instance = {
      name: `curio${n + 1}`,
      platform: `http://127.0.0.1:${ports[n]?.platform}`,
      directory: `http://127.0.0.1:${ports[n]?.directory}`,
      child,
      output: () => text,
    }
    await waitFor(
      async () => (await ready(instance.platform)()) && (await ready(instance.directory)()),
      `${instance.name} is ready`,
      () => (child.exitCode === null ? undefined : `it exited (${child.exitCode}): ${text}`),
    )
    return instance
  }
  // One at a time at first: the first migrates while the others would wait on its lock anyway.
  instances.push(await start(0))
  instances.push(...(await Promise.all(Array.from({ length: count - 1 }, (_, n) => start(n + 1)))))

  const listen = { platform: await freePort(), directory: await freePort() }
  const dir = mkdtempSync(join(tmpdir(), 'curio-haproxy-'))
  const cfg = join(dir, 'haproxy.cfg')
  writeFileSync(cfg, haproxyConfig(listen, ports))
  const balancer = spawn(haproxy, ['-f', cfg, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let balancerOutput = ''
  balancer.stderr?.on('data', (chunk) => {
    balancerOutput += chunk
  })
  const platform = `http://127.0.0.1:${listen.platform}`
  const directory = `http://127.0.0.1:${listen.directory}`
  await waitFor(
    async () => (await ready(platform)()) && (await ready(directory)()),
    'HAProxy answers',
    () => (balancer.exitCode === null ? undefined : `it exited (${balancer.exitCode}): ${balancerOutput}`),
  )

  const exited = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()))

  return {
    platform,
    directory,
    instances,
    async restart(name) {
      const n = instances.findIndex((instance) => instance.name === name)
      const instance = await start(n)
      instances[n] = instance
      return instance
    },
    async kill(name) {
      const instance = instances.find((candidate) => candidate.name === name)
      if (!instance) throw new Error(`no instance ${name}`)
      instance.child.kill('SIGKILL')
      await exited(instance.child)
    },
    ownerOf(port, serverPort) {
      const inodes = socketInodes(port, serverPort)
      return instances.find((instance) => {
        const fds = `/proc/${instance.child.pid}/fd`
        try {
          return readdirSync(fds).some((fd) => {
            try {
              return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`${fds}/${fd}`))?.[1] ?? '')
            } catch {
              return false
            }
          })
        } catch {
          return false
        }
      })
    },
    async query(sql, params) {
      return (await pool.query(sql, params)).rows
    },
    databaseLink(name) {
      const n = instances.findIndex((instance) => instance.name === name)
      if (n === -1) throw new Error(`no instance ${name}`)
      return links[n]!
    },
    async close() {
      balancer.kill('SIGTERM')
      for (const instance of instances) instance.child.kill('SIGTERM')
      await Promise.all([exited(balancer), ...instances.map((instance) => exited(instance.child))])
      await pool.end()
      await Promise.all(links.map((link) => link.close()))
      rmSync(dir, { recursive: true, force: true })
      const dropper = new pg.Client({ connectionString: POSTGRES_URL })
      await dropper.connect()
      await dropper.query(`drop database if exists "${dbName}" with (force)`)
      await dropper.end()
      await deleteRedisKeys(REDIS_URL, redisKeyPrefix)
    },
  }
}
