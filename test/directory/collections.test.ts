import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { after, before, beforeEach, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { collections } from '../../src/directory/collections/tables.ts'
import { items } from '../../src/directory/items/tables.ts'
import { type DirectoryHarness, sessionCookie, startDirectory, uniqueEmail, until } from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

const BASE = '/api/admin/collections'
const EXISTS = '/api/collections/exists'

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

interface Collection {
  id: string
  slug: string
  name: string
  description: string | null
  isActive: boolean
  itemCount: number
  createdAt: string
  updatedAt: string
}

interface Entry {
  position: number
  addedAt: string
  item: {
    id: string
    slug: string
    name: string
    status: string
    iconUrl: string | null
    categoryId: string | null
  }
}

const unique = () => randomBytes(4).toString('hex')

/** An item row, as the items module would store it (its routes are not what is tested here). */
async function item(fields: Partial<typeof items.$inferInsert> = {}): Promise<string> {
  const now = h.clock.now()
  const slug = `item-${unique()}`
  const [row] = await h.databases.directory.db
    .insert(items)
    .values({ slug, name: `Item ${slug}`, status: 'published', createdAt: now, updatedAt: now, ...fields })
    .returning({ id: items.id })
  return row!.id
}

async function create(body: Record<string, unknown> = {}): Promise<Collection> {
  const res = await api.post(BASE, { name: `Collection ${unique()}`, ...body })
  assert.equal(res.statusCode, 201, res.body)
  assert.equal(res.json().success, true)
  return res.json().data
}

async function entries(id: string): Promise<Entry[]> {
  const res = await api.get(`${BASE}/${id}/items`)
  assert.equal(res.statusCode, 200, res.body)
  assert.equal(res.json().count, res.json().data.length)
  return res.json().data
}
const itemIdsOf = (list: Entry[]) => list.map((entry) => entry.item.id)

async function exists(target = h) {
  const res = await api.on(target).get(EXISTS, { cookie: null })
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as { exists: boolean; count: number }
}

const fieldsOf = (res: { json(): { details?: { field: string }[] } }) =>
  (res.json().details ?? []).map((detail) => detail.field)

/** Some tests count every collection: those start from none. */
async function noCollections() {
  await h.databases.directory.db.delete(collections)
  // A write through the API clears the instances' caches of what was just removed underneath.
  const res = await api.post(BASE, { name: `Cleared ${unique()}` })
  await api.delete(`${BASE}/${res.json().data.id}`)
}

describe('collections: does the site have any', () => {
  beforeEach(noCollections)

  it('counts active collections only; exists when the count is above 0', async () => {
    assert.deepEqual(await exists(), { exists: false, count: 0 })
    const hidden = await create({ isActive: false })
    assert.deepEqual(await exists(), { exists: false, count: 0 })
    const shown = await create()
    await create()
    // The writing instance reads its own writes at once.
    assert.deepEqual(await exists(), { exists: true, count: 2 })
    await api.put(`${BASE}/${hidden.id}`, { isActive: true })
    assert.deepEqual(await exists(), { exists: true, count: 3 })
    await api.delete(`${BASE}/${shown.id}`)
    assert.deepEqual(await exists(), { exists: true, count: 2 })
  })

  it('needs no session', async () => {
    const res = await api.get(EXISTS, { cookie: null, origin: null })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json(), { exists: false, count: 0 })
  })
})

describe('collections: does the site have any, when the count cannot be read', () => {
  let broken: DirectoryHarness
  before(async () => {
    broken = await startDirectory()
    await broken.databases.directory.db.execute(
      sql`alter table directory.collections rename to collections_gone`,
    )
  })
  after(() => broken.close())

  it('answers 500 with SPEC.md’s body', async () => {
    const res = await api.on(broken).get(EXISTS, { cookie: null })
    assert.equal(res.statusCode, 500)
    assert.deepEqual(res.json(), {
      exists: false,
      count: 0,
      error: 'Failed to check collections existence',
      code: 'COLLECTIONS_UNAVAILABLE',
    })
  })
})

