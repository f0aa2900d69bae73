import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { createNotifications } from '../../src/db/notifications.ts'
import { companies } from '../../src/directory/companies/tables.ts'
import {
  CATEGORIES_CONTENT,
  COMPANIES_CONTENT,
  CONTENT_CHANGED_CHANNEL,
} from '../../src/directory/content.ts'
import { type ItemStatus, items } from '../../src/directory/items/tables.ts'
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

const BASE = '/api/admin/companies'

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
const uniqueName = (prefix = 'Company') => `${prefix} ${hex()}`

interface CompanyView {
  id: string
  slug: string
  name: string
  description: string | null
  website: string | null
  logoUrl: string | null
  isActive: boolean
  itemCount: number
  createdAt: string
  updatedAt: string
}

async function create(fields: Record<string, unknown> = {}): Promise<CompanyView> {
  const res = await api.post(BASE, { name: uniqueName(), ...fields })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data
}

async function read(id: string): Promise<CompanyView> {
  const res = await api.get(`${BASE}/${id}`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data
}

async function list(query: string) {
  const res = await api.get(`${BASE}?${query}`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as {
    success: boolean
    data: CompanyView[]
    meta: { page: number; limit: number; total: number; totalPages: number }
  }
}

/** Items are written straight to the database: these tests are about companies, not the items API. */
async function itemOf(companyId: string | null, status: ItemStatus = 'published'): Promise<string> {
  const now = h.clock.now()
  const slug = `item-${hex()}`
  const [item] = await h.databases.directory.db
    .insert(items)
    .values({ slug, name: slug, status, companyId, createdAt: now, updatedAt: now })
    .returning({ id: items.id })
  return item!.id
}

describe('admin companies: happy path', () => {
  it('create answers 201 with every field; the slug comes from the trimmed name', async () => {
    const suffix = hex()
    const res = await api.post(BASE, {
      name: `  Crème Brûlée Labs ${suffix} `,
      description: 'Desserts, engineered',
      website: 'https://creme.example.com',
      logoUrl: 'http://cdn.example.com/creme.png',
    })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.deepEqual(Object.keys(body.data).sort(), [
      'createdAt',
      'description',
      'id',
      'isActive',
      'itemCount',
      'logoUrl',
      'name',
      'slug',
      'updatedAt',
      'website',
    ])
    assert.equal(body.data.slug, `creme-brulee-labs-${suffix}`)
    assert.equal(body.data.name, `Crème Brûlée Labs ${suffix}`)
    assert.equal(body.data.description, 'Desserts, engineered')
    assert.equal(body.data.website, 'https://creme.example.com')
    assert.equal(body.data.logoUrl, 'http://cdn.example.com/creme.png')
    assert.equal(body.data.isActive, true)
    assert.equal(body.data.itemCount, 0)
    assert.deepEqual(await read(body.data.id), body.data)
  })

  it('the optional fields default to null and active; an explicit slug is kept', async () => {
    const slug = `acme-${hex()}`
    const company = await create({ slug })
    assert.equal(company.slug, slug)
    assert.equal(company.description, null)
    assert.equal(company.website, null)
    assert.equal(company.logoUrl, null)
    assert.equal(company.isActive, true)
    assert.equal((await create({ isActive: false })).isActive, false)
  })

  it('update changes only the fields sent; null clears a field', async () => {
    const company = await create({ description: 'Before', website: 'https://before.example.com' })
    h.clock.advance(60_000)
    const res = await api.put(`${BASE}/${company.id}`, { description: 'After', website: null })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().success, true)
    const changed = res.json().data as CompanyView
    assert.equal(changed.description, 'After')
    assert.equal(changed.website, null)
    assert.equal(changed.name, company.name)
    assert.equal(changed.slug, company.slug)
    assert.equal(changed.createdAt, company.createdAt)
    assert.ok(Date.parse(changed.updatedAt) > Date.parse(company.updatedAt))
    assert.deepEqual(await read(company.id), changed)

    const renamed = await api.put(`${BASE}/${company.id}`, {
      name: ` ${company.name.toUpperCase()} `,
      slug: `new-${company.slug}`,
    })
    assert.equal(renamed.statusCode, 200, renamed.body)
    assert.equal(renamed.json().data.name, company.name.toUpperCase(), 'its own name in another case')
    assert.equal(renamed.json().data.slug, `new-${company.slug}`)
  })

  it('deactivating through PUT isActive:false, and back', async () => {
    const company = await create()
    await itemOf(company.id)
    const off = await api.put(`${BASE}/${company.id}`, { isActive: false })
    assert.equal(off.statusCode, 200, off.body)
    assert.equal(off.json().data.isActive, false)
    assert.equal(off.json().data.itemCount, 1, 'its items keep naming it')
    const on = await api.put(`${BASE}/${company.id}`, { isActive: true })
    assert.equal(on.json().data.isActive, true)
  })

  it('markup is stored as text', async () => {
    const name = `<img src=x onerror=alert(1)> & Co ${hex()}`
    const description = '<script>alert("x")</script><b>bold</b>'
    const company = await create({ name, description, slug: `markup-${hex()}` })
    assert.equal(company.name, name)
    assert.equal(company.description, description)
    assert.equal((await read(company.id)).description, description)
  })

  it('delete removes an unused company for good', async () => {
    const company = await create()
    const res = await api.delete(`${BASE}/${company.id}`)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { success: true, message: 'Company deleted' })
    assert.equal((await api.get(`${BASE}/${company.id}`)).statusCode, 404)
    // The name and the slug are free again.
    assert.equal((await create({ name: company.name, slug: company.slug })).slug, company.slug)
  })
})

