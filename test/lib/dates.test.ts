import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseDateBound, parseDateRange } from '../../src/lib/dates.ts'
import { InputError } from '../../src/lib/errors.ts'

const FIELDS = { from: 'dateFrom', to: 'dateTo' }

/** Asserts that `run` throws a 400 InputError whose first issue names `field`. */
function assertInvalid(run: () => unknown, field: string) {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof InputError, `expected an InputError, got ${String(error)}`)
    assert.equal(error.status, 400)
    assert.equal(error.issues[0]?.field, field)
    return true
  })
}

describe('parseDateBound', () => {
  it('a bare date is the start of that UTC day', () => {
    assert.equal(parseDateBound('dateFrom', '2026-11-01').toISOString(), '2026-11-01T00:00:00.000Z')
  })

  it('a date-time without an offset is read as UTC', () => {
    assert.equal(parseDateBound('dateFrom', '2026-11-01T10:30:00').toISOString(), '2026-11-01T10:30:00.000Z')
  })

  it('a date-time with an offset keeps its offset', () => {
    assert.equal(
      parseDateBound('dateFrom', '2026-11-01T10:30:00+02:00').toISOString(),
      '2026-11-01T08:30:00.000Z',
    )
    assert.equal(
      parseDateBound('dateFrom', '2026-11-01T10:30:00-05:00').toISOString(),
      '2026-11-01T15:30:00.000Z',
    )
    assert.equal(parseDateBound('dateFrom', '2026-11-01T10:30:00Z').toISOString(), '2026-11-01T10:30:00.000Z')
  })

  it('a leap day is a date in a leap year only', () => {
    assert.equal(parseDateBound('dateFrom', '2028-02-29').toISOString(), '2028-02-29T00:00:00.000Z')
    assertInvalid(() => parseDateBound('dateFrom', '2026-02-29'), 'dateFrom')
  })

  for (const [what, value] of [
    ['February 30', '2026-02-30'],
    ['month 13', '2026-13-01'],
    ['day 0', '2026-01-00'],
    ['hour 25', '2026-11-01T25:00:00'],
    ['a year below 1000', '0999-01-01'],
    ['a year below 100', '0050-01-01'],
    ['text', 'yesterday'],
    ['an empty string', ''],
    ['February 30 with a time', '2026-02-30T10:00:00Z'],
  ] as const) {
    it(`${what} is a 400 naming the field`, () => {
      assertInvalid(() => parseDateBound('createdFrom', value), 'createdFrom')
    })
  }
  it('text that is not an ISO 8601 date or date-time is a 400', () => {
    assertInvalid(() => parseDateBound('dateFrom', '2026-11-01 junk'), 'dateFrom')
    assertInvalid(() => parseDateBound('dateFrom', '2026-1-5'), 'dateFrom')
  })
})

describe('parseDateRange', () => {
  it('bare dates: from the start of the first day to before the midnight after the last', () => {
    const range = parseDateRange({ from: '2026-11-01', to: '2026-11-30' }, FIELDS)
    assert.deepEqual(range, {
      from: new Date('2026-11-01T00:00:00Z'),
      before: new Date('2026-12-01T00:00:00Z'),
    })
  })

  it('a bare upper date at the end of a year covers the whole of December 31', () => {
    const range = parseDateRange({ to: '2026-12-31' }, FIELDS)
    assert.deepEqual(range, { before: new Date('2027-01-01T00:00:00Z') })
  })

  it('a bare upper date of 9999-12-31 ends at its last moment, not at a year-10000 midnight', () => {
    const range = parseDateRange({ to: '9999-12-31' }, FIELDS)
    assert.deepEqual(range, { until: new Date('9999-12-31T23:59:59.999Z') })
  })

  it('a date-time as the upper bound is inclusive (until), not before', () => {
    const range = parseDateRange({ from: '2026-11-01T08:00:00Z', to: '2026-11-01T18:00:00' }, FIELDS)
    assert.deepEqual(range, {
      from: new Date('2026-11-01T08:00:00Z'),
      until: new Date('2026-11-01T18:00:00Z'),
    })
  })

  it('an upper date-time with an offset is converted to UTC', () => {
    const range = parseDateRange({ to: '2026-11-01T18:00:00+02:00' }, FIELDS)
    assert.deepEqual(range, { until: new Date('2026-11-01T16:00:00Z') })
  })

  it('open ranges: only the bounds given are set', () => {
    assert.deepEqual(parseDateRange({}, FIELDS), {})
    assert.deepEqual(parseDateRange({ from: undefined, to: undefined }, FIELDS), {})
    assert.deepEqual(parseDateRange({ from: '2026-11-01' }, FIELDS), {
      from: new Date('2026-11-01T00:00:00Z'),
    })
    assert.deepEqual(parseDateRange({ to: '2026-11-01' }, FIELDS), {
      before: new Date('2026-11-02T00:00:00Z'),
    })
  })

  it('an invalid lower bound names the from field', () => {
    assertInvalid(() => parseDateRange({ from: '2026-02-30', to: '2026-03-01' }, FIELDS), 'dateFrom')
  })

  it('an invalid upper bound names the to field', () => {
    assertInvalid(() => parseDateRange({ from: '2026-03-01', to: '2026-13-01' }, FIELDS), 'dateTo')
    assertInvalid(() => parseDateRange({ to: '2026-03-01T25:00:00' }, FIELDS), 'dateTo')
    assertInvalid(() => parseDateRange({ to: '0999-12-31' }, FIELDS), 'dateTo')
  })
})
