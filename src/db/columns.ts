import { timestamp } from 'drizzle-orm/pg-core'

/** A `timestamp with time zone` column read as a Date: every Curio timestamp. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
