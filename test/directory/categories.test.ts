import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { categories } from '../../src/directory/categories/tables.ts'
import { APP_ORIGIN, type DirectoryHarness, startDirectory, until } from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Requests, requests } from '../helpers/requests.ts'

let h: DirectoryHarness
let admin: string
/** The admin's requests, as the categories screen sends them (from inject's own address). */
let api: Requests

before(async () => {
  h = await startDirectory()
  admin = await h.adminCookie()
  api = requests(h, { origin: APP_ORIGIN, cookie: admin })
})
after(() => h.close())

const BASE = '/api/admin/categories'

/** A name no other test uses, so tests never depend on each other's rows. */
const uniqueName = (prefix = 'Category') => `${prefix} ${randomBytes(4).toString('hex')}`

async function create(name = uniqueName(), id?: string) {
  const res = await api.post(BASE, { name, ...(id ? { id } : {}) })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().category as { id: string; name: string; isActive: boolean }
}

async function listIds(query = 'limit=100&includeInactive=true') {
  const res = await api.get(`${BASE}?${query}`)
  assert.equal(res.statusCode, 200, res.body)
  return (res.json().categories as { id: string }[]).map((category) => category.id)
}

async function allIds(harness = h, cookie = admin) {
  const res = await requests(harness, { origin: APP_ORIGIN, cookie }).get(`${BASE}/all`)
  assert.equal(res.statusCode, 200, res.body)
  return (res.json().data as { id: string }[]).map((category) => category.id)
}

