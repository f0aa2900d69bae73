import { text } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { directorySchema } from '../schema.ts'

/** Secrets a local instance generates for itself once (the encryption key) when none is configured. */
export const instanceSecrets = directorySchema.table('instance_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamptz('created_at').notNull(),
})
