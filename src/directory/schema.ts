import { pgSchema } from 'drizzle-orm/pg-core'

/** Every directory table lives in this Postgres schema; the platform never reads it. */
export const directorySchema = pgSchema('directory')
