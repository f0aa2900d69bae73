import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  text,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { items } from '../items/tables.ts'
import { directorySchema } from '../schema.ts'

/**
 * The location index: one row per published item that has coordinates or is remote, its location
 * normalised (a remote item at 0,0). A trigger on `items` (migration 0017) keeps it as items are written,
 * in their own transactions, whichever path writes them; a rebuild (`location_index_runs`) geocodes the
 * items that lack coordinates and repairs any drift. The public map reads it by bounding box and radius
 * through the GiST index on the point, never by a scan.
 */
export const itemLocations = directorySchema.table(
  'item_locations',
  {
    itemId: uuid('item_id')
      .primaryKey()
      .references(() => items.id, { onDelete: 'cascade' }),
    itemSlug: varchar('item_slug', { length: 200 }).notNull(),
    latitude: doublePrecision('latitude').notNull(),
    longitude: doublePrecision('longitude').notNull(),
    city: varchar('city', { length: 100 }),
    country: varchar('country', { length: 100 }),
    serviceArea: varchar('service_area', { length: 300 }),
    isRemote: boolean('is_remote').notNull(),
    /**
     * The entry as the geo analytics list it (`{itemSlug, latitude, longitude, city, country, isRemote}`) and
     * as a heatmap point (`{lat, lng}`), as JSON text written with the row (`directory.location_entry_json`),
     * so the analytics join 100,000 of them instead of building each on every call.
     */
    entryJson: text('entry_json').notNull(),
    pointJson: text('point_json').notNull(),
    /** The item's `updated_at` when it was indexed: the time of the write that indexed it. */
    indexedAt: timestamptz('indexed_at').notNull(),
  },
  (table) => [
    index('item_locations_point_idx').using('gist', sql`point(${table.longitude}, ${table.latitude})`),
    index('item_locations_country_idx').on(table.country),
    index('item_locations_indexed_idx').on(table.indexedAt),
  ],
)

export const LOCATION_INDEX_RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const
export type LocationIndexRunStatus = (typeof LOCATION_INDEX_RUN_STATUSES)[number]

/**
 * A rebuild of the location index, step by step: each step reads a batch of items after `cursor`, geocodes
 * those that lack coordinates, re-indexes them and saves its progress with the next step's job, so a
 * restart resumes where it stopped. One is queued or running at a time (the partial unique index).
 */
export const locationIndexRuns = directorySchema.table(
  'location_index_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    status: varchar('status', { length: 20 }).$type<LocationIndexRunStatus>().notNull(),
    requestedBy: uuid('requested_by').references(() => users.id, { onDelete: 'set null' }),
    /** Items to go through, counted when the run starts. */
    total: integer('total').notNull().default(0),
    processed: integer('processed').notNull().default(0),
    /** Items given coordinates by geocoding their address. */
    geocoded: integer('geocoded').notNull().default(0),
    /** Items whose address no provider could place (not found, or every provider failed). */
    geocodeFailed: integer('geocode_failed').notNull().default(0),
    /** Items lacking coordinates left as they were: no address to geocode, or geocoding off. */
    skipped: integer('skipped').notNull().default(0),
    /** The last item id done; the next step reads the ids after it. */
    cursor: uuid('cursor'),
    error: text('error'),
    createdAt: timestamptz('created_at').notNull(),
    startedAt: timestamptz('started_at'),
    finishedAt: timestamptz('finished_at'),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    check(
      'location_index_runs_status_check',
      sql`${table.status} in ('queued', 'running', 'completed', 'failed')`,
    ),
    uniqueIndex('location_index_runs_one_active')
      .on(sql`(true)`)
      .where(sql`${table.status} in ('queued', 'running')`),
    index('location_index_runs_created_idx').on(table.createdAt.desc()),
  ],
)
