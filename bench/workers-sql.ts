/**
 * The SQL of bench/workers.ts's bare server, taken from Curio itself: Curio's own services (API keys and
 * their usage, the reconciler, the activity list, the public item list) run once against the seeded
 * database through a `pg` pool whose `query` records what it is sent. Each parameter that equals one of
 * the inputs of the call becomes a slot the bare server fills per request; the rest are constants. So the
 * bare server sends the same text, under the same prepared-statement names, with the same parameters.
 *
 * Also settles the data before anything is measured: the reconciler's first pass for every measured user
 * closes the seed's stale in-progress rows (Curio and the bare server would otherwise each do it on their
 * first request), then VACUUM ANALYZE.
 */
import { isDeepStrictEqual } from 'node:util'
import { getTableColumns } from 'drizzle-orm'
import pg from 'pg'
import { loadConfig } from '../src/config.ts'
import { serviceDatabase } from '../src/db/index.ts'
import type { InvalidatedCache } from '../src/db/invalidated-cache.ts'
import { createPublicItems, type PublicRead } from '../src/directory/items/public.ts'
import { items } from '../src/directory/items/tables.ts'
import { createManualClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createReconciler } from '../src/platform/activity-log/reconcile.ts'
import { createActivityLogService } from '../src/platform/activity-log/service.ts'
import { activityLog } from '../src/platform/activity-log/tables.ts'
import { createApiKeyService } from '../src/platform/api-keys/service.ts'
import { createApiKeyUsage } from '../src/platform/api-keys/usage.ts'
import type { BareSql, CapturedStatement, ParamSpec } from './workers-data.ts'

interface Sent {
  name?: string
  text: string
  rowMode?: 'array'
  values: unknown[]
}

const canonical = (value: unknown) =>
  value instanceof Date ? `date:${value.toISOString()}` : `${typeof value}:${JSON.stringify(value)}`

/**
 * The statement as the bare server keeps it: each parameter equal to exactly one input is that input's
 * slot. Fails when an input in `required` is never used (it was transformed on the way, so matching by
 * value would silently freeze it) or when a parameter matches two inputs.
 */
function toCaptured(sent: Sent, inputs: Record<string, unknown>, required: string[]): CapturedStatement {
  const used = new Set<string>()
  const params: ParamSpec[] = sent.values.map((value) => {
    const matches = Object.entries(inputs).filter(([, input]) => canonical(input) === canonical(value))
    if (matches.length > 1) {
      throw new Error(`parameter ${canonical(value)} matches ${matches.map(([name]) => name).join(', ')}`)
    }
    if (matches.length === 1) {
      used.add(matches[0]![0])
      return { slot: matches[0]![0] }
    }
    if (value instanceof Date) throw new Error(`a date parameter matches no input: ${value.toISOString()}`)
    return { value }
  })
  const missing = required.filter((name) => !used.has(name))
  if (missing.length > 0) {
    throw new Error(`statement never takes ${missing.join(', ')} as sent:\n${sent.text}`)
  }
  return {
    ...(sent.name ? { name: sent.name } : {}),
    text: sent.text,
    ...(sent.rowMode ? { rowMode: sent.rowMode } : {}),
    params,
  }
}

export interface CaptureInput {
  /** A seeded user and one of its API keys, with the ids of every measured user. */
  userId: string
  apiKey: string
  measuredUserIds: string[]
  actionType: string
  /** `YYYY-MM-DD`, as the requests send it. */
  dateFrom: string
}

