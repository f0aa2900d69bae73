import assert from 'node:assert/strict'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { EXPORT_BATCH } from '../../../src/directory/feeds/export.ts'
import { type ItemStatus, items } from '../../../src/directory/items/tables.ts'
import { type DirectoryHarness, startDirectory } from '../../helpers/apps.ts'
import { type Method, type Requests, siteRequests } from '../../helpers/requests.ts'

const APP_URL = 'https://coffee-atlas.example'
/** More than two batches, and not a multiple of one. */
const PUBLISHED = EXPORT_BATCH * 2 + 700

let h: DirectoryHarness
let api: Requests
let base: string

before(async () => {
  // Requests over the socket come from 127.0.0.1: the bypass keeps the export's limit out of the way.
  h = await startDirectory({ env: { APP_URL, RATE_LIMIT_BYPASS_LOCALHOST: 'true' } })
  api = siteRequests(h, { cookie: await h.adminCookie() })
  await h.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`
})
after(() => h.close())

async function ok(method: Method, url: string, payload?: unknown, status = 200) {
  const res = await api.request(method, url, { body: payload })
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`)
  return res.json()
}

interface ItemsDocument {
  success: true
  site: { name: string; description: string; url: string }
  generatedAt: string
  data: { id: string; slug: string; status?: unknown }[]
  total: number
}

it('streams every published item once, in the public shape, with the site and the total', async () => {
  await ok('PUT', '/api/admin/settings', { site: { name: 'Coffee Atlas', description: 'Roasters.' } })
  const roasters = (await ok('POST', '/api/admin/categories', { name: 'Roasters' }, 201)).category
  const espresso = (await ok('POST', '/api/admin/tags', { name: 'Espresso' }, 201)).data
  const beans = (await ok('POST', '/api/admin/tags', { name: 'Beans "quoted" \\ ü' }, 201)).data
  const company = (await ok('POST', '/api/admin/companies', { name: 'Bonanza GmbH' }, 201)).data
  const full = (
    await ok(
      'POST',
      '/api/admin/items',
      {
        name: 'Bonanza Coffee',
        description: 'Line one\nline "two" \u2028 ü 🙂',
        url: 'https://bonanzacoffee.de',
        iconUrl: 'https://cdn.example.com/b.png',
        imageUrl: 'https://cdn.example.com/b.jpg',
        categoryId: roasters.id,
        tagIds: [espresso.id, beans.id],
        companyId: company.id,
        location: {
          city: 'Berlin',
          country: 'Germany',
          latitude: 52.5003,
          longitude: 13.4231,
          address: 'Adalbertstr. 70',
        },
        status: 'published',
      },
      201,
    )
  ).data
  const now = h.clock.now()
  const row = (n: number, status: ItemStatus) => ({
    slug: `${status}-${n}`,
    name: `${status} ${n}`,
    status,
    publishedAt: status === 'published' ? now : null,
    createdAt: now,
    updatedAt: now,
  })
  const db = h.databases.directory.db
  // Written straight to the table: thousands of items through the API would take a minute.
  for (let start = 0; start < PUBLISHED - 1; start += 500) {
    const count = Math.min(500, PUBLISHED - 1 - start)
    await db.insert(items).values(Array.from({ length: count }, (_, n) => row(start + n, 'published')))
  }
  for (const status of ['draft', 'pending', 'rejected'] as const) {
    await db.insert(items).values(Array.from({ length: 20 }, (_, n) => row(n, status)))
  }

  const res = await fetch(`${base}/api/items.json`)
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8')
  assert.equal(res.headers.get('content-length'), null, 'streamed, not buffered')
  assert.equal(res.headers.get('cache-control'), 'public, max-age=60')
  const document = (await res.json()) as ItemsDocument

  assert.equal(document.success, true)
  assert.deepEqual(document.site, { name: 'Coffee Atlas', description: 'Roasters.', url: `${APP_URL}/` })
  assert.equal(document.generatedAt, now.toISOString())
  assert.equal(document.total, PUBLISHED)
  assert.equal(document.data.length, PUBLISHED)
  const ids = document.data.map((entry) => entry.id)
  assert.equal(new Set(ids).size, PUBLISHED, 'each item once')
  assert.deepEqual(ids, [...ids].sort(), 'by id')
  assert.ok(document.data.every((entry) => entry.slug.startsWith('published-') || entry.id === full.id))
  assert.ok(
    document.data.every((entry) => !('status' in entry)),
    'the public shape',
  )

  // The same item as GET /api/items/:slug shows it: every field set, and none (microseconds in its dates).
  const bonanza = document.data.find((entry) => entry.id === full.id)
  assert.deepEqual(bonanza, (await siteRequests(h).get(`/api/items/${full.slug}`)).json().data)
  await db.execute(
    sql`update ${items} set created_at = created_at - interval '0.0004567 seconds' where slug = 'published-7'`,
  )
  const again = (await (await fetch(`${base}/api/items.json`)).json()) as ItemsDocument
  const page = await siteRequests(h).get('/api/items/published-7')
  assert.deepEqual(
    again.data.find((entry) => entry.slug === 'published-7'),
    page.json().data,
    'dates cut to the millisecond alike',
  )
})

it('an empty directory is a complete document', async () => {
  await h.databases.directory.db.delete(items)
  const res = await fetch(`${base}/api/items.json`)
  const document = (await res.json()) as ItemsDocument
  assert.deepEqual([document.data, document.total], [[], 0])
})

it('a client that goes away mid-document leaves the server answering', async () => {
  const now = h.clock.now()
  await h.databases.directory.db.insert(items).values(
    Array.from({ length: EXPORT_BATCH * 3 }, (_, n) => ({
      slug: `again-${n}`,
      name: `Again ${n}`,
      status: 'published' as const,
      publishedAt: now,
      createdAt: now,
      updatedAt: now,
    })),
  )
  await new Promise<void>((resolve, reject) => {
    const req = request(`${base}/api/items.json`, (res) => {
      res.once('data', () => {
        req.destroy()
        resolve()
      })
    })
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)))
    req.end()
  })
  const res = await fetch(`${base}/api/items.json`)
  assert.equal(((await res.json()) as ItemsDocument).total, EXPORT_BATCH * 3)
})

it('is rate limited per client', async () => {
  const visitor = siteRequests(h, { address: '10.9.8.7' })
  for (let n = 0; n < 10; n++) assert.equal((await visitor.get('/api/items.json')).statusCode, 200)
  const limited = await visitor.get('/api/items.json')
  assert.equal(limited.statusCode, 429)
  assert.equal(limited.json().code, 'RATE_LIMITED')
})
