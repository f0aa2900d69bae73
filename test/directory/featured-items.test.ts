import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { featuredItems } from '../../src/directory/featured/tables.ts'
import { type DirectoryHarness, startDirectory, until } from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

const BASE = '/api/admin/featured-items'
const DAY = 86_400_000

let h: DirectoryHarness
let admin: string
/** The admin's requests, as the web app sends them. */
let api: Requests

before(async () => {
  h = await startDirectory()
  admin = await h.adminCookie()
  api = siteRequests(h, { cookie: admin })
})
after(() => h.close())
// The shelf is one list for the whole directory: each test starts from an empty one.
beforeEach(async () => {
  await h.databases.directory.db.delete(featuredItems)
  // A write through the API clears the instances' caches of what was just removed underneath.
  const res = await api.post(BASE, { itemSlug: 'x', itemName: 'x' })
  await api.delete(`${BASE}/${res.json().data.id}`)
})

async function feature(fields: Record<string, unknown>) {
  const res = await api.post(BASE, { itemName: String(fields.itemSlug), ...fields })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as { id: string; itemSlug: string }
}

const shelf = async (query = '', target = h) => {
  const res = await api.on(target).get(`/api/featured-items${query}`, { cookie: null })
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as { success: boolean; data: { itemSlug: string }[]; count: number }
}
const slugs = (answer: { data: { itemSlug: string }[] }) => answer.data.map((item) => item.itemSlug)

describe('featured items: the public shelf', () => {
  it('active only, not expired unless includeExpired, featuredOrder then featuredAt descending, limit', async () => {
    const now = h.clock.nowMs()
    const at = (days: number) => new Date(now + days * DAY).toISOString()
    await feature({ itemSlug: 'low', featuredOrder: 1, featuredAt: at(-3) })
    await feature({ itemSlug: 'high-old', featuredOrder: 5, featuredAt: at(-5) })
    await feature({ itemSlug: 'high-new', featuredOrder: 5, featuredAt: at(-1), featuredUntil: at(2) })
    await feature({ itemSlug: 'expired', featuredOrder: 9, featuredAt: at(-10), featuredUntil: at(-1) })
    await feature({ itemSlug: 'inactive', featuredOrder: 9, isActive: false })

    const answer = await shelf()
    assert.equal(answer.success, true)
    assert.deepEqual(slugs(answer), ['high-new', 'high-old', 'low'])
    assert.equal(answer.count, 3)
    assert.deepEqual(slugs(await shelf('?includeExpired=true')), ['expired', 'high-new', 'high-old', 'low'])
    assert.deepEqual(slugs(await shelf('?limit=2')), ['high-new', 'high-old'])

    // Time passes: an entry leaves the shelf when its featuredUntil does, with no write to clear a cache.
    h.clock.advance(3 * DAY)
    try {
      assert.deepEqual(slugs(await shelf()), ['high-old', 'low'])
    } finally {
      h.clock.advance(-3 * DAY)
    }
  })

  it('limit is 1 to 50, default 6; the answer carries each item’s display fields', async () => {
    for (let n = 0; n < 8; n++) await feature({ itemSlug: `item-${n}`, featuredOrder: n })
    assert.equal((await shelf()).count, 6)
    for (const limit of ['0', '51', 'abc']) {
      const res = await api.get(`/api/featured-items?limit=${limit}`, { cookie: null })
      assert.equal(res.statusCode, 400, limit)
      assert.equal(res.json().details[0].field, 'query.limit')
    }
    const created = await feature({
      itemSlug: 'shown',
      itemName: 'Shown <b>bold</b>',
      itemDescription: '<script>x</script>',
      itemIconUrl: 'https://cdn.example.com/i.png',
      featuredOrder: 100,
    })
    const [first] = (await shelf('?limit=1')).data as unknown as Record<string, unknown>[]
    assert.equal(first!.id, created.id)
    assert.equal(first!.itemName, 'Shown <b>bold</b>')
    assert.equal(first!.itemDescription, '<script>x</script>')
    assert.equal(first!.itemImageUrl, null)
    assert.equal(first!.featuredUntil, null)
  })
})

