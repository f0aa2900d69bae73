import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import type { Notifications } from '../../src/db/notifications.ts'
import {
  createPublicItemCache,
  PUBLIC_CACHE_MAX_JSON,
  type PublicRead,
} from '../../src/directory/items/public.ts'
import { adminNotifications } from '../../src/directory/notifications/tables.ts'
import { type DirectoryHarness, randomAddress, signUp, startDirectory, until } from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Method, type Requests, siteRequests } from '../helpers/requests.ts'

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

async function ok(method: Method, url: string, payload?: unknown, status = 200) {
  const res = await api.request(method, url, { body: payload })
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`)
  return res.json()
}

let counter = 0
const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 7)}`

async function category(name = unique('Category')) {
  return (await ok('POST', '/api/admin/categories', { name }, 201)).category as { id: string; name: string }
}
async function tag(name = unique('Tag')) {
  return (await ok('POST', '/api/admin/tags', { name }, 201)).data as { id: string; name: string }
}
async function company(name = unique('Company')) {
  return (await ok('POST', '/api/admin/companies', { name }, 201)).data as {
    id: string
    name: string
    slug: string
  }
}
async function item(body: Record<string, unknown> = {}) {
  const name = (body.name as string | undefined) ?? unique('Item')
  return (await ok('POST', '/api/admin/items', { name, ...body }, 201)).data
}
const member = (name = 'Ada Lovelace') => signUp(h, name)
async function categoryCount(id: string) {
  const { data } = await ok('GET', `/api/admin/categories/${id}`)
  return data.itemCount as number
}

describe('admin items', () => {
  it('creates an item with its category, tags, company and location, and reads it back', async () => {
    const [coffee, espresso, decaf, roaster] = await Promise.all([
      category(),
      tag(`Espresso ${unique('x')}`),
      tag(),
      company(),
    ])
    const created = await item({
      name: '  Blue Bottle Coffee  ',
      description: 'Small-batch roaster',
      url: 'https://bluebottlecoffee.com',
      iconUrl: 'https://cdn.example.com/bb.png',
      categoryId: coffee.id,
      tagIds: [decaf.id, espresso.id],
      companyId: roaster.id,
      location: { city: 'Oakland', country: 'United States', latitude: 37.79, longitude: -122.27 },
      status: 'published',
    })
    assert.equal(created.name, 'Blue Bottle Coffee')
    assert.equal(created.slug, 'blue-bottle-coffee')
    assert.equal(created.status, 'published')
    assert.deepEqual(created.category, { id: coffee.id, name: coffee.name })
    assert.deepEqual(created.tags.map((t: { id: string }) => t.id).sort(), [decaf.id, espresso.id].sort())
    assert.deepEqual(created.company, { id: roaster.id, slug: roaster.slug, name: roaster.name })
    assert.deepEqual(created.location, {
      address: null,
      city: 'Oakland',
      country: 'United States',
      latitude: 37.79,
      longitude: -122.27,
      isRemote: false,
      serviceArea: null,
    })
    assert.equal(created.publishedAt, h.clock.now().toISOString())
    assert.equal(created.featured, false)
    assert.equal(created.submittedBy, null)
    const read = await ok('GET', `/api/admin/items/${created.id}`)
    assert.deepEqual(read.data, created)
    assert.equal(await categoryCount(coffee.id), 1)
  })

  it('answers 409 for a taken slug given, also when eight creates race for one', async () => {
    const first = await item()
    const again = await api.post('/api/admin/items', { name: 'Another', slug: first.slug })
    assert.equal(again.statusCode, 409)
    assert.equal(again.json().code, 'ITEM_SLUG_EXISTS')
    const slug = unique('racer')
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => api.post('/api/admin/items', { name: 'Racer', slug })),
    )
    const statuses = answers.map((res) => res.statusCode).sort()
    assert.deepEqual(
      statuses,
      [201, 409, 409, 409, 409, 409, 409, 409],
      answers.map((r) => r.body).join('\n'),
    )
  })

  it('derives a slug from the name without one given: the first number free after the ones taken', async () => {
    const name = `Derived ${unique('d')}`
    const first = await item({ name })
    const base = first.slug as string
    assert.equal((await item({ name })).slug, `${base}-2`)
    assert.equal((await item({ name })).slug, `${base}-3`)
    for (let n = 4; n <= 10; n++) await item({ name: 'Given', slug: `${base}-${n}` })
    await item({ name: 'Lookalike', slug: `${base}-foo` })
    await item({ name: 'Lookalike', slug: `${base}-2-3` })
    assert.equal((await item({ name })).slug, `${base}-11`, `${base}-10 is taken though "-9" > "-10" as text`)
  })

  it('derives the name’s own slug while it is free, and fills the first gap below a higher number', async () => {
    const key = unique('g')
    const [name, base] = [`Gapped ${key}`, `gapped-${key}`]
    await item({ name: 'Given', slug: `${base}-2` })
    await item({ name: 'Given', slug: `${base}-10` })
    assert.equal((await item({ name })).slug, base)
    assert.equal((await item({ name })).slug, `${base}-3`)
    assert.equal((await item({ name })).slug, `${base}-4`)
  })

  it('cuts a long name’s slug so its number still fits', async () => {
    const name = `Long ${unique('l')} ${'n'.repeat(200)}`.slice(0, 200)
    const first = await item({ name })
    assert.equal(first.slug.length, 200)
    const second = await item({ name })
    assert.equal(second.slug, `${first.slug.slice(0, 198)}-2`)
  })

  it(race('fifty creates of one name without a slug all answer 201, as name, name-2 … name-50'), async () => {
    const key = unique('c')
    const [name, base] = [`Crowded ${key}`, `crowded-${key}`]
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => api.post('/api/admin/items', { name })),
    )
    for (const res of answers) assert.equal(res.statusCode, 201, res.body)
    const expected = [base, ...Array.from({ length: 49 }, (_, i) => `${base}-${i + 2}`)]
    assert.deepEqual(answers.map((res) => res.json().data.slug as string).sort(), expected.sort())
  })

  it(
    race('fifty published creates of other names in one category, with one tag, all answer 201 and count'),
    async () => {
      const shelf = await category()
      const label = await tag()
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, n) =>
          api.post('/api/admin/items', {
            name: unique(`Neighbour ${n}`),
            categoryId: shelf.id,
            tagIds: [label.id],
            status: 'published',
          }),
        ),
      )
      for (const res of answers) assert.equal(res.statusCode, 201, res.body)
      const { data: counted } = await ok('GET', `/api/admin/categories/${shelf.id}`)
      assert.equal(counted.itemCount, 50)
    },
  )

  it('names every unknown category, tag, company and collection in one 400', async () => {
    const res = await api.post('/api/admin/items', {
      name: 'Orphan',
      categoryId: 'no-such-category',
      tagIds: ['no-such-tag'],
      companyId: '00000000-0000-4000-8000-000000000000',
      collectionIds: ['00000000-0000-4000-8000-000000000001'],
    })
    assert.equal(res.statusCode, 400)
    assert.deepEqual(
      res.json().details.map((issue: { field: string }) => issue.field),
      ['body.categoryId', 'body.tagIds', 'body.companyId', 'body.collectionIds'],
    )
    const list = await ok('GET', `/api/admin/items?search=Orphan`)
    assert.equal(list.meta.total, 0, 'nothing was written')
  })

  it('stores markup as text and refuses what is over its limits or not a web URL', async () => {
    const script = '<script>alert("x")</script><b>bold</b>'
    const created = await item({ name: `<img src=x onerror=alert(1)> ${unique('n')}`, description: script })
    assert.equal(created.description, script)
    assert.match(created.name, /^<img src=x onerror=alert\(1\)>/)
    const long = await api.post('/api/admin/items', { name: 'Long', description: 'x'.repeat(5001) })
    assert.equal(long.statusCode, 400)
    assert.equal(long.json().details[0].field, 'body.description')
    const js = await api.post('/api/admin/items', { name: 'Bad URL', url: 'javascript:alert(1)' })
    assert.equal(js.statusCode, 400)
    assert.equal(js.json().details[0].field, 'body.url')
    const blank = await api.post('/api/admin/items', { name: '   ' })
    assert.equal(blank.statusCode, 400)
    assert.equal(blank.json().details[0].field, 'body.name')
    const half = await api.post('/api/admin/items', { name: 'Half', location: { latitude: 10 } })
    assert.equal(half.statusCode, 400)
    assert.equal(half.json().details[0].field, 'body.location.longitude')
  })

  it('records who changed which field from what to what, in order, and what a review decided', async () => {
    const [first, second] = await Promise.all([category(), category()])
    const espresso = await tag()
    const created = await item({ name: 'Historic Café', categoryId: first.id, location: { city: 'Lisbon' } })
    h.clock.advance(1000)
    const updated = await ok('PUT', `/api/admin/items/${created.id}`, {
      name: 'Historic Café Lisboa',
      categoryId: second.id,
      tagIds: [espresso.id],
      location: { country: 'Portugal' },
    })
    assert.equal(updated.data.location.city, 'Lisbon', 'fields of the location not sent are kept')
    assert.equal(updated.data.location.country, 'Portugal')
    h.clock.advance(1000)
    // Sending what is already there changes nothing and records nothing.
    await ok('PUT', `/api/admin/items/${created.id}`, { name: 'Historic Café Lisboa' })
    h.clock.advance(1000)
    await ok('POST', `/api/admin/items/${created.id}/review`, { action: 'approve', note: 'Looks right' })

    const history = await ok('GET', `/api/admin/items/${created.id}/history`)
    assert.equal(history.meta.total, 3)
    const [approved, changed, createdEntry] = history.data
    assert.equal(approved.action, 'approved')
    assert.equal(approved.note, 'Looks right')
    assert.deepEqual(approved.changes, [{ field: 'status', from: 'draft', to: 'published' }])
    assert.equal(changed.action, 'updated')
    assert.deepEqual(changed.changes, [
      { field: 'name', from: 'Historic Café', to: 'Historic Café Lisboa' },
      { field: 'categoryId', from: first.id, to: second.id },
      { field: 'location.country', from: null, to: 'Portugal' },
      { field: 'tagIds', from: [], to: [espresso.id] },
    ])
    assert.ok(changed.actor.email.startsWith('admin-'), 'the acting admin is named')
    assert.equal(createdEntry.action, 'created')
    assert.deepEqual(
      createdEntry.changes.map((change: { field: string }) => change.field),
      ['slug', 'name', 'categoryId', 'status', 'location.city'],
    )
    assert.ok(Date.parse(approved.createdAt) > Date.parse(changed.createdAt))
    const paged = await ok('GET', `/api/admin/items/${created.id}/history?limit=1&page=3`)
    assert.deepEqual(
      paged.data.map((entry: { action: string }) => entry.action),
      ['created'],
    )
    assert.deepEqual(paged.meta, { page: 3, limit: 1, total: 3, totalPages: 3 })
  })

  it('reviews: approve publishes, reject keeps the note, repeating either is 409, unknown ids 404', async () => {
    const created = await item({ status: 'pending' })
    const rejected = await ok('POST', `/api/admin/items/${created.id}/review`, {
      action: 'reject',
      note: 'Website is down',
    })
    assert.equal(rejected.data.status, 'rejected')
    assert.equal(rejected.data.reviewNote, 'Website is down')
    assert.ok(rejected.data.reviewedBy)
    const again = await api.post(`/api/admin/items/${created.id}/review`, { action: 'reject' })
    assert.equal(again.statusCode, 409)
    assert.equal(again.json().code, 'ITEM_ALREADY_REJECTED')
    const approved = await ok('POST', `/api/admin/items/${created.id}/review`, { action: 'approve' })
    assert.equal(approved.data.status, 'published')
    assert.equal(approved.data.reviewNote, null)
    const twice = await Promise.all(
      Array.from({ length: 2 }, () =>
        api.post(`/api/admin/items/${created.id}/review`, { action: 'approve' }),
      ),
    )
    assert.deepEqual(
      twice.map((res) => res.json().code),
      ['ITEM_ALREADY_PUBLISHED', 'ITEM_ALREADY_PUBLISHED'],
    )
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const missing = await api.post(`/api/admin/items/${id}/review`, { action: 'approve' })
      assert.equal(missing.statusCode, 404)
      assert.equal(missing.json().code, 'ITEM_NOT_FOUND')
    }
  })

  it('bulk approves, rejects and deletes with one result per id, never stopping at a failure', async () => {
    const a = await item({ status: 'pending' })
    const b = await item({ status: 'published' })
    const approved = await ok('POST', '/api/admin/items/bulk', {
      action: 'approve',
      ids: [a.id, 'not-an-id', b.id, '00000000-0000-4000-8000-000000000000'],
    })
    assert.equal(approved.message, '1 of 4 items approved')
    assert.deepEqual(approved.results, [{ index: 0, id: a.id, success: true }])
    assert.deepEqual(
      approved.errors.map((e: { index: number; error: string }) => [e.index, e.error]),
      [
        [1, 'Item not found'],
        [2, 'The item is already published'],
        [3, 'Item not found'],
      ],
    )
    assert.deepEqual(approved.summary, { total: 4, successful: 1, failed: 3 })
    const deleted = await ok('POST', '/api/admin/items/bulk', { action: 'delete', ids: [a.id, b.id, a.id] })
    assert.deepEqual(deleted.summary, { total: 3, successful: 2, failed: 1 })
    assert.equal((await api.get(`/api/admin/items/${a.id}`)).statusCode, 404)
    for (const ids of [[], Array.from({ length: 101 }, (_, i) => `id-${i}`)]) {
      const res = await api.post('/api/admin/items/bulk', { action: 'approve', ids })
      assert.equal(res.statusCode, 400)
      assert.equal(res.json().details[0].field, 'body.ids')
    }
    const bad = await api.post('/api/admin/items/bulk', { action: 'archive', ids: [a.id] })
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().details[0].field, 'body.action')
  })

  it('keeps each category’s published count as items are published, moved, unpublished and deleted', async () => {
    const [first, second] = await Promise.all([category(), category()])
    const one = await item({ categoryId: first.id, status: 'published' })
    await item({ categoryId: first.id, status: 'draft' })
    assert.equal(await categoryCount(first.id), 1)
    await ok('PUT', `/api/admin/items/${one.id}`, { categoryId: second.id })
    assert.deepEqual([await categoryCount(first.id), await categoryCount(second.id)], [0, 1])
    await ok('POST', `/api/admin/items/${one.id}/review`, { action: 'reject' })
    assert.equal(await categoryCount(second.id), 0)
    await ok('PUT', `/api/admin/items/${one.id}`, { status: 'published' })
    assert.equal(await categoryCount(second.id), 1)
    // Racing publications each count.
    const drafts = await Promise.all(
      Array.from({ length: 6 }, () => item({ categoryId: first.id, status: 'pending' })),
    )
    await Promise.all(drafts.map((d) => ok('POST', `/api/admin/items/${d.id}/review`, { action: 'approve' })))
    assert.equal(await categoryCount(first.id), 6)
    await ok('DELETE', `/api/admin/items/${one.id}`)
    assert.equal(await categoryCount(second.id), 0)
  })

  it('refuses to delete for good a category, tag or company still in use, and allows it once emptied', async () => {
    const used = await category()
    const espresso = await tag()
    const maker = await company()
    const inUse = await item({ categoryId: used.id, tagIds: [espresso.id], companyId: maker.id })
    const hard = await api.delete(`/api/admin/categories/${used.id}?hard=true`)
    assert.equal(hard.statusCode, 409)
    assert.equal(hard.json().code, 'CATEGORY_IN_USE')
    const soft = await api.delete(`/api/admin/categories/${used.id}`)
    assert.equal(soft.statusCode, 200, 'deactivating a category in use is allowed')
    const tagged = await api.delete(`/api/admin/tags/${espresso.id}`)
    assert.equal(tagged.statusCode, 409)
    assert.equal(tagged.json().code, 'TAG_IN_USE')
    const made = await api.delete(`/api/admin/companies/${maker.id}`)
    assert.equal(made.statusCode, 409)
    assert.equal(made.json().code, 'COMPANY_IN_USE')
    assert.deepEqual((await ok('GET', `/api/admin/items/${inUse.id}`)).data.category.id, used.id)
    await ok('PUT', `/api/admin/items/${inUse.id}`, { categoryId: null, tagIds: [], companyId: null })
    assert.equal((await api.delete(`/api/admin/categories/${used.id}?hard=true`)).statusCode, 200)
    assert.equal((await api.delete(`/api/admin/tags/${espresso.id}`)).statusCode, 200)
    assert.equal((await api.delete(`/api/admin/companies/${maker.id}`)).statusCode, 200)
  })

  it('deletes an item with its history kept out of reach and its slug free again', async () => {
    const gone = await item()
    await ok('DELETE', `/api/admin/items/${gone.id}`)
    for (const path of [`/api/admin/items/${gone.id}`, `/api/admin/items/${gone.id}/history`]) {
      const res = await api.get(path)
      assert.equal(res.statusCode, 404)
      assert.equal(res.json().code, 'ITEM_NOT_FOUND')
    }
    assert.equal((await api.delete(`/api/admin/items/${gone.id}`)).statusCode, 404)
    await item({ name: 'Reborn', slug: gone.slug })
  })
})

