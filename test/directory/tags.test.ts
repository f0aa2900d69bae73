import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { createNotifications } from '../../src/db/notifications.ts'
import { CATEGORIES_CONTENT, CONTENT_CHANGED_CHANNEL, TAGS_CONTENT } from '../../src/directory/content.ts'
import { type ItemStatus, items, itemTags } from '../../src/directory/items/tables.ts'
import { tags } from '../../src/directory/tags/tables.ts'
import { createLogger } from '../../src/lib/logger.ts'
import {
  type DirectoryHarness,
  randomAddress,
  sessionCookie,
  startDirectory,
  uniqueEmail,
} from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

const BASE = '/api/admin/tags'

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

const hex = () => randomBytes(4).toString('hex')
/** A name no other test uses, so tests never depend on each other's rows. */
const uniqueName = (prefix = 'Tag') => `${prefix} ${hex()}`

interface TagView {
  id: string
  name: string
  itemCount: number
  createdAt: string
  updatedAt: string
}

async function create(name = uniqueName(), id?: string): Promise<TagView> {
  const res = await api.post(BASE, { name, ...(id ? { id } : {}) })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data
}

async function read(id: string): Promise<TagView> {
  const res = await api.get(`${BASE}/${id}`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data
}

async function list(query: string) {
  const res = await api.get(`${BASE}?${query}`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as {
    success: boolean
    data: TagView[]
    meta: { page: number; limit: number; total: number; totalPages: number }
  }
}

/** Items are written straight to the database: these tests are about tags, not the items API. */
async function itemWithTags(tagIds: string[], status: ItemStatus = 'published'): Promise<string> {
  const db = h.databases.directory.db
  const now = h.clock.now()
  const slug = `item-${hex()}`
  const [item] = await db
    .insert(items)
    .values({ slug, name: slug, status, createdAt: now, updatedAt: now })
    .returning({ id: items.id })
  if (tagIds.length > 0)
    await db.insert(itemTags).values(tagIds.map((tagId) => ({ itemId: item!.id, tagId })))
  return item!.id
}

describe('admin tags: happy path', () => {
  it('create answers 201 with the tag: id slugged from the trimmed name, no items yet', async () => {
    const suffix = hex()
    const res = await api.post(BASE, { name: `  Open Source Café ${suffix} ` })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.deepEqual(Object.keys(body.data).sort(), ['createdAt', 'id', 'itemCount', 'name', 'updatedAt'])
    assert.equal(body.data.id, `open-source-cafe-${suffix}`)
    assert.equal(body.data.name, `Open Source Café ${suffix}`)
    assert.equal(body.data.itemCount, 0)
    assert.ok(!Number.isNaN(Date.parse(body.data.createdAt)))
    assert.deepEqual(await read(body.data.id), body.data)
  })

  it('create keeps an explicit id', async () => {
    const id = `cpp-${hex()}`
    const tag = await create(`C++ ${hex()}`, id)
    assert.equal(tag.id, id)
  })

  it('rename changes the name, keeps the id, and moves updatedAt', async () => {
    const tag = await create()
    h.clock.advance(60_000)
    const name = uniqueName('Renamed')
    const res = await api.put(`${BASE}/${tag.id}`, { name: ` ${name} ` })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().success, true)
    assert.equal(res.json().data.id, tag.id)
    assert.equal(res.json().data.name, name)
    assert.equal(res.json().data.createdAt, tag.createdAt)
    assert.ok(Date.parse(res.json().data.updatedAt) > Date.parse(tag.updatedAt))
    assert.equal((await read(tag.id)).name, name)
  })

  it('renaming a tag to its own name in another case is allowed', async () => {
    const tag = await create(uniqueName('lower'))
    const res = await api.put(`${BASE}/${tag.id}`, { name: tag.name.toUpperCase() })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.name, tag.name.toUpperCase())
  })

  it('markup and SQL-looking names are stored as text', async () => {
    const name = `<b>Bold</b> & <script>alert(1)</script> '); DROP TABLE tags;-- ${hex()}`
    const tag = await create(name, `markup-${hex()}`)
    assert.equal(tag.name, name)
    assert.equal((await read(tag.id)).name, name)
  })

  it('delete removes an unused tag for good', async () => {
    const tag = await create()
    const res = await api.delete(`${BASE}/${tag.id}`)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { success: true, message: 'Tag deleted' })
    assert.equal((await api.get(`${BASE}/${tag.id}`)).statusCode, 404)
    // The id and the name are free again.
    assert.equal((await create(tag.name, tag.id)).id, tag.id)
  })
})

