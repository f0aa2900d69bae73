import { type TSchema, Type } from 'typebox'
import { DATE_FILTER_PATTERN } from '../lib/dates.ts'

/** A timestamp in an answer: services return Dates, the serializer writes ISO 8601 strings. */
export const Timestamp = Type.Unsafe<Date | string>(
  Type.String({ format: 'date-time', examples: ['2026-11-22T10:00:00.000Z'] }),
)

export const NullableTimestamp = Type.Unsafe<Date | string | null>({
  type: ['string', 'null'],
  format: 'date-time',
  examples: ['2026-11-22T10:00:00.000Z'],
})

/** `details` of a 400: every failing field with where it was sent. */
export const FieldIssues = Type.Array(
  Type.Object({
    field: Type.String({ examples: ['body.name'] }),
    message: Type.String({ examples: ['must NOT have fewer than 1 characters'] }),
  }),
  { description: 'the failing fields of a 400' },
)

/** A service's `errors(400, 401, …)`: response entries for the error statuses a route can answer. */
export function errorResponses<T extends TSchema>(body: T) {
  return (...statuses: number[]): Record<number, T> =>
    Object.fromEntries(statuses.map((status) => [status, body]))
}

/** An email address as accounts take it: compared and stored lower-cased. */
export const EmailAddress = Type.String({ format: 'email', maxLength: 254, examples: ['ada@example.com'] })

/**
 * A date filter: a date (`2026-11-01`, from the start of that UTC day; as an upper bound, the whole day)
 * or a date-time (without an offset, UTC).
 */
export const DateFilter = (description: string) =>
  Type.String({
    pattern: DATE_FILTER_PATTERN,
    description,
    examples: ['2026-11-01', '2026-11-22T10:00:00Z'],
  })

/** The answer of a route that answers 204. */
export const NoContent = Type.Null({ description: 'done' })
