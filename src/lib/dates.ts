import { invalidInput } from './errors.ts'
import { DAY_MS } from './time.ts'

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
/** An ISO 8601 date, or date-time with optional seconds, fraction and offset: the only forms read. */
export const DATE_FILTER_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,6})?)?(Z|[+-]\\d{2}:\\d{2})?)?$'
const DATE_FILTER = new RegExp(DATE_FILTER_PATTERN)
// A date-time without an offset is read as UTC, whatever the server's time zone.
const HAS_OFFSET = /(Z|[+-]\d{2}:\d{2})$/i

/**
 * The bounds of a date filter as the database compares them: `from` inclusive, and either `before`
 * (exclusive: a bare date as the upper bound covers that whole day) or `until` (inclusive).
 */
export interface DateRange {
  from?: Date
  before?: Date
  until?: Date
}

/** A date (`2026-11-01`, the start of that UTC day) or date-time of a filter; 400 naming `field` otherwise. */
export function parseDateBound(field: string, value: string): Date {
  const text = DATE_ONLY.test(value) ? `${value}T00:00:00Z` : HAS_OFFSET.test(value) ? value : `${value}Z`
  const at = new Date(text)
  if (!DATE_FILTER.test(value) || Number.isNaN(at.getTime()) || !isCalendarDate(value)) {
    throw invalidInput(field, 'is not a valid date')
  }
  return at
}

/** Whether the `YYYY-MM-DD` that starts `value` names a real day from year 1 on (not February 30). */
function isCalendarDate(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number]
  const at = new Date(Date.UTC(year, month - 1, day))
  // Date.UTC reads years 0 to 99 as 1900 to 1999; those are not dates anyone filters by.
  return year >= 1000 && at.getUTCMonth() === month - 1 && at.getUTCDate() === day
}

/**
 * The range of a pair of filters such as `dateFrom` / `dateTo`; either may be absent. A bare date as the
 * upper bound includes the whole of that day.
 */
export function parseDateRange(
  bounds: { from?: string | undefined; to?: string | undefined },
  fields: { from: string; to: string },
): DateRange {
  const range: DateRange = {}
  if (bounds.from !== undefined) range.from = parseDateBound(fields.from, bounds.from)
  if (bounds.to !== undefined) {
    const to = parseDateBound(fields.to, bounds.to)
    const nextDay = new Date(to.getTime() + DAY_MS)
    // The day after 9999-12-31 has no ISO 8601 spelling the database reads: its last moment bounds it instead.
    if (DATE_ONLY.test(bounds.to) && nextDay.getUTCFullYear() <= 9999) range.before = nextDay
    else if (DATE_ONLY.test(bounds.to)) range.until = new Date(nextDay.getTime() - 1)
    else range.until = to
  }
  return range
}