describe('admin tags: list', () => {
  it('search matches the name or the id, whatever the case; meta pages the matches', async () => {
    const marker = `srch${hex()}`
    await create(`Alpha ${marker}`)
    await create(`Beta ${marker.toUpperCase()}`)
    await create(uniqueName('Gamma'), `gamma-${marker}`)
    await create(uniqueName('Unrelated'))

    const first = await list(`search=${marker.toUpperCase()}&limit=2&page=1`)
    assert.equal(first.success, true)
    assert.deepEqual(first.meta, { page: 1, limit: 2, total: 3, totalPages: 2 })
    assert.equal(first.data.length, 2)
    const second = await list(`search=${marker}&limit=2&page=2`)
    assert.deepEqual(second.meta, { page: 2, limit: 2, total: 3, totalPages: 2 })
    assert.equal(second.data.length, 1)
    const seen = [...first.data, ...second.data].map((tag) => tag.name.split(' ')[0])
    assert.deepEqual(seen, ['Alpha', 'Beta', 'Gamma'], 'sorted by name by default')
    assert.deepEqual((await list(`search=${marker}&page=3&limit=2`)).data, [])
  })

  it('a search is text, not a pattern: % and _ match themselves', async () => {
    const marker = `pct${hex()}`
    await create(`100% ${marker}`)
    await create(`100x ${marker}`)
    const found = await list(`search=${encodeURIComponent(`100% ${marker}`)}`)
    assert.deepEqual(
      found.data.map((tag) => tag.name),
      [`100% ${marker}`],
    )
    assert.equal((await list(`search=${encodeURIComponent(`_00x ${marker}`)}`)).meta.total, 0)
  })

  it('sorts by name, createdAt and itemCount in both directions', async () => {
    const marker = `sort${hex()}`
    const b = await create(`B ${marker}`)
    h.clock.advance(1000)
    const a = await create(`A ${marker}`)
    h.clock.advance(1000)
    const c = await create(`C ${marker}`)
    await itemWithTags([b.id, c.id])
    await itemWithTags([c.id])

    const ids = async (query: string) => (await list(`search=${marker}&${query}`)).data.map((tag) => tag.id)
    assert.deepEqual(await ids('sortBy=name'), [a.id, b.id, c.id])
    assert.deepEqual(await ids('sortBy=name&sortOrder=desc'), [c.id, b.id, a.id])
    assert.deepEqual(await ids('sortBy=createdAt'), [b.id, a.id, c.id])
    assert.deepEqual(await ids('sortBy=createdAt&sortOrder=desc'), [c.id, a.id, b.id])
    assert.deepEqual(await ids('sortBy=itemCount'), [a.id, b.id, c.id])
    assert.deepEqual(await ids('sortBy=itemCount&sortOrder=desc'), [c.id, b.id, a.id])
    assert.deepEqual(
      (await list(`search=${marker}&sortBy=itemCount&sortOrder=desc`)).data.map((tag) => tag.itemCount),
      [2, 1, 0],
    )
  })

  it('itemCount counts every item carrying the tag, whatever its status', async () => {
    const tag = await create()
    const other = await create()
    for (const status of ['draft', 'pending', 'published', 'rejected'] as const) {
      await itemWithTags([tag.id, other.id], status)
    }
    await itemWithTags([other.id])
    assert.equal((await read(tag.id)).itemCount, 4)
    assert.equal((await read(other.id)).itemCount, 5)
    const listed = await list(`search=${encodeURIComponent(tag.name)}`)
    assert.deepEqual(
      listed.data.map((entry) => [entry.id, entry.itemCount]),
      [[tag.id, 4]],
    )
  })

  it('/all answers every tag as {id, name}, by name, without paging', async () => {
    const marker = `all${hex()}`
    const z = await create(`Zz ${marker}`)
    const a = await create(`Aa ${marker}`)
    for (let n = 0; n < 10; n++) await create(`Mm ${n} ${marker}`)
    const res = await api.get(`${BASE}/all`)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().success, true)
    const all = res.json().data as { id: string; name: string }[]
    assert.ok(all.length > 10, 'more than one page of the list')
    for (const entry of all) assert.deepEqual(Object.keys(entry).sort(), ['id', 'name'])
    const mine = all.filter((entry) => entry.name.endsWith(marker))
    assert.equal(mine.length, 12)
    assert.deepEqual(
      [mine[0], mine.at(-1)],
      [
        { id: a.id, name: a.name },
        { id: z.id, name: z.name },
      ],
    )
  })

  it('paging and sort values out of range are 400 naming the field', async () => {
    for (const [query, field] of [
      ['page=0', 'query.page'],
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['sortBy=id', 'query.sortBy'],
      ['sortOrder=up', 'query.sortOrder'],
      [`search=${'s'.repeat(101)}`, 'query.search'],
    ] as const) {
      const res = await api.get(`${BASE}?${query}`)
      assert.equal(res.statusCode, 400, query)
      assert.equal(res.json().details[0].field, field, query)
    }
    for (const query of ['limit=1', 'limit=100'])
      assert.equal((await api.get(`${BASE}?${query}`)).statusCode, 200)
  })
})

