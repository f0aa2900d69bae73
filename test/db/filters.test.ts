import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { and, asc, inArray, type SQL } from 'drizzle-orm'
import { anyContaining, containing, endingWith, likeLiteral, withinDates } from '../../src/db/filters.ts'
import { categories } from '../../src/directory/categories/tables.ts'
import { parseDateRange } from '../../src/lib/dates.ts'
import { createTestDatabases, type TestDatabases } from '../helpers/database.ts'

let databases: TestDatabases
before(async () => {
  databases = await createTestDatabases()
})
after(() => databases.close())

interface CategoryRow {
  id: string
  name: string
  createdAt?: Date
}

/** Inserts `rows` into directory.categories, runs `check`, and deletes them again. */
async function withCategories(rows: CategoryRow[], check: (ids: string[]) => Promise<void>) {
  const db = databases.directory.db
  const at = new Date('2026-01-01T00:00:00Z')
  await db
    .insert(categories)
    .values(rows.map((row) => ({ ...row, createdAt: row.createdAt ?? at, updatedAt: at })))
  const ids = rows.map((row) => row.id)
  try {
    await check(ids)
  } finally {
    await db.delete(categories).where(inArray(categories.id, ids))
  }
}

/** The ids among `ids` whose rows meet every condition, in id order. */
async function idsWhere(ids: string[], ...conditions: SQL[]): Promise<string[]> {
  const rows = await databases.directory.db
    .select({ id: categories.id })
    .from(categories)
    .where(and(inArray(categories.id, ids), ...conditions))
    .orderBy(asc(categories.id))
  return rows.map((row) => row.id)
}

describe('likeLiteral', () => {
  it('escapes %, _ and the escape character itself', () => {
    assert.equal(likeLiteral('100%_a\\b'), '100\\%\\_a\\\\b')
    assert.equal(likeLiteral('plain'), 'plain')
  })
})

describe('containing', () => {
  it('a % in the search matches a % only', async () => {
    await withCategories(
      [
        { id: 'f-percent', name: '100% pure' },
        { id: 'f-no-percent', name: '100 pure' },
        { id: 'f-more', name: '1000 pure' },
      ],
      async (ids) => {
        assert.deepEqual(await idsWhere(ids, containing(categories.name, '100%')), ['f-percent'])
      },
    )
  })

  it('an _ in the search matches an _ only, not any one character', async () => {
    await withCategories(
      [
        { id: 'f-underscore', name: 'snake_case' },
        { id: 'f-letter', name: 'snakeXcase' },
      ],
      async (ids) => {
        assert.deepEqual(await idsWhere(ids, containing(categories.name, 'e_c')), ['f-underscore'])
      },
    )
  })

  it('a backslash in the search matches a backslash', async () => {
    await withCategories(
      [
        { id: 'f-backslash', name: 'C:\\tools' },
        { id: 'f-plain', name: 'C:tools' },
      ],
      async (ids) => {
        assert.deepEqual(await idsWhere(ids, containing(categories.name, ':\\t')), ['f-backslash'])
        assert.deepEqual(await idsWhere(ids, containing(categories.name, '\\')), ['f-backslash'])
      },
    )
  })

  it('matches whatever the case, anywhere in the value', async () => {
    await withCategories(
      [
        { id: 'f-upper', name: 'COFFEE SHOPS' },
        { id: 'f-mixed', name: 'Best Coffee' },
        { id: 'f-other', name: 'Tea rooms' },
      ],
      async (ids) => {
        assert.deepEqual(await idsWhere(ids, containing(categories.name, 'coffee')), ['f-mixed', 'f-upper'])
        assert.deepEqual(await idsWhere(ids, containing(categories.name, 'cOfFeE s')), ['f-upper'])
      },
    )
  })
})

describe('anyContaining', () => {
  it('matches a row where either column contains the text', async () => {
    await withCategories(
      [
        { id: 'f-coffee-by-id', name: 'Espresso bars' },
        { id: 'f-roasters', name: 'Coffee roasters' },
        { id: 'f-tea', name: 'Tea rooms' },
      ],
      async (ids) => {
        assert.deepEqual(await idsWhere(ids, anyContaining([categories.id, categories.name], 'COFFEE')), [
          'f-coffee-by-id',
          'f-roasters',
        ])
      },
    )
  })

  it('escapes the text in every column', async () => {
    await withCategories(
      [
        { id: 'f-50pct', name: '50% off' },
        { id: 'f-50', name: '50 off' },
      ],
      async (ids) => {
        assert.deepEqual(await idsWhere(ids, anyContaining([categories.id, categories.name], '50%')), [
          'f-50pct',
        ])
      },
    )
  })
})