describe('featuring an item of this directory', () => {
  it('copies the display fields not sent from the item, and needs a name for a slug it does not know', async () => {
    const source = await item({
      description: 'From the item',
      iconUrl: 'https://cdn.example.com/i.png',
      imageUrl: 'https://cdn.example.com/c.jpg',
      status: 'published',
    })
    const copied = await ok(
      'POST',
      '/api/admin/featured-items',
      { itemSlug: source.slug, itemIconUrl: null },
      201,
    )
    assert.deepEqual(
      [copied.data.itemName, copied.data.itemDescription, copied.data.itemIconUrl, copied.data.itemImageUrl],
      [source.name, 'From the item', null, 'https://cdn.example.com/c.jpg'],
    )
    const unknown = await api.post('/api/admin/featured-items', { itemSlug: 'not-in-this-directory' })
    assert.equal(unknown.statusCode, 400)
    assert.equal(unknown.json().details[0].field, 'body.itemName')
    const elsewhere = await ok(
      'POST',
      '/api/admin/featured-items',
      { itemSlug: 'not-in-this-directory', itemName: 'Elsewhere' },
      201,
    )
    assert.equal(elsewhere.data.itemDescription, null)
  })
})

describe('admin item list and stats', () => {
  let marker: string
  let cat: { id: string }
  let espresso: { id: string }
  let maker: { id: string }
  const ids: Record<string, string> = {}

  before(async () => {
    marker = `zq${Math.random().toString(36).slice(2, 8)}`
    ;[cat, espresso, maker] = await Promise.all([category(), tag(), company()])
    const specs: [string, Record<string, unknown>][] = [
      ['alpha', { name: `Alpha ${marker} roasters`, status: 'published', categoryId: cat.id }],
      [
        'beta',
        {
          name: `Beta ${marker}`,
          description: 'Great espresso beans',
          status: 'pending',
          tagIds: [espresso.id],
        },
      ],
      ['gamma', { name: `Gamma ${marker}`, status: 'draft', companyId: maker.id }],
      ['delta', { name: `Delta ${marker}`, status: 'rejected', categoryId: cat.id, tagIds: [espresso.id] }],
    ]
    for (const [key, spec] of specs) {
      h.clock.advance(1000)
      ids[key] = (await item(spec)).id
    }
    await ok(
      'POST',
      '/api/admin/featured-items',
      { itemSlug: (await ok('GET', `/api/admin/items/${ids.alpha}`)).data.slug, itemName: 'Alpha' },
      201,
    )
  })

  const names = (body: { data: { name: string }[] }) => body.data.map((i) => i.name.split(' ')[0])

  it('searches words of the name and description as prefixes, and filters', async () => {
    assert.deepEqual(names(await ok('GET', `/api/admin/items?search=${marker}`)), [
      'Delta',
      'Gamma',
      'Beta',
      'Alpha',
    ])
    assert.deepEqual(names(await ok('GET', `/api/admin/items?search=${marker}%20espr`)), ['Beta'])
    assert.deepEqual(names(await ok('GET', `/api/admin/items?search=${marker.slice(0, 5)}%20ROAST`)), [
      'Alpha',
    ])
    assert.deepEqual(names(await ok('GET', `/api/admin/items?search=${marker}&status=pending`)), ['Beta'])
    assert.deepEqual(names(await ok('GET', `/api/admin/items?search=${marker}&category=${cat.id}`)), [
      'Delta',
      'Alpha',
    ])
    assert.deepEqual(names(await ok('GET', `/api/admin/items?search=${marker}&tag=${espresso.id}`)), [
      'Delta',
      'Beta',
    ])
    assert.deepEqual(names(await ok('GET', `/api/admin/items?search=${marker}&company=${maker.id}`)), [
      'Gamma',
    ])
    const featured = await ok('GET', `/api/admin/items?search=${marker}&featured=true`)
    assert.deepEqual(names(featured), ['Alpha'])
    assert.equal(featured.data[0].featured, true, 'a listed item says it is featured')
    assert.deepEqual(names(await ok('GET', `/api/admin/items?search=${marker}&featured=false`)), [
      'Delta',
      'Gamma',
      'Beta',
    ])
    assert.deepEqual(
      names(await ok('GET', `/api/admin/items?search=%22%27%3A*%26!`)),
      [],
      'no word: nothing matches',
    )
  })

  it('sorts and pages with the clients’ meta', async () => {
    const byName = await ok(
      'GET',
      `/api/admin/items?search=${marker}&sortBy=name&sortOrder=asc&limit=3&page=1`,
    )
    assert.deepEqual(names(byName), ['Alpha', 'Beta', 'Delta'])
    assert.deepEqual(byName.meta, { page: 1, limit: 3, total: 4, totalPages: 2 })
    const second = await ok(
      'GET',
      `/api/admin/items?search=${marker}&sortBy=name&sortOrder=asc&limit=3&page=2`,
    )
    assert.deepEqual(names(second), ['Gamma'])
    assert.deepEqual(
      names(await ok('GET', `/api/admin/items?search=${marker}&sortBy=createdAt&sortOrder=asc`)),
      ['Alpha', 'Beta', 'Gamma', 'Delta'],
    )
    for (const query of ['page=0', 'limit=101', 'status=archived', 'sortBy=price', 'company=not-a-uuid']) {
      const res = await api.get(`/api/admin/items?${query}`)
      assert.equal(res.statusCode, 400, query)
      assert.equal(res.json().details[0].field, `query.${query.split('=')[0]}`)
    }
  })

  it('counts items by status', async () => {
    const { data } = await ok('GET', '/api/admin/items/stats')
    assert.equal(data.total, data.published + data.pending + data.rejected + data.draft)
    const before = data
    await item({ status: 'pending' })
    const { data: after } = await ok('GET', '/api/admin/items/stats')
    assert.deepEqual(after, { ...before, total: before.total + 1, pending: before.pending + 1 })
  })
})