describe('collections: the count across instances', () => {
  let other: DirectoryHarness
  before(async () => {
    other = await startDirectory({ databases: h.databases, clockStart: h.clock.nowMs() })
  })
  after(() => other.close())
  beforeEach(noCollections)

  it('a write on one instance shows on the other', async () => {
    // Warms the other instance's cache first, so only an invalidation can show the change.
    assert.deepEqual(await exists(other), { exists: false, count: 0 })
    const created = await create()
    await until(async () => (await exists(other)).count === 1, 'the new collection is counted')
    assert.deepEqual(await exists(other), { exists: true, count: 1 })
    await api.put(`${BASE}/${created.id}`, { isActive: false })
    await until(async () => !(await exists(other)).exists, 'the deactivation is seen')
  })
})

describe('collections: admin create, read, change, delete', () => {
  it('creates with a slug from the trimmed name, text stored as sent; reads it back', async () => {
    const suffix = unique()
    const res = await api.post(BASE, {
      name: `  Café <b>Guide</b> ${suffix}  `,
      description: '<script>alert(1)</script> & more',
    })
    assert.equal(res.statusCode, 201, res.body)
    const created: Collection = res.json().data
    assert.equal(created.name, `Café <b>Guide</b> ${suffix}`)
    assert.equal(created.slug, `cafe-b-guide-b-${suffix}`)
    assert.equal(created.description, '<script>alert(1)</script> & more')
    assert.equal(created.isActive, true)
    assert.equal(created.itemCount, 0)
    assert.equal(created.createdAt, h.clock.now().toISOString())
    assert.equal(created.updatedAt, created.createdAt)

    const read = await api.get(`${BASE}/${created.id}`)
    assert.equal(read.statusCode, 200)
    assert.deepEqual(read.json(), { success: true, data: created })

    const explicit = await create({ slug: `rooftops-${suffix}`, isActive: false, description: null })
    assert.equal(explicit.slug, `rooftops-${suffix}`)
    assert.equal(explicit.isActive, false)
    assert.equal(explicit.description, null)
  })

  it('changes only the fields sent; a new name keeps the slug; updatedAt moves', async () => {
    const created = await create({ description: 'first' })
    h.clock.advance(60_000)
    const renamed = await api.put(`${BASE}/${created.id}`, { name: '  Renamed  ', isActive: false })
    assert.equal(renamed.statusCode, 200, renamed.body)
    const data: Collection = renamed.json().data
    assert.equal(data.name, 'Renamed')
    assert.equal(data.slug, created.slug)
    assert.equal(data.description, 'first')
    assert.equal(data.isActive, false)
    assert.equal(data.createdAt, created.createdAt)
    assert.equal(data.updatedAt, h.clock.now().toISOString())

    const slug = `moved-${unique()}`
    const moved = await api.put(`${BASE}/${created.id}`, { slug, description: null })
    assert.equal(moved.statusCode, 200, moved.body)
    assert.equal(moved.json().data.slug, slug)
    assert.equal(moved.json().data.description, null)
    assert.equal(moved.json().data.name, 'Renamed')
    assert.deepEqual((await api.get(`${BASE}/${created.id}`)).json().data, moved.json().data)
  })

  it('delete removes the collection and its memberships, never the items', async () => {
    const kept = await item()
    const first = await create({ itemIds: [kept] })
    const second = await create({ itemIds: [kept] })
    const removed = await api.delete(`${BASE}/${first.id}`)
    assert.equal(removed.statusCode, 200)
    assert.deepEqual(removed.json(), { success: true, message: 'Collection deleted' })
    assert.deepEqual(itemIdsOf(await entries(second.id)), [kept])

    for (const [method, url, body] of [
      ['GET', `${BASE}/${first.id}`, undefined],
      ['PUT', `${BASE}/${first.id}`, { name: 'Back again' }],
      ['DELETE', `${BASE}/${first.id}`, undefined],
      ['GET', `${BASE}/${first.id}/items`, undefined],
      ['PUT', `${BASE}/${first.id}/items`, { itemIds: [] }],
    ] as const) {
      const res = await api.request(method, url, { body })
      assert.equal(res.statusCode, 404, `${method} ${url}`)
      assert.equal(res.json().code, 'COLLECTION_NOT_FOUND')
      assert.equal(res.json().success, false)
    }
  })

  it('an id that is not a UUID is 404, and /stats is not read as an id', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await api.request(method, `${BASE}/not-a-uuid`)
      assert.equal(res.statusCode, 404, method)
      assert.equal(res.json().code, 'COLLECTION_NOT_FOUND')
    }
    assert.equal((await api.put(`${BASE}/not-a-uuid`, { isActive: true })).statusCode, 404)
    assert.equal((await api.get(`${BASE}/not-a-uuid/items`)).statusCode, 404)
    assert.equal((await api.put(`${BASE}/not-a-uuid/items`, { itemIds: [] })).statusCode, 404)
    const stats = await api.get(`${BASE}/stats`)
    assert.equal(stats.statusCode, 200, stats.body)
    assert.equal(typeof stats.json().data.total, 'number')
  })
})