describe('admin categories: happy path', () => {
  it('create answers 201 with the category, its id slugged from the name', async () => {
    const suffix = randomBytes(4).toString('hex')
    const res = await api.post(BASE, { name: `  Café Guide ${suffix} ` })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(typeof body.message, 'string')
    assert.deepEqual(Object.keys(body.category).sort(), [
      'createdAt',
      'id',
      'isActive',
      'itemCount',
      'name',
      'updatedAt',
    ])
    assert.equal(body.category.id, `cafe-guide-${suffix}`)
    assert.equal(body.category.name, `Café Guide ${suffix}`, 'name is trimmed')
    assert.equal(body.category.isActive, true)
    assert.equal(body.category.itemCount, 0)
    assert.ok(!Number.isNaN(Date.parse(body.category.createdAt)))
  })

  it('create keeps an explicit id', async () => {
    const id = `explicit-${randomBytes(4).toString('hex')}`
    const category = await create(uniqueName(), id)
    assert.equal(category.id, id)
  })

  it('read, rename and read again', async () => {
    const category = await create()
    const read = await api.get(`${BASE}/${category.id}`)
    assert.equal(read.statusCode, 200)
    assert.deepEqual(read.json().data.name, category.name)
    const newName = uniqueName('Renamed')
    const updated = await api.put(`${BASE}/${category.id}`, { name: newName })
    assert.equal(updated.statusCode, 200, updated.body)
    assert.equal(updated.json().success, true)
    assert.equal(updated.json().data.name, newName)
    assert.equal(typeof updated.json().message, 'string')
    assert.equal((await api.get(`${BASE}/${category.id}`)).json().data.name, newName)
  })

  it('renaming a category to its own name in another case is allowed', async () => {
    const category = await create(uniqueName('lower'))
    const res = await api.put(`${BASE}/${category.id}`, { name: category.name.toUpperCase() })
    assert.equal(res.statusCode, 200, res.body)
  })

  it('list pages with total and totalPages', async () => {
    for (let i = 0; i < 3; i++) await create()
    const res = await api.get(`${BASE}?page=1&limit=2`)
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(body.page, 1)
    assert.equal(body.limit, 2)
    assert.equal(body.categories.length, 2)
    assert.ok(body.total >= 3)
    assert.equal(body.totalPages, Math.ceil(body.total / 2))
    const beyond = await api.get(`${BASE}?page=${body.totalPages + 1}&limit=2`)
    assert.deepEqual(beyond.json().categories, [])
  })

  it('list sorts by name and id in both directions', async () => {
    for (const [sortBy, key] of [
      ['name', 'name'],
      ['id', 'id'],
    ] as const) {
      const asc = (await api.get(`${BASE}?limit=100&sortBy=${sortBy}&sortOrder=asc`)).json().categories
      const desc = (await api.get(`${BASE}?limit=100&sortBy=${sortBy}&sortOrder=desc`)).json().categories
      const values = asc.map((category: Record<string, string>) => category[key])
      assert.deepEqual(
        desc.map((category: Record<string, string>) => category[key]),
        [...values].reverse(),
      )
    }
  })

  it('new categories go to the end of the default order', async () => {
    const category = await create()
    const ids = await listIds()
    assert.equal(ids.at(-1), category.id)
  })

  it('soft delete deactivates: hidden from the list and /all unless includeInactive', async () => {
    const category = await create()
    const res = await api.delete(`${BASE}/${category.id}`)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().success, true)
    assert.equal(typeof res.json().message, 'string')
    assert.ok(!(await listIds('limit=100')).includes(category.id))
    assert.ok(!(await listIds('limit=100&includeInactive=false')).includes(category.id))
    assert.ok((await listIds('limit=100&includeInactive=true')).includes(category.id))
    assert.ok(!(await allIds()).includes(category.id))
    const read = await api.get(`${BASE}/${category.id}`)
    assert.equal(read.statusCode, 200)
    assert.equal(read.json().data.isActive, false)
  })

  it('hard delete removes the row', async () => {
    const category = await create()
    const res = await api.delete(`${BASE}/${category.id}?hard=true`)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal((await api.get(`${BASE}/${category.id}`)).statusCode, 404)
    assert.ok(!(await listIds()).includes(category.id))
    const rows = await h.databases.directory.db
      .select()
      .from(categories)
      .where(eq(categories.id, category.id))
    assert.equal(rows.length, 0)
  })

  it('reorder sets the order of the list and of /all; unlisted categories follow', async () => {
    const [a, b, c] = [await create(), await create(), await create()]
    const res = await api.put(`${BASE}/reorder`, { categoryIds: [c.id, a.id, b.id] })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().success, true)
    assert.equal(typeof res.json().message, 'string')
    const listed = await listIds('limit=100')
    assert.deepEqual(listed.slice(0, 3), [c.id, a.id, b.id])
    const all = await allIds()
    assert.deepEqual(all.slice(0, 3), [c.id, a.id, b.id])
    assert.equal(all.length, listed.length)
    const desc = await listIds('limit=100&sortOrder=desc')
    assert.deepEqual(desc.slice(-3), [b.id, a.id, c.id])
  })

  it('/all answers the active categories, for a locale too', async () => {
    const category = await create()
    const res = await api.get(`${BASE}/all?locale=pt-BR`)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().success, true)
    assert.ok(res.json().data.some((entry: { id: string }) => entry.id === category.id))
  })

  it('SQL-looking names are stored as data', async () => {
    const name = `Robert'); DROP TABLE categories;-- ${randomBytes(3).toString('hex')}`
    const category = await create(name)
    assert.equal(category.name, name)
    assert.equal((await api.get(`${BASE}/${category.id}`)).json().data.name, name)
    assert.ok((await listIds()).length > 0, 'the table is still there')
  })
})

