import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { fetchPage, offsetOf, pageMeta } from '../../src/lib/pagination.ts'

describe('offsetOf', () => {
  it('skips the rows of the pages before', () => {
    assert.equal(offsetOf({ page: 1, limit: 10 }), 0)
    assert.equal(offsetOf({ page: 2, limit: 10 }), 10)
    assert.equal(offsetOf({ page: 5, limit: 25 }), 100)
  })
})

describe('pageMeta', () => {
  it('an empty list has no pages, and neither a next nor a previous one', () => {
    assert.deepEqual(pageMeta(0, { page: 1, limit: 10 }), {
      page: 1,
      limit: 10,
      total: 0,
      totalPages: 0,
      hasNext: false,
      hasPrev: false,
    })
  })

  it('a partial last page counts as a page', () => {
    assert.equal(pageMeta(41, { page: 1, limit: 10 }).totalPages, 5)
    assert.equal(pageMeta(40, { page: 1, limit: 10 }).totalPages, 4)
    assert.equal(pageMeta(1, { page: 1, limit: 10 }).totalPages, 1)
  })

  it('the first page has a next page but no previous one', () => {
    const meta = pageMeta(42, { page: 1, limit: 10 })
    assert.deepEqual(meta, { page: 1, limit: 10, total: 42, totalPages: 5, hasNext: true, hasPrev: false })
  })

  it('a middle page has both', () => {
    const meta = pageMeta(42, { page: 3, limit: 10 })
    assert.equal(meta.hasNext, true)
    assert.equal(meta.hasPrev, true)
  })

  it('the last page has a previous page but no next one', () => {
    const meta = pageMeta(42, { page: 5, limit: 10 })
    assert.equal(meta.hasNext, false)
    assert.equal(meta.hasPrev, true)
  })

  it('a page past the end has no next page', () => {
    const meta = pageMeta(42, { page: 9, limit: 10 })
    assert.equal(meta.totalPages, 5)
    assert.equal(meta.hasNext, false)
    assert.equal(meta.hasPrev, true)
  })
})

describe('fetchPage', () => {
  it('reads the rows with the limit and offset of the page, and the total, and returns both', async () => {
    const calls: Array<[number, number]> = []
    let totals = 0
    const page = await fetchPage(
      { page: 3, limit: 20 },
      {
        rows: async (limit, offset) => {
          calls.push([limit, offset])
          return ['a', 'b']
        },
        total: async () => {
          totals++
          return 42
        },
      },
    )
    assert.deepEqual(calls, [[20, 40]])
    assert.equal(totals, 1)
    assert.deepEqual(page, {
      items: ['a', 'b'],
      meta: { page: 3, limit: 20, total: 42, totalPages: 3, hasNext: false, hasPrev: true },
    })
  })

  it('starts both reads before either finishes', async () => {
    const started: string[] = []
    let releaseRows: (rows: number[]) => void = () => {}
    const rowsDone = new Promise<number[]>((resolve) => {
      releaseRows = resolve
    })
    const result = fetchPage(
      { page: 1, limit: 10 },
      {
        rows: () => {
          started.push('rows')
          return rowsDone
        },
        total: async () => {
          started.push('total')
          return 1
        },
      },
    )
    assert.deepEqual(started, ['rows', 'total'])
    releaseRows([7])
    assert.deepEqual((await result).items, [7])
  })

  it('a failing read fails the page', async () => {
    await assert.rejects(
      fetchPage(
        { page: 1, limit: 10 },
        { rows: async () => [], total: () => Promise.reject(new Error('count failed')) },
      ),
      /count failed/,
    )
  })
})