describe('the public site', () => {
  let cat: { id: string }
  let espresso: { id: string }
  let marker: string
  before(async () => {
    marker = `pub${Math.random().toString(36).slice(2, 8)}`
    ;[cat, espresso] = await Promise.all([category(), tag()])
    h.clock.advance(1000)
    await item({ name: `Older ${marker}`, status: 'published', categoryId: cat.id })
    h.clock.advance(1000)
    await item({
      name: `Newer ${marker}`,
      status: 'published',
      tagIds: [espresso.id],
      description: 'espresso bar',
    })
    await item({ name: `Hidden ${marker}`, status: 'pending', categoryId: cat.id })
    await item({ name: `Draft ${marker}`, status: 'draft' })
  })

  const names = (body: { data: { name: string }[] }) => body.data.map((i) => i.name.split(' ')[0])
  const site = async (query: string) => {
    const res = await api.get(`/api/items?${query}`, { cookie: null })
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }

  it('lists published items only, newest first, searchable and filtered', async () => {
    const all = await site(`search=${marker}`)
    assert.deepEqual(names(all), ['Newer', 'Older'])
    assert.deepEqual(all.meta, { page: 1, limit: 20, total: 2, totalPages: 1 })
    assert.equal(all.data[0].status, undefined, 'no admin fields')
    assert.equal(all.data[0].submittedBy, undefined)
    assert.deepEqual(names(await site(`search=${marker}&category=${cat.id}`)), ['Older'])
    assert.deepEqual(names(await site(`search=${marker}&tag=${espresso.id}`)), ['Newer'])
    assert.deepEqual(names(await site(`search=${marker}%20esp`)), ['Newer'])
    assert.deepEqual(names(await site(`search=${marker}&sort=name&limit=1&page=2`)), ['Older'])
    const bad = await api.get('/api/items?limit=0', { cookie: null })
    assert.equal(bad.statusCode, 400)
  })

  it('reads a published item by slug; others are 404', async () => {
    const published = (await site(`search=${marker}`)).data[0]
    const res = await api.get(`/api/items/${published.slug}`, { cookie: null })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json().data, published)
    const hidden = (await ok('GET', `/api/admin/items?search=Hidden%20${marker}`)).data[0]
    for (const slug of [hidden.slug, 'no-such-item']) {
      const missing = await api.get(`/api/items/${slug}`, { cookie: null })
      assert.equal(missing.statusCode, 404)
      assert.equal(missing.json().code, 'ITEM_NOT_FOUND')
    }
  })

  it('limits the list to 100 per minute per client, with SPEC.md’s headers', async () => {
    const address = randomAddress()
    for (let i = 0; i < 100; i++) {
      const res = await api.get('/api/items?limit=1', { cookie: null, address })
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['x-ratelimit-remaining'], String(99 - i))
    }
    const denied = await api.get('/api/items?limit=1', { cookie: null, address })
    assert.equal(denied.statusCode, 429)
    assert.equal(denied.headers['x-ratelimit-limit'], '100')
    assert.equal(denied.headers['x-ratelimit-remaining'], '0')
    assert.equal(denied.headers['retry-after'], '60')
    h.clock.advance(60_000)
    assert.equal((await api.get('/api/items?limit=1', { cookie: null, address })).statusCode, 200)
  })
})

