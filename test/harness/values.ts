import fc from 'fast-check'
import { DATE_FILTER_PATTERN } from '../../src/lib/dates.ts'
import type { Schema } from './openapi.ts'

/** A megabyte of text, built once. */
const MEGABYTE = 'x'.repeat(1_000_000)

/** Text that has broken services before: control and format characters, surrogates, sizes. */
export const ODD_TEXT: readonly string[] = [
  '',
  ' ',
  ' \t\r\n ',
  '\u0000',
  'a\u0000b',
  '\u202Eevil.exe\u202C',
  '\u200B\u200D\uFEFF',
  '🙂👩‍👩‍👧‍👦',
  'e\u0301\u0301\u0301',
  '\uD800',
  'x\uDC00y',
  '€'.repeat(300),
  'null',
  'undefined',
  '0',
  '-1',
  "'; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  'x'.repeat(101),
  'y'.repeat(5000),
  MEGABYTE,
  `${MEGABYTE.slice(1)}\u0000`,
]

/** Dates Postgres cannot hold, days that do not exist, and forms the filters do not read. */
export const ODD_DATES: readonly string[] = [
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '0001-01-01',
  '99999-01-01',
  '9999-12-31T23:59:59.999999Z',
  '2026-02-30',
  '2026-02-29T10:00:00Z',
  '2026-13-01',
  '2026-00-10',
  '2026-11-01T24:00:00Z',
  '2026-11-01T10:00:00+25:00',
  '2026-11-01T10:00',
  '2026-11-01 10:00:00',
  '+275760-09-13T00:00:00Z',
  '-001000-01-01',
  '1969-12-31T23:59:59Z',
]

/** Numbers as a query string or JSON text spells them: non-finite, out of every column's range, odd forms. */
export const ODD_NUMBER_TEXT: readonly string[] = [
  'Infinity',
  '-Infinity',
  'NaN',
  '1e400',
  '-1e400',
  '1e20',
  '-1',
  '0',
  '-0',
  '1.5',
  '2147483647',
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '0x10',
  '1e2',
  '+1',
  ' 1',
  '00001',
  'true',
  '[]',
  '{}',
]

/** Percent-encodings a URL decoder refuses (or decodes to something odd), sent as they are. */
export const BAD_ENCODINGS: readonly string[] = [
  '%zz',
  '%',
  '%C0%AF',
  '%E0%A4%A',
  '%ED%A0%80',
  '%FF',
  '%00',
  '%2e%2e%2f',
]

/** A JSON token written as it is: `1e400` parses as Infinity, which JSON.stringify cannot write. */
export class RawJson {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
  toJSON() {
    return `<raw ${this.text}>`
  }
}

/** A value taken, when the request is sent, from what earlier answers returned (an id, an email). */
export class Real {
  readonly pools: readonly string[]
  readonly pick: number
  readonly fallback: string
  constructor(pools: readonly string[], pick: number, fallback: string) {
    this.pools = pools
    this.pick = pick
    this.fallback = fallback
  }
  toJSON() {
    return `<real ${this.pools[0]} #${this.pick}>`
  }
}

/** Arrays nested `levels` deep, as JSON text. */
export const nestedArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
/** Objects nested `levels` deep, as JSON text. */
export const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}null${'}'.repeat(levels)}`

/**
 * Values of a size or shape that broke services before, built once: nesting just past the body parser's
 * bound and far past any call stack, arrays of thousands of items (wrong-typed for most fields, each a
 * failing field), and keys of any length or with control characters.
 */
export const ODD_SHAPES: readonly unknown[] = [
  new RawJson(nestedArrays(65)),
  new RawJson(nestedArrays(10_000)),
  new RawJson(nestedObjects(10_000)),
  new RawJson(`[${Array(5000).fill('1').join(',')}]`),
  new RawJson(`[${Array(5000).fill('{}').join(',')}]`),
  new RawJson(`[${Array(2000).fill('"x"').join(',')}]`),
  { ['k'.repeat(10_000)]: { deeper: [1] } },
  { ['\u0001\u0002\u001b'.repeat(1000)]: 'control characters in a key' },
  Object.fromEntries(Array.from({ length: 2000 }, (_, index) => [`key${index}`, [index]])),
]

/** JSON values of every type, for a field that expects another. */
export const ODD_JSON: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(0, -1, 1.5, 1e20, 2147483648, -2147483649, true, false, null, [], {}, [1, 'a'], {
    nested: { deeper: [null] },
  }),
  fc
    .constantFrom(...ODD_NUMBER_TEXT.filter((text) => /^-?\d|^-?Infinity|^NaN/.test(text)))
    .map((text) => new RawJson(/^-?(Infinity|NaN)/.test(text) || text === '-0' ? '1e400' : text)),
  fc.constantFrom(...ODD_TEXT),
  fc.constantFrom(...ODD_DATES),
  fc.string({ maxLength: 20 }),
  fc.constantFrom(...ODD_SHAPES),
)

const isoDate = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString())

const email = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9]{2,11}$/), fc.constantFrom('example.com', 'example.org'))
  .map(([local, domain]) => `${local}@${domain}`)

const plural = (name: string) => (name.endsWith('y') ? `${name.slice(0, -1)}ies` : `${name}s`)

/**
 * Where a field's real values are pooled: ids by the collection that answered them (`roleId` and `role`
 * by `roles`), emails, passwords and refresh tokens together; undefined for a field with no real values.
 */
export function poolsOfField(field: string, path: string): string[] | undefined {
  if (field === 'email') return ['email']
  if (/password$/i.test(field)) return ['password']
  if (field === 'refreshToken') return ['refreshToken']
  if (field === 'id' || field === 'ids') return [path, path.replace(/\/[^/]+$/, ''), 'any']
  const named = /^([a-z]+?)(?:Id|Ids)?$/.exec(field)?.[1]
  if (!named) return undefined
  const pools = [`${named}Id`, plural(named)]
  return /Ids?$/.test(field) ? [...pools, 'any'] : pools
}

function limits(schema: Schema, fallbackMax: number) {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : min + fallbackMax
  return { min, max: Math.min(max, min + fallbackMax) }
}

function validString(schema: Schema): fc.Arbitrary<string> {
  const { min, max } = limits(schema, 24)
  const fits = (text: string) => text.length >= min && text.length <= max
  switch (schema.format) {
    case 'email':
      return email
    case 'uuid':
      return fc.uuid()
    case 'date-time':
      return isoDate
    case 'date':
      return isoDate.map((text) => text.slice(0, 10))
    case 'uri':
      return fc.stringMatching(/^[a-z]{1,12}$/).map((word) => `https://example.com/${word}`)
  }
  if (schema.pattern === DATE_FILTER_PATTERN) {
    return fc.oneof(
      isoDate,
      isoDate.map((text) => text.slice(0, 10)),
    )
  }
  if (typeof schema.pattern === 'string') {
    const example = Array.isArray(schema.examples) ? (schema.examples[0] as string) : undefined
    const repeated = /^\^\[([^\]]+)\][+*]\$$/.exec(schema.pattern)
    if (repeated) {
      return fc.string({
        unit: fc.constantFrom(...charactersOf(repeated[1]!)),
        minLength: min,
        maxLength: max,
      })
    }
    // A generated match of the wrong length gives way to the documented example, never to a retry loop.
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .map((text) => (fits(text) ? text : (example ?? text)))
  }
  return fc
    .string({ minLength: min, maxLength: max })
    .map((text) => (text.trim() === '' && min > 0 ? 'x'.repeat(min) : text))
}