describe('admin tags: stats', () => {
  it('total, used, unused and the ten used most', async () => {
    const db = h.databases.directory.db
    // Stats describe the whole directory: this test starts from an empty one.
    await db.delete(itemTags)
    await db.delete(items)
    await db.delete(tags)
    const empty = await api.get(`${BASE}/stats`)
    assert.equal(empty.statusCode, 200, empty.body)
    assert.deepEqual(empty.json(), { success: true, data: { total: 0, used: 0, unused: 0, topTags: [] } })

    // Twelve used tags (tag n carried by n items) and three unused ones.
    const used: TagView[] = []
    for (let n = 1; n <= 12; n++) used.push(await create(`Used ${String(n).padStart(2, '0')}`))
    for (let n = 1; n <= 3; n++) await create(`Unused ${n}`)
    for (let k = 1; k <= 12; k++) await itemWithTags(used.slice(k - 1).map((tag) => tag.id))

    const res = await api.get(`${BASE}/stats`)
    assert.equal(res.statusCode, 200, res.body)
    const { data } = res.json()
    assert.equal(data.total, 15)
    assert.equal(data.used, 12)
    assert.equal(data.unused, 3)
    assert.deepEqual(
      data.topTags,
      used
        .slice(2)
        .reverse()
        .map((tag, index) => ({ id: tag.id, name: tag.name, itemCount: 12 - index })),
    )
  })
})

describe('admin tags: deleting a tag in use', () => {
  it('is 409 TAG_IN_USE saying how many items carry it; removed from them, it can go', async () => {
    const tag = await create()
    const itemIds = [await itemWithTags([tag.id]), await itemWithTags([tag.id], 'draft')]
    await itemWithTags([tag.id], 'rejected')
    const res = await api.delete(`${BASE}/${tag.id}`)
    assert.equal(res.statusCode, 409, res.body)
    assert.equal(res.json().code, 'TAG_IN_USE')
    assert.match(res.json().error, /remove it from its 3 items first/)
    assert.equal((await read(tag.id)).itemCount, 3, 'the tag and its items are untouched')

    const db = h.databases.directory.db
    await db.delete(itemTags).where(eq(itemTags.tagId, tag.id))
    assert.equal((await read(tag.id)).itemCount, 0)
    assert.equal((await api.delete(`${BASE}/${tag.id}`)).statusCode, 200)
    assert.equal((await db.select().from(items).where(eq(items.id, itemIds[0]!))).length, 1, 'items stay')
  })

  it('one item is "its 1 item"', async () => {
    const tag = await create()
    await itemWithTags([tag.id])
    const res = await api.delete(`${BASE}/${tag.id}`)
    assert.equal(res.statusCode, 409)
    assert.match(res.json().error, /its 1 item first/)
  })

  it(
    race('a delete racing an item taking the tag: a 200 and a refused item, or a 409 — never both'),
    async () => {
      for (let round = 0; round < 5; round++) {
        const tag = await create()
        const [deleted, tagged] = await Promise.allSettled([
          api.delete(`${BASE}/${tag.id}`),
          itemWithTags([tag.id]),
        ])
        assert.equal(deleted.status, 'fulfilled')
        const status = deleted.value.statusCode
        if (tagged.status === 'fulfilled') {
          assert.equal(status, 409, deleted.value.body)
          assert.equal(deleted.value.json().code, 'TAG_IN_USE')
          assert.equal((await read(tag.id)).itemCount, 1)
        } else {
          assert.equal(status, 200, deleted.value.body)
          assert.equal((await api.get(`${BASE}/${tag.id}`)).statusCode, 404)
        }
      }
    },
  )
})

