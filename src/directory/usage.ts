import type { SQL } from 'drizzle-orm'
import type { SubqueryWithSelection } from 'drizzle-orm/pg-core'
import type { DbOrTx } from '../db/index.ts'

/**
 * How many items use each row of a module that items point at (a tag, a company, a category). Items read
 * those modules' tables, so those modules cannot import items back: the items module answers this
 * (items/usage.ts) and `app.ts` hands it in.
 */
export interface ItemUsage {
  /** Each row's item count, as a subquery to join: `usage.key` (the row's id) and `usage.itemCount`. */
  counts(
    executor: DbOrTx,
  ): SubqueryWithSelection<{ key: SQL.Aliased<string>; itemCount: SQL.Aliased<number> }, 'usage'>
  /** How many items use the row with this id. */
  of(executor: DbOrTx, id: string): Promise<number>
}
