import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  customType,
  doublePrecision,
  index,
  jsonb,
  primaryKey,
  text,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { categories } from '../categories/tables.ts'
import { companies } from '../companies/tables.ts'
import { directorySchema } from '../schema.ts'
import { tags } from '../tags/tables.ts'

export const ITEM_STATUSES = ['draft', 'pending', 'published', 'rejected'] as const
export type ItemStatus = (typeof ITEM_STATUSES)[number]

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })

/**
 * The directory's items. A category or company in use cannot be deleted (the foreign keys restrict it):
 * an item never points at nothing.
 */
export const items = directorySchema.table(
  'items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** `^[a-z0-9-]+$`, unique: the item's address on the site. */
    slug: varchar('slug', { length: 200 }).notNull().unique('items_slug_unique'),
    name: varchar('name', { length: 200 }).notNull(),
    description: text('description'),
    url: text('url'),
    iconUrl: text('icon_url'),
    imageUrl: text('image_url'),
    categoryId: varchar('category_id', { length: 100 }).references(() => categories.id, {
      onDelete: 'restrict',
    }),
    companyId: uuid('company_id').references(() => companies.id, { onDelete: 'restrict' }),
    status: varchar('status', { length: 20 }).$type<ItemStatus>().notNull(),
    address: varchar('address', { length: 300 }),
    city: varchar('city', { length: 100 }),
    country: varchar('country', { length: 100 }),
    latitude: doublePrecision('latitude'),
    longitude: doublePrecision('longitude'),
    isRemote: boolean('is_remote').notNull().default(false),
    serviceArea: varchar('service_area', { length: 300 }),
    /** Who submitted it through the site; null for what an admin created. */
    submittedBy: uuid('submitted_by').references(() => users.id, { onDelete: 'set null' }),
    reviewNote: text('review_note'),
    reviewedBy: uuid('reviewed_by').references(() => users.id, { onDelete: 'set null' }),
    reviewedAt: timestamptz('reviewed_at'),
    /** When it was last published; the public list's order. */
    publishedAt: timestamptz('published_at'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
    /** Words of the name (weight A) and description (B), for search; kept by Postgres. */
    search: tsvector('search')
      .notNull()
      .generatedAlwaysAs(
        sql`setweight(to_tsvector('simple'::regconfig, coalesce(name, '')), 'A') || setweight(to_tsvector('simple'::regconfig, coalesce(description, '')), 'B')`,
      ),
  },
  (table) => [
    check('items_status_check', sql`${table.status} in ('draft', 'pending', 'published', 'rejected')`),
    check(
      'items_coordinates_check',
      sql`(${table.latitude} is null) = (${table.longitude} is null) and ${table.latitude} between -90 and 90 and ${table.longitude} between -180 and 180`,
    ),
    index('items_search_idx').using('gin', table.search),
    // The admin list's default order (`created_at desc, id desc`: nulls first, as Postgres sorts a
    // descending order) read from an index, alone or within a status, instead of sorting every match.
    index('items_status_created_idx').on(
      table.status,
      table.createdAt.desc().nullsFirst(),
      table.id.desc().nullsFirst(),
    ),
    index('items_created_idx').on(table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('items_category_idx').on(table.categoryId, table.status),
    index('items_company_idx').on(table.companyId),
    index('items_submitter_idx').on(table.submittedBy),
    // The geo analytics' figures of the published items, read from this index alone (an index-only scan).
    index('items_published_location_idx')
      .on(table.isRemote, table.latitude)
      .where(sql`${table.status} = 'published'`),
    // The public list: published items, newest first.
    index('items_published_idx')
      .on(table.publishedAt.desc().nullsFirst(), table.id.desc().nullsFirst())
      .where(sql`${table.status} = 'published'`),
  ],
)

/** An item's tags. A tag in use cannot be deleted (restricted); deleting the item drops its rows. */
export const itemTags = directorySchema.table(
  'item_tags',
  {
    itemId: uuid('item_id')
      .notNull()
      .references(() => items.id, { onDelete: 'cascade' }),
    tagId: varchar('tag_id', { length: 100 })
      .notNull()
      .references(() => tags.id, { onDelete: 'restrict', onUpdate: 'cascade' }),
  },
  (table) => [
    primaryKey({ name: 'item_tags_pkey', columns: [table.itemId, table.tagId] }),
    index('item_tags_tag_idx').on(table.tagId, table.itemId),
  ],
)

/** One field's change in an item's history. */
export interface FieldChange {
  field: string
  from: unknown
  to: unknown
}

/**
 * Who changed which fields of an item, from what to what, and when: written in the transaction of the
 * change. It outlives the item (no foreign key), so a deletion is recorded too.
 */
export const itemHistory = directorySchema.table(
  'item_history',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    itemId: uuid('item_id').notNull(),
    /** The admin or submitter; null when their account is gone. */
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    /** `created`, `submitted`, `updated`, `approved`, `rejected`, `deleted`. */
    action: varchar('action', { length: 20 }).notNull(),
    changes: jsonb('changes').$type<FieldChange[]>().notNull(),
    note: text('note'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    index('item_history_item_idx').on(table.itemId, table.createdAt),
    // The dashboard's activity over time and its latest changes.
    index('item_history_created_idx').on(table.createdAt),
  ],
)