describe('admin tags: errors', () => {
  it('a blank, missing or too long name is 400 naming body.name; 1 and 100 characters pass', async () => {
    for (const payload of [{ name: '' }, { name: '   ' }, { name: 'n'.repeat(101) }, {}, { name: 42 }]) {
      const res = await api.post(BASE, { id: `x-${hex()}`, ...payload })
      assert.equal(res.statusCode, 400, JSON.stringify(payload))
      assert.equal(res.json().success, false)
      assert.equal(res.json().code, 'VALIDATION_ERROR')
      assert.equal(res.json().details[0].field, 'body.name', JSON.stringify(payload))
    }
    const hundred = `${hex()}${'n'.repeat(92)}`
    assert.equal((await create(hundred, `h-${hex()}`)).name, hundred)
    assert.equal((await create('Z', `z-${hex()}`)).name, 'Z')
    const tag = await create()
    const blank = await api.put(`${BASE}/${tag.id}`, { name: '  ' })
    assert.equal(blank.statusCode, 400)
    assert.equal(blank.json().details[0].field, 'body.name')
  })

  it('an id outside ^[a-z0-9-]+$ or over 100 characters is 400 naming body.id', async () => {
    for (const id of ['Upper', 'with space', 'under_score', '', 'a'.repeat(101)]) {
      const res = await api.post(BASE, { id, name: uniqueName() })
      assert.equal(res.statusCode, 400, JSON.stringify(id))
      assert.equal(res.json().details[0].field, 'body.id')
    }
    const symbols = await api.post(BASE, { name: '+++' })
    assert.equal(symbols.statusCode, 400)
    assert.equal(symbols.json().details[0].field, 'body.id')
  })

  it('a name taken in any case is 409 TAG_NAME_EXISTS; a taken id is 409 TAG_ID_EXISTS', async () => {
    const tag = await create()
    for (const name of [tag.name, tag.name.toUpperCase(), ` ${tag.name.toLowerCase()} `]) {
      const res = await api.post(BASE, { name, id: `other-${hex()}` })
      assert.equal(res.statusCode, 409, name)
      assert.equal(res.json().code, 'TAG_NAME_EXISTS')
    }
    const sameId = await api.post(BASE, { name: uniqueName(), id: tag.id })
    assert.equal(sameId.statusCode, 409)
    assert.equal(sameId.json().code, 'TAG_ID_EXISTS')
    assert.match(sameId.json().error, new RegExp(tag.id))
    // A name whose slug is taken: the id, derived, is what conflicts.
    const slugTwin = await api.post(BASE, { name: `${tag.name}!` })
    assert.equal(slugTwin.statusCode, 409)
    assert.equal(slugTwin.json().code, 'TAG_ID_EXISTS')
  })

  it('renaming to another tag’s name, in any case, is 409 TAG_NAME_EXISTS', async () => {
    const first = await create()
    const second = await create()
    const res = await api.put(`${BASE}/${second.id}`, { name: first.name.toUpperCase() })
    assert.equal(res.statusCode, 409)
    assert.equal(res.json().code, 'TAG_NAME_EXISTS')
    assert.equal((await read(second.id)).name, second.name)
  })

  it(race('concurrent creates of one name: one 201, seven 409 TAG_NAME_EXISTS'), async () => {
    const name = uniqueName('Race')
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.post(BASE, { name: i % 2 ? name : name.toUpperCase(), id: `race-${i}-${hex()}` }),
      ),
    )
    const statuses = results.map((res) => res.statusCode)
    assert.equal(statuses.filter((status) => status === 201).length, 1, statuses.join(','))
    const refused = results.filter((res) => res.statusCode === 409)
    assert.equal(refused.length, 7, statuses.join(','))
    for (const res of refused) assert.equal(res.json().code, 'TAG_NAME_EXISTS')
  })

  it(race('concurrent creates of one id: one 201, seven 409 TAG_ID_EXISTS'), async () => {
    const id = `race-id-${hex()}`
    const results = await Promise.all(
      Array.from({ length: 8 }, () => api.post(BASE, { name: uniqueName('Racer'), id })),
    )
    const statuses = results.map((res) => res.statusCode)
    assert.equal(statuses.filter((status) => status === 201).length, 1, statuses.join(','))
    for (const res of results.filter((res) => res.statusCode !== 201)) {
      assert.equal(res.statusCode, 409)
      assert.equal(res.json().code, 'TAG_ID_EXISTS')
    }
  })

  it('an unknown id is 404 TAG_NOT_FOUND on read, rename and delete', async () => {
    for (const [method, payload] of [['GET'], ['PUT', { name: uniqueName() }], ['DELETE']] as const) {
      const res = await api.request(method, `${BASE}/no-such-tag-${hex()}`, { body: payload })
      assert.equal(res.statusCode, 404, method)
      assert.equal(res.json().code, 'TAG_NOT_FOUND')
    }
  })
})

