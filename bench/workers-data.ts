/**
 * What bench/workers.ts, bench/workers-sql.ts and bench/workers-bare-server.ts share: the statements
 * Curio sends for the two measured lists, captured from Curio's own services (so the bare server runs
 * the very same SQL text), and the bare server's ready line.
 */

/** One parameter of a captured statement: a value given per request (`slot`), or a constant. */
export type ParamSpec = { slot: string } | { value: unknown }

/** A statement as Curio hands it to `pg`: its text, its prepared-statement name and row mode, if any. */
export interface CapturedStatement {
  /** Named statements are parsed once per connection (drizzle's `.prepare(name)`). */
  name?: string
  text: string
  /** drizzle reads selects as arrays, in the order of its select list. */
  rowMode?: 'array'
  params: ParamSpec[]
}

/** Every statement the bare server runs, in the file bench/workers.ts writes for it. */
export interface BareSql {
  /** The API key by hash, joined with its user (on a miss of the per-process cache of verified keys). */
  apiKeyLookup: CapturedStatement
  /** The coalesced `last_used_at` write of every key used since the last flush (slots `ids`, `times`). */
  apiKeyUsageFlush: CapturedStatement
  /** The reconciler's pass for one user (slots `userId`, `now`, `cutoff`): two updates. */
  reconcile: CapturedStatement[]
  /** The activity list's page with its total (slots `userId`, `actionType`, `status`, `dateFrom`, `limit`, `offset`). */
  activityPage: CapturedStatement
  /** Column keys of an activity row, in select order (the total comes last). */
  activityColumns: string[]
  /** A page of published items (slots `limit`, `offset`). */
  itemsPage: CapturedStatement
  /** The count of published items. */
  itemsCount: CapturedStatement
  /** Column keys of an item row, in select order (category name, company slug and name, tags follow). */
  itemColumns: string[]
  /** Settings the services run with: DEPLOY_TIMEOUT_MS and API_KEY_USAGE_FLUSH_MS. */
  deployTimeoutMs: number
  apiKeyUsageFlushMs: number
}

/** The one JSON line the bare server prints on stdout once every process listens. */
export interface BareReady {
  port: number
  directoryPort: number
  processes: number
  /** The primary's pid (the only process when `processes` is 1). */
  pid: number
}
