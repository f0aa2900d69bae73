import { Readable } from 'node:stream'
import { type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { arrayOf, rowsOf } from '../../db/queries.ts'
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

/** An item as a batch reads it: its columns and its category's and company's names. */
interface BatchRow {
  id: string
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
  /** Its tag names by name, when the batch statement read them (null for none). */
  tags?: string[] | null
}

/**
 * Where a batch starts: CSV and JSON read every item by slug (the unique slug index, so each batch costs the
 * same); Markdown reads one category's published items at a time, newest first, then by slug.
 */
type Cursor =
  | { order: 'slug'; afterSlug: string | null }
  | { order: 'published'; section: number; after: Pick<BatchRow, 'slug' | 'published_key'> | null }

const ITEM_COLUMNS = sql.raw(
  'id, slug, name, description, url, icon_url, image_url, category_id, company_id, status, address, city, ' +
    'country, latitude, longitude, is_remote, service_area, published_at',
)

/** A batch's tag names by item, in one grouped pass through the item-tags key (as the items export reads them). */
const taggedOf = (ids: SQL): SQL => sql`
  select tagging.item_id as id, json_agg(tag.name order by tag.name, tag.id) as tags
  from ${itemTags} as tagging join ${tags} as tag on tag.id = tagging.tag_id
  where tagging.item_id = any(${ids})
  group by tagging.item_id`

/**
 * The batch after a cursor: the items (`where`, `order by`, keyset) with their category's and company's
 * names (and their tags, `withTags`), each row as one JSON array (`batchRowOf`): the embedded database's
 * driver decodes one column of text in a fraction of the time it takes for eighteen. `apart` reads the
 * matching rows first and orders them apart (a small category's, through its index) rather than walking an
 * index in the order until enough match (a big category's, or every item).
 */
const batchStatement = (where: SQL, order: SQL, { apart = false, withTags = false } = {}): SQL => sql`
  with ${
    apart
      ? sql`candidates as materialized (select ${ITEM_COLUMNS} from ${items} where ${where}),
    batch as (select * from candidates as batch order by ${order} limit ${EXPORT_BATCH})`
      : sql`batch as (select ${ITEM_COLUMNS} from ${items} as batch where ${where} order by ${order} limit ${EXPORT_BATCH})`
  }${withTags ? sql`, tagged as (${taggedOf(sql`array(select id from batch)`)})` : sql``}
  select json_build_array(batch.id, batch.slug, batch.name, batch.description, batch.url, batch.icon_url,
    batch.image_url, category.name, company.name, batch.status, batch.address, batch.city, batch.country,
    batch.latitude, batch.longitude, batch.is_remote, batch.service_area,
    to_char(batch.published_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    batch.published_at::text${withTags ? sql`, tagged.tags` : sql``})::text as row
  from batch
  left join ${categories} as category on category.id = batch.category_id
  left join ${companies} as company on company.id = batch.company_id
  ${withTags ? sql`left join tagged on tagged.id = batch.id` : sql``}
  order by ${order}`

/** The tag names of a batch's items, by item, as a statement of its own. */
const tagsStatement = (ids: readonly string[]): SQL => taggedOf(arrayOf(ids, 'uuid'))

/** The site's order of published items: newest first (never published first, as Postgres sorts), then slug. */
const PUBLISHED_ORDER = sql.raw('batch.published_at desc nulls first, batch.slug')

/** The columns of the batch statement's JSON array, in its order. */
const BATCH_FIELDS = [
  'id',
  'slug',
  'name',
  'description',
  'url',
  'icon_url',
  'image_url',
  'category',
  'company',
  'status',
  'address',
  'city',
  'country',
  'latitude',
  'longitude',
  'is_remote',
  'service_area',
  'published_at',
  'published_key',
  'tags',
] as const satisfies readonly (keyof BatchRow)[]

/** A row of the batch statement, from its JSON array. */
function batchRowOf(text: string): BatchRow {
  const values = JSON.parse(text) as unknown[]
  const row: Record<string, unknown> = {}
  BATCH_FIELDS.forEach((field, index) => {
    row[field] = values[index]
  })
  return row as unknown as BatchRow
}

/** After `after` in `PUBLISHED_ORDER`. */
function afterPublished(after: Pick<BatchRow, 'slug' | 'published_key'>): SQL {
  if (after.published_key === null) return sql`(published_at is not null or slug > ${after.slug})`
  const at = sql`${after.published_key}::timestamptz`
  return sql`(published_at < ${at} or (published_at = ${at} and slug > ${after.slug}))`
}

const exportItemOf = (row: BatchRow, tagNames: string[] | null | undefined): ExportItem => ({
  slug: row.slug,
  name: row.name,
  description: row.description,
  url: row.url,
  iconUrl: row.icon_url,
  imageUrl: row.image_url,
  category: row.category,
  tags: tagNames ?? [],
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
  /**
   * Whether the database answers several statements at once (a Postgres pool): then a batch's tags are
   * read by a statement of their own, beside the next batch. The embedded database answers one at a time,
   * so there they are read with the batch, in one statement.
   */
  concurrent: boolean
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
export function createExportService({ db, site, concurrent }: ExportDeps) {
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
      const sections: { id: string | null; published: number }[] = head.categories.filter(
        (c) => c.published > 0,
      )
      if (head.uncategorized > 0) sections.push({ id: null, published: head.uncategorized })
      // A section this big is read walking the published items newest first, a smaller one through the
      // category index and ordered apart: each batch then costs at most about this many rows either way.
      const published = sections.reduce((sum, section) => sum + section.published, 0)
      const bigSection = Math.sqrt(2 * EXPORT_BATCH * published)

      const batchAt = async (cursor: Cursor): Promise<{ rows: BatchRow[]; next: Cursor | null }> => {
        if (cursor.order === 'slug') {
          const after = cursor.afterSlug === null ? sql`true` : sql`slug > ${cursor.afterSlug}`
          const rows = (
            await rowsOf<{ row: string }>(
              db,
              batchStatement(after, sql.raw('batch.slug'), { withTags: !concurrent }),
            )
          ).map(({ row }) => batchRowOf(row))
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
            section.id === null ? sql`category_id is null` : sql`category_id = ${section.id}`,
            ...(cursor.after === null ? [] : [afterPublished(cursor.after)]),
          ],
          sql` and `,
        )
        const apart = section.published < bigSection
        const rows = (
          await rowsOf<{ row: string }>(
            db,
            batchStatement(where, PUBLISHED_ORDER, { apart, withTags: !concurrent }),
          )
        ).map(({ row }) => batchRowOf(row))
        const last = rows.at(-1)
        const next: Cursor | null =
          rows.length === EXPORT_BATCH && last
            ? { order: 'published', section: cursor.section, after: last }
            : cursor.section + 1 < sections.length
              ? { order: 'published', section: cursor.section + 1, after: null }
              : null
        return { rows, next }
      }

      /** A batch read, and its tags (read with it, or asked for at once, read while the next batch is). */
      interface Loaded {
        rows: BatchRow[]
        next: Cursor | null
        tags: Promise<Map<string, string[]> | undefined>
      }
      const load = async (cursor: Cursor): Promise<Loaded> => {
        const { rows, next } = await batchAt(cursor)
        const tags =
          !concurrent || rows.length === 0
            ? Promise.resolve(undefined)
            : rowsOf<{ id: string; tags: string[] }>(db, tagsStatement(rows.map((row) => row.id))).then(
                (tagged) => new Map(tagged.map(({ id, tags }) => [id, tags])),
              )
        // A rejection is taken when awaited; until then it must not count as unhandled.
        tags.catch(() => {})
        return { rows, next, tags }
      }
      const after = (loaded: Promise<Loaded | null>): Promise<Loaded | null> => {
        const following = loaded.then((batch) => (batch?.next ? load(batch.next) : null))
        following.catch(() => {})
        return following
      }

      const first = await load(
        format === 'markdown'
          ? { order: 'published', section: 0, after: null }
          : { order: 'slug', afterSlug: null },
      )
      await first.tags
      /**
       * The items in order. While a batch is written, the next one and its tags are read, and the one after
       * it as soon as the next is in (on Postgres, two connections read while the socket takes the bytes).
       */
      const read = async function* (): AsyncGenerator<ExportItem> {
        let batch: Loaded | null = first
        let next = after(Promise.resolve(first))
        while (batch) {
          const tagged = await batch.tags
          const afterNext = after(next)
          for (const row of batch.rows) yield exportItemOf(row, tagged ? tagged.get(row.id) : row.tags)
          batch = await next
          next = afterNext
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
