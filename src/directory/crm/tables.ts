import { sql } from 'drizzle-orm'
import { boolean, check, index, integer, jsonb, smallint, text, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { clientProfiles } from '../clients/tables.ts'
import { directorySchema } from '../schema.ts'

/**
 * Where a client's sync to the CRM stands: `pending` (queued, running or waiting for a retry), `synced`,
 * `failed` after its last attempt (or at once for an answer a retry cannot change), `skipped` (the sync was
 * turned off before it ran).
 */
export const SYNC_STATUSES = ['pending', 'synced', 'failed', 'skipped'] as const
export type SyncStatus = (typeof SYNC_STATUSES)[number]

/** The client fields the CRM receives, taken when the change is made. */
export interface ClientSnapshot {
  displayName: string
  email: string
  jobTitle: string | null
  company: string | null
  location: string | null
  website: string | null
}

/** The CRM connection an admin sets: one row (id 1), missing until the first save. */
export const crmSettings = directorySchema.table(
  'crm_settings',
  {
    id: smallint('id').primaryKey().default(1),
    enabled: boolean('enabled').notNull().default(false),
    /** Null: TWENTY_API_URL. */
    baseUrl: varchar('base_url', { length: 2048 }),
    /** The API key sealed in the encryption envelope; never answered. */
    apiKey: text('api_key'),
    /** The key's last characters, shown masked (`••••abcd`) so an admin can tell which key is saved. */
    apiKeyHint: varchar('api_key_hint', { length: 8 }),
    syncClients: boolean('sync_clients').notNull().default(true),
    syncCompanies: boolean('sync_companies').notNull().default(true),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [check('crm_settings_single_row', sql`${table.id} = 1`)],
)

/**
 * One row per client the CRM has been asked to hold: where its sync stands, and the CRM's ids of its
 * person and company, so a later change updates them instead of creating them again. `version` counts the
 * changes asked for, `syncedVersion` the last one the CRM has.
 */
export const crmSyncRecords = directorySchema.table(
  'crm_sync_records',
  {
    clientId: uuid('client_id')
      .primaryKey()
      .references(() => clientProfiles.id, { onDelete: 'cascade' }),
    status: varchar('status', { length: 16 }).$type<SyncStatus>().notNull(),
    /** The client's fields the CRM receives, as of the latest change (the outbox's payload). */
    snapshot: jsonb('snapshot').$type<ClientSnapshot>().notNull(),
    version: integer('version').notNull().default(1),
    syncedVersion: integer('synced_version').notNull().default(0),
    /** Attempts at the current change; a new change starts again from 0. */
    attempts: integer('attempts').notNull().default(0),
    /** Why the last attempt failed, in our words and the CRM's; never the API key. */
    lastError: text('last_error'),
    /** The CRM's HTTP status of the last failed attempt; null when it gave none (timeout, no connection). */
    lastStatus: integer('last_status'),
    /** The CRM's ids of the client's person and company. */
    personId: varchar('person_id', { length: 64 }),
    companyId: varchar('company_id', { length: 64 }),
    /** While an attempt runs: until when it holds the record (two attempts never run at once). */
    leaseUntil: timestamptz('lease_until'),
    /** When the retry of a failed attempt is due. */
    nextAttemptAt: timestamptz('next_attempt_at'),
    syncedAt: timestamptz('synced_at'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    check(
      'crm_sync_records_status_check',
      sql`${table.status} in ('pending', 'synced', 'failed', 'skipped')`,
    ),
    // The admin list, most recently changed first, by status or all of them.
    index('crm_sync_records_status_idx').on(table.status, table.updatedAt.desc(), table.clientId.desc()),
    index('crm_sync_records_updated_idx').on(table.updatedAt.desc(), table.clientId.desc()),
  ],
)

/**
 * The companies made in the CRM for clients' `company`, by name whatever its case: clients of one company
 * share it. A row without `companyId` is being created by the attempt that holds it until `claimedUntil`.
 */
export const crmCompanies = directorySchema.table('crm_companies', {
  nameKey: varchar('name_key', { length: 200 }).primaryKey(),
  name: varchar('name', { length: 200 }).notNull(),
  companyId: varchar('company_id', { length: 64 }),
  claimedUntil: timestamptz('claimed_until'),
  updatedAt: timestamptz('updated_at').notNull(),
})
