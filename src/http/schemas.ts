import { Type } from 'typebox'

/** A timestamp in an answer: handlers return Dates, the serializer writes ISO 8601 strings. */
export const Timestamp = Type.Unsafe<Date | string>(
  Type.String({ format: 'date-time', examples: ['2026-11-22T10:00:00.000Z'] }),
)

export const NullableTimestamp = Type.Unsafe<Date | string | null>({
  type: ['string', 'null'],
  format: 'date-time',
  examples: ['2026-11-22T10:00:00.000Z'],
})