describe('admin companies: list', () => {
  it('search matches the name or the slug, whatever the case; isActive filters; meta pages', async () => {
    const marker = `srch${hex()}`
    const alpha = await create({ name: `Alpha ${marker}` })
    const beta = await create({ name: `Beta ${marker.toUpperCase()}`, isActive: false })
    const gamma = await create({ name: uniqueName('Gamma'), slug: `gamma-${marker}` })
    await create({ name: uniqueName('Unrelated') })

    const first = await list(`search=${marker.toUpperCase()}&limit=2&page=1`)
    assert.equal(first.success, true)
    assert.deepEqual(first.meta, { page: 1, limit: 2, total: 3, totalPages: 2 })
    const second = await list(`search=${marker}&limit=2&page=2`)
    assert.deepEqual(second.meta, { page: 2, limit: 2, total: 3, totalPages: 2 })
    assert.deepEqual(
      [...first.data, ...second.data].map((company) => company.id),
      [alpha.id, beta.id, gamma.id],
      'sorted by name by default',
    )
    const active = await list(`search=${marker}&isActive=true`)
    assert.deepEqual(
      active.data.map((company) => company.id),
      [alpha.id, gamma.id],
    )
    assert.equal(active.meta.total, 2)
    const inactive = await list(`search=${marker}&isActive=false`)
    assert.deepEqual(
      inactive.data.map((company) => company.id),
      [beta.id],
    )
  })

  it('sorts by name, createdAt and itemCount in both directions', async () => {
    const marker = `sort${hex()}`
    const b = await create({ name: `B ${marker}` })
    h.clock.advance(1000)
    const a = await create({ name: `A ${marker}` })
    h.clock.advance(1000)
    const c = await create({ name: `C ${marker}` })
    await itemOf(b.id)
    await itemOf(c.id)
    await itemOf(c.id, 'draft')

    const ids = async (query: string) => (await list(`search=${marker}&${query}`)).data.map((row) => row.id)
    assert.deepEqual(await ids('sortBy=name'), [a.id, b.id, c.id])
    assert.deepEqual(await ids('sortBy=name&sortOrder=desc'), [c.id, b.id, a.id])
    assert.deepEqual(await ids('sortBy=createdAt'), [b.id, a.id, c.id])
    assert.deepEqual(await ids('sortBy=createdAt&sortOrder=desc'), [c.id, a.id, b.id])
    assert.deepEqual(await ids('sortBy=itemCount'), [a.id, b.id, c.id])
    assert.deepEqual(await ids('sortBy=itemCount&sortOrder=desc'), [c.id, b.id, a.id])
    assert.deepEqual(
      (await list(`search=${marker}&sortBy=itemCount&sortOrder=desc`)).data.map((row) => row.itemCount),
      [2, 1, 0],
    )
  })

  it('itemCount counts every item naming the company, whatever its status', async () => {
    const company = await create()
    for (const status of ['draft', 'pending', 'published', 'rejected'] as const)
      await itemOf(company.id, status)
    await itemOf(null)
    await itemOf((await create()).id)
    assert.equal((await read(company.id)).itemCount, 4)
    assert.deepEqual(
      (await list(`search=${encodeURIComponent(company.name)}`)).data.map((row) => [row.id, row.itemCount]),
      [[company.id, 4]],
    )
  })

  it('query values out of range are 400 naming the field', async () => {
    for (const [query, field] of [
      ['page=0', 'query.page'],
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['isActive=yes', 'query.isActive'],
      ['sortBy=slug', 'query.sortBy'],
      ['sortOrder=up', 'query.sortOrder'],
      [`search=${'s'.repeat(101)}`, 'query.search'],
    ] as const) {
      const res = await api.get(`${BASE}?${query}`)
      assert.equal(res.statusCode, 400, query)
      assert.equal(res.json().details[0].field, field, query)
    }
  })
})

