import { sql } from 'drizzle-orm'
import { NodePgDatabase, NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres'
import { PgDialect, type PgTransactionConfig } from 'drizzle-orm/pg-core'
import pg from 'pg'
import type { Logger } from 'pino'
import { DatabaseUnavailableError, databaseUnavailable } from './errors.ts'

/**
 * A service's connections to a Postgres server, built so that no fault of the server or the network stops
 * the process or holds a request for long:
 * - every connection has an error listener for its whole life (pg-pool listens only while it is idle), so a
 *   connection that dies inside a transaction fails that request and is replaced, never the process;
 * - getting a connection waits at most `connectTimeoutMs`, a statement at most `queryTimeoutMs`: a server
 *   that holds packets without refusing them (where a server-side statement_timeout never fires) gives a
 *   503 `DATABASE_UNAVAILABLE` in bounded time, and the connection is closed rather than reused;
 * - a connection that failed, timed out or could not roll back goes back to the pool as broken, which
 *   closes it, so nothing after an outage runs on a dead socket.
 */

export interface PoolTimeouts {
  /** Longest wait for a connection: a free one of the pool, or a new one (TCP and start-up). */
  connectTimeoutMs: number
  /** Longest wait for a statement's answer; undefined waits for ever (migrations, tools). */
  queryTimeoutMs: number | undefined
}

/** Without settings (tools, benchmarks, tests): a connection within 10 s, statements as long as they take. */
const LENIENT: PoolTimeouts = { connectTimeoutMs: 10_000, queryTimeoutMs: undefined }

/** A pg pool that knows its statement timeout and which of its connections are lost. */
export class DatabasePool extends pg.Pool {
  readonly queryTimeoutMs: number | undefined
  /** Connections whose socket failed, closed or timed out, with why. */
  readonly lost = new WeakMap<pg.ClientBase, string>()

  constructor(config: pg.PoolConfig, queryTimeoutMs: number | undefined) {
    super(config)
    this.queryTimeoutMs = queryTimeoutMs
    this.on('connect', (client) => {
      const markLost = (reason: string) => {
        if (!this.lost.has(client)) this.lost.set(client, reason)
      }
      client.on('error', (error) => markLost(databaseUnavailable(error) ?? 'connection failed'))
      client.on('end', () => markLost('connection closed'))
    })
  }

  /** A connection, or DatabaseUnavailableError once the connect timeout has passed without one. */
  async acquire(): Promise<pg.PoolClient> {
    try {
      return await this.connect()
    } catch (error) {
      throw new DatabaseUnavailableError(databaseUnavailable(error) ?? 'no connection', error)
    }
  }

  /** Gives a connection back; a lost one (or one `failure` left in doubt) is closed instead. */
  giveBack(client: pg.PoolClient, failure?: unknown) {
    const reason = this.lost.get(client)
    client.release(reason ? new DatabaseUnavailableError(reason, failure) : undefined)
  }

  /**
   * Runs one statement on `client` within the query timeout. On timeout the socket is destroyed (the
   * answer can no longer be told apart from the next statement's) and the connection counts as lost.
   */
  run(client: pg.PoolClient, query: unknown, values?: unknown[]): Promise<pg.QueryResult> {
    const timeoutMs = this.queryTimeoutMs
    const statement = client.query(query as pg.QueryConfig, values)
    const lostError = (error: unknown) => {
      const reason = this.lost.get(client)
      return reason ? new DatabaseUnavailableError(reason, error) : error
    }
    if (timeoutMs === undefined) return statement.catch((error: unknown) => Promise.reject(lostError(error)))
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const reason = `no answer within ${timeoutMs} ms`
        this.lost.set(client, reason)
        reject(new DatabaseUnavailableError(reason))
        ;(
          client as unknown as { connection?: { stream?: { destroy(): void } } }
        ).connection?.stream?.destroy()
      }, timeoutMs)
      statement.then(
        (result) => {
          clearTimeout(timer)
          resolve(result)
        },
        (error: unknown) => {
          clearTimeout(timer)
          reject(lostError(error))
        },
      )
    })
  }
}

/**
 * A pool on `url` of at most `max` connections. Its idle connections' errors are logged (a server restart
 * drops them; the next statement connects again).
 */
export function createPool(
  url: string,
  max: number,
  log: Pick<Logger, 'warn'>,
  timeouts: PoolTimeouts = LENIENT,
  extra: Pick<pg.PoolConfig, 'application_name' | 'options'> = {},
): DatabasePool {
  const pool = new DatabasePool(
    {
      connectionString: url,
      max,
      application_name: 'curio',
      connectionTimeoutMillis: timeouts.connectTimeoutMs,
      // A peer that vanished without a word is found by the kernel rather than trusted for ever.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...extra,
    },
    timeouts.queryTimeoutMs,
  )
  pool.on('error', (error) =>
    log.warn({ err: error, reason: databaseUnavailable(error) }, 'idle database connection failed'),
  )
  return pool
}

/** What Drizzle's node-postgres session sends statements through: one method. */
interface Queryable {
  query(query: unknown, values?: unknown[]): Promise<pg.QueryResult>
}

/** Statements on any connection of the pool, each on the one it is given. */
function pooled(pool: DatabasePool): Queryable {
  return {
    async query(query, values) {
      const client = await pool.acquire()
      let failure: unknown
      try {
        return await pool.run(client, query, values)
      } catch (error) {
        failure = error
        throw error
      } finally {
        pool.giveBack(client, failure)
      }
    },
  }
}

type Session = NodePgSession<Record<string, never>, never>

/**
 * Drizzle's session on the pool, with transactions that always give their connection back (Drizzle's own
 * leaks it when `begin` fails) and never roll back on a connection already lost.
 */
class PoolSession extends NodePgSession<Record<string, never>, never> {
  readonly #pool: DatabasePool
  readonly #dialect: PgDialect

  constructor(pool: DatabasePool, dialect: PgDialect) {
    super(pooled(pool) as unknown as pg.Pool, dialect, undefined)
    this.#pool = pool
    this.#dialect = dialect
  }

  override async transaction<T>(
    work: (tx: NodePgTransaction<Record<string, never>, never>) => Promise<T>,
    config?: PgTransactionConfig,
  ): Promise<T> {
    const pool = this.#pool
    const client = await pool.acquire()
    const onClient: Queryable = { query: (query, values) => pool.run(client, query, values) }
    const session = new NodePgSession(
      onClient as unknown as pg.PoolClient,
      this.#dialect,
      undefined,
    ) as Session
    const tx = new NodePgTransaction<Record<string, never>, never>(this.#dialect, session, undefined)
    let failure: unknown
    try {
      await tx.execute(sql`begin`)
      try {
        if (config) await tx.setTransaction(config)
        const result = await work(tx)
        await tx.execute(sql`commit`)
        return result
      } catch (error) {
        failure = error
        if (!pool.lost.has(client)) {
          await tx.execute(sql`rollback`).catch((rollbackError: unknown) => {
            // A connection that cannot roll back is in doubt: it is closed, not reused.
            pool.lost.set(client, databaseUnavailable(rollbackError) ?? 'rollback failed')
          })
        }
        throw error
      }
    } catch (error) {
      failure ??= error
      throw error
    } finally {
      pool.giveBack(client, failure)
    }
  }
}

/** Drizzle on `pool`: statements and transactions bounded and fault-safe as this file describes. */
export function drizzleOnPool(pool: DatabasePool): NodePgDatabase<Record<string, never>> {
  const dialect = new PgDialect()
  return new NodePgDatabase(dialect, new PoolSession(pool, dialect), undefined)
}
