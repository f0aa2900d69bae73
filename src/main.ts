// First: module loading made faster for everything imported after it (see lib/module-hooks.ts).
import './lib/module-hooks.ts'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  type Config,
  ConfigError,
  configurationTable,
  DEFAULT_DATA_DIR,
  loadConfig,
  type StandIn,
  standInsOf,
} from './config.ts'
import type { ServiceName } from './db/index.ts'
import { DataDirInUseError } from './db/lock.ts'
import { installLastResort, LOG_FLUSH_MS } from './lib/last-resort.ts'
import { keepMemoryReducerWorking } from './lib/memory-reducer.ts'
import { shellWord } from './lib/values.ts'
import type { Runtime } from './runtime.ts'

const USAGE = `Usage: npm run cli -- <command>   (npm start = npm run cli -- start)

  start [platform|directory] [--workers N|auto]
                                        run both services, or one; N worker processes (Postgres only)
  migrate                               apply migrations and install job queues, then exit
  admin create --email E --password P   make E an active directory admin with password P
  seed --demo                           fill the directory with a demo site (idempotent)
  config docs                           print the configuration table (Markdown)
  help                                  print this help

Settings are environment variables; a .env file in the working folder is read first (variables
already set win). Every setting: docs/configuration.md (or: npm run cli -- config docs).`

/** A wrong command line: the usage on stderr, exit 2. */
class UsageError extends Error {}

/** The .env file could not be read. */
class EnvFileError extends Error {}

/** Errors whose message is the whole story: one line, no stack. */
const PLAIN_ERRORS: (new (...args: never[]) => Error)[] = [ConfigError, DataDirInUseError, EnvFileError]

/**
 * The services' code, loaded only by the commands that run something: help, `config docs` and a wrong
 * setting answer at once instead of after every module has loaded.
 */
async function loadServices() {
  const [runtime, db, bootstrap, logger, clock] = await Promise.all([
    import('./runtime.ts'),
    import('./db/index.ts'),
    import('./directory/admin/bootstrap.ts'),
    import('./lib/logger.ts'),
    import('./lib/clock.ts'),
  ])
  PLAIN_ERRORS.push(runtime.ListenError, db.DatabaseStartError)
  return { ...runtime, ...db, ...bootstrap, ...logger, ...clock }
}

/**
 * What the commands that prepare a database need (migrate, admin create, seed, and a cluster's primary,
 * which serves no request): the databases, the migrations and the admin bootstrap, without app code.
 */
async function loadDatabaseTools() {
  const [setup, db, bootstrap, logger, clock] = await Promise.all([
    import('./setup.ts'),
    import('./db/index.ts'),
    import('./directory/admin/bootstrap.ts'),
    import('./lib/logger.ts'),
    import('./lib/clock.ts'),
  ])
  PLAIN_ERRORS.push(db.DatabaseStartError)
  return { ...setup, ...db, ...bootstrap, ...logger, ...clock }
}

const ALL_SERVICES: readonly ServiceName[] = ['platform', 'directory']

/**
 * Reads `.env` from the working folder, if there is one, with Node's own loader: its variables fill the
 * environment, and a variable already set keeps its value.
 */
function loadEnvFile(path = '.env') {
  if (!existsSync(path)) return
  try {
    process.loadEnvFile(path)
  } catch (error) {
    throw new EnvFileError(`Could not read ${path}: ${(error as Error).message}`)
  }
}

function servicesFrom(arg: string | undefined): ServiceName[] {
  if (!arg) return [...ALL_SERVICES]
  if (arg === 'platform' || arg === 'directory') return [arg]
  throw new UsageError(`Unknown service "${arg}": use platform or directory`)
}

/**
 * How to set a new admin password, as it works now: on Postgres `admin create` runs beside the server; an
 * embedded data folder is open in one process at a time, so the server stops first; in memory nothing
 * outlives the process, and the next start prints a new login.
 */
function recoveryHint(embedded: string | undefined, email: string): string {
  const command = `npm run cli -- admin create --email ${email} --password <new password>`
  if (embedded === undefined) return command
  if (embedded === 'memory')
    return 'The data is in memory: the next start begins afresh and prints a new login'
  // The folder as the command must be told it, unless it is the default the command finds by itself.
  const folder = embedded === resolve(DEFAULT_DATA_DIR) ? '' : `DATA_DIR=${shellWord(embedded)} `
  return `Stop Curio (Ctrl+C) first, as the data folder is open in one process at a time, then: ${folder}${command}`
}

