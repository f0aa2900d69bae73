import { Readable } from 'node:stream'
import { and, asc, eq, gt } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { publicItemOf, selectPublicItems } from '../items/read.ts'
import { items } from '../items/tables.ts'
import type { FeedSite } from './render.ts'

/** Rows read from the database at a time: a batch's JSON is the most the document holds in memory. */
export const EXPORT_BATCH = 1000

/** Bytes the stream reads ahead of the socket: one batch, then it waits for the client to take it. */
const READ_AHEAD = 64 * 1024

export interface ItemsExportDeps {
  db: Db
  clock: Pick<Clock, 'now'>
  site: () => Promise<FeedSite>
}

/**
 * `GET /api/items.json`: every published item, by id, in keyset batches, as one JSON document written as it
 * is read. The stream reads a batch only when the client has taken the previous one, and a client that goes
 * away ends the reading (destroying the stream returns the generator). `total` comes last: it counts what was
 * written, as items published or removed meanwhile may or may not be in a list read over time.
 */
export function createItemsExport({ db, clock, site }: ItemsExportDeps) {
  const batchAfter = (id: string | null) =>
    selectPublicItems(db)
      .where(and(eq(items.status, 'published'), id === null ? undefined : gt(items.id, id)))
      .orderBy(asc(items.id))
      .limit(EXPORT_BATCH)

  return {
    /**
     * The document as a stream. The site and the first batch are read before this resolves, so a database
     * that cannot be reached is still an error answer; a failure after that breaks the connection rather than
     * ending a document that looks complete.
     */
    async stream(): Promise<Readable> {
      const about = await site()
      const first = await batchAfter(null)
      const head = JSON.stringify({
        success: true,
        site: { name: about.name, description: about.description, url: about.url },
        generatedAt: clock.now().toISOString(),
      })
      // The head without its closing brace, then the list.
      const start = `${head.slice(0, -1)},"data":[`
      const generate = async function* () {
        let batch = first
        let total = 0
        let chunk = start
        while (batch.length > 0) {
          for (const row of batch) {
            chunk += (total === 0 ? '' : ',') + JSON.stringify(publicItemOf(row))
            total++
          }
          yield chunk
          chunk = ''
          if (batch.length < EXPORT_BATCH) break
          batch = await batchAfter(batch[batch.length - 1]!.row.id)
        }
        yield `${chunk}],"total":${total}}`
      }
      return Readable.from(generate(), { objectMode: false, highWaterMark: READ_AHEAD })
    },
  }
}

export type ItemsExport = ReturnType<typeof createItemsExport>