describe('submissions', () => {
  it('takes a signed-in user’s item as pending, with a free slug and a notice for the admins', async () => {
    const cookie = await member('Grace Hopper')
    const cat = await category()
    const name = `Submitted ${unique('s')}`
    const submit = (address = randomAddress()) =>
      api.post('/api/submit', { name, url: 'https://example.com', categoryId: cat.id }, { cookie, address })
    const first = await submit()
    assert.equal(first.statusCode, 201, first.body)
    const { data } = first.json()
    assert.equal(data.status, 'pending')
    assert.equal(data.submittedBy.name, 'Grace Hopper')
    assert.equal(data.publishedAt, null)
    const second = (await submit()).json().data
    assert.equal(second.slug, `${data.slug}-2`)
    const clients = await ok(
      'GET',
      `/api/admin/clients?search=${encodeURIComponent('Grace Hopper')}&limit=100`,
    )
    const profile = clients.data.clients.find((c: { userId: string }) => c.userId === data.submittedBy.id)
    assert.equal(profile.totalSubmissions, 2, 'the submitter’s profile counts their submissions')
    const notices = await h.databases.directory.db
      .select()
      .from(adminNotifications)
      .where(eq(adminNotifications.type, 'item_submitted'))
    const mine = notices.filter((notice) => notice.data.itemId === data.id)
    assert.equal(mine.length, 1)
    assert.equal(mine[0]!.title, `New submission: ${name}`)
    const history = await ok('GET', `/api/admin/items/${data.id}/history`)
    assert.equal(history.data[0].action, 'submitted')
    assert.equal(history.data[0].actor.name, 'Grace Hopper')
    const site = await api.get(`/api/items/${data.slug}`, { cookie: null })
    assert.equal(site.statusCode, 404, 'not on the site before review')
  })

  it('takes a name of 200 characters, its notice’s title cut to fit', async () => {
    const cookie = await member()
    const name = `Long ${'n'.repeat(195)}`
    const res = await api.post('/api/submit', { name, url: 'https://example.com' }, { cookie })
    assert.equal(res.statusCode, 201, res.body)
    const [notice] = await h.databases.directory.db
      .select()
      .from(adminNotifications)
      .where(eq(adminNotifications.title, `${`New submission: ${name}`.slice(0, 199)}…`))
    assert.ok(notice, 'the notice is there with its title cut to 200 characters')
  })

  it(race('fifty submissions of one name all answer 201, as name, name-2 … name-50'), async () => {
    const cookie = await member()
    const key = unique('r')
    const [name, base] = [`Racing ${key}`, `racing-${key}`]
    // Each from its own client address, as the limit of 5 per client allows.
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        api.post('/api/submit', { name, url: 'https://example.com' }, { cookie }),
      ),
    )
    for (const res of answers) assert.equal(res.statusCode, 201, res.body)
    const expected = [base, ...Array.from({ length: 49 }, (_, i) => `${base}-${i + 2}`)]
    assert.deepEqual(answers.map((res) => res.json().data.slug as string).sort(), expected.sort())
  })

  it('gives a name with no letters or digits the slug item, then item-2', async () => {
    const cookie = await member()
    const submit = () => api.post('/api/submit', { name: '¡¿!?', url: 'https://example.com' }, { cookie })
    const [first, second] = [await submit(), await submit()]
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(second.statusCode, 201, second.body)
    assert.deepEqual([first.json().data.slug, second.json().data.slug], ['item', 'item-2'])
  })

  it('needs a session, a web URL, an active category and known tags', async () => {
    const anonymous = await api.post('/api/submit', { name: 'X' }, { cookie: null })
    assert.equal(anonymous.statusCode, 401)
    const cookie = await member()
    const inactive = await category()
    await ok('DELETE', `/api/admin/categories/${inactive.id}`)
    const res = await api.post(
      '/api/submit',
      { name: 'Nope', url: 'https://example.com', categoryId: inactive.id, tagIds: ['nope'] },
      { cookie },
    )
    assert.equal(res.statusCode, 400)
    assert.deepEqual(
      res.json().details.map((d: { field: string }) => d.field),
      ['body.categoryId', 'body.tagIds'],
    )
    const noUrl = await api.post('/api/submit', { name: 'Nope' }, { cookie })
    assert.equal(noUrl.statusCode, 400)
    assert.equal(noUrl.json().details[0].field, 'body.url')
  })

  it('allows 5 submissions per 10 minutes per client', async () => {
    const cookie = await member()
    const address = randomAddress()
    for (let i = 0; i < 5; i++) {
      const res = await api.post(
        '/api/submit',
        { name: unique('Limited'), url: 'https://example.com' },
        { cookie, address },
      )
      assert.equal(res.statusCode, 201, res.body)
    }
    const denied = await api.post(
      '/api/submit',
      { name: unique('Limited'), url: 'https://example.com' },
      { cookie, address },
    )
    assert.equal(denied.statusCode, 429)
    assert.equal(denied.headers['x-ratelimit-limit'], '5')
    assert.ok(Number(denied.headers['retry-after']) > 0)
  })
})