describe('admin companies: stats', () => {
  it('total, active, inactive, with and without items, and the ten with the most items', async () => {
    const db = h.databases.directory.db
    // Stats describe the whole directory: this test starts from an empty one.
    await db.delete(items)
    await db.delete(companies)
    const empty = await api.get(`${BASE}/stats`)
    assert.equal(empty.statusCode, 200, empty.body)
    assert.deepEqual(empty.json(), {
      success: true,
      data: { total: 0, active: 0, inactive: 0, withItems: 0, withoutItems: 0, topCompanies: [] },
    })

    // Twelve companies with items (company n names n items, the first two inactive), three without.
    const busy: CompanyView[] = []
    for (let n = 1; n <= 12; n++) {
      busy.push(await create({ name: `Busy ${String(n).padStart(2, '0')}`, isActive: n > 2 }))
    }
    for (let n = 1; n <= 3; n++) await create({ name: `Idle ${n}`, isActive: n > 1 })
    for (const [index, company] of busy.entries()) {
      for (let k = 0; k <= index; k++) await itemOf(company.id)
    }
    await itemOf(null)

    const res = await api.get(`${BASE}/stats`)
    assert.equal(res.statusCode, 200, res.body)
    const { data } = res.json()
    assert.equal(data.total, 15)
    assert.equal(data.active, 12)
    assert.equal(data.inactive, 3)
    assert.equal(data.withItems, 12)
    assert.equal(data.withoutItems, 3)
    assert.deepEqual(
      data.topCompanies,
      busy
        .slice(2)
        .reverse()
        .map((company, index) => ({ id: company.id, name: company.name, itemCount: 12 - index })),
    )
  })
})

describe('admin companies: deleting a company in use', () => {
  it('is 409 COMPANY_IN_USE saying how many items name it; once they are moved, it can go', async () => {
    const company = await create()
    const other = await create()
    const itemIds = [
      await itemOf(company.id),
      await itemOf(company.id, 'draft'),
      await itemOf(company.id, 'rejected'),
    ]
    const res = await api.delete(`${BASE}/${company.id}`)
    assert.equal(res.statusCode, 409, res.body)
    assert.equal(res.json().code, 'COMPANY_IN_USE')
    assert.match(res.json().error, /its 3 items/)
    assert.equal((await read(company.id)).itemCount, 3, 'the company and its items are untouched')

    const db = h.databases.directory.db
    await db.update(items).set({ companyId: other.id }).where(eq(items.companyId, company.id))
    assert.equal((await api.delete(`${BASE}/${company.id}`)).statusCode, 200)
    assert.equal((await read(other.id)).itemCount, 3)
    assert.equal((await db.select().from(items).where(eq(items.id, itemIds[0]!))).length, 1, 'items stay')
  })

  it('one item is "its 1 item"', async () => {
    const company = await create()
    await itemOf(company.id)
    const res = await api.delete(`${BASE}/${company.id}`)
    assert.equal(res.statusCode, 409)
    assert.match(res.json().error, /its 1 item to/)
  })

  it(race('a delete racing an item naming the company: a 200 and a refused item, or a 409'), async () => {
    for (let round = 0; round < 5; round++) {
      const company = await create()
      const [deleted, named] = await Promise.allSettled([
        api.delete(`${BASE}/${company.id}`),
        itemOf(company.id),
      ])
      assert.equal(deleted.status, 'fulfilled')
      if (named.status === 'fulfilled') {
        assert.equal(deleted.value.statusCode, 409, deleted.value.body)
        assert.equal(deleted.value.json().code, 'COMPANY_IN_USE')
        assert.equal((await read(company.id)).itemCount, 1)
      } else {
        assert.equal(deleted.value.statusCode, 200, deleted.value.body)
        assert.equal((await api.get(`${BASE}/${company.id}`)).statusCode, 404)
      }
    }
  })
})

