import { count, lte, type SQL } from 'drizzle-orm'
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core'
import type { Db } from './index.ts'

/** How many rows of `table` match `where` (all of them without one). */
export async function countRows(db: Db, table: PgTable, where?: SQL): Promise<number> {
  const [row] = await db.select({ total: count() }).from(table).where(where)
  return row?.total ?? 0
}

/** Deletes the rows whose `expiresAt` has passed; answers how many went. */
export async function deleteExpired(
  db: Db,
  table: PgTable,
  expiresAt: AnyPgColumn,
  now: Date,
): Promise<number> {
  const deleted = await db.delete(table).where(lte(expiresAt, now)).returning({ at: expiresAt })
  return deleted.length
}
