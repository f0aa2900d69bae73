import { and, count, desc, eq, getTableColumns, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import type { EventQuery, StoredEvent } from './schemas.ts'
import { paymentWebhookEvents } from './tables.ts'

export type StoredEvents = ReturnType<typeof createStoredEvents>

/** The stored webhook events as the admins read them: newest first, the raw body's size in its place. */
export function createStoredEvents({ db }: { db: Db }) {
  return {
    async list(query: EventQuery): Promise<PageOf<StoredEvent>> {
      const t = paymentWebhookEvents
      const where = and(
        query.provider ? eq(t.provider, query.provider) : undefined,
        query.status ? eq(t.status, query.status) : undefined,
      )
      const { rawBody: _rawBody, ...columns } = getTableColumns(t)
      return fetchPage(query, {
        rows: async (limit, offset) =>
          db
            .select({ ...columns, bytes: sql<number>`octet_length(${t.rawBody})` })
            .from(t)
            .where(where)
            .orderBy(desc(t.receivedAt), desc(t.id))
            .limit(limit)
            .offset(offset),
        total: async () => (await db.select({ n: count() }).from(t).where(where))[0]?.n ?? 0,
      })
    },
  }
}
