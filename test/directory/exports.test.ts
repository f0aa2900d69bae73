import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { EXPORT_BATCH } from '../../src/directory/exports/service.ts'
import { items } from '../../src/directory/items/tables.ts'
import { CSV_COLUMNS, parseCsv } from '../../src/directory/transfer/csv.ts'
import { parseJson } from '../../src/directory/transfer/json.ts'
import { parseMarkdown } from '../../src/directory/transfer/markdown.ts'
import { type DirectoryHarness, signUp, startDirectory } from '../helpers/apps.ts'
import { type Method, type Requests, siteRequests } from '../helpers/requests.ts'

const APP_URL = 'https://coffee-atlas.example'

let h: DirectoryHarness
let api: Requests
let base: string
let cookie: string

before(async () => {
  // Requests over the socket come from 127.0.0.1: the bypass keeps the export's limit out of the way.
  h = await startDirectory({ env: { APP_URL, RATE_LIMIT_BYPASS_LOCALHOST: 'true' } })
  cookie = await h.adminCookie()
  api = siteRequests(h, { cookie })
  await h.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`
})
after(() => h.close())

async function ok(method: Method, url: string, payload?: unknown, status = 200) {
  const res = await api.request(method, url, { body: payload })
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`)
  return res.json()
}

/** The export over the socket, as an admin's browser downloads it. */
async function download(format: string) {
  const res = await fetch(`${base}/api/admin/exports?format=${format}`, { headers: { cookie } })
  if (res.status !== 200) assert.fail(`${format}: ${res.status} ${await res.text()}`)
  return { headers: res.headers, text: await res.text() }
}

