/**
 * The baseline of bench/workers.ts: a bare node:http server running Curio's SQL through `pg`, in as many
 * processes as Curio runs workers (node:cluster, as Curio does: a primary that forks N workers sharing the
 * ports; one process and no primary when N is 1).
 *
 *   BENCH_CHILD_DB_URL=postgres://… node bench/workers-bare-server.ts --processes N \
 *     --platform-port P --directory-port D --sql statements.json
 *
 * Each process has one `pg` pool of DATABASE_POOL_SIZE connections (10 by default, as Curio's shared
 * pool of both services) and does per request what Curio's design does, with the statements bench/
 * workers-sql.ts captured from Curio (same text, same prepared-statement names, same parameters):
 *   GET /api/activity-log (platform port)  the `x-api-key` header checked and hashed (SHA-256), the key
 *       looked up on a miss of a per-process cache of verified keys (kept 1 minute, as Curio's), its use
 *       noted in memory and written for every key in one statement every API_KEY_USAGE_FLUSH_MS; the
 *       reconciler's two updates for the user at most once per 5 s per process (shared while in flight);
 *       the page statement; rows to JSON.
 *   GET /api/items (directory port)        the page's bytes from a per-process cache (Curio's content cache
 *       is per process too, cleared by notifications nobody sends here); on a miss, the page and count
 *       statements side by side, rows to JSON, kept.
 * Only the query forms the bench sends are read; anything else is a 400. Once every process listens, the
 * primary prints one JSON line on stdout: {"port", "directoryPort", "processes", "pid"}.
 */
import cluster from 'node:cluster'
import { createHash, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { parseArgs } from 'node:util'
import pg from 'pg'
import type { BareReady, BareSql, CapturedStatement } from './workers-data.ts'

const { values } = parseArgs({
  options: {
    processes: { type: 'string' },
    'platform-port': { type: 'string' },
    'directory-port': { type: 'string' },
    sql: { type: 'string' },
  },
  strict: true,
})
const processes = Number(values.processes ?? 1)
const platformPort = Number(values['platform-port'])
const directoryPort = Number(values['directory-port'])
if (!Number.isInteger(processes) || processes < 1) throw new Error('--processes must be a whole number >= 1')
if (!Number.isInteger(platformPort) || !Number.isInteger(directoryPort) || !values.sql) {
  throw new Error('--platform-port, --directory-port and --sql are required')
}

const ready = (): BareReady => ({ port: platformPort, directoryPort, processes, pid: process.pid })

if (processes > 1 && cluster.isPrimary) {
  let listening = 0
  let stopping = false
  let failed = false
  for (let n = 0; n < processes; n++) {
    const worker = cluster.fork()
    worker.on('message', (message: unknown) => {
      if (message === 'bare:listening' && ++listening === processes) {
        process.stdout.write(`${JSON.stringify(ready())}\n`)
      }
    })
  }
  cluster.on('exit', (worker, code, signal) => {
    if (!stopping) {
      process.stderr.write(`bare worker ${worker.process.pid} died (${code ?? signal}); stopping\n`)
      stopping = true
      failed = true
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM')
    }
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0)
  })
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      stopping = true
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0)
    })
  }
} else {
  await serve()
}

