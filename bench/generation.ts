import { parseArgs } from 'node:util'
import pg from 'pg'
import { startOpenAiFake } from '../test/fakes/openai.ts'
import { type ConcurrentResult, measureConcurrent } from './generation-concurrent.ts'
import {
  type Backend,
  type BenchDatabase,
  collectGarbage,
  createJobLog,
  type Instance,
  openEmbedded,
  openPostgres,
  startInstance,
  startTimingProxy,
} from './generation-harness.ts'
import { type GenerationReport, printReport } from './generation-report.ts'
import { measureSequential, type SequentialResult } from './generation-runs.ts'
import { checkWholeNumbers, codeVersion, dropDatabaseOnSignal, machine, writeResults } from './lib.ts'

const ITEMS = 1000

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    runs: { type: 'string' },
    warmups: { type: 'string' },
    works: { type: 'string' },
    accounts: { type: 'string' },
    instances: { type: 'string' },
    timeout: { type: 'string' },
    poll: { type: 'string' },
    concurrency: { type: 'string' },
    'same-work': { type: 'boolean', default: false },
  },
  strict: true,
})
const settings = {
  runs: Number(values.runs ?? 10),
  warmups: Number(values.warmups ?? 2),
  concurrentWorks: Number(values.works ?? 20),
  accounts: Number(values.accounts ?? 4),
  instances: Number(values.instances ?? 2),
  timeoutSec: Number(values.timeout ?? 60),
  pollSec: Number(values.poll ?? 2),
  sameWork: values['same-work'],
  concurrency: values.concurrency === undefined ? undefined : Number(values.concurrency),
  items: ITEMS,
}
checkWholeNumbers([
  ['--runs', settings.runs, 1],
  ['--warmups', settings.warmups, 0],
  ['--works', settings.concurrentWorks, 1],
  ['--accounts', settings.accounts, 1],
  ['--instances', settings.instances, 1],
  ['--timeout', settings.timeoutSec, 1],
  ['--concurrency', settings.concurrency ?? 1, 1],
])
if (!(settings.pollSec >= 0.5)) throw new Error('--poll must be a number of seconds >= 0.5 (pg-boss minimum)')
if (values.db !== undefined && !['postgres', 'embedded', 'both'].includes(values.db)) {
  throw new Error('--db must be postgres, embedded or both')
}

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const shownUrl = (() => {
  const url = new URL(adminUrl)
  if (url.password) url.password = '***'
  return url.toString()
})()

async function postgresVersion(): Promise<string | null> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    return ((await client.query('show server_version')).rows[0] as { server_version: string }).server_version
  } catch {
    return null
  } finally {
    await client.end().catch(() => {})
  }
}

const setDropOnSignal = dropDatabaseOnSignal(adminUrl)

/** The work a chat request is about: its user message starts `Directory: <work name>`. */
function workNameOf(body: string): string | undefined {
  try {
    const messages = (JSON.parse(body) as { messages?: { role: string; content: unknown }[] }).messages
    const user = messages?.findLast((message) => message.role === 'user')
    if (typeof user?.content !== 'string') return undefined
    return /^Directory: (.*)$/m.exec(user.content)?.[1]
  } catch {
    return undefined
  }
}

const postgres = await postgresVersion()
const wanted = values.db ?? 'both'
if (wanted === 'postgres' && !postgres) {
  throw new Error(`--db postgres: no Postgres answers at ${shownUrl} (set BENCH_DATABASE_URL)`)
}
const backends: Backend[] = wanted === 'both' ? ['embedded', 'postgres'] : [wanted as Backend]

const machineBefore = machine()
const code = codeVersion()
const gcExposed = await collectGarbage()
const fake = await startOpenAiFake()
const proxy = await startTimingProxy(fake.url, workNameOf)
const jobLog = createJobLog()
const sequential: SequentialResult[] = []
let concurrent: ConcurrentResult | undefined
const skipped: string[] = []
let generationConcurrency: number | undefined

try {
  for (const backend of backends) {
    if (backend === 'postgres' && !postgres) {
      skipped.push(`postgres: skipped, no server answers at ${shownUrl} (set BENCH_DATABASE_URL)`)
      continue
    }
    let database: BenchDatabase | undefined
    const instances: Instance[] = []
    try {
      database =
        backend === 'embedded'
          ? await openEmbedded()
          : await openPostgres(adminUrl, (name) => {
              setDropOnSignal(name)
            })
      const options = {
        openaiApiUrl: proxy.url,
        maxItems: ITEMS,
        pollingIntervalSeconds: settings.pollSec,
        concurrency: settings.concurrency,
      }
      instances.push(await startInstance('A', database, jobLog, options))
      generationConcurrency = instances[0]!.generationConcurrency
      process.stdout.write(`\n${backend} (${database.label}): `)
      sequential.push(
        await measureSequential({ backend, instance: instances[0]!, fake, proxy, jobLog, settings }),
      )
      if (backend === 'postgres') {
        // Further instances start only now, so the one-at-a-time runs above had a single worker.
        for (let index = 1; index < settings.instances; index++) {
          instances.push(await startInstance(String.fromCharCode(65 + index), database, jobLog, options))
        }
        process.stdout.write(
          `\n${settings.concurrentWorks} works at once on ${instances.length} instance(s): `,
        )
        concurrent = await measureConcurrent({ instances, fake, proxy, jobLog, settings })
      }
    } finally {
      await Promise.allSettled(instances.map((instance) => instance.close()))
      await database?.close().catch((error: unknown) => {
        process.stdout.write(`\nnote: could not close ${backend}: ${(error as Error).message}\n`)
      })
      setDropOnSignal(undefined)
    }
  }
} finally {
  await proxy.close()
  await fake.close()
}
process.stdout.write('\n')

const report: GenerationReport = {
  benchmark: 'generation',
  at: new Date().toISOString(),
  machine: machineBefore,
  loadAverageAtEnd: machine().loadAverage,
  postgres: postgres ? { version: postgres, url: shownUrl } : null,
  gcExposed,
  code,
  generationConcurrency: generationConcurrency ?? null,
  settings,
  skipped,
  sequential,
  concurrent: concurrent ?? null,
}
printReport(report)
const path = writeResults('generation', report)
process.stdout.write(`\nwrote ${path}\n`)
