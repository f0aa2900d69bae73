import { pgSchema } from 'drizzle-orm/pg-core'

/** Every platform table lives in this Postgres schema; the directory never reads it. */
export const platformSchema = pgSchema('platform')