async function serve() {
  const url = process.env.BENCH_CHILD_DB_URL
  if (!url) throw new Error('BENCH_CHILD_DB_URL is not set')
  const sql = JSON.parse(readFileSync(values.sql!, 'utf8')) as BareSql
  const poolSize = Number(process.env.DATABASE_POOL_SIZE ?? 10)
  const pool = new pg.Pool({ connectionString: url, max: poolSize, application_name: 'curio-bare' })
  pool.on('error', () => {})

  /** Runs a captured statement with this request's values in its slots; answers the rows. */
  async function run(statement: CapturedStatement, slots: Record<string, unknown>): Promise<unknown[]> {
    const params = statement.params.map((param) => ('slot' in param ? slots[param.slot] : param.value))
    const result = await pool.query({
      ...(statement.name ? { name: statement.name } : {}),
      text: statement.text,
      ...(statement.rowMode ? { rowMode: statement.rowMode } : {}),
      values: params,
    })
    return result.rows as unknown[]
  }

  const send = (res: ServerResponse, status: number, body: Buffer | string) => {
    res.statusCode = status
    res.setHeader('content-type', 'application/json; charset=utf-8')
    res.end(body)
  }
  const error = (res: ServerResponse, status: number, message: string) =>
    send(res, status, JSON.stringify({ error: message }))

  // --- API keys: verified keys by hash, kept a minute (as api-keys/service.ts); uses written in batches.
  const KEY_FORMAT = /^svc_live_[0-9a-f]{64}$/
  const KEY_TTL_MS = 60_000
  const verified = new Map<string, { id: string; userId: string; expiresAt: Date | null; at: number }>()
  const verifying = new Map<string, Promise<{ id: string; userId: string; expiresAt: Date | null } | null>>()
  const used = new Map<string, Date>()
  let flushing = false
  setInterval(() => {
    if (used.size === 0 || flushing) return
    const batch = [...used]
    flushing = true
    run(sql.apiKeyUsageFlush, {
      ids: batch.map(([id]) => id),
      times: batch.map(([, at]) => at.toISOString()),
    })
      .then(() => {
        for (const [id, at] of batch) if (used.get(id) === at) used.delete(id)
      })
      .catch(() => {})
      .finally(() => {
        flushing = false
      })
  }, sql.apiKeyUsageFlushMs).unref()

  async function authenticate(presented: string | string[] | undefined) {
    if (typeof presented !== 'string' || !KEY_FORMAT.test(presented)) return null
    const hash = createHash('sha256').update(presented).digest('hex')
    const now = Date.now()
    let key: { id: string; userId: string; expiresAt: Date | null } | null | undefined
    const cached = verified.get(hash)
    if (cached && now - cached.at < KEY_TTL_MS) key = cached
    if (key === undefined) {
      let pending = verifying.get(hash)
      if (!pending) {
        pending = run(sql.apiKeyLookup, { keyHash: hash }).then((rows) => {
          const row = rows[0] as [string, string, string, Date | null] | undefined
          if (
            !row ||
            row[2].length !== hash.length ||
            !timingSafeEqual(Buffer.from(row[2]), Buffer.from(hash))
          ) {
            return null
          }
          const found = { id: row[0], userId: row[1], expiresAt: row[3] }
          verified.set(hash, { ...found, at: now })
          return found
        })
        verifying.set(hash, pending)
        pending.finally(() => verifying.delete(hash)).catch(() => {})
      }
      key = await pending
    }
    if (!key || (key.expiresAt && key.expiresAt.getTime() <= Date.now())) return null
    const at = new Date()
    const known = used.get(key.id)
    if (!known || known.getTime() < at.getTime()) used.set(key.id, at)
    return key
  }

  // --- The reconciler: per user, a pass in flight is shared and one finished within 5 s is reused.
  const REUSE_MS = 5000
  const inFlight = new Map<string, Promise<void>>()
  const finishedAt = new Map<string, number>()
  function reconcile(userId: string): Promise<void> {
    const running = inFlight.get(userId)
    if (running) return running
    const last = finishedAt.get(userId)
    if (last !== undefined && Date.now() - last < REUSE_MS) return Promise.resolve()
    const now = new Date()
    const cutoff = new Date(now.getTime() - sql.deployTimeoutMs - 60_000)
    const pass = (async () => {
      for (const statement of sql.reconcile) await run(statement, { userId, now, cutoff })
    })()
      .catch(() => {})
      .finally(() => {
        inFlight.delete(userId)
        finishedAt.set(userId, Date.now())
      })
    inFlight.set(userId, pass)
    return pass
  }

  // --- GET /api/activity-log?limit&offset&status&actionType&dateFrom
  const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
  const totalIndex = sql.activityColumns.indexOf('total')
  async function activityList(req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
    const key = await authenticate(req.headers['x-api-key'])
    if (!key) return error(res, 401, 'Invalid, expired or revoked API key')
    const limit = Number(query.get('limit') ?? 25)
    const offset = Number(query.get('offset') ?? 0)
    const status = query.get('status')
    const actionType = query.get('actionType')
    const dateFrom = query.get('dateFrom')
    const known = new Set(['limit', 'offset', 'status', 'actionType', 'dateFrom'])
    if (
      !Number.isInteger(limit) ||
      limit < 1 ||
      limit > 100 ||
      !Number.isInteger(offset) ||
      offset < 0 ||
      !status ||
      !actionType ||
      !dateFrom ||
      !DATE_ONLY.test(dateFrom) ||
      [...query.keys()].some((name) => !known.has(name))
    ) {
      return error(res, 400, 'the bare server reads limit, offset, status, actionType and dateFrom only')
    }
    await reconcile(key.userId)
    const rows = (await run(sql.activityPage, {
      userId: key.userId,
      actionType,
      status,
      dateFrom: new Date(`${dateFrom}T00:00:00Z`).toISOString(),
      limit,
      offset,
    })) as unknown[][]
    const activities = rows.map((row) => {
      const entry: Record<string, unknown> = {}
      for (let i = 0; i < row.length; i++) if (i !== totalIndex) entry[sql.activityColumns[i]!] = row[i]
      return entry
    })
    const counted = rows[0]?.[totalIndex] as string | null | undefined
    let total: number
    if (counted != null) total = Number(counted)
    else if (activities.length < limit && (activities.length > 0 || offset === 0))
      total = offset + activities.length
    else return error(res, 400, 'the bare server does not count pages past the end')
    send(res, 200, JSON.stringify({ activities, total }))
  }

  // --- GET /api/items?page&limit, from the per-process page cache.
  const pages = new Map<string, Buffer>()
  const loadingPages = new Map<string, Promise<Buffer>>()
  const itemColumns = sql.itemColumns
  function publicItem(row: unknown[]) {
    const item: Record<string, unknown> = {}
    itemColumns.forEach((column, index) => {
      item[column] = row[index]
    })
    const [categoryName, companySlug, companyName, tags] = row.slice(itemColumns.length) as [
      string | null,
      string | null,
      string | null,
      unknown,
    ]
    return {
      id: item.id,
      slug: item.slug,
      name: item.name,
      description: item.description,
      url: item.url,
      iconUrl: item.iconUrl,
      imageUrl: item.imageUrl,
      category: item.categoryId ? { id: item.categoryId, name: categoryName ?? item.categoryId } : null,
      tags,
      company:
        item.companyId && companySlug && companyName
          ? { id: item.companyId, slug: companySlug, name: companyName }
          : null,
      location: {
        address: item.address,
        city: item.city,
        country: item.country,
        latitude: item.latitude,
        longitude: item.longitude,
        isRemote: item.isRemote,
        serviceArea: item.serviceArea,
      },
      publishedAt: item.publishedAt,
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
    }
  }
  async function loadPage(page: number, limit: number): Promise<Buffer> {
    const [rows, counted] = await Promise.all([
      run(sql.itemsPage, { limit, offset: (page - 1) * limit }),
      run(sql.itemsCount, {}),
    ])
    const first = (counted as unknown[][])[0]?.[0]
    const total = Number(first ?? 0)
    const body = {
      success: true,
      data: (rows as unknown[][]).map(publicItem),
      meta: { page, limit, total, totalPages: Math.ceil(total / limit) },
    }
    return Buffer.from(JSON.stringify(body))
  }
  async function itemList(res: ServerResponse, query: URLSearchParams) {
    const page = Number(query.get('page') ?? 1)
    const limit = Number(query.get('limit') ?? 20)
    if (
      !Number.isInteger(page) ||
      page < 1 ||
      !Number.isInteger(limit) ||
      limit < 1 ||
      limit > 100 ||
      [...query.keys()].some((name) => name !== 'page' && name !== 'limit')
    ) {
      return error(res, 400, 'the bare server reads page and limit only')
    }
    const key = `${page}:${limit}`
    let body = pages.get(key)
    if (!body) {
      let pending = loadingPages.get(key)
      if (!pending) {
        pending = loadPage(page, limit)
        loadingPages.set(key, pending)
        pending
          .then((loaded) => pages.set(key, loaded))
          .finally(() => loadingPages.delete(key))
          .catch(() => {})
      }
      body = await pending
    }
    send(res, 200, body)
  }

  const handle =
    (
      path: string,
      answer: (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => Promise<void>,
    ) =>
    (req: IncomingMessage, res: ServerResponse) => {
      const target = req.url ?? '/'
      const mark = target.indexOf('?')
      const pathname = mark === -1 ? target : target.slice(0, mark)
      if (req.method !== 'GET' || pathname !== path) return error(res, 404, 'not found')
      answer(req, res, new URLSearchParams(mark === -1 ? '' : target.slice(mark + 1))).catch(
        (failure: unknown) => {
          if (!res.headersSent) error(res, 500, (failure as Error).message)
          else res.destroy()
        },
      )
    }

  const servers: Server[] = [
    createServer(handle('/api/activity-log', activityList)),
    createServer(handle('/api/items', (_req, res, query) => itemList(res, query))),
  ]
  await Promise.all(
    servers.map(
      (server, index) =>
        new Promise<void>((done, fail) => {
          server.once('error', fail)
          server.listen(index === 0 ? platformPort : directoryPort, '127.0.0.1', () => done())
        }),
    ),
  )
  if (cluster.isWorker) process.send?.('bare:listening')
  else process.stdout.write(`${JSON.stringify(ready())}\n`)

  let stopping = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      for (const server of servers) {
        server.close()
        server.closeAllConnections()
      }
      pool.end().finally(() => process.exit(0))
    })
  }
}