describe('admin tags: security', () => {
  it('anonymous is 401, a signed-in non-admin 403, on every route', async () => {
    const registered = await h.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      payload: { email: uniqueEmail(), password: 'a good password', name: 'Reader' },
    })
    const user = sessionCookie(registered)
    const tag = await create()
    for (const [method, url, payload] of [
      ['GET', BASE],
      ['POST', BASE, { name: uniqueName() }],
      ['GET', `${BASE}/all`],
      ['GET', `${BASE}/stats`],
      ['GET', `${BASE}/${tag.id}`],
      ['PUT', `${BASE}/${tag.id}`, { name: uniqueName() }],
      ['DELETE', `${BASE}/${tag.id}`],
    ] as const) {
      assert.equal(
        (await api.request(method, url, { body: payload, cookie: null })).statusCode,
        401,
        `${method} ${url}`,
      )
      assert.equal(
        (await api.request(method, url, { body: payload, cookie: user })).statusCode,
        403,
        `${method} ${url}`,
      )
    }
    assert.equal((await read(tag.id)).name, tag.name, 'nothing changed')
  })

  it('a write carrying the cookie from another origin is 403 CROSS_ORIGIN', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: BASE,
      payload: { name: uniqueName() },
      headers: { cookie: admin, origin: 'https://evil.example.com' },
    })
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().code, 'CROSS_ORIGIN')
  })

  it('every write tells all instances that tags changed, and a refused one does not', async () => {
    const notifications = createNotifications(h.databases.directory.source, createLogger('silent'))
    const heard: string[] = []
    let wake = () => {}
    await notifications.listen(CONTENT_CHANGED_CHANNEL, (payload) => {
      heard.push(payload)
      wake()
    })
    const times = (payload: string) => heard.filter((entry) => entry === payload).length
    const hear = async (payload: string, count: number) => {
      const deadline = Date.now() + 5000
      while (times(payload) < count) {
        const left = deadline - Date.now()
        if (left <= 0) assert.fail(`heard ${JSON.stringify(heard)}, wanted ${count} × ${payload}`)
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, left).unref()
        })
      }
    }
    try {
      const tag = await create()
      await hear(TAGS_CONTENT, 1)
      await api.put(`${BASE}/${tag.id}`, { name: uniqueName() })
      await hear(TAGS_CONTENT, 2)
      await api.delete(`${BASE}/${tag.id}`)
      await hear(TAGS_CONTENT, 3)

      const used = await create()
      await itemWithTags([used.id])
      assert.equal((await api.post(BASE, { name: used.name })).statusCode, 409)
      assert.equal((await api.delete(`${BASE}/${used.id}`)).statusCode, 409)
      assert.equal((await api.delete(`${BASE}/${tag.id}`)).statusCode, 404)
      // Messages arrive in commit order: once a later write's is heard, a refused write's would have been.
      const category = await api.post('/api/admin/categories', { name: uniqueName('Category') })
      assert.equal(category.statusCode, 201, category.body)
      await hear(CATEGORIES_CONTENT, 1)
      assert.equal(times(TAGS_CONTENT), 4)
    } finally {
      await notifications.close()
    }
  })

  it('the OpenAPI document lists the seven tag routes under tags, with the session cookie', async () => {
    const document = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const operations = Object.entries(
      document.paths as Record<string, Record<string, Record<string, unknown>>>,
    )
      .filter(([path]) => path.startsWith(BASE))
      .flatMap(([, methods]) => Object.values(methods))
    assert.equal(operations.length, 7)
    for (const operation of operations) {
      assert.deepEqual(operation.tags, ['tags'])
      assert.deepEqual(operation.security, [{ sessionCookie: [] }])
    }
  })
})