describe('a small directory', () => {
  before(async () => {
    await ok('PUT', '/api/admin/settings', {
      site: { name: 'Coffee Atlas', description: 'Roasters and cafés.' },
    })
    const roasters = (await ok('POST', '/api/admin/categories', { name: 'Roasters' }, 201)).category
    const cafes = (await ok('POST', '/api/admin/categories', { name: 'Cafés & Bars' }, 201)).category
    const empty = (await ok('POST', '/api/admin/categories', { name: 'Empty' }, 201)).category
    // The site's order, not the names': Roasters first.
    await ok('PUT', '/api/admin/categories/reorder', { categoryIds: [roasters.id, empty.id, cafes.id] })
    const espresso = (await ok('POST', '/api/admin/tags', { name: 'Espresso' }, 201)).data
    const beans = (await ok('POST', '/api/admin/tags', { name: 'Beans' }, 201)).data
    const company = (await ok('POST', '/api/admin/companies', { name: 'Bonanza GmbH' }, 201)).data
    const create = async (body: Record<string, unknown>) => {
      h.clock.advance(60_000)
      await ok('POST', '/api/admin/items', { status: 'published', ...body }, 201)
    }
    await create({
      name: 'Bonanza Coffee',
      description: 'Berlin roaster,\nsince 2006.',
      url: 'https://bonanzacoffee.de',
      categoryId: roasters.id,
      tagIds: [espresso.id, beans.id],
      companyId: company.id,
      location: { city: 'Berlin', country: 'DE', latitude: 52.5386, longitude: 13.4099 },
    })
    await create({ name: 'The Barn', url: 'https://thebarn.de', categoryId: roasters.id })
    await create({ name: '=Formula [Café]', description: '-5 degrees', categoryId: cafes.id })
    await create({ name: 'Loose Leaf', url: 'https://loose.example' })
    await create({
      name: 'Draft Roaster',
      url: 'https://draft.example',
      categoryId: roasters.id,
      status: 'draft',
    })
  })

  it('Markdown: the published items as an awesome list, by category in the site’s order, newest first', async () => {
    const { headers, text } = await download('markdown')
    assert.equal(headers.get('content-type'), 'text/markdown; charset=utf-8')
    assert.equal(headers.get('content-disposition'), 'attachment; filename="coffee-atlas.md"')
    assert.equal(headers.get('content-length'), null, 'streamed, not buffered')
    assert.equal(
      text,
      `# Coffee Atlas

> Roasters and cafés.

## Contents

- [Roasters](#roasters)
- [Cafés & Bars](#cafés--bars)
- [Other](#other)

## Roasters

- [The Barn](https://thebarn.de)
- [Bonanza Coffee](https://bonanzacoffee.de) - Berlin roaster, since 2006.

## Cafés & Bars

- [=Formula \\[Café\\]](${APP_URL}/api/items/formula-cafe) - -5 degrees

## Other

- [Loose Leaf](https://loose.example)
`,
    )
    assert.deepEqual(parseMarkdown(text).issues, [])
  })

  it('CSV: every item whatever its status, by slug, formula cells defused', async () => {
    const { headers, text } = await download('csv')
    assert.equal(headers.get('content-type'), 'text/csv; charset=utf-8')
    assert.equal(headers.get('content-disposition'), 'attachment; filename="coffee-atlas.csv"')
    // Each row but its publication time, which the clock set.
    const rows = text.split('\r\n').map((row) => row.replace(/,\d{4}-\d\d-\d\dT[\d:.]+Z$/, ',<date>'))
    assert.deepEqual(rows, [
      CSV_COLUMNS.join(','),
      'bonanza-coffee,Bonanza Coffee,https://bonanzacoffee.de,"Berlin roaster,\nsince 2006.",Roasters,Beans; Espresso,published,Bonanza GmbH,,,,Berlin,DE,52.5386,13.4099,false,,<date>',
      'draft-roaster,Draft Roaster,https://draft.example,,Roasters,,draft,,,,,,,,,false,,',
      "formula-cafe,'=Formula [Café],,'-5 degrees,Cafés & Bars,,published,,,,,,,,,false,,<date>",
      'loose-leaf,Loose Leaf,https://loose.example,,,,published,,,,,,,,,false,,<date>',
      'the-barn,The Barn,https://thebarn.de,,Roasters,,published,,,,,,,,,false,,<date>',
      '',
    ])
    const file = parseCsv(text)
    assert.deepEqual(file.issues, [])
    assert.deepEqual(
      file.items.map(({ item }) => [item.name, item.status, item.location?.latitude]),
      [
        ['Bonanza Coffee', 'published', 52.5386],
        ['Draft Roaster', 'draft', null],
        ['=Formula [Café]', 'published', null],
        ['Loose Leaf', 'published', null],
        ['The Barn', 'published', null],
      ],
    )
  })

  it('JSON: the site, every category and tag, every item by slug, one per line', async () => {
    const { headers, text } = await download('json')
    assert.equal(headers.get('content-type'), 'application/json; charset=utf-8')
    assert.equal(headers.get('content-disposition'), 'attachment; filename="coffee-atlas.json"')
    const document = JSON.parse(text)
    assert.deepEqual(
      { ...document, items: undefined },
      {
        version: 1,
        site: { name: 'Coffee Atlas', description: 'Roasters and cafés.' },
        categories: ['Roasters', 'Empty', 'Cafés & Bars'],
        tags: ['Beans', 'Espresso'],
        items: undefined,
      },
    )
    const bonanza = document.items[0]
    assert.deepEqual(
      { ...bonanza, publishedAt: typeof bonanza.publishedAt },
      {
        slug: 'bonanza-coffee',
        name: 'Bonanza Coffee',
        description: 'Berlin roaster,\nsince 2006.',
        url: 'https://bonanzacoffee.de',
        iconUrl: null,
        imageUrl: null,
        category: 'Roasters',
        tags: ['Beans', 'Espresso'],
        company: 'Bonanza GmbH',
        status: 'published',
        location: {
          address: null,
          city: 'Berlin',
          country: 'DE',
          latitude: 52.5386,
          longitude: 13.4099,
          isRemote: false,
          serviceArea: null,
        },
        publishedAt: 'string',
      },
    )
    assert.deepEqual(
      document.items.map((item: { slug: string }) => item.slug),
      ['bonanza-coffee', 'draft-roaster', 'formula-cafe', 'loose-leaf', 'the-barn'],
    )
    assert.equal(text.split('\n').filter((line) => line.startsWith('    {"slug"')).length, 5)
    assert.deepEqual(parseJson(text).issues, [])
  })

  it('the same directory gives the same bytes', async () => {
    for (const format of ['markdown', 'csv', 'json']) {
      assert.equal((await download(format)).text, (await download(format)).text, format)
    }
  })
})