describe('collections: slugs are unique', () => {
  it('a taken slug is 409, sent or made from the name, on create and change', async () => {
    const taken = await create()
    const again = await api.post(BASE, { name: 'Another', slug: taken.slug })
    assert.equal(again.statusCode, 409)
    assert.equal(again.json().code, 'COLLECTION_SLUG_EXISTS')
    const sameName = await api.post(BASE, { name: taken.name })
    assert.equal(sameName.statusCode, 409)
    assert.equal(sameName.json().code, 'COLLECTION_SLUG_EXISTS')

    const other = await create()
    const moved = await api.put(`${BASE}/${other.id}`, { slug: taken.slug })
    assert.equal(moved.statusCode, 409)
    assert.equal(moved.json().code, 'COLLECTION_SLUG_EXISTS')
    assert.equal((await api.get(`${BASE}/${other.id}`)).json().data.slug, other.slug)
    // Its own slug is not someone else's.
    assert.equal((await api.put(`${BASE}/${other.id}`, { slug: other.slug })).statusCode, 200)
  })

  it(race('concurrent creates of one name: one 201, the rest 409'), async () => {
    const name = `Race ${unique()}`
    const results = await Promise.all(Array.from({ length: 8 }, () => api.post(BASE, { name })))
    const statuses = results.map((res) => res.statusCode).sort()
    assert.equal(statuses.filter((status) => status === 201).length, 1, statuses.join(','))
    assert.equal(statuses.filter((status) => status === 409).length, 7, statuses.join(','))
    for (const res of results.filter((answer) => answer.statusCode === 409)) {
      assert.equal(res.json().code, 'COLLECTION_SLUG_EXISTS')
    }
    const listed = await api.get(`${BASE}?search=${encodeURIComponent(name)}`)
    assert.equal(listed.json().meta.total, 1)
  })
})

describe('collections: bad input is 400 naming each field', () => {
  it('create', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ['body.name']],
      [{ name: ' a ' }, ['body.name']],
      [{ name: '   ' }, ['body.name']],
      [{ name: 'x'.repeat(201) }, ['body.name']],
      [{ name: 'Fine', slug: 'Not A Slug' }, ['body.slug']],
      [{ name: 'Fine', slug: '' }, ['body.slug']],
      [{ name: 'Fine', description: 'x'.repeat(2001) }, ['body.description']],
      [{ name: 'Fine', isActive: 'yes' }, ['body.isActive']],
      [{ name: 'Fine', itemIds: ['not-a-uuid'] }, ['body.itemIds.0']],
      [{ name: 'Fine', itemIds: 'nope' }, ['body.itemIds']],
      [{ name: 42, slug: 'UPPER' }, ['body.name', 'body.slug']],
      // Nothing in the name to make a slug from.
      [{ name: '!!!' }, ['body.slug']],
    ]
    for (const [body, fields] of cases) {
      const res = await api.post(BASE, body)
      assert.equal(res.statusCode, 400, JSON.stringify(body))
      assert.equal(res.json().success, false)
      assert.deepEqual(fieldsOf(res).sort(), fields, JSON.stringify(body))
    }
    const tooMany = Array.from({ length: 501 }, () => randomUUID())
    const res = await api.post(BASE, { name: 'Fine', itemIds: tooMany })
    assert.equal(res.statusCode, 400)
    assert.deepEqual(fieldsOf(res), ['body.itemIds'])
  })

  it('change: at least one field, each valid', async () => {
    const created = await create()
    const empty = await api.put(`${BASE}/${created.id}`, {})
    assert.equal(empty.statusCode, 400)
    assert.equal(empty.json().code, 'VALIDATION_ERROR')
    for (const [body, field] of [
      [{ name: 'x' }, 'body.name'],
      [{ slug: 'a b' }, 'body.slug'],
      [{ isActive: null }, 'body.isActive'],
      [{ description: 7 }, 'body.description'],
    ] as const) {
      const res = await api.put(`${BASE}/${created.id}`, body)
      assert.equal(res.statusCode, 400, JSON.stringify(body))
      assert.deepEqual(fieldsOf(res), [field], JSON.stringify(body))
    }
    assert.deepEqual((await api.get(`${BASE}/${created.id}`)).json().data, created)
  })

  it('list: paging, sort and filter values', async () => {
    for (const [query, field] of [
      ['page=0', 'query.page'],
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['sortBy=bogus', 'query.sortBy'],
      ['sortOrder=up', 'query.sortOrder'],
      ['isActive=maybe', 'query.isActive'],
      [`search=${'x'.repeat(101)}`, 'query.search'],
    ]) {
      const res = await api.get(`${BASE}?${query}`)
      assert.equal(res.statusCode, 400, query)
      assert.deepEqual(fieldsOf(res), [field], query)
    }
    for (const query of ['limit=1', 'limit=100', 'page=1']) {
      assert.equal((await api.get(`${BASE}?${query}`)).statusCode, 200, query)
    }
  })
})