describe('admin categories: the content cache across instances', () => {
  let other: DirectoryHarness
  let otherAdmin: string

  before(async () => {
    other = await startDirectory({ databases: h.databases })
    otherAdmin = await other.adminCookie()
  })
  after(() => other.close())

  it('a write on one instance invalidates /all on the other', async () => {
    // Warm the other instance's cache first, so only an invalidation can show the change.
    const before = await allIds(other, otherAdmin)
    const category = await create()
    assert.ok(!before.includes(category.id))
    await until(async () => (await allIds(other, otherAdmin)).includes(category.id), 'created is seen')

    await api.delete(`${BASE}/${category.id}`)
    await until(async () => !(await allIds(other, otherAdmin)).includes(category.id), 'deleted is gone')

    const newName = uniqueName('Cached')
    const kept = await create()
    await until(async () => (await allIds(other, otherAdmin)).includes(kept.id), 'second create is seen')
    await api.put(`${BASE}/${kept.id}`, { name: newName })
    await until(async () => {
      const res = await requests(other, { origin: APP_ORIGIN, cookie: otherAdmin }).get(`${BASE}/all`)
      return res.json().data.some((entry: { name: string }) => entry.name === newName)
    }, 'rename is seen')

    await api.put(`${BASE}/reorder`, { categoryIds: [kept.id] })
    await until(async () => (await allIds(other, otherAdmin))[0] === kept.id, 'reorder is seen')
  })

  it('the writing instance sees its own write at once', async () => {
    await allIds()
    const category = await create()
    assert.ok((await allIds()).includes(category.id))
  })
})

