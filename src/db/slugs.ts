import { type SQL, sql } from 'drizzle-orm'
import { type AnyPgColumn, getTableConfig } from 'drizzle-orm/pg-core'
import type { DbOrTx } from './index.ts'
import { rowsOf } from './queries.ts'

/** A slug column: unique within `scope` (the whole table without one), at most `maxLength` characters. */
export interface SlugColumn {
  column: AnyPgColumn
  maxLength: number
  /** The rows one slug must be unique among, and a key naming them for the lock (e.g. an owner's id). */
  scope?: { key: string; where: SQL }
}

/**
 * What the lock of `base` is keyed on: bases that can derive one same slug (`a` and `a-2`, or two long
 * ones cut alike to fit a suffix of up to three digits) share it.
 */
export function slugStem(base: string, maxLength: number): string {
  return base
    .slice(0, maxLength - 4)
    .replace(/-+$/, '')
    .replace(/(-[0-9]+)+$/, '')
}

/** `base` for 1, else `base-<n>` with `base` cut (and its trailing dashes dropped) so it fits `maxLength`. */
function numbered(base: string, maxLength: number, n: SQL): SQL {
  return sql`case when ${n} = 1 then ${base}::text
    else rtrim(left(${base}::text, ${maxLength - 1}::int - length(${n}::text)), '-') || '-' || ${n} end`
}

/**
 * The first of `base`, `base-2`, `base-3`, … that `slugs` does not hold, for the caller to insert in the
 * same transaction `tx`. A transaction-scoped advisory lock on the base's stem makes concurrent creates
 * deriving from one base wait for each other to commit, so each sees the slugs taken before it; take it
 * first in the transaction, before any row lock, so a waiter holds nothing the holder needs. A slug
 * given explicitly elsewhere meanwhile is left to the unique index.
 */
export async function claimFreeSlug(tx: DbOrTx, slugs: SlugColumn, base: string): Promise<string> {
  const { column, maxLength, scope } = slugs
  const table = getTableConfig(column.table)
  const key = `curio:slug:${table.schema}.${table.name}:${scope?.key ?? ''}:${slugStem(base, maxLength)}`
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`)
  // Walks n = 1, 2, … through the unique index while the slug is taken: one query, as many probes as slugs taken.
  const [free] = await rowsOf<{ slug: string }>(
    tx,
    sql`with recursive slug_probe(n) as (
      select 1
      union all
      select slug_probe.n + 1 from slug_probe
      where exists (
        select 1 from ${column.table}
        where ${scope ? sql`${scope.where} and ` : sql``}${column} = ${numbered(base, maxLength, sql`slug_probe.n`)}
      )
    )
    select ${numbered(base, maxLength, sql`n`)} as slug from slug_probe order by n desc limit 1`,
  )
  if (!free) throw new Error('the free slug probe answered no row')
  return free.slug
}
