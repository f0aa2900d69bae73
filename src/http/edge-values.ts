import type { Ajv } from 'ajv'
import { DATE_FILTER_PATTERN } from '../lib/dates.ts'
import { HttpError } from '../lib/errors.ts'

/**
 * Values the database cannot hold are refused at the edge, by one rule each for every schema a route
 * declares (params, query, body), rather than by the database as a 500:
 * - text never contains NUL, which Postgres cannot store;
 * - a number is finite, and an integer without its own bounds fits Postgres' `integer` (so `Infinity`,
 *   `1e400` and `2147483648` never pass);
 * - a date or date-time names a real day (not 2026-02-30) from year 1 to 9999, the years the database and
 *   ISO 8601 share.
 * A JSON body nests at most MAX_JSON_DEPTH levels, and the checks here walk values without recursion, so
 * no depth of input can exhaust the call stack.
 */

export const INT4_MIN = -2147483648
export const INT4_MAX = 2147483647

const NO_NUL = 'noNul'
const FINITE = 'finite'
const REAL_DATE = 'realDate'

type Schema = Record<string, unknown>

/**
 * The deepest a JSON body may nest arrays and objects (the body itself is level 1). The deepest payload
 * this API takes is a navigation menu, under 10 levels; free-form JSON (plugin metadata) gets the rest.
 * A deeper body is refused before it is parsed, so nothing after (validation, the database's jsonb,
 * the serializer) meets it.
 */
export const MAX_JSON_DEPTH = 64

/** The 400 of a body nested deeper than MAX_JSON_DEPTH. */
export const tooDeep = () =>
  new HttpError(
    400,
    'JSON_TOO_DEEP',
    `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
  )

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

/**
 * Whether JSON text nests arrays and objects deeper than `limit`: one pass over the text, brackets inside
 * strings skipped. A body too short to hold that many brackets is not read.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  if (text.length <= 2 * limit) return false
  let depth = 0
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at)
    if (char === QUOTE) {
      for (at++; at < text.length; at++) {
        const inside = text.charCodeAt(at)
        if (inside === BACKSLASH) at++
        else if (inside === QUOTE) break
      }
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      if (++depth > limit) return true
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) depth--
  }
  return false
}

/**
 * Whether any text in a JSON value, object keys included, passes `test`. Iterative (an explicit stack), so
 * a value of any depth is walked without exhausting the call stack.
 */
export function someText(value: unknown, test: (text: string) => boolean): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next === 'string') {
      if (test(next)) return true
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item)
    } else if (next !== null && typeof next === 'object') {
      for (const key of Object.keys(next)) {
        if (test(key)) return true
        pending.push((next as Record<string, unknown>)[key])
      }
    }
  }
  return false
}

const containsNul = (text: string) => text.includes('\u0000')
const hasNul = (value: unknown) => someText(value, containsNul)

// `2026-11-01`, `2026-11-01T10:00`, `2026-11-01T10:00:00.5+01:00`: the forms a date filter or a date-time takes.
const DATE_PARTS =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(?:[Zz]|([+-])(\d{2}):(\d{2}))?$/

const YEAR_MS = (year: number) => {
  const at = new Date(0)
  at.setUTCFullYear(year, 0, 1)
  return at.getTime()
}
const FIRST_INSTANT = YEAR_MS(1)
const PAST_LAST_INSTANT = YEAR_MS(10000)

/**
 * Whether a date or date-time names a real moment from year 1 to 9999 (after its offset). Text in another
 * form is left to the schema's own format or pattern.
 */
export function isRealDate(text: string): boolean {
  const parts = DATE_PARTS.exec(text)
  if (!parts) return true
  const [year, month, day, hour = 0, minute = 0, second = 0] = parts
    .slice(1, 7)
    .map((part) => Number(part ?? 0))
  const [sign, offsetHours = 0, offsetMinutes = 0] = [parts[7], Number(parts[8] ?? 0), Number(parts[9] ?? 0)]
  if (hour! > 23 || minute! > 59 || second! > 59 || offsetHours > 23 || offsetMinutes > 59) return false
  const at = new Date(0)
  at.setUTCFullYear(year!, month! - 1, day!)
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month! - 1 || at.getUTCDate() !== day) return false
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
  const instant = at.getTime() + ((hour! * 60 + minute!) * 60 + second!) * 1000 - offsetMs
  return instant >= FIRST_INSTANT && instant < PAST_LAST_INSTANT
}

/** The keywords of the rules; added to every ajv instance that compiles route schemas. */
export function addEdgeKeywords(ajv: Ajv) {
  ajv.addKeyword({
    keyword: NO_NUL,
    schemaType: 'boolean',
    errors: false,
    error: { message: 'must not contain the NUL character' },
    validate: (enabled: boolean, data: unknown) => !enabled || !hasNul(data),
  })
  // A query value such as `Infinity` or `1e400` is coerced to Infinity, for which ajv skips every numeric
  // keyword (bounds included): this one is untyped so that it still runs.
  ajv.addKeyword({
    keyword: FINITE,
    schemaType: 'boolean',
    errors: false,
    error: { message: 'must be a finite number' },
    validate: (enabled: boolean, data: unknown) =>
      !enabled || typeof data !== 'number' || Number.isFinite(data),
  })
  ajv.addKeyword({
    keyword: REAL_DATE,
    type: 'string',
    schemaType: 'boolean',
    errors: false,
    error: { message: 'must be a real date from year 1 to 9999' },
    validate: (enabled: boolean, data: string) => !enabled || isRealDate(data),
  })
}

const typesOf = (schema: Schema): string[] =>
  Array.isArray(schema.type)
    ? (schema.type as string[])
    : typeof schema.type === 'string'
      ? [schema.type]
      : []

/** A schema that takes any value (no type, enum, const, reference or union). */
const takesAnything = (schema: Schema) =>
  typesOf(schema).length === 0 &&
  !['enum', 'const', '$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'properties', 'items'].some(
    (key) => key in schema,
  )

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const SCHEMAS = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
]

const normalised = new WeakMap<object, Schema>()

/**
 * A copy of `schema` with the rules on every node: `noNul` on text (and on values of any type), `finite`
 * on numbers and int4 bounds on integers that declare none, `realDate` on dates, date-times and date filters. The input is not changed.
 */
export function withEdgeRules<T>(schema: T): T {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema
  const known = normalised.get(schema)
  if (known) return known as T
  const copy: Schema = { ...(schema as Schema) }
  for (const key of SCHEMA_MAPS) {
    const map = copy[key]
    if (map && typeof map === 'object') {
      copy[key] = Object.fromEntries(
        Object.entries(map).map(([name, member]) => [name, withEdgeRules(member)]),
      )
    }
  }
  for (const key of SCHEMA_LISTS) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(withEdgeRules)
  }
  for (const key of SCHEMAS) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(withEdgeRules)
    else if (key in copy) copy[key] = withEdgeRules(copy[key])
  }
  const types = typesOf(copy)
  if (types.includes('string') || takesAnything(copy)) copy[NO_NUL] = true
  if (types.includes('integer') || types.includes('number')) copy[FINITE] = true
  if (types.includes('integer')) {
    if (copy.maximum === undefined && copy.exclusiveMaximum === undefined) copy.maximum = INT4_MAX
    if (copy.minimum === undefined && copy.exclusiveMinimum === undefined) copy.minimum = INT4_MIN
  }
  if (
    types.includes('string') &&
    (copy.format === 'date' || copy.format === 'date-time' || copy.pattern === DATE_FILTER_PATTERN)
  ) {
    copy[REAL_DATE] = true
  }
  normalised.set(schema, copy)
  return copy as T
}
