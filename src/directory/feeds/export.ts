import { Readable } from 'node:stream'
import { type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { categories } from '../categories/tables.ts'
import { companies } from '../companies/tables.ts'
import { publicItemOf } from '../items/read.ts'
import { items, itemTags } from '../items/tables.ts'
import { tags } from '../tags/tables.ts'
import type { FeedSite } from './render.ts'

/** Rows read from the database at a time. */
export const EXPORT_BATCH = 1000

/**
 * The document goes to the socket in pieces of about this many characters, rather than a batch's text whole
 * (about 750 KB): the client gets the first items of a batch while the rest are written, and no string of a
 * whole batch is made.
 */
const CHUNK_CHARACTERS = 32 * 1024

/** Bytes the stream reads ahead of the socket, then it waits for the client to take them. */
const READ_AHEAD = 64 * 1024

/** A row of the batch statement: an item's columns, its category's and company's names, its tags as JSON. */
interface BatchRow {
  id: string
  slug: string
  name: string
  description: string | null
  url: string | null
  icon_url: string | null
  image_url: string | null
  category_id: string | null
  category_name: string | null
  company_id: string | null
  company_slug: string | null
  company_name: string | null
  address: string | null
  city: string | null
  country: string | null
  latitude: number | null
  longitude: number | null
  is_remote: boolean
  service_area: string | null
  published_at: string | null
  created_at: string
  updated_at: string
  /** `[{"id","name"}…]` by name, or null for none. */
  tags: string | null
}

/** A timestamp column as JSON shows a date (`Date.toJSON`: UTC, milliseconds, `Z`), made by Postgres. */
const iso = (column: string): SQL =>
  sql.raw(`to_char(batch.${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${column}`)

/**
 * The next `EXPORT_BATCH` published items after the id `after` (from the first without it), with what
 * `publicItemOf` needs. The batch's tags are read in one grouped pass (a subquery per item, as the public
 * list's, costs 40 µs an item here), through the item-tags key with the batch's ids as an array (`in (select
 * …)` made Postgres hash-join the whole item_tags table for every batch: 25 ms of 35 at 150,000 taggings),
 * and dates come as the text JSON shows them, so Node parses neither.
 */
const batchStatement = (after: string | null): SQL => sql`
  with batch as (
    select id, slug, name, description, url, icon_url, image_url, category_id, company_id, address, city,
      country, latitude, longitude, is_remote, service_area, published_at, created_at, updated_at
    from ${items}
    where status = 'published' ${after === null ? sql`` : sql`and id > ${after}::uuid`}
    order by id limit ${EXPORT_BATCH}
  ), tagged as (
    select tagging.item_id,
      '[' || string_agg(row_to_json(tag)::text, ',' order by tag.name, tag.id) || ']' as tags
    from ${itemTags} as tagging join (select id, name from ${tags}) as tag on tag.id = tagging.tag_id
    where tagging.item_id = any(array(select id from batch))
    group by tagging.item_id
  )
  select batch.id, batch.slug, batch.name, batch.description, batch.url, batch.icon_url, batch.image_url,
    batch.category_id, category.name as category_name, batch.company_id, company.slug as company_slug,
    company.name as company_name, batch.address, batch.city, batch.country, batch.latitude, batch.longitude,
    batch.is_remote, batch.service_area, ${iso('published_at')}, ${iso('created_at')}, ${iso('updated_at')},
    tagged.tags
  from batch
  left join ${categories} as category on category.id = batch.category_id
  left join ${companies} as company on company.id = batch.company_id
  left join tagged on tagged.item_id = batch.id
  order by batch.id`

/** A batch row as the public site shows the item, through the one `publicItemOf`. */
const publicJsonOf = (row: BatchRow): string =>
  JSON.stringify(
    publicItemOf({
      row: {
        id: row.id,
        slug: row.slug,
        name: row.name,
        description: row.description,
        url: row.url,
        iconUrl: row.icon_url,
        imageUrl: row.image_url,
        categoryId: row.category_id,
        companyId: row.company_id,
        address: row.address,
        city: row.city,
        country: row.country,
        latitude: row.latitude,
        longitude: row.longitude,
        isRemote: row.is_remote,
        serviceArea: row.service_area,
        // Not shown in public: every row here is published, and its review is the admins'.
        status: 'published',
        submittedBy: null,
        reviewNote: null,
        reviewedBy: null,
        reviewedAt: null,
        // Already the text a Date's JSON is: the answer is the same, and no Date is made per row.
        publishedAt: row.published_at as unknown as Date | null,
        createdAt: row.created_at as unknown as Date,
        updatedAt: row.updated_at as unknown as Date,
      },
      categoryName: row.category_name,
      companySlug: row.company_slug,
      companyName: row.company_name,
      tags: row.tags === null ? [] : (JSON.parse(row.tags) as { id: string; name: string }[]),
    }),
  )

export interface ItemsExportDeps {
  db: Db
  clock: Pick<Clock, 'now'>
  site: () => Promise<FeedSite>
}

/**
 * `GET /api/items.json`: every published item, by id, in keyset batches, as one JSON document written as it
 * is read. At most two batches are held, the one being written and the next, read meanwhile; the writing
 * waits while the client has not taken what was written, and a client that goes away ends the reading
 * (destroying the stream returns the generator). `total` comes last: it counts what was written, as items
 * published or removed meanwhile may or may not be in a list read over time.
 */
export function createItemsExport({ db, clock, site }: ItemsExportDeps) {
  const batchAfter = (id: string | null) => rowsOf<BatchRow>(db, batchStatement(id))

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
          // The next batch is asked for before this one is written: the database works while the socket does.
          const next = batch.length < EXPORT_BATCH ? undefined : batchAfter(batch[batch.length - 1]!.id)
          // A rejection is taken when awaited; until then it must not count as unhandled.
          next?.catch(() => {})
          for (const row of batch) {
            chunk += (total === 0 ? '' : ',') + publicJsonOf(row)
            total++
            if (chunk.length >= CHUNK_CHARACTERS) {
              yield chunk
              chunk = ''
            }
          }
          if (!next) break
          batch = await next
        }
        yield `${chunk}],"total":${total}}`
      }
      return Readable.from(generate(), { objectMode: false, highWaterMark: READ_AHEAD })
    },
  }
}

export type ItemsExport = ReturnType<typeof createItemsExport>