describe('collections: the admin list', () => {
  beforeEach(noCollections)

  it('pages with meta, newest first by default, filters and sorts', async () => {
    const [one, two, three] = [await item(), await item(), await item()]
    const coffee = await create({ name: 'Coffee 100% Arabica', itemIds: [one, two, three] })
    h.clock.advance(1000)
    const bars = await create({ name: 'Rooftop bars', description: 'Sunset drinks', itemIds: [one] })
    h.clock.advance(1000)
    const hidden = await create({ name: 'Bakeries', slug: 'pastel-de-nata', isActive: false })

    const page = await api.get(`${BASE}?limit=2`)
    assert.equal(page.statusCode, 200, page.body)
    assert.equal(page.json().success, true)
    assert.deepEqual(page.json().meta, { page: 1, limit: 2, total: 3, totalPages: 2 })
    assert.deepEqual(
      page.json().data.map((collection: Collection) => collection.id),
      [hidden.id, bars.id],
    )
    const second = await api.get(`${BASE}?limit=2&page=2`)
    assert.deepEqual(
      second.json().data.map((collection: Collection) => [collection.id, collection.itemCount]),
      [[coffee.id, 3]],
    )
    assert.deepEqual((await api.get(`${BASE}?page=3&limit=2`)).json().data, [])

    const ids = async (query: string) => {
      const res = await api.get(`${BASE}?${query}`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data.map((collection: Collection) => collection.id)
    }
    assert.deepEqual(await ids('sortBy=name&sortOrder=asc'), [hidden.id, coffee.id, bars.id])
    assert.deepEqual(await ids('sortBy=itemCount&sortOrder=desc'), [coffee.id, bars.id, hidden.id])
    assert.deepEqual(await ids('sortBy=createdAt&sortOrder=asc'), [coffee.id, bars.id, hidden.id])
    assert.deepEqual(await ids('isActive=false'), [hidden.id])
    assert.deepEqual(await ids('isActive=true'), [bars.id, coffee.id])
    // Name, slug and description, whatever the case; `%` is a character, not a pattern.
    assert.deepEqual(await ids('search=ROOFTOP'), [bars.id])
    assert.deepEqual(await ids('search=nata'), [hidden.id])
    assert.deepEqual(await ids('search=sunset'), [bars.id])
    assert.deepEqual(await ids(`search=${encodeURIComponent('100%')}`), [coffee.id])
    assert.deepEqual(await ids(`search=${encodeURIComponent('%')}`), [coffee.id])
    assert.deepEqual(await ids('search=bakeries&isActive=true'), [])

    // A change moves a collection up the updatedAt order.
    h.clock.advance(1000)
    await api.put(`${BASE}/${coffee.id}`, { description: 'Touched' })
    assert.deepEqual((await ids('sortBy=updatedAt'))[0], coffee.id)
  })

  it('statistics count collections, the empty ones and their items', async () => {
    const stats = async () => {
      const res = await api.get(`${BASE}/stats`)
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().success, true)
      return res.json().data
    }
    assert.deepEqual(await stats(), {
      total: 0,
      active: 0,
      inactive: 0,
      empty: 0,
      totalItems: 0,
      averageItems: 0,
    })
    const [one, two] = [await item(), await item()]
    await create({ itemIds: [one, two] })
    await create({ itemIds: [one], isActive: false })
    await create()
    assert.deepEqual(await stats(), {
      total: 3,
      active: 2,
      inactive: 1,
      empty: 1,
      totalItems: 3,
      averageItems: 1,
    })
    await create({ itemIds: [two] })
    assert.equal((await stats()).averageItems, 1)
    await create()
    assert.equal((await stats()).averageItems, 0.8)
    await create()
    assert.equal((await stats()).averageItems, 0.67)
  })
})