describe('admin companies: errors', () => {
  it('a name too short, too long, blank or missing is 400 naming body.name; 2 and 200 pass', async () => {
    for (const payload of [{ name: 'x' }, { name: '   ' }, { name: ' x ' }, { name: 'n'.repeat(201) }, {}]) {
      const res = await api.post(BASE, { slug: `s-${hex()}`, ...payload })
      assert.equal(res.statusCode, 400, JSON.stringify(payload))
      assert.equal(res.json().success, false)
      assert.equal(res.json().code, 'VALIDATION_ERROR')
      assert.equal(res.json().details[0].field, 'body.name', JSON.stringify(payload))
    }
    assert.equal((await create({ name: hex().slice(0, 2), slug: `two-${hex()}` })).name.length, 2)
    assert.equal((await create({ name: `${hex()}${'n'.repeat(192)}` })).name.length, 200)
    const company = await create()
    const blank = await api.put(`${BASE}/${company.id}`, { name: '  ' })
    assert.equal(blank.statusCode, 400)
    assert.equal(blank.json().details[0].field, 'body.name')
  })

  it('website and logoUrl are http(s) URLs of at most 2048 characters: anything else is 400 naming the field', async () => {
    const long = `https://example.com/${'a'.repeat(2029)}`
    assert.equal(long.length, 2049)
    for (const field of ['website', 'logoUrl']) {
      for (const value of [
        'javascript:alert(1)',
        'data:text/html,<script>x</script>',
        'ftp://example.com/x',
        'not a url',
        long,
      ]) {
        const res = await api.post(BASE, { name: uniqueName(), [field]: value })
        assert.equal(res.statusCode, 400, `${field} ${value.slice(0, 40)}`)
        assert.equal(res.json().details[0].field, `body.${field}`)
      }
    }
    const company = await create()
    const script = await api.put(`${BASE}/${company.id}`, { logoUrl: 'javascript:alert(1)' })
    assert.equal(script.statusCode, 400)
    assert.equal(script.json().details[0].field, 'body.logoUrl')
    assert.equal((await read(company.id)).logoUrl, null)
  })

  it('a description over 2000 characters, a bad slug or an empty update is 400', async () => {
    const tooLong = await api.post(BASE, { name: uniqueName(), description: 'd'.repeat(2001) })
    assert.equal(tooLong.statusCode, 400)
    assert.equal(tooLong.json().details[0].field, 'body.description')
    assert.equal((await create({ description: 'd'.repeat(2000) })).description?.length, 2000)
    for (const slug of ['Upper', 'with space', '', 'a'.repeat(201)]) {
      const res = await api.post(BASE, { name: uniqueName(), slug })
      assert.equal(res.statusCode, 400, JSON.stringify(slug))
      assert.equal(res.json().details[0].field, 'body.slug')
    }
    const symbols = await api.post(BASE, { name: '!!!' })
    assert.equal(symbols.statusCode, 400)
    assert.equal(symbols.json().details[0].field, 'body.slug')
    const company = await create()
    assert.equal((await api.put(`${BASE}/${company.id}`, {})).statusCode, 400)
  })

  it('a name taken in any case is 409 COMPANY_NAME_EXISTS; a taken slug is 409 COMPANY_SLUG_EXISTS', async () => {
    const company = await create()
    for (const name of [company.name, company.name.toUpperCase(), ` ${company.name.toLowerCase()} `]) {
      const res = await api.post(BASE, { name, slug: `other-${hex()}` })
      assert.equal(res.statusCode, 409, name)
      assert.equal(res.json().code, 'COMPANY_NAME_EXISTS')
    }
    const sameSlug = await api.post(BASE, { name: uniqueName(), slug: company.slug })
    assert.equal(sameSlug.statusCode, 409)
    assert.equal(sameSlug.json().code, 'COMPANY_SLUG_EXISTS')
    const derived = await api.post(BASE, { name: `${company.name}!` })
    assert.equal(derived.statusCode, 409)
    assert.equal(derived.json().code, 'COMPANY_SLUG_EXISTS')

    const other = await create()
    const renamed = await api.put(`${BASE}/${other.id}`, { name: company.name.toLowerCase() })
    assert.equal(renamed.statusCode, 409)
    assert.equal(renamed.json().code, 'COMPANY_NAME_EXISTS')
    const reslugged = await api.put(`${BASE}/${other.id}`, { slug: company.slug })
    assert.equal(reslugged.statusCode, 409)
    assert.equal(reslugged.json().code, 'COMPANY_SLUG_EXISTS')
    assert.deepEqual(await read(other.id), other, 'nothing changed')
  })

  it(race('concurrent creates of one name: one 201, seven 409 COMPANY_NAME_EXISTS'), async () => {
    const name = uniqueName('Race')
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.post(BASE, { name: i % 2 ? name : name.toUpperCase(), slug: `race-${i}-${hex()}` }),
      ),
    )
    const statuses = results.map((res) => res.statusCode)
    assert.equal(statuses.filter((status) => status === 201).length, 1, statuses.join(','))
    const refused = results.filter((res) => res.statusCode === 409)
    assert.equal(refused.length, 7, statuses.join(','))
    for (const res of refused) assert.equal(res.json().code, 'COMPANY_NAME_EXISTS')
  })

  it(race('concurrent creates of one slug: one 201, seven 409 COMPANY_SLUG_EXISTS'), async () => {
    const slug = `race-slug-${hex()}`
    const results = await Promise.all(
      Array.from({ length: 8 }, () => api.post(BASE, { name: uniqueName('Racer'), slug })),
    )
    const statuses = results.map((res) => res.statusCode)
    assert.equal(statuses.filter((status) => status === 201).length, 1, statuses.join(','))
    for (const res of results.filter((res) => res.statusCode !== 201)) {
      assert.equal(res.statusCode, 409)
      assert.equal(res.json().code, 'COMPANY_SLUG_EXISTS')
    }
  })

  it('an unknown id, or one that is not a UUID, is 404 COMPANY_NOT_FOUND', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', 'acme']) {
      for (const [method, payload] of [['GET'], ['PUT', { isActive: false }], ['DELETE']] as const) {
        const res = await api.request(method, `${BASE}/${id}`, { body: payload })
        assert.equal(res.statusCode, 404, `${method} ${id}`)
        assert.equal(res.json().code, 'COMPANY_NOT_FOUND')
      }
    }
  })
})