/** The characters of a regular expression's character class such as `a-zA-Z0-9_-`. */
function charactersOf(characterClass: string): string[] {
  const characters: string[] = []
  for (let i = 0; i < characterClass.length; i++) {
    const from = characterClass[i]!
    if (characterClass[i + 1] === '-' && i + 2 < characterClass.length) {
      const to = characterClass[i + 2]!
      for (let code = from.charCodeAt(0); code <= to.charCodeAt(0); code++)
        characters.push(String.fromCharCode(code))
      i += 2
    } else characters.push(from === '\\' ? characterClass[++i]! : from)
  }
  return characters
}

/** A value valid against `schema`, for the field named `field` of the route at `path`. */
export function validValue(schema: Schema, field: string, path: string): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]))
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (Array.isArray(union)) return fc.oneof(...union.map((member) => validValue(member, field, path)))
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined]
  if (types.length > 1) {
    return fc.oneof(...types.map((type) => validValue({ ...schema, type }, field, path)))
  }
  switch (types[0]) {
    case 'string': {
      const generated = validString(schema)
      const pools = poolsOfField(field, path)
      if (!pools) return generated
      // A real value where one exists (the fallback, a generated one, where none does yet).
      return fc.oneof(
        fc.tuple(fc.nat(), generated).map(([pick, text]) => new Real(pools, pick, text)),
        generated,
      )
    }
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0
      const max = typeof schema.maximum === 'number' ? schema.maximum : min + 50
      return fc.integer({ min, max })
    }
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0
      const max = typeof schema.maximum === 'number' ? schema.maximum : min + 50
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true })
    }
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array': {
      const items = (schema.items ?? {}) as Schema
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0
      const maxLength = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, minLength + 3)
      const item = validValue(items, field.replace(/s$/, ''), path)
      return schema.uniqueItems
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
        : fc.array(item, { minLength, maxLength })
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>
      const model = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, validValue(property, name, path)]),
      )
      const required = ((schema.required ?? []) as string[]).filter((name) => name in properties)
      return fc.record(model, { requiredKeys: required }) as fc.Arbitrary<unknown>
    }
    default:
      return fc.constantFrom<unknown>('text', 1, true, null)
  }
}

/** Every place in a JSON value that a mutation can hit: `[]` is the value itself. */
export function pathsIn(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix]
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) paths.push(...pathsIn(item, [...prefix, index]))
  } else if (
    value !== null &&
    typeof value === 'object' &&
    !(value instanceof Real || value instanceof RawJson)
  ) {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsIn(item, [...prefix, key]))
  }
  return paths
}

/** A copy of `value` with the thing at `path` replaced (`replacement`) or removed (undefined). */
export function withAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement
  const [head, ...rest] = path as [string | number, ...(string | number)[]]
  if (Array.isArray(value)) {
    const copy = [...value]
    if (rest.length === 0 && replacement === undefined) copy.splice(head as number, 1)
    else copy[head as number] = withAt(copy[head as number], rest, replacement)
    return copy
  }
  const copy = { ...(value as Record<string, unknown>) }
  if (rest.length === 0 && replacement === undefined) delete copy[head as string]
  else copy[head as string] = withAt(copy[head as string], rest, replacement)
  return copy
}
