import { sql } from 'drizzle-orm'
import { boolean, index, integer, jsonb, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../auth/tables.ts'
import { platformSchema } from '../schema.ts'
import { works } from '../works/tables.ts'

/** Plain settings as stored: setting name → value. */
export type StoredSettings = Record<string, string | number | boolean>
/** Secret settings as stored: setting name → AES-256-GCM envelope (`enc:v1:…`). */
export type SealedSettings = Record<string, string>

/** A plugin as one user has it: enabled or not, with their settings. A row exists once they enabled it. */
export const userPlugins = platformSchema.table(
  'user_plugins',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    pluginId: text('plugin_id').notNull(),
    enabled: boolean('enabled').notNull(),
    settings: jsonb('settings').$type<StoredSettings>().notNull().default(sql`'{}'::jsonb`),
    secretSettings: jsonb('secret_settings').$type<SealedSettings>().notNull().default(sql`'{}'::jsonb`),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    /** Enable it for each new work of this user. */
    autoEnableForWorks: boolean('auto_enable_for_works').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.pluginId] })],
)

/**
 * A plugin as one work has it. At most one plugin per work holds a capability: the partial unique index
 * decides, so two concurrent switches can never leave two active providers.
 */
export const workPlugins = platformSchema.table(
  'work_plugins',
  {
    workId: uuid('work_id')
      .notNull()
      .references(() => works.id, { onDelete: 'cascade' }),
    pluginId: text('plugin_id').notNull(),
    enabled: boolean('enabled').notNull(),
    settings: jsonb('settings').$type<StoredSettings>().notNull().default(sql`'{}'::jsonb`),
    secretSettings: jsonb('secret_settings').$type<SealedSettings>().notNull().default(sql`'{}'::jsonb`),
    /** The capability this plugin is the work's active provider of, if any. */
    activeCapability: text('active_capability'),
    priority: integer('priority').notNull().default(0),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.workId, table.pluginId] }),
    uniqueIndex('work_plugins_active_capability_unique')
      .on(table.workId, table.activeCapability)
      .where(sql`${table.activeCapability} is not null`),
    index('work_plugins_plugin_idx').on(table.pluginId),
  ],
)