describe('access and validation', () => {
  it('a format is required, and one of the three', async () => {
    for (const query of ['', '?format=xml', '?format=MARKDOWN']) {
      const res = await api.get(`/api/admin/exports${query}`)
      assert.equal(res.statusCode, 400, query)
      assert.equal(res.json().code, 'VALIDATION_ERROR')
    }
  })

  it('is for admins only', async () => {
    assert.equal((await siteRequests(h).get('/api/admin/exports?format=json')).statusCode, 401)
    const member = await signUp(h)
    assert.equal(
      (await siteRequests(h, { cookie: member }).get('/api/admin/exports?format=json')).statusCode,
      403,
    )
  })
})

describe('more than a batch', () => {
  it('reads every item once, in order, across batches', async () => {
    const db = h.databases.directory.db
    await db.delete(items)
    const now = h.clock.now()
    const count = EXPORT_BATCH * 3 + 5
    // Written straight to the table: thousands of items through the API would take a minute. Half share one
    // publication time (ordered by slug), the others are a second apart, and some were never published.
    await db.insert(items).values(
      Array.from({ length: count }, (_, n) => ({
        slug: `item-${String(n).padStart(5, '0')}`,
        name: `Item ${n}`,
        url: `https://item-${n}.example`,
        status: n % 10 === 9 ? ('pending' as const) : ('published' as const),
        publishedAt: n % 10 === 9 ? null : n % 2 === 0 ? now : new Date(now.getTime() - n * 1000),
        createdAt: now,
        updatedAt: now,
      })),
    )
    // Microseconds the export does not write must not lose or repeat an item between batches.
    await db.execute(
      sql`update ${items} set published_at = published_at + interval '0.000321 seconds' where slug like '%3'`,
    )

    const csv = parseCsv((await download('csv')).text)
    const slugs = csv.items.map(({ item }) => item.slug!)
    assert.equal(slugs.length, count)
    assert.deepEqual(slugs, [...slugs].sort())

    // One section of every published item (walked newest first), then two sections, a category's and the
    // items without one, of more than a batch each (each read apart).
    const publishedOrder = async () =>
      (
        (await db.execute(sql`
          select url from ${items} where status = 'published'
          order by category_id is null, published_at desc nulls first, slug`)) as unknown as {
          rows: { url: string }[]
        }
      ).rows.map((row) => row.url)
    const markdownUrls = async () =>
      parseMarkdown((await download('markdown')).text).items.map(({ item }) => item.url)
    assert.deepEqual(await markdownUrls(), await publishedOrder())
    await db.execute(sql`
      update ${items} set category_id = (select id from directory.categories where name = 'Roasters')
      where right(slug, 1) in ('1', '3', '5', '7', '9')`)
    assert.deepEqual(await markdownUrls(), await publishedOrder())
  })

  it('an empty directory is a complete file in each format', async () => {
    await h.databases.directory.db.delete(items)
    assert.deepEqual(parseJson((await download('json')).text).issues, [])
    assert.equal((await download('csv')).text, `${CSV_COLUMNS.join(',')}\r\n`)
    assert.match(
      (await download('markdown')).text,
      /^# Coffee Atlas\n\n> Roasters and cafés.\n\n## Contents\n\n$/,
    )
  })
})