describe('the public reads’ cache', () => {
  it('keeps at most PUBLIC_CACHE_MAX_JSON of JSON, the oldest entries going first', async () => {
    const cache = createPublicItemCache(h.clock)
    // Nothing to hear in this test: the cache only needs to be on.
    await cache.listen({ listen: async () => {} } as unknown as Notifications)
    const read = (slug: string, length: number) => async () =>
      ({ slug, description: 'x'.repeat(length) }) as unknown as PublicRead
    const half = PUBLIC_CACHE_MAX_JSON / 2
    await cache.get('slug:a', read('a', half))
    await cache.get('slug:b', read('b', half - 100))
    assert.ok(cache.peek('slug:a') && cache.peek('slug:b'), 'both fit')
    await cache.get('slug:c', read('c', 1000))
    assert.equal(cache.peek('slug:a'), undefined)
    assert.ok(cache.peek('slug:b') && cache.peek('slug:c'))
  })
})

describe('the content cache across instances', () => {
  let other: DirectoryHarness
  before(async () => {
    other = await startDirectory({ databases: h.databases, clockStart: h.clock.nowMs() })
  })
  after(() => other.close())

  it('keeps the admin list’s totals exact on the other instance after a write', async () => {
    const marker = `count${Math.random().toString(36).slice(2, 8)}`
    const otherAdmin = await other.adminCookie()
    const total = async () => {
      const res = await api.on(other).get(`/api/admin/items?search=${marker}`, { cookie: otherAdmin })
      return res.json().meta.total as number
    }
    await item({ name: `Counted ${marker}` })
    // Read twice: the second answer is the other instance's reused figure.
    assert.equal(await total(), 1)
    assert.equal(await total(), 1)
    const second = await item({ name: `Counted again ${marker}` })
    await until(async () => (await total()) === 2, 'the new item is counted')
    await ok('DELETE', `/api/admin/items/${second.id}`)
    await until(async () => (await total()) === 1, 'the deletion is counted')
  })

  it('shows a write on one instance in the other’s public reads', async () => {
    const marker = `cache${Math.random().toString(36).slice(2, 8)}`
    const cat = await category()
    const read = async () => {
      const res = await api.on(other).get(`/api/items?search=${marker}`, { cookie: null })
      return res.json().data as { name: string; slug: string; category: { name: string } | null }[]
    }
    // The category's published count, read from the other instance's categories cache, follows too.
    const countThere = async () => {
      const res = await api.on(other).get('/api/admin/categories/all')
      return res.json().data.find((c: { id: string }) => c.id === cat.id)?.itemCount
    }
    // Warms the other instance's caches first, so only an invalidation can show the change.
    assert.deepEqual(await read(), [])
    assert.equal(await countThere(), 0)
    const created = await item({ name: `Cached ${marker}`, status: 'pending', categoryId: cat.id })
    const bySlug = () => api.on(other).get(`/api/items/${created.slug}`, { cookie: null })
    assert.equal((await bySlug()).statusCode, 404)
    await ok('POST', `/api/admin/items/${created.id}/review`, { action: 'approve' })
    await until(async () => (await read()).length === 1, 'the published item is listed')
    await until(async () => (await bySlug()).statusCode === 200, 'the item page is seen')
    await ok('PUT', `/api/admin/categories/${cat.id}`, { name: `Renamed ${marker}` })
    await until(
      async () => (await read())[0]?.category?.name === `Renamed ${marker}`,
      'the category’s new name is shown',
    )
    await until(async () => (await countThere()) === 1, 'the category’s count is seen')
    await ok('DELETE', `/api/admin/items/${created.id}`)
    await until(async () => (await read()).length === 0, 'the deletion is seen')
    await until(async () => (await bySlug()).statusCode === 404, 'the item page is gone')
  })
})
