import { Readable } from 'node:stream'
import { type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/queries.ts'
import { slugify } from '../../lib/slug.ts'
import { categories } from '../categories/tables.ts'
import { companies } from '../companies/tables.ts'
import type { ItemStatus } from '../items/tables.ts'
import { items, itemTags } from '../items/tables.ts'
import { tags } from '../tags/tables.ts'
import { renderCsv } from '../transfer/csv.ts'
import { renderJson } from '../transfer/json.ts'
import { renderMarkdown } from '../transfer/markdown.ts'
import type { ExportItem, ExportSite, ExportSource, TransferFormat } from '../transfer/records.ts'
import { EXPORT_MEDIA_TYPES } from './schemas.ts'

/** Rows read from the database at a time. */
export const EXPORT_BATCH = 1000

/** Bytes the stream reads ahead of the socket, then it waits for the client to take them. */
const READ_AHEAD = 64 * 1024

const EXTENSIONS: Record<TransferFormat, string> = { markdown: 'md', csv: 'csv', json: 'json' }

const RENDERERS: Record<TransferFormat, (source: ExportSource) => AsyncIterable<string>> = {
  markdown: renderMarkdown,
  csv: renderCsv,
  json: renderJson,
}

/** A row of the batch statement: an item's columns, its category's and company's names, its tag names. */
interface BatchRow {
  slug: string
  name: string
  description: string | null
  url: string | null
  icon_url: string | null
  image_url: string | null
  category: string | null
  company: string | null
  status: ItemStatus
  address: string | null
  city: string | null
  country: string | null
  latitude: number | null
  longitude: number | null
  is_remote: boolean
  service_area: string | null
  /** As `Date.toJSON` writes it, made by Postgres; null when never published. */
  published_at: string | null
  /** `published_at` to the microsecond, as the next batch starts after it. */
  published_key: string | null
  /** `["name"…]` by name, or null for none. */
  tags: string | null
}

/**
 * Where a batch starts: CSV and JSON read every item by slug (the unique slug index, so each batch costs the
 * same); Markdown reads one category's published items at a time, newest first, then by slug.
 */
type Cursor =
  | { order: 'slug'; afterSlug: string | null }
  | { order: 'published'; section: number; after: Pick<BatchRow, 'slug' | 'published_key'> | null }

/**
 * The batch after `cursor`: the items (`where`, `order by`, keyset) with their category's and company's
 * names and their tags, read in one grouped pass through the item-tags key, as the items export does.
 */
const batchStatement = (where: SQL, order: SQL): SQL => sql`
  with batch as (
    select id, slug, name, description, url, icon_url, image_url, category_id, company_id, status, address,
      city, country, latitude, longitude, is_remote, service_area, published_at
    from ${items} as batch
    where ${where}
    order by ${order} limit ${EXPORT_BATCH}
  ), tagged as (
    select tagging.item_id, json_agg(tag.name order by tag.name, tag.id)::text as tags
    from ${itemTags} as tagging join ${tags} as tag on tag.id = tagging.tag_id
    where tagging.item_id = any(array(select id from batch))
    group by tagging.item_id
  )
  select batch.slug, batch.name, batch.description, batch.url, batch.icon_url, batch.image_url,
    category.name as category, company.name as company, batch.status, batch.address, batch.city,
    batch.country, batch.latitude, batch.longitude, batch.is_remote, batch.service_area,
    to_char(batch.published_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as published_at,
    batch.published_at::text as published_key,
    tagged.tags
  from batch
  left join ${categories} as category on category.id = batch.category_id
  left join ${companies} as company on company.id = batch.company_id
  left join tagged on tagged.item_id = batch.id
  order by ${order}`

/** The site's order of published items: newest first (never published first, as Postgres sorts), then slug. */
const PUBLISHED_ORDER = sql.raw('batch.published_at desc nulls first, batch.slug')

/** After `after` in `PUBLISHED_ORDER`. */
function afterPublished(after: Pick<BatchRow, 'slug' | 'published_key'>): SQL {
  if (after.published_key === null) return sql`(published_at is not null or slug > ${after.slug})`
  const at = sql`${after.published_key}::timestamptz`
  return sql`(published_at < ${at} or (published_at = ${at} and slug > ${after.slug}))`
}

const exportItemOf = (row: BatchRow): ExportItem => ({
  slug: row.slug,
  name: row.name,
  description: row.description,
  url: row.url,
  iconUrl: row.icon_url,
  imageUrl: row.image_url,
  category: row.category,
  tags: row.tags === null ? [] : (JSON.parse(row.tags) as string[]),
  company: row.company,
  status: row.status,
  location: {
    address: row.address,
    city: row.city,
    country: row.country,
    latitude: row.latitude,
    longitude: row.longitude,
    isRemote: row.is_remote,
    serviceArea: row.service_area,
  },
  publishedAt: row.published_at,
})

export interface ExportDeps {
  db: Db
  site: () => Promise<ExportSite>
}

/** A streamed export: its bytes, media type and the file name it is saved under. */
export interface ExportDocument {
  body: Readable
  type: string
  filename: string
}

/**
 * The whole directory as a Markdown, CSV or JSON file, written as it is read: at most two batches are held,
 * the one being written and the next, read meanwhile; the writing waits while the client has not taken what
 * was written, and a client that goes away ends the reading (destroying the stream returns the generators).
 */
export function createExportService({ db, site }: ExportDeps) {
  async function sourceHead() {
    const [about, categoryRows, tagRows, [uncategorized]] = await Promise.all([
      site(),
      rowsOf<{ id: string; name: string; published: number }>(
        db,
        sql`select category.id, category.name,
          (select count(*)::int from ${items} where category_id = category.id and status = 'published') as published
        from ${categories} as category order by category.sort_order, category.name, category.id`,
      ),
      rowsOf<{ id: string; name: string }>(db, sql`select id, name from ${tags} order by name, id`),
      rowsOf<{ count: number }>(
        db,
        sql`select count(*)::int as count from ${items} where category_id is null and status = 'published'`,
      ),
    ])
    return { site: about, categories: categoryRows, tags: tagRows, uncategorized: uncategorized?.count ?? 0 }
  }

  return {
    /**
     * The file as a stream. The site, its categories and tags and the first batch are read before this
     * resolves, so a database that cannot be reached is still an error answer; a failure after that breaks
     * the connection rather than ending a file that looks complete.
     */
    async stream(format: TransferFormat): Promise<ExportDocument> {
      const head = await sourceHead()
      // Markdown's sections: each category with published items in the site's order, then those without one.
      const sections: (string | null)[] = head.categories.filter((c) => c.published > 0).map((c) => c.id)
      if (head.uncategorized > 0) sections.push(null)

      const batchAt = async (cursor: Cursor): Promise<{ rows: BatchRow[]; next: Cursor | null }> => {
        if (cursor.order === 'slug') {
          const after = cursor.afterSlug === null ? sql`true` : sql`slug > ${cursor.afterSlug}`
          const rows = await rowsOf<BatchRow>(db, batchStatement(after, sql.raw('batch.slug')))
          const last = rows.at(-1)
          return {
            rows,
            next: rows.length < EXPORT_BATCH || !last ? null : { order: 'slug', afterSlug: last.slug },
          }
        }
        const section = sections[cursor.section]
        if (section === undefined) return { rows: [], next: null }
        const where = sql.join(
          [
            sql`status = 'published'`,
            section === null ? sql`category_id is null` : sql`category_id = ${section}`,
            ...(cursor.after === null ? [] : [afterPublished(cursor.after)]),
          ],
          sql` and `,
        )
        const rows = await rowsOf<BatchRow>(db, batchStatement(where, PUBLISHED_ORDER))
        const last = rows.at(-1)
        const next: Cursor | null =
          rows.length === EXPORT_BATCH && last
            ? { order: 'published', section: cursor.section, after: last }
            : cursor.section + 1 < sections.length
              ? { order: 'published', section: cursor.section + 1, after: null }
              : null
        return { rows, next }
      }

      const first = await batchAt(
        format === 'markdown'
          ? { order: 'published', section: 0, after: null }
          : { order: 'slug', afterSlug: null },
      )
      const read = async function* (): AsyncGenerator<ExportItem> {
        let batch = first
        while (true) {
          // The next batch is asked for before this one is written: the database works while the socket does.
          const next = batch.next ? batchAt(batch.next) : undefined
          // A rejection is taken when awaited; until then it must not count as unhandled.
          next?.catch(() => {})
          for (const row of batch.rows) yield exportItemOf(row)
          if (!next) return
          batch = await next
        }
      }
      const pieces = RENDERERS[format]({ ...head, items: read() })
      return {
        body: Readable.from(pieces, { objectMode: false, highWaterMark: READ_AHEAD }),
        type: `${EXPORT_MEDIA_TYPES[format]}; charset=utf-8`,
        filename: `${slugify(head.site.name, 80) || 'directory'}.${EXTENSIONS[format]}`,
      }
    },
  }
}

export type ExportService = ReturnType<typeof createExportService>