describe('admin companies: security', () => {
  it('anonymous is 401, a signed-in non-admin 403, on every route', async () => {
    const registered = await h.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      payload: { email: uniqueEmail(), password: 'a good password', name: 'Reader' },
    })
    const user = sessionCookie(registered)
    const company = await create()
    for (const [method, url, payload] of [
      ['GET', BASE],
      ['POST', BASE, { name: uniqueName() }],
      ['GET', `${BASE}/stats`],
      ['GET', `${BASE}/${company.id}`],
      ['PUT', `${BASE}/${company.id}`, { isActive: false }],
      ['DELETE', `${BASE}/${company.id}`],
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
    assert.deepEqual(await read(company.id), company, 'nothing changed')
  })

  it('a write carrying the cookie from another origin is 403 CROSS_ORIGIN', async () => {
    const company = await create()
    const res = await h.app.inject({
      method: 'DELETE',
      url: `${BASE}/${company.id}`,
      headers: { cookie: admin, origin: 'https://evil.example.com' },
    })
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().code, 'CROSS_ORIGIN')
    assert.equal((await read(company.id)).id, company.id)
  })

  it('every write tells all instances that companies changed, and a refused one does not', async () => {
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
      const company = await create()
      await hear(COMPANIES_CONTENT, 1)
      await api.put(`${BASE}/${company.id}`, { name: uniqueName() })
      await hear(COMPANIES_CONTENT, 2)
      await api.delete(`${BASE}/${company.id}`)
      await hear(COMPANIES_CONTENT, 3)

      const used = await create()
      await itemOf(used.id)
      assert.equal((await api.post(BASE, { name: used.name })).statusCode, 409)
      assert.equal((await api.delete(`${BASE}/${used.id}`)).statusCode, 409)
      assert.equal((await api.put(`${BASE}/${company.id}`, { isActive: true })).statusCode, 404)
      // Messages arrive in commit order: once a later write's is heard, a refused write's would have been.
      const category = await api.post('/api/admin/categories', { name: uniqueName('Category') })
      assert.equal(category.statusCode, 201, category.body)
      await hear(CATEGORIES_CONTENT, 1)
      assert.equal(times(COMPANIES_CONTENT), 4)
    } finally {
      await notifications.close()
    }
  })

  it('the OpenAPI document lists the six company routes under companies, with the session cookie', async () => {
    const document = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const operations = Object.entries(
      document.paths as Record<string, Record<string, Record<string, unknown>>>,
    )
      .filter(([path]) => path.startsWith(BASE))
      .flatMap(([, methods]) => Object.values(methods))
    assert.equal(operations.length, 6)
    for (const operation of operations) {
      assert.deepEqual(operation.tags, ['companies'])
      assert.deepEqual(operation.security, [{ sessionCookie: [] }])
    }
  })
})
