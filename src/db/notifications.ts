import { sql } from 'drizzle-orm'
import pg from 'pg'
import type { Logger } from 'pino'
import type { DatabaseSource, DbOrTx } from './index.ts'

/**
 * Postgres LISTEN/NOTIFY between instances: how one instance tells the others to drop something they
 * cache. On the embedded database every listener is in this process; on a server a dedicated connection
 * listens, and reconnects after a drop. `onLost` runs when the connection drops (notifications sent
 * while it is away are lost, so a cache should stop trusting itself) and `onReconnect` once it is back
 * (caches start over).
 */
export interface ListenHooks {
  onLost?: () => void
  onReconnect?: () => void
}

export interface Notifications {
  /**
   * Adds a handler of `channel`; a channel takes any number of them, each called for every message.
   * Resolves once the channel is listened to. The returned function removes this handler.
   */
  listen(
    channel: string,
    onMessage: (payload: string) => void,
    hooks?: ListenHooks,
  ): Promise<() => Promise<void>>
  close(): Promise<void>
}

/** Sends `payload` on `channel`; inside a transaction it is delivered only if the transaction commits. */
export async function notify(executor: DbOrTx, channel: string, payload: string): Promise<void> {
  await executor.execute(sql`select pg_notify(${channel}, ${payload})`)
}

const RECONNECT_MAX_MS = 30_000

interface Handler extends ListenHooks {
  onMessage: (payload: string) => void
}

/** Runs one handler; a throwing handler is logged and never stops the others. */
function call(log: Logger, channel: string, run: () => void) {
  try {
    run()
  } catch (error) {
    log.warn({ err: error, channel }, 'notification handler failed')
  }
}

const quoted = (channel: string) => `"${channel.replaceAll('"', '')}"`

/**
 * How the listening connection on a server finds out it is cut off when nothing tells it (a network that
 * drops packets): a statement every `intervalMs` that must answer within `timeoutMs`, and a connect that
 * must succeed within `timeoutMs`.
 */
export interface HeartbeatOptions {
  intervalMs: number
  timeoutMs: number
}

const HEARTBEAT: HeartbeatOptions = { intervalMs: 5000, timeoutMs: 3000 }

export function createNotifications(
  source: DatabaseSource,
  log: Logger,
  heartbeat: HeartbeatOptions = HEARTBEAT,
): Notifications {
  return source.kind === 'pglite'
    ? embeddedNotifications(source.pglite, log)
    : serverNotifications(source.url, log, heartbeat)
}

function embeddedNotifications(
  pglite: Extract<DatabaseSource, { kind: 'pglite' }>['pglite'],
  log: Logger,
): Notifications {
  const unsubscribes = new Set<() => Promise<void>>()
  return {
    async listen(channel, onMessage) {
      const unsubscribe = await pglite.listen(channel, (payload) =>
        call(log, channel, () => onMessage(payload)),
      )
      unsubscribes.add(unsubscribe)
      return async () => {
        if (!unsubscribes.delete(unsubscribe) || pglite.closed) return
        await unsubscribe()
      }
    },
    async close() {
      const all = [...unsubscribes]
      unsubscribes.clear()
      if (pglite.closed) return
      await Promise.allSettled(all.map((unsubscribe) => unsubscribe()))
    },
  }
}

