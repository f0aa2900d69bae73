import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import AjvModule from 'ajv'
import { Type } from 'typebox'
import {
  addEdgeKeywords,
  INT4_MAX,
  isRealDate,
  MAX_JSON_DEPTH,
  nestsDeeperThan,
  someText,
  withEdgeRules,
} from '../../src/http/edge-values.ts'
import { DateFilter } from '../../src/http/schemas.ts'

const Ajv = AjvModule as unknown as typeof AjvModule.default

/** A validator as the apps compile a query (coercing text) or a body (exact), with the edge rules. */
function validator(schema: object, coerceTypes: 'array' | false) {
  const ajv = new Ajv({ coerceTypes, allErrors: true, strict: false })
  addEdgeKeywords(ajv)
  const validate = ajv.compile(withEdgeRules(schema))
  return (data: Record<string, unknown>) => {
    const copy = { ...data }
    return validate(copy)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`)
  }
}

const Query = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100 }),
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  search: Type.Optional(Type.String()),
  dateFrom: Type.Optional(DateFilter('from')),
})
const query = validator(Query, 'array')

const Body = Type.Object({
  name: Type.String(),
  tags: Type.Optional(Type.Array(Type.String())),
  expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  count: Type.Optional(Type.Integer()),
  extra: Type.Optional(Type.Unknown()),
})
const body = validator(Body, false)

describe('edge values', () => {
  it('text with NUL is refused wherever it is, in words', () => {
    assert.deepEqual(query({ limit: '1', search: 'a\u0000b' }), [
      '/search must not contain the NUL character',
    ])
    assert.deepEqual(body({ name: 'x', tags: ['ok', '\u0000'] }), [
      '/tags/1 must not contain the NUL character',
    ])
    assert.deepEqual(body({ name: 'x', extra: { deep: ['\u0000'] } }), [
      '/extra must not contain the NUL character',
    ])
    assert.deepEqual(body({ name: 'emoji 🙂 and RTL \u202e are text' }), [])
  })

  it('non-finite numbers never pass, even coerced from a query string', () => {
    for (const value of ['Infinity', '-Infinity', '1e400']) {
      assert.ok(query({ limit: value }).includes('/limit must be a finite number'), value)
    }
    assert.ok(body({ name: 'x', count: Number.POSITIVE_INFINITY }).includes('/count must be a finite number'))
  })

  it('an integer without bounds of its own fits Postgres integer', () => {
    assert.deepEqual(query({ limit: '1', page: String(INT4_MAX) }), [])
    assert.deepEqual(query({ limit: '1', page: '2147483648' }), ['/page must be <= 2147483647'])
    assert.deepEqual(query({ limit: '1', page: '1e20' }), ['/page must be <= 2147483647'])
    assert.deepEqual(body({ name: 'x', count: -2147483649 }), ['/count must be >= -2147483648'])
    assert.deepEqual(query({ limit: '101' }), ['/limit must be <= 100'], 'a declared bound stays')
  })

  it('dates are real days from year 1 to 9999', () => {
    assert.deepEqual(query({ limit: '1', dateFrom: '2026-11-01' }), [])
    for (const value of ['0000-01-01', '2026-02-30', '2026-13-01', '2026-11-01T24:00']) {
      assert.deepEqual(query({ limit: '1', dateFrom: value }), [
        '/dateFrom must be a real date from year 1 to 9999',
      ])
    }
    assert.deepEqual(body({ name: 'x', expiresAt: '0000-06-01T00:00:00Z' }), [
      '/expiresAt must be a real date from year 1 to 9999',
    ])
  })

  it('isRealDate reads the offset: a date-time past 9999 in UTC is out', () => {
    assert.equal(isRealDate('9999-12-31T23:00:00Z'), true)
    assert.equal(isRealDate('9999-12-31T23:00:00-14:00'), false)
    assert.equal(isRealDate('0001-01-01T00:00:00+01:00'), false)
    assert.equal(isRealDate('2028-02-29'), true)
    assert.equal(isRealDate('2026-02-29'), false)
    assert.equal(isRealDate('not a date'), true, 'other forms are left to the format or pattern')
  })

  it('leaves the schema it is given unchanged and property names alone', () => {
    const before = JSON.stringify(Body)
    const ruled = withEdgeRules(Body) as { properties: Record<string, unknown> }
    assert.equal(JSON.stringify(Body), before)
    assert.deepEqual(Object.keys(ruled.properties), ['name', 'tags', 'expiresAt', 'count', 'extra'])
    assert.equal(withEdgeRules(Body), ruled, 'one copy per schema')
  })

  it('the value walker reaches text 100,000 levels down without exhausting the stack', () => {
    const depth = 100_000
    let arrays: unknown = ['a\u0000b']
    let objects: unknown = { 'key\u0000': 1 }
    for (let level = 1; level < depth; level++) {
      arrays = [arrays]
      objects = { next: objects }
    }
    assert.equal(
      someText(arrays, (text) => text.includes('\u0000')),
      true,
    )
    assert.equal(
      someText(objects, (text) => text.includes('\u0000')),
      true,
      'keys are text too',
    )
    assert.equal(
      someText(objects, (text) => text === 'absent'),
      false,
    )
    assert.deepEqual(body({ name: 'x', extra: arrays }), ['/extra must not contain the NUL character'])
  })

  it('nesting is measured on the JSON text, in one pass, at any depth', () => {
    const nested = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`
    const objects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`
    assert.equal(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH), false)
    assert.equal(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH), true)
    assert.equal(nestsDeeperThan(objects(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH), true)
    assert.equal(nestsDeeperThan(nested(100_000), MAX_JSON_DEPTH), true)
    assert.equal(nestsDeeperThan(objects(100_000), MAX_JSON_DEPTH), true)
    // Brackets inside strings, escaped quotes included, are text, not nesting.
    const text = JSON.stringify({ a: `"\\${'['.repeat(1000)}`, b: '{'.repeat(1000) })
    assert.equal(nestsDeeperThan(text, MAX_JSON_DEPTH), false)
    assert.equal(
      nestsDeeperThan(`[${JSON.stringify('"]]]')}, ${nested(MAX_JSON_DEPTH)}]`, MAX_JSON_DEPTH),
      true,
    )
    // Siblings do not add up: a wide body is not a deep one.
    assert.equal(nestsDeeperThan(`[${Array(10_000).fill('[[1]]').join(',')}]`, MAX_JSON_DEPTH), false)
  })
})
