import { text } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { platformSchema } from '../schema.ts'

/** Secrets a local instance generates for itself once (JWT signing secret) when none is configured. */
export const instanceSecrets = platformSchema.table('instance_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamptz('created_at').notNull(),
})
