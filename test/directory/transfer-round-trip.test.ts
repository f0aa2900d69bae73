/**
 * The round trip of issue 31: export a directory, import that file into an empty directory, export again —
 * the same bytes, in each format (run on the embedded database, and on Postgres with TEST_DATABASE_URL).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type DirectoryHarness, siteRequest, startDirectory } from '../helpers/apps.ts'

type Json = Record<string, unknown>

async function ok(h: DirectoryHarness, cookie: string, method: 'POST' | 'PUT', url: string, payload: Json) {
  const res = await siteRequest(h, method, url, { cookie, payload })
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** A directory with what a real one holds: ordered categories, tags, companies, every status, locations. */
async function seed(h: DirectoryHarness, admin: string) {
  await ok(h, admin, 'PUT', '/api/admin/settings', {
    site: { name: 'Round Trip Atlas', description: 'Roasters, cafés & gear — with [brackets] and *stars*.' },
  })
  for (const name of ['Roasters', 'Cafés', 'Gear', 'Empty shelf']) {
    await ok(h, admin, 'POST', '/api/admin/categories', { name })
  }
  await ok(h, admin, 'PUT', '/api/admin/categories/reorder', {
    categoryIds: ['gear', 'roasters', 'cafes', 'empty-shelf'],
  })
  for (const name of ['Espresso', 'Single origin', 'Décaf'])
    await ok(h, admin, 'POST', '/api/admin/tags', { name })
  const company = await ok(h, admin, 'POST', '/api/admin/companies', { name: 'Bean & Co' })
  const items: Json[] = [
    {
      name: 'Blue Bottle',
      url: 'https://bluebottlecoffee.com',
      description: 'Small-batch roaster\nwith cafés in five cities.',
      categoryId: 'roasters',
      tagIds: ['espresso', 'single-origin'],
      companyId: company.data.id,
      status: 'published',
      location: { city: 'Oakland', country: 'United States', latitude: 37.8044, longitude: -122.2712 },
    },
    {
      name: 'Square [Mile] *Roasters*',
      slug: 'square-mile',
      url: 'https://shop.squaremilecoffee.com/path_(with)_parens',
      description: '=SUM(A1) looks like a formula; `code` and <b>html</b> stay text ☕',
      categoryId: 'roasters',
      tagIds: ['decaf'],
      status: 'published',
      location: { isRemote: true, serviceArea: 'EU' },
    },
    { name: 'Comandante', url: 'https://comandantegrinder.com', categoryId: 'gear', status: 'published' },
    {
      name: 'No link café',
      description: 'Only on our site - for now.',
      categoryId: 'cafes',
      status: 'published',
    },
    { name: 'Uncategorized gem', url: 'https://gem.example', status: 'published' },
    { name: 'Draft idea', url: 'https://draft.example', categoryId: 'gear', status: 'draft' },
    { name: 'Pending submission', url: 'https://pending.example', categoryId: 'cafes', status: 'pending' },
    { name: 'Rejected one', url: 'https://rejected.example', status: 'rejected' },
  ]
  for (const item of items) {
    // A second between items: each published one has its own time, the site's order.
    h.clock.advance(1000)
    await ok(h, admin, 'POST', '/api/admin/items', item)
  }
}

async function exported(h: DirectoryHarness, admin: string, format: string): Promise<string> {
  const res = await siteRequest(h, 'GET', `/api/admin/exports?format=${format}`, { cookie: admin })
  assert.equal(res.statusCode, 200, res.body)
  return res.body
}

async function imported(h: DirectoryHarness, admin: string, format: string, content: string) {
  const queued = await ok(h, admin, 'POST', '/api/admin/imports', { format, content })
  const deadline = Date.now() + 60_000
  for (;;) {
    const res = await siteRequest(h, 'GET', `/api/admin/imports/${queued.data.id}`, { cookie: admin })
    const data = res.json().data
    if (data.status === 'completed' || data.status === 'failed') return data
    assert.ok(Date.now() < deadline, 'the import did not end within 60 s')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('export, import into an empty directory, export again', () => {
  let source: DirectoryHarness
  let sourceAdmin: string

  before(async () => {
    source = await startDirectory()
    sourceAdmin = await source.adminCookie()
    await seed(source, sourceAdmin)
  })
  after(() => source.close())

  for (const format of ['markdown', 'csv', 'json']) {
    it(`${format}: the same bytes`, async () => {
      const first = await exported(source, sourceAdmin, format)
      const target = await startDirectory()
      try {
        const admin = await target.adminCookie()
        const result = await imported(target, admin, format, first)
        assert.equal(result.status, 'completed', result.failure)
        assert.deepEqual(result.result.errors, [])
        assert.equal(result.result.created, result.progress.total)
        const second = await exported(target, admin, format)
        assert.equal(second, first)
        // And the file imported again into the directory it made changes nothing.
        const again = await imported(target, admin, format, second)
        assert.equal(again.result.unchanged, again.progress.total)
      } finally {
        await target.close()
      }
    })
  }

  it('the files hold what the directory holds', async () => {
    const markdown = await exported(source, sourceAdmin, 'markdown')
    // Published items only, by category in the site's order, uncategorized last.
    assert.deepEqual(
      markdown.split('\n').filter((line) => line.startsWith('## ')),
      ['## Contents', '## Gear', '## Roasters', '## Cafés', '## Other'],
    )
    assert.ok(!markdown.includes('Draft idea'))
    const csv = await exported(source, sourceAdmin, 'csv')
    assert.equal(csv.trimEnd().split('\r\n').length, 1 + 8)
    const json = JSON.parse(await exported(source, sourceAdmin, 'json'))
    assert.deepEqual(json.categories, ['Gear', 'Roasters', 'Cafés', 'Empty shelf'])
    assert.equal(json.items.length, 8)
  })
})