function serverNotifications(url: string, log: Logger, heartbeat: HeartbeatOptions): Notifications {
  const channels = new Map<string, Set<Handler>>()
  let client: pg.Client | undefined
  // The channels the current connection LISTENs to.
  let listening = new Set<string>()
  let closed = false
  // The first connection: a database that never answered fails every listen.
  let initial: Promise<void> | undefined
  let attempt = 0

  const everyHandler = () =>
    [...channels.entries()].flatMap(([channel, set]) => [...set].map((h) => ({ channel, h })))

  async function connect(isReconnect: boolean): Promise<void> {
    const next = new pg.Client({
      connectionString: url,
      application_name: 'curio-listen',
      connectionTimeoutMillis: heartbeat.timeoutMs,
      keepAlive: true,
    })
    next.on('notification', (message) => {
      const handlers = channels.get(message.channel)
      if (!handlers || message.payload === undefined) return
      for (const handler of [...handlers])
        call(log, message.channel, () => handler.onMessage(message.payload!))
    })
    next.on('error', (error) => log.warn({ err: error }, 'notification connection failed'))
    next.on('end', () => {
      clearTimeout(beat)
      if (closed || client !== next) return
      client = undefined
      log.warn('notification connection lost; caches that depend on it are off until it is back')
      for (const { channel, h } of everyHandler()) if (h.onLost) call(log, channel, h.onLost)
      scheduleReconnect()
    })
    await next.connect()
    const heard = new Set<string>()
    for (const channel of channels.keys()) {
      await next.query(`listen ${quoted(channel)}`)
      heard.add(channel)
    }
    listening = heard
    client = next
    attempt = 0
    scheduleBeat(next)
    if (isReconnect) {
      log.info('notification connection restored')
      for (const { channel, h } of everyHandler()) if (h.onReconnect) call(log, channel, h.onReconnect)
    }
  }

  // A connection that stops answering is closed: its 'end' then says the caches are off and reconnects.
  let beat: NodeJS.Timeout | undefined
  function scheduleBeat(target: pg.Client) {
    beat = setTimeout(() => {
      if (closed || client !== target) return
      const cutOff = setTimeout(() => {
        log.warn(`notification connection did not answer within ${heartbeat.timeoutMs} ms; reconnecting`)
        ;(
          target as unknown as { connection?: { stream?: { destroy(): void } } }
        ).connection?.stream?.destroy()
      }, heartbeat.timeoutMs)
      target.query('select 1').then(
        () => {
          clearTimeout(cutOff)
          scheduleBeat(target)
        },
        () => clearTimeout(cutOff),
      )
    }, heartbeat.intervalMs)
    beat.unref()
  }

  function scheduleReconnect() {
    const delay = Math.min(RECONNECT_MAX_MS, 250 * 2 ** attempt++)
    setTimeout(() => {
      if (closed) return
      connect(true).catch((error: unknown) => {
        log.warn({ err: error }, 'notification connection could not reconnect')
        scheduleReconnect()
      })
    }, delay).unref()
  }

  return {
    async listen(channel, onMessage, hooks = {}) {
      const handler: Handler = { onMessage, ...hooks }
      let handlers = channels.get(channel)
      if (!handlers) {
        handlers = new Set()
        channels.set(channel, handlers)
      }
      handlers.add(handler)
      initial ??= connect(false)
      await initial
      if (!client) {
        // Down between reconnects: this handler is told so now, and hears onReconnect with the others
        // once the reconnection LISTENs to every channel.
        if (handler.onLost) call(log, channel, handler.onLost)
      } else if (!listening.has(channel)) {
        listening.add(channel)
        // A connection that drops meanwhile runs onLost for every handler, this one included.
        await client.query(`listen ${quoted(channel)}`).catch((error: unknown) => {
          listening.delete(channel)
          log.warn({ err: error, channel }, 'could not listen')
        })
      }
      const unsubscribe = async () => {
        const set = channels.get(channel)
        if (!set?.delete(handler) || set.size > 0) return
        channels.delete(channel)
        listening.delete(channel)
        await client?.query(`unlisten ${quoted(channel)}`).catch((error: unknown) => {
          log.warn({ err: error, channel }, 'could not stop listening')
        })
      }
      return unsubscribe
    },
    async close() {
      closed = true
      clearTimeout(beat)
      const current = client
      client = undefined
      await current
        ?.end()
        .catch((error: unknown) => log.warn({ err: error }, 'notification connection did not close cleanly'))
    },
  }
}