describe('collections: their items', () => {
  it('creates with items in order; the answer carries each item’s fields', async () => {
    const [a, b] = [await item({ name: 'Alpha', iconUrl: 'https://cdn.example.com/a.png' }), await item()]
    const created = await create({ itemIds: [b, a] })
    assert.equal(created.itemCount, 2)
    const list = await entries(created.id)
    assert.deepEqual(itemIdsOf(list), [b, a])
    assert.deepEqual(
      list.map((entry) => entry.position),
      [0, 1],
    )
    const alpha = list[1]!
    assert.equal(alpha.addedAt, h.clock.now().toISOString())
    assert.equal(alpha.item.name, 'Alpha')
    assert.equal(alpha.item.status, 'published')
    assert.equal(alpha.item.iconUrl, 'https://cdn.example.com/a.png')
    assert.equal(alpha.item.categoryId, null)
    assert.match(alpha.item.slug, /^item-/)
  })

  it('a PUT replaces membership and order; items that stay keep addedAt; drafts may be listed', async () => {
    const [a, b, c, d] = [await item(), await item(), await item(), await item({ status: 'draft' })]
    const created = await create({ itemIds: [a, b, c] })
    const addedAt = h.clock.now().toISOString()
    h.clock.advance(3_600_000)

    const res = await api.put(`${BASE}/${created.id}/items`, { itemIds: [d, c, a] })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().success, true)
    assert.equal(res.json().count, 3)
    const replaced: Entry[] = res.json().data
    assert.deepEqual(itemIdsOf(replaced), [d, c, a])
    assert.deepEqual(
      replaced.map((entry) => [entry.position, entry.addedAt]),
      [
        [0, h.clock.now().toISOString()],
        [1, addedAt],
        [2, addedAt],
      ],
    )
    assert.equal(replaced[0]!.item.status, 'draft')
    assert.deepEqual(await entries(created.id), replaced)

    const read = (await api.get(`${BASE}/${created.id}`)).json().data as Collection
    assert.equal(read.itemCount, 3)
    assert.equal(read.updatedAt, h.clock.now().toISOString())

    // The same ids in another order: only the order changes.
    const reordered = await api.put(`${BASE}/${created.id}/items`, { itemIds: [a, c, d] })
    assert.deepEqual(itemIdsOf(reordered.json().data), [a, c, d])
    assert.equal(reordered.json().data[0].addedAt, addedAt)

    const emptied = await api.put(`${BASE}/${created.id}/items`, { itemIds: [] })
    assert.equal(emptied.statusCode, 200)
    assert.deepEqual(emptied.json(), { success: true, data: [], count: 0 })
    assert.equal((await api.get(`${BASE}/${created.id}`)).json().data.itemCount, 0)
  })

  it('unknown item ids are 400 UNKNOWN_ITEM_IDS listing them; nothing changes', async () => {
    const [a, b] = [await item(), await item()]
    const created = await create({ itemIds: [a] })
    const [ghost1, ghost2] = [randomUUID(), randomUUID()]
    const res = await api.put(`${BASE}/${created.id}/items`, { itemIds: [b, ghost1, ghost2] })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().code, 'UNKNOWN_ITEM_IDS')
    assert.deepEqual(fieldsOf(res), ['body.itemIds', 'body.itemIds'])
    assert.match(res.json().error, new RegExp(`${ghost1}, ${ghost2}`))
    assert.ok(res.json().details[0].message.includes(ghost1))
    assert.deepEqual(itemIdsOf(await entries(created.id)), [a])

    const name = `Ghostly ${unique()}`
    const onCreate = await api.post(BASE, { name, itemIds: [a, ghost1] })
    assert.equal(onCreate.statusCode, 400)
    assert.equal(onCreate.json().code, 'UNKNOWN_ITEM_IDS')
    assert.deepEqual(fieldsOf(onCreate), ['body.itemIds'])
    assert.equal((await api.get(`${BASE}?search=${encodeURIComponent(name)}`)).json().meta.total, 0)
  })

  it('an id listed twice is 400 naming body.itemIds, whatever its case', async () => {
    const a = await item()
    const created = await create({ itemIds: [a] })
    for (const itemIds of [
      [a, a],
      [a, a.toUpperCase()],
    ]) {
      const res = await api.put(`${BASE}/${created.id}/items`, { itemIds })
      assert.equal(res.statusCode, 400, JSON.stringify(itemIds))
      assert.equal(res.json().code, 'VALIDATION_ERROR')
      assert.deepEqual(fieldsOf(res), ['body.itemIds'])
      const onCreate = await api.post(BASE, { name: `Twice ${unique()}`, itemIds })
      assert.equal(onCreate.statusCode, 400)
      assert.deepEqual(fieldsOf(onCreate), ['body.itemIds'])
    }
    const missing = await api.put(`${BASE}/${created.id}/items`, {})
    assert.equal(missing.statusCode, 400)
    assert.deepEqual(fieldsOf(missing), ['body.itemIds'])
    // An id in capitals is the same item.
    const upper = await api.put(`${BASE}/${created.id}/items`, { itemIds: [a.toUpperCase()] })
    assert.equal(upper.statusCode, 200, upper.body)
    assert.deepEqual(itemIdsOf(upper.json().data), [a])
  })

  it(
    race('concurrent replacements of one collection: each applies whole, none mixes with another'),
    async () => {
      const pool = [await item(), await item(), await item(), await item()]
      const created = await create({ itemIds: pool })
      const lists = Array.from({ length: 8 }, (_, n) => [
        pool[n % 4]!,
        pool[(n + 1) % 4]!,
        pool[(n + 2) % 4]!,
      ])
      const results = await Promise.all(
        lists.map((itemIds) => api.put(`${BASE}/${created.id}/items`, { itemIds })),
      )
      assert.deepEqual(
        results.map((res) => res.statusCode),
        lists.map(() => 200),
        results.map((res) => res.body).join('\n'),
      )
      const final = itemIdsOf(await entries(created.id))
      assert.ok(
        lists.some((list) => JSON.stringify(list) === JSON.stringify(final)),
        `the final list is one of those sent: ${final.join(', ')}`,
      )
    },
  )

  it('deleting an item takes it out of every collection', async () => {
    const [a, b, c] = [await item(), await item(), await item()]
    const first = await create({ itemIds: [a, b, c] })
    const second = await create({ itemIds: [b] })
    const deleted = await api.delete(`/api/admin/items/${b}`)
    assert.equal(deleted.statusCode, 200, deleted.body)
    const list = await entries(first.id)
    assert.deepEqual(itemIdsOf(list), [a, c])
    assert.deepEqual(
      list.map((entry) => entry.position),
      [0, 1],
    )
    assert.deepEqual(await entries(second.id), [])
    assert.equal((await api.get(`${BASE}/${first.id}`)).json().data.itemCount, 2)
  })
})

describe('collections: who may call', () => {
  it('admin routes answer 401 without a session and 403 to a member; writes need the app’s origin', async () => {
    const registered = await api.post(
      '/api/auth/register',
      { email: uniqueEmail('collections'), password: 'a good password', name: 'A Member' },
      { cookie: null },
    )
    const member = sessionCookie(registered)
    const anonymous = await api.get(BASE, { cookie: null })
    assert.equal(anonymous.statusCode, 401)
    assert.equal(anonymous.json().code, 'UNAUTHORIZED')
    const refused = await api.post(BASE, { name: 'Mine now' }, { cookie: member })
    assert.equal(refused.statusCode, 403)
    assert.equal(refused.json().code, 'FORBIDDEN')
    const elsewhere = await api.post(BASE, { name: 'From elsewhere' }, { origin: 'https://evil.example' })
    assert.equal(elsewhere.statusCode, 403)
    assert.equal(elsewhere.json().code, 'CROSS_ORIGIN')
  })
})
