import { count, type InferSelectModel, lte, type SQL, sql } from 'drizzle-orm'
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core'
import { fetchPage, type Page, type PageOf } from '../lib/pagination.ts'
import type { Db, DbOrTx } from './index.ts'

/** How many rows of `table` match `where` (all of them without one). */
export async function countRows(db: DbOrTx, table: PgTable, where?: SQL): Promise<number> {
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

/**
 * One page of `table`'s rows matching `where` in `orderBy` order, each turned into its answer by `map`,
 * with the total of all pages; the page and the count run side by side.
 */
export function pageOfRows<TTable extends PgTable, T>(
  db: Db,
  table: TTable,
  page: Page,
  query: {
    where?: SQL | undefined
    orderBy: SQL[] | (SQL | AnyPgColumn)[]
    map: (row: InferSelectModel<TTable>) => T
  },
): Promise<PageOf<T>> {
  return fetchPage(page, {
    rows: async (limit, offset) => {
      const rows = await db
        .select()
        .from(table as PgTable)
        .where(query.where)
        .orderBy(...query.orderBy)
        .limit(limit)
        .offset(offset)
      return (rows as InferSelectModel<TTable>[]).map(query.map)
    },
    total: () => countRows(db, table, query.where),
  })
}

/** A list as one array parameter (`sql` would spread it into a list of parameters), e.g. for `unnest`. */
export const arrayOf = (values: readonly unknown[], type: 'uuid' | 'text' | 'int') =>
  sql`${sql.param(values)}::${sql.raw(type)}[]`

/** The rows a raw statement answered, on either driver (node-postgres and PGlite both answer `{rows}`). */
export async function rowsOf<T>(executor: DbOrTx, statement: SQL): Promise<T[]> {
  const result = (await executor.execute(statement)) as unknown as { rows: T[] }
  return result.rows
}