function printBanner(
  runtime: Pick<Runtime, 'embedded' | 'createdAdmin' | 'metricsUrl'> & {
    services: { service: string; url: string }[]
  },
  workers = 1,
  standIns: readonly StandIn[] = [],
) {
  const lines = ['', workers > 1 ? `Curio is running (${workers} workers)` : 'Curio is running']
  for (const { service, url } of runtime.services) {
    lines.push(`  ${service.padEnd(10)} ${url}    API reference: ${url}/docs`)
  }
  const platform = runtime.services.find(({ service }) => service === 'platform')
  if (platform)
    lines.push(`  console    ${platform.url}/console    the platform console: build, generate, deploy`)
  const directory = runtime.services.find(({ service }) => service === 'directory')
  if (directory) lines.push(`  admin      ${directory.url}/admin    the directory's admin console`)
  // The platform is what calls them: a directory alone has none to name.
  for (const { provider, name, url } of platform ? standIns : []) {
    lines.push(`  ${provider.padEnd(10)} ${url}    a local stand-in of ${name} (demo)`)
  }
  if (runtime.metricsUrl) lines.push(`  metrics    ${runtime.metricsUrl}`)
  if (runtime.embedded) {
    lines.push(
      `  data       ${runtime.embedded === 'memory' ? 'in memory, gone at exit' : runtime.embedded} (embedded Postgres)`,
    )
  }
  if (runtime.createdAdmin) {
    lines.push(
      '',
      '  Directory admin login, shown only this once:',
      `    email     ${runtime.createdAdmin.email}`,
      `    password  ${runtime.createdAdmin.password}`,
      `  Lost it? ${recoveryHint(runtime.embedded, runtime.createdAdmin.email)}`,
    )
  }
  process.stdout.write(`${lines.join('\n')}\n\n`)
}

async function start(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: { workers: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  })
  if (positionals.length > 1)
    throw new UsageError(`start takes one service at most (got ${positionals.join(' ')})`)
  // `--workers` is WORKERS for this start, and the workers inherit it with the rest of the environment.
  if (values.workers !== undefined) process.env.WORKERS = values.workers
  const config = loadConfig()
  const services = servicesFrom(positionals[0])
  if (config.workers > 1) {
    const { checkClusterable, isPreparingWorker, prepareInWorker, runPrimary } = await import('./cluster.ts')
    checkClusterable(config, services)
    const cluster = (await import('node:cluster')).default
    if (isPreparingWorker()) return prepareForWorkers(config, services)
    if (cluster.isPrimary) {
      const { createLogger, flushLogs } = await import('./lib/logger.ts')
      const log = createLogger(config.logLevel, undefined, config.logFormat).child({ role: 'primary' })
      installLastResort(log, flushLogs)
      return runPrimary({
        config,
        log,
        // Once, before any worker, in a worker of its own: the migrations and the first admin (whose
        // login is printed once). The primary so never loads the database code.
        prepare: prepareInWorker,
        announce: (running, createdAdmin, metricsUrl) =>
          printBanner(
            { services: running, embedded: undefined, createdAdmin, metricsUrl },
            config.workers,
            standInsOf(config),
          ),
      })
    }
  }
  return startProcess(config, services)
}

/**
 * In the cluster worker that prepares the databases: migrates, makes sure of the first admin, hands the
 * primary the login to print, and exits.
 */
async function prepareForWorkers(config: Config, services: readonly ServiceName[]) {
  const { createLogger, ensureAdmin, ensureLocalAdmin, flushLogs, migrateAll, openDatabases, systemClock } =
    await loadDatabaseTools()
  const { reportPrepared } = await import('./cluster.ts')
  const log = createLogger(config.logLevel, undefined, config.logFormat).child({ role: 'prepare' })
  installLastResort(log, flushLogs)
  const databases = await openDatabases(config, { log })
  let createdAdmin: { email: string; password: string } | null = null
  try {
    await migrateAll(databases, services, log)
    if (services.includes('directory')) {
      const deps = { db: databases.directory.db, clock: systemClock }
      if (config.adminEmail && config.adminPassword) {
        await ensureAdmin(deps, config.adminEmail, config.adminPassword)
      } else if (!config.isProduction) {
        createdAdmin = await ensureLocalAdmin(deps)
      }
    }
  } finally {
    await databases.close()
  }
  await reportPrepared(createdAdmin)
  await flushLogs(LOG_FLUSH_MS)
  process.exit(0)
}

/** Runs the services in this process: the only one, or one worker of several. */
async function startProcess(config: Config, services: readonly ServiceName[]) {
  const { createLogger, flushLogs, startServices, systemClock } = await loadServices()
  const worker = config.workers > 1
  const log = createLogger(config.logLevel, undefined, config.logFormat)

  installLastResort(log, flushLogs)
  // Signal handlers go in before anything is started or printed: whoever reads the banner may signal
  // at once, and a signal during start-up must still stop cleanly rather than kill the process.
  let runtime: Runtime | undefined
  let stopping = false
  const exit = (code: number) => {
    void flushLogs(LOG_FLUSH_MS).finally(() => process.exit(code))
  }
  const stop = (running: Runtime) =>
    running.stop().then(
      () => exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'error while shutting down')
        exit(0)
      },
    )
  const shutdown = (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal while shutting down; exiting now')
      exit(1)
      return
    }
    stopping = true
    log.info({ signal, deadlineMs: config.shutdownTimeoutMs }, 'shutting down')
    // The deadline holds whatever is still pending: requests, job attempts, a database that does not answer.
    setTimeout(() => {
      log.warn(
        { deadlineMs: config.shutdownTimeoutMs },
        'shutdown deadline passed; exiting with work pending',
      )
      exit(0)
    }, config.shutdownTimeoutMs)
    if (runtime) void stop(runtime) // otherwise start-up finishes, then stops.
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
  // A server's heap comes back after a burst only with this on Node 24 (lib/memory-reducer.ts).
  keepMemoryReducerWorking()

  runtime = await startServices(config, services, log, systemClock)
  if (stopping) {
    void stop(runtime)
    return
  }
  if (worker) {
    const { reportReady } = await import('./cluster.ts')
    reportReady(runtime.services.map(({ service, url }) => ({ service, url })))
  } else {
    printBanner(runtime, 1, standInsOf(config))
  }
}