export async function captureBareSql(url: string, input: CaptureInput): Promise<BareSql> {
  const log = createLogger('warn')
  const config = loadConfig({ DATA_DIR: 'memory', LOG_LEVEL: 'warn' })
  const pool = new pg.Pool({ connectionString: url, max: 4 })
  pool.on('error', () => {})
  let recording: Sent[] | undefined
  const target = pool as unknown as { query: (...args: unknown[]) => unknown }
  const original = target.query.bind(pool)
  target.query = (...args: unknown[]) => {
    const [first, second] = args
    if (recording) {
      const config = typeof first === 'string' ? { text: first } : (first as Partial<Sent> & { text: string })
      const values = Array.isArray(second) ? second : ((first as { values?: unknown[] }).values ?? [])
      recording.push({
        ...(config.name ? { name: config.name } : {}),
        text: config.text,
        ...(config.rowMode === 'array' ? { rowMode: 'array' as const } : {}),
        values,
      })
    }
    return original(...args)
  }
  const record = async (run: () => Promise<unknown>): Promise<Sent[]> => {
    const sent: Sent[] = []
    recording = sent
    try {
      await run()
    } finally {
      recording = undefined
    }
    return sent
  }
  const only = (sent: Sent[], what: string): Sent => {
    if (sent.length !== 1) throw new Error(`${what}: ${sent.length} statements sent, expected 1`)
    return sent[0]!
  }

  try {
    const platform = serviceDatabase('platform', { kind: 'postgres', pool, url }).db
    const directory = serviceDatabase('directory', { kind: 'postgres', pool, url }).db
    const clock = createManualClock(Date.parse('2030-01-02T03:04:05.678Z'))

    // API key: the lookup of a key no cache holds (the cache is off until it listens), then the usage flush.
    const usage = createApiKeyUsage({ db: platform, log, flushIntervalMs: config.apiKeyUsageFlushMs })
    const apiKeys = createApiKeyService({ db: platform, clock, usage })
    const { createHash } = await import('node:crypto')
    const keyHash = createHash('sha256').update(input.apiKey).digest('hex')
    let authenticated: { id: string; userId: string } | null = null
    const lookupSent = only(
      await record(async () => {
        authenticated = await apiKeys.authenticate(input.apiKey)
      }),
      'API key lookup',
    )
    const keyId = (authenticated as { id: string; userId: string } | null)?.id
    if (!keyId) throw new Error('the seeded API key does not authenticate')
    const flushSent = only(await record(() => usage.flush()), 'API key usage flush')

    // The reconciler's pass for one user: two updates.
    const reconciler = createReconciler({ db: platform, clock, log, deployTimeoutMs: config.deployTimeoutMs })
    const reconcileSent = await record(() => reconciler.run(input.userId))
    if (reconcileSent.length !== 2)
      throw new Error(`reconcile: ${reconcileSent.length} statements, expected 2`)
    const now = clock.now()
    const cutoff = new Date(clock.nowMs() - config.deployTimeoutMs - 60_000)

    // The activity list, the bench's filters: one prepared statement carrying the total.
    const activity = createActivityLogService({ db: platform })
    const dateFromIso = new Date(`${input.dateFrom}T00:00:00Z`).toISOString()
    const listInputs = {
      userId: input.userId,
      actionType: input.actionType,
      status: 'completed',
      dateFrom: dateFromIso,
      limit: 25,
      offset: 0,
    }
    const pageSent = only(
      await record(() =>
        activity.list(input.userId, {
          actionType: input.actionType as never,
          status: 'completed',
          dateFrom: input.dateFrom,
          limit: 25,
          offset: 0,
        }),
      ),
      'activity page',
    )

    // The public list's page 3 of 20 (offset 40), read past the cache: rows and count, side by side.
    const passThrough = {
      get: (_key: string, load: () => Promise<PublicRead>) => load(),
    } as unknown as InvalidatedCache<PublicRead>
    const publicItems = createPublicItems({ db: directory, cache: passThrough })
    const itemsSent = await record(() => publicItems.list({ page: 3, limit: 20, sort: 'newest' }))
    const countSent = itemsSent.filter((sent) => /\bcount\(/i.test(sent.text))
    const rowsSent = itemsSent.filter((sent) => !/\bcount\(/i.test(sent.text))

    const sql: BareSql = {
      apiKeyLookup: toCaptured(lookupSent, { keyHash }, ['keyHash']),
      apiKeyUsageFlush: toCaptured(flushSent, { ids: [keyId], times: [now.toISOString()] }, ['ids', 'times']),
      reconcile: reconcileSent.map((sent, index) =>
        toCaptured(
          sent,
          { userId: input.userId, now, cutoff },
          index === 0 ? ['userId', 'now'] : ['userId', 'now', 'cutoff'],
        ),
      ),
      activityPage: toCaptured(pageSent, listInputs, Object.keys(listInputs)),
      activityColumns: [...Object.keys(getTableColumns(activityLog)), 'total'],
      itemsPage: toCaptured(only(rowsSent, 'items page'), { limit: 20, offset: 40 }, ['limit', 'offset']),
      itemsCount: toCaptured(only(countSent, 'items count'), {}, []),
      itemColumns: Object.keys(getTableColumns(items)).filter((key) => key !== 'search'),
      deployTimeoutMs: config.deployTimeoutMs,
      apiKeyUsageFlushMs: config.apiKeyUsageFlushMs,
    }
    if (!sql.activityPage.name) throw new Error('the activity page is expected to be a named statement')
    if (!isDeepStrictEqual(sql.activityPage.rowMode, 'array'))
      throw new Error('the activity page is expected in array mode')

    // Settling: the first pass of every measured user, with the real clock, then fresh statistics.
    const settle = createReconciler({
      db: platform,
      clock: { now: () => new Date(), nowMs: () => Date.now() },
      log,
      deployTimeoutMs: config.deployTimeoutMs,
    })
    for (const userId of input.measuredUserIds) await settle.run(userId)
    await pool.query('vacuum (analyze) platform.activity_log')
    await pool.query('vacuum (analyze) platform.api_keys')
    return sql
  } finally {
    await pool.end().catch(() => {})
  }
}
