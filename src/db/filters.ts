import { gte, lt, lte, or, type SQL, type SQLWrapper, sql } from 'drizzle-orm'
import type { DateRange } from '../lib/dates.ts'

/** `%`, `_` and `\` match themselves: a user's search is text, never a pattern. */
export const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`)

/** The ILIKE pattern of a case-insensitive substring search. */
export const substringPattern = (text: string): string => `%${likeLiteral(text)}%`

/** `column` contains `text`, whatever the case. */
export const containing = (column: SQLWrapper, text: string): SQL =>
  sql`${column} ilike ${substringPattern(text)}`

/** Any of `columns` contains `text`, whatever the case. */
export const anyContaining = (columns: SQLWrapper[], text: string): SQL =>
  or(...columns.map((column) => containing(column, text)))!

/** `column` ends with `text`, whatever the case (an email's domain). */
export const endingWith = (column: SQLWrapper, text: string): SQL =>
  sql`${column} ilike ${`%${likeLiteral(text)}`}`

/** The conditions of a date range on a timestamp column; none for an open range. */
export function withinDates(column: SQLWrapper, range: DateRange): SQL[] {
  return [
    ...(range.from ? [gte(column, range.from)] : []),
    ...(range.before ? [lt(column, range.before)] : []),
    ...(range.until ? [lte(column, range.until)] : []),
  ]
}
