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
  listen(channel: string, onMessage: (payload: string) => void, hooks?: ListenHooks): Promise<void>
  close(): Promise<void>
}

/** Sends `payload` on `channel`; inside a transaction it is delivered only if the transaction commits. */
export async function notify(executor: DbOrTx, channel: string, payload: string): Promise<void> {
  await executor.execute(sql`select pg_notify(${channel}, ${payload})`)
}

const RECONNECT_MAX_MS = 30_000

export function createNotifications(source: DatabaseSource, log: Logger): Notifications {
  if (source.kind === 'pglite') {
    const unsubscribes: (() => Promise<void>)[] = []
    return {
      async listen(channel, onMessage) {
        unsubscribes.push(await source.pglite.listen(channel, onMessage))
      },
      async close() {
        if (source.pglite.closed) return
        await Promise.allSettled(unsubscribes.map((unsubscribe) => unsubscribe()))
      },
    }
  }

  const url = source.url
  const subscriptions = new Map<string, { onMessage: (payload: string) => void } & ListenHooks>()
  let client: pg.Client | undefined
  let closed = false
  let connecting: Promise<void> | undefined
  let attempt = 0

  async function connect(isReconnect: boolean): Promise<void> {
    const next = new pg.Client({ connectionString: url, application_name: 'curio-listen' })
    next.on('notification', (message) => {
      const subscription = subscriptions.get(message.channel)
      if (subscription && message.payload !== undefined) subscription.onMessage(message.payload)
    })
    next.on('error', (error) => log.warn({ err: error }, 'notification connection failed'))
    next.on('end', () => {
      if (closed || client !== next) return
      client = undefined
      for (const subscription of subscriptions.values()) subscription.onLost?.()
      scheduleReconnect()
    })
    await next.connect()
    for (const channel of subscriptions.keys()) await next.query(`listen "${channel.replaceAll('"', '')}"`)
    client = next
    attempt = 0
    if (isReconnect) for (const subscription of subscriptions.values()) subscription.onReconnect?.()
  }

  function scheduleReconnect() {
    const delay = Math.min(RECONNECT_MAX_MS, 250 * 2 ** attempt++)
    setTimeout(() => {
      if (closed) return
      connecting = connect(true).catch((error: unknown) => {
        log.warn({ err: error }, 'notification connection could not reconnect')
        scheduleReconnect()
      })
    }, delay).unref()
  }

  return {
    async listen(channel, onMessage, hooks = {}) {
      subscriptions.set(channel, { onMessage, ...hooks })
      if (client) await client.query(`listen "${channel.replaceAll('"', '')}"`)
      else {
        connecting ??= connect(false)
        await connecting
      }
    },
    async close() {
      closed = true
      const current = client
      client = undefined
      await current?.end().catch(() => {})
    },
  }
}