describe('endingWith', () => {
  it('matches an email domain at the end only, whatever the case, with _ taken literally', async () => {
    await withCategories(
      [
        { id: 'f-mail-1', name: 'ann@example.com' },
        { id: 'f-mail-2', name: 'bob@EXAMPLE.COM' },
        { id: 'f-mail-3', name: 'eve@example.com.evil.org' },
        { id: 'f-mail-4', name: 'sam@notexample.com' },
        { id: 'f-mail-5', name: 'kim@my_site.org' },
        { id: 'f-mail-6', name: 'lee@myXsite.org' },
      ],
      async (ids) => {
        assert.deepEqual(await idsWhere(ids, endingWith(categories.name, '@example.com')), [
          'f-mail-1',
          'f-mail-2',
        ])
        assert.deepEqual(await idsWhere(ids, endingWith(categories.name, '@my_site.org')), ['f-mail-5'])
      },
    )
  })
})

describe('withinDates', () => {
  const rows: CategoryRow[] = [
    { id: 'f-d1', name: 'd1', createdAt: new Date('2026-10-31T23:59:59.999Z') },
    { id: 'f-d2', name: 'd2', createdAt: new Date('2026-11-01T00:00:00.000Z') },
    { id: 'f-d3', name: 'd3', createdAt: new Date('2026-11-15T12:00:00.000Z') },
    { id: 'f-d4', name: 'd4', createdAt: new Date('2026-11-15T12:00:00.001Z') },
    { id: 'f-d5', name: 'd5', createdAt: new Date('2026-11-30T23:59:59.999Z') },
    { id: 'f-d6', name: 'd6', createdAt: new Date('2026-12-01T00:00:00.000Z') },
  ]
  const fields = { from: 'dateFrom', to: 'dateTo' }
  const within = (from: string | undefined, to: string | undefined) =>
    withinDates(categories.createdAt, parseDateRange({ from, to }, fields))

  it('bare dates include the first day from its midnight and the whole last day, nothing after', async () => {
    await withCategories(rows, async (ids) => {
      assert.deepEqual(await idsWhere(ids, ...within('2026-11-01', '2026-11-30')), [
        'f-d2',
        'f-d3',
        'f-d4',
        'f-d5',
      ])
    })
  })

  it('a date-time upper bound includes a row exactly at it and excludes one a millisecond later', async () => {
    await withCategories(rows, async (ids) => {
      assert.deepEqual(await idsWhere(ids, ...within('2026-11-01T00:00:00Z', '2026-11-15T12:00:00Z')), [
        'f-d2',
        'f-d3',
      ])
    })
  })

  it('a date-time lower bound includes a row exactly at it', async () => {
    await withCategories(rows, async (ids) => {
      assert.deepEqual(await idsWhere(ids, ...within('2026-11-15T12:00:00.001Z', undefined)), [
        'f-d4',
        'f-d5',
        'f-d6',
      ])
    })
  })

  it('an offset on a bound is honoured', async () => {
    await withCategories(rows, async (ids) => {
      assert.deepEqual(await idsWhere(ids, ...within(undefined, '2026-11-15T14:00:00+02:00')), [
        'f-d1',
        'f-d2',
        'f-d3',
      ])
    })
  })

  it('an upper bare date alone keeps everything before the next midnight', async () => {
    await withCategories(rows, async (ids) => {
      assert.deepEqual(await idsWhere(ids, ...within(undefined, '2026-10-31')), ['f-d1'])
    })
  })

  it('an open range has no conditions and keeps every row', async () => {
    assert.deepEqual(withinDates(categories.createdAt, {}), [])
    await withCategories(rows, async (ids) => {
      assert.deepEqual(
        await idsWhere(ids, ...within(undefined, undefined)),
        rows.map((row) => row.id),
      )
    })
  })
})