async function migrate() {
  const config = loadConfig()
  const { createLogger, migrateAll, openDatabases, SERVICES } = await loadDatabaseTools()
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, undefined, config.logFormat)
  const databases = await openDatabases(config, { log })
  try {
    await migrateAll(databases, SERVICES, log)
    process.stdout.write('Migrations applied for platform and directory.\n')
  } finally {
    await databases.close()
  }
}

async function adminCreate(args: string[]) {
  const { values } = parseArgs({
    args,
    options: { email: { type: 'string' }, password: { type: 'string' } },
    strict: true,
  })
  if (!values.email) throw new UsageError('admin create needs --email')
  if (!/^[^\s@]+@[^\s@]+$/.test(values.email)) {
    throw new UsageError(
      `admin create: --email "${values.email}" is not an email address (like name@example.com)`,
    )
  }
  if (!values.password) throw new UsageError('admin create needs --password (8 to 128 characters)')
  if (values.password.length < 8 || values.password.length > 128) {
    throw new UsageError(
      `admin create: --password must be 8 to 128 characters long (it has ${values.password.length})`,
    )
  }
  const config = loadConfig()
  const { createLogger, ensureAdmin, migrateAll, openDatabases, systemClock } = await loadDatabaseTools()
  const log = createLogger('warn', undefined, config.logFormat)
  const databases = await openDatabases(config, { log })
  try {
    await migrateAll(databases, ['directory'], log)
    const { created } = await ensureAdmin(
      { db: databases.directory.db, clock: systemClock },
      values.email,
      values.password,
    )
    process.stdout.write(
      `${values.email} is an active admin (${created ? 'account created' : 'account updated'}).\n`,
    )
  } finally {
    await databases.close()
  }
}

async function seed(args: string[]) {
  const { values } = parseArgs({ args, options: { demo: { type: 'boolean' } }, strict: true })
  if (!values.demo) throw new UsageError('seed needs --demo (the only content it has)')
  const config = loadConfig()
  const { createLogger, migrateAll, openDatabases, systemClock } = await loadDatabaseTools()
  const { seedDemo } = await import('./directory/seed/demo.ts')
  const log = createLogger('warn', undefined, config.logFormat)
  const databases = await openDatabases(config, { log })
  try {
    await migrateAll(databases, ['directory'], log)
    const started = performance.now()
    const { added } = await seedDemo({ db: databases.directory.db, clock: systemClock })
    const took = Math.round(performance.now() - started)
    const total = Object.values(added).reduce((sum, count) => sum + count, 0)
    process.stdout.write(
      total === 0
        ? `The demo content is already there; nothing added (${took} ms).\n`
        : `Demo content added in ${took} ms: ${Object.entries(added)
            .map(([what, count]) => `${count} ${what}`)
            .join(
              ', ',
            )}.\nStart Curio (npm start) and open http://localhost:${config.directoryPort}/api/items or /api/featured-items.\n`,
    )
  } finally {
    await databases.close()
  }
}

async function main(argv: string[]) {
  const [command = 'help', ...rest] = argv
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  loadEnvFile()
  switch (command) {
    case 'start':
      return start(rest)
    case 'migrate':
      return migrate()
    case 'admin':
      if (rest[0] !== 'create') throw new UsageError(`Unknown admin command "${rest[0] ?? ''}"`)
      return adminCreate(rest.slice(1))
    case 'seed':
      return seed(rest)
    case 'config':
      if (rest[0] !== 'docs') throw new UsageError(`Unknown config command "${rest[0] ?? ''}"`)
      process.stdout.write(`${configurationTable()}\n`)
      return
    default:
      throw new UsageError(`Unknown command "${command}"`)
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if ((error as { name?: unknown })?.name === 'PrepareFailedError') {
    // The worker that prepared the databases printed its own error, unless a signal ended it.
    if (!(error as { reported?: boolean }).reported) {
      process.stderr.write(`Curio could not start: ${(error as Error).message}\n`)
    }
  } else if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${USAGE}\n`)
    process.exit(2)
  } else if (PLAIN_ERRORS.some((type) => error instanceof type)) {
    process.stderr.write(`${(error as Error).message}\n`)
  } else {
    process.stderr.write(`Curio could not start: ${(error as Error)?.stack ?? String(error)}\n`)
  }
  process.exit(1)
})