describe('admin categories: errors', () => {
  it('name at its limits: 2 and 100 pass, 1 and 101 are 400', async () => {
    const tag = randomBytes(2).toString('hex')
    assert.equal((await api.post(BASE, { name: tag.slice(0, 2) })).statusCode, 201)
    const hundred = `${tag}${'n'.repeat(96)}`
    assert.equal(hundred.length, 100)
    assert.equal((await api.post(BASE, { name: hundred })).statusCode, 201)
    for (const name of ['x', `${hundred}n`, '   a   ', '    ']) {
      const res = await api.post(BASE, { name })
      assert.equal(res.statusCode, 400, `name ${JSON.stringify(name)}`)
      assert.equal(res.json().success, false)
      assert.equal(typeof res.json().error, 'string')
    }
  })

  it('missing name is 400 with details', async () => {
    const res = await api.post(BASE, { id: 'no-name' })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().details[0].field, 'body.name')
  })

  it('an id outside ^[a-z0-9-]+$ or over 100 characters is 400', async () => {
    for (const id of ['Upper', 'with space', 'under_score', 'dot.ted', '', 'a'.repeat(101)]) {
      const res = await api.post(BASE, { id, name: uniqueName() })
      assert.equal(res.statusCode, 400, `id ${JSON.stringify(id)}`)
    }
    assert.equal((await api.post(BASE, { id: `a${'b'.repeat(99)}`, name: uniqueName() })).statusCode, 201)
  })

  it('a name of only symbols without an id is 400', async () => {
    const res = await api.post(BASE, { name: '!!!' })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().details[0].field, 'body.id')
  })

  it('a name that exists in another case is 409', async () => {
    const name = uniqueName('Dup')
    await create(name)
    for (const variant of [name, name.toUpperCase(), name.toLowerCase(), ` ${name} `]) {
      const res = await api.post(BASE, { name: variant, id: `other-${randomBytes(4).toString('hex')}` })
      assert.equal(res.statusCode, 409, variant)
      assert.equal(res.json().success, false)
    }
  })

  it('an explicit id that exists is 409', async () => {
    const category = await create()
    const res = await api.post(BASE, { id: category.id, name: uniqueName() })
    assert.equal(res.statusCode, 409)
  })

  it('renaming to a name another category has, in any case, is 409', async () => {
    const first = await create()
    const second = await create()
    const res = await api.put(`${BASE}/${second.id}`, { name: first.name.toUpperCase() })
    assert.equal(res.statusCode, 409)
  })

  it(race('concurrent creates of one name: one 201, the rest 409'), async () => {
    const name = uniqueName('Race')
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.post(BASE, {
          name: i % 2 ? name : name.toUpperCase(),
          ...(i % 3 ? {} : { id: `race-${i}-${randomBytes(3).toString('hex')}` }),
        }),
      ),
    )
    const statuses = results.map((res) => res.statusCode).sort()
    assert.equal(statuses.filter((status) => status === 201).length, 1, statuses.join(','))
    assert.equal(statuses.filter((status) => status === 409).length, 7, statuses.join(','))
  })

  it('unknown ids are 404 on read, update and delete', async () => {
    assert.equal((await api.get(`${BASE}/does-not-exist`)).statusCode, 404)
    assert.equal((await api.put(`${BASE}/does-not-exist`, { name: uniqueName() })).statusCode, 404)
    assert.equal((await api.delete(`${BASE}/does-not-exist`)).statusCode, 404)
    assert.equal((await api.delete(`${BASE}/does-not-exist?hard=true`)).statusCode, 404)
  })

  it('paging out of range is 400: page 0, limit 0 and 101; limit 1 and 100 pass', async () => {
    for (const query of ['page=0', 'page=-1', 'limit=0', 'limit=101', 'page=abc']) {
      const res = await api.get(`${BASE}?${query}`)
      assert.equal(res.statusCode, 400, query)
      assert.equal(res.json().success, false)
    }
    for (const query of ['limit=1', 'limit=100', 'page=1'])
      assert.equal((await api.get(`${BASE}?${query}`)).statusCode, 200)
  })

  it('unknown sort fields, sort orders and flag values are 400', async () => {
    for (const query of ['sortBy=createdAt', 'sortOrder=up', 'includeInactive=yes']) {
      assert.equal((await api.get(`${BASE}?${query}`)).statusCode, 400, query)
    }
    assert.equal((await api.delete(`${BASE}/x?hard=yes`)).statusCode, 400)
  })

  it('a malformed locale is 400', async () => {
    for (const locale of ['e', 'english-language-tag-far-too-long-to-be-real', '../etc', 'en_US']) {
      assert.equal(
        (await api.get(`${BASE}/all?locale=${encodeURIComponent(locale)}`)).statusCode,
        400,
        locale,
      )
    }
  })

  it('reorder: categoryIds not an array, empty, or with unknown ids is 400', async () => {
    const category = await create()
    for (const payload of [
      {},
      { categoryIds: category.id },
      { categoryIds: { 0: category.id } },
      { categoryIds: [] },
    ]) {
      const res = await api.put(`${BASE}/reorder`, payload)
      assert.equal(res.statusCode, 400, JSON.stringify(payload))
      assert.equal(res.json().success, false)
    }
    const res = await api.put(`${BASE}/reorder`, { categoryIds: [category.id, 'ghost-one', 'ghost-two'] })
    assert.equal(res.statusCode, 400)
    assert.match(res.json().error, /ghost-one/)
    assert.match(res.json().error, /ghost-two/)
    assert.equal(
      (await api.put(`${BASE}/reorder`, { categoryIds: [category.id, category.id] })).statusCode,
      400,
    )
  })

  it('a failed reorder changes nothing', async () => {
    const before = await listIds()
    await api.put(`${BASE}/reorder`, { categoryIds: [...before].reverse().concat('ghost') })
    assert.deepEqual(await listIds(), before)
  })
})

describe('admin categories: security', () => {
  it('a write without the app origin is refused', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: BASE,
      payload: { name: uniqueName() },
      headers: { cookie: admin },
    })
    assert.equal(res.statusCode, 403)
  })

  it('the OpenAPI document lists every route under categories with the session cookie', async () => {
    const document = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const paths = Object.entries(
      document.paths as Record<string, Record<string, Record<string, unknown>>>,
    ).filter(([path]) => path.startsWith(BASE))
    const operations = paths.flatMap(([, methods]) => Object.values(methods))
    // Seven category routes and the two of categories in Git (git-routes.ts).
    assert.equal(operations.length, 9)
    for (const operation of operations) {
      assert.deepEqual(operation.tags, ['categories'])
      assert.deepEqual(operation.security, [{ sessionCookie: [] }])
      assert.ok(operation.summary)
    }
  })
})