describe('featured items: admin', () => {
  it('create, read, list, update, delete', async () => {
    const created = await feature({ itemSlug: 'coffee', itemName: 'Coffee', featuredOrder: 3 })
    const read = await api.get(`${BASE}/${created.id}`)
    assert.equal(read.statusCode, 200)
    assert.equal(read.json().data.itemName, 'Coffee')
    assert.equal(read.json().data.updatedAt, null)

    const list = await api.get(`${BASE}?page=1&limit=10`)
    assert.equal(list.statusCode, 200)
    assert.equal(list.json().meta.total, 1)
    assert.deepEqual(
      list.json().data.map((item: { id: string }) => item.id),
      [created.id],
    )

    const changed = await api.put(`${BASE}/${created.id}`, { itemName: 'Coffee & Tea', isActive: false })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.equal(changed.json().data.itemName, 'Coffee & Tea')
    assert.equal(changed.json().data.isActive, false)
    assert.ok(changed.json().data.updatedAt)
    assert.deepEqual(slugs(await shelf()), [])
    assert.equal((await api.get(`${BASE}?isActive=false`)).json().meta.total, 1)
    assert.equal((await api.get(`${BASE}?isActive=true`)).json().meta.total, 0)

    const removed = await api.delete(`${BASE}/${created.id}`)
    assert.equal(removed.statusCode, 200)
    assert.deepEqual(removed.json(), { success: true, message: 'Featured item deleted' })
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await api.request(method, `${BASE}/${created.id}`, {
        body: method === 'PUT' ? { featuredOrder: 1 } : undefined,
      })
      assert.equal(res.statusCode, 404, method)
      assert.equal(res.json().code, 'FEATURED_ITEM_NOT_FOUND')
    }
    assert.equal((await api.get(`${BASE}/not-a-uuid`)).statusCode, 404)
  })

  it('bad input is 400 naming the field: a window that ends before it starts, empty names, no change', async () => {
    const at = new Date(h.clock.nowMs()).toISOString()
    const backwards = await api.post(BASE, {
      itemSlug: 'a',
      itemName: 'A',
      featuredAt: at,
      featuredUntil: at,
    })
    assert.equal(backwards.statusCode, 400)
    assert.equal(backwards.json().details[0].field, 'body.featuredUntil')
    const empty = await api.post(BASE, { itemSlug: '', itemName: '' })
    assert.equal(empty.statusCode, 400)
    assert.deepEqual(
      empty
        .json()
        .details.map((detail: { field: string }) => detail.field)
        .sort(),
      ['body.itemName', 'body.itemSlug'],
    )
    const script = await api.post(BASE, {
      itemSlug: 'c',
      itemName: 'C',
      itemImageUrl: 'javascript:alert(1)',
    })
    assert.equal(script.statusCode, 400)
    assert.equal(script.json().details[0].field, 'body.itemImageUrl')
    const created = await feature({ itemSlug: 'b' })
    assert.equal((await api.put(`${BASE}/${created.id}`, {})).statusCode, 400)
    const late = await api.put(`${BASE}/${created.id}`, {
      featuredUntil: new Date(h.clock.nowMs() - DAY).toISOString(),
    })
    assert.equal(late.statusCode, 400)
    assert.equal(late.json().details[0].field, 'body.featuredUntil')
  })
})

describe('featured items: the shelf cache across instances', () => {
  let other: DirectoryHarness
  before(async () => {
    other = await startDirectory({ databases: h.databases, clockStart: h.clock.nowMs() })
  })
  after(() => other.close())

  it('a write on one instance shows on the other', async () => {
    // Warms the other instance's cache first, so only an invalidation can show the change.
    assert.deepEqual(slugs(await shelf('', other)), [])
    const created = await feature({ itemSlug: 'fresh', featuredOrder: 1 })
    await until(async () => slugs(await shelf('', other)).includes('fresh'), 'the new entry is seen')
    await api.put(`${BASE}/${created.id}`, { isActive: false })
    await until(async () => slugs(await shelf('', other)).length === 0, 'the deactivation is seen')
  })
})
