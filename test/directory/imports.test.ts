import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { eq, sql } from 'drizzle-orm'
import { createNotifications } from '../../src/db/notifications.ts'
import { CONTENT_CHANGED_CHANNEL } from '../../src/directory/content.ts'
import { itemHistory, items } from '../../src/directory/items/tables.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { type DirectoryHarness, siteRequest, startDirectory } from '../helpers/apps.ts'

type Json = Record<string, unknown>
interface ImportAnswer {
  id: string
  status: string
  dryRun: boolean
  progress: { done: number; total: number }
  result?: {
    created: number
    updated: number
    unchanged: number
    skipped: number
    errors: { line?: number; item?: string; message: string }[]
    errorCount: number
  }
  failure: string | null
  startedAt: string | null
  finishedAt: string | null
}

/** An awesome list as people write them: a badge by the title, a contents list, emoji, `*` bullets, sections without items. */
const AWESOME = `# Awesome Coffee [![Awesome](https://awesome.re/badge.svg)](https://awesome.re)

> A curated list of independent coffee roasters.

## Contents

- [Roasters](#roasters)
- [Gear](#gear)

## Roasters

- [Blue Bottle](https://bluebottlecoffee.com) - Small-batch roaster with cafés in five cities. ![stars](https://img.shields.io/badge/stars-5-blue)
- [Square Mile](https://shop.squaremilecoffee.com): London roaster since 2008 ☕
* [Tim Wendelboe](https://timwendelboe.no) – Oslo's Nordic light roasts.
- Not an item, just a note

### Espresso

- [La Cabra](https://lacabra.dk) - Aarhus.

## Gear

- [Comandante](https://comandantegrinder.com) - Hand grinders.
- [Relative](CONTRIBUTING.md) - a relative link.

## Contributing

Read the [guidelines](CONTRIBUTING.md) first.
`

const CSV = [
  'name,url,description,category,tags,status,colour',
  'Blue Bottle,https://bluebottlecoffee.com,Small-batch roaster,Roasters,espresso;single origin,published,blue',
  'Drafty,https://drafty.example,,Roasters,,draft,',
  'X,https://x.example,too short a name,Roasters,,published,',
].join('\r\n')

let server: Server
let base = ''
const served = new Map<string, { status: number; body?: string; location?: string }>()

before(async () => {
  server = createServer((req, res) => {
    const answer = served.get(req.url ?? '') ?? { status: 404, body: 'not found' }
    res.writeHead(answer.status, {
      'content-type': 'text/markdown',
      ...(answer.location ? { location: answer.location } : {}),
    })
    res.end(answer.body ?? '')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
after(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** Waits (up to 60 s) until the import has ended, and answers it. */
async function finished(h: DirectoryHarness, admin: string, id: string): Promise<ImportAnswer> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const res = await siteRequest(h, 'GET', `/api/admin/imports/${id}`, { cookie: admin })
    assert.equal(res.statusCode, 200, res.body)
    const data = res.json().data as ImportAnswer
    if (data.status === 'completed' || data.status === 'failed') return data
    if (Date.now() > deadline) throw new Error(`import ${id} still ${data.status} after 60 s`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

async function importFile(h: DirectoryHarness, admin: string, payload: Json): Promise<ImportAnswer> {
  // Each import a second after the last: the list's order is by creation.
  h.clock.advance(1000)
  const res = await siteRequest(h, 'POST', '/api/admin/imports', { cookie: admin, payload })
  assert.equal(res.statusCode, 202, res.body)
  const queued = res.json().data as ImportAnswer
  assert.equal(queued.status, 'pending')
  assert.equal(queued.result, undefined)
  return finished(h, admin, queued.id)
}

async function adminItems(h: DirectoryHarness, admin: string, query = '') {
  const res = await siteRequest(h, 'GET', `/api/admin/items?limit=100${query}`, { cookie: admin })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data as Json[]
}

const itemCount = async (h: DirectoryHarness) =>
  (await h.databases.directory.db.select({ n: sql<number>`count(*)::int` }).from(items))[0]?.n ?? 0

describe('importing an awesome list', () => {
  let h: DirectoryHarness
  let admin: string

  before(async () => {
    h = await startDirectory({ env: { IMPORT_BATCH_SIZE: '2' } })
    admin = await h.adminCookie()
  })
  after(() => h.close())

  it('a dry run says what the import will do and writes nothing; the import then does exactly that', async () => {
    const dry = await importFile(h, admin, { format: 'markdown', content: AWESOME, dryRun: true })
    assert.equal(dry.status, 'completed')
    assert.equal(dry.dryRun, true)
    assert.equal(await itemCount(h), 0)
    const categories = await siteRequest(h, 'GET', '/api/admin/categories', { cookie: admin })
    assert.equal(categories.json().categories.length, 0)

    const real = await importFile(h, admin, { format: 'markdown', content: AWESOME })
    assert.equal(real.status, 'completed', real.failure ?? '')
    assert.deepEqual(real.result, dry.result)
    assert.deepEqual(real.progress, dry.progress)
    assert.deepEqual(real.progress, { done: 5, total: 5 })
    assert.deepEqual(
      { ...real.result, errors: undefined },
      { created: 5, updated: 0, unchanged: 0, skipped: 0, errors: undefined, errorCount: 2 },
    )
    // The lines it could not read, by line number.
    const lines = AWESOME.split('\n')
    const errors = real.result?.errors ?? []
    assert.deepEqual(
      errors.map((error) => lines[(error.line ?? 0) - 1]),
      ['- Not an item, just a note', '- [Relative](CONTRIBUTING.md) - a relative link.'],
    )
    assert.equal(await itemCount(h), 5)
  })

  it('made the items in their categories, published, newest first in the file’s order', async () => {
    const listed = await siteRequest(h, 'GET', '/api/items?limit=10', {})
    assert.equal(listed.statusCode, 200)
    const data = listed.json().data as Json[]
    assert.deepEqual(
      data.map((item) => [item.name, (item.category as Json | null)?.name, item.description]),
      [
        ['Blue Bottle', 'Roasters', 'Small-batch roaster with cafés in five cities.'],
        ['Square Mile', 'Roasters', 'London roaster since 2008 ☕'],
        ['Tim Wendelboe', 'Roasters', 'Oslo’s Nordic light roasts.'.replace('’', "'")],
        ['La Cabra', 'Espresso', 'Aarhus.'],
        ['Comandante', 'Gear', 'Hand grinders.'],
      ],
    )
    const categories = await siteRequest(h, 'GET', '/api/admin/categories', { cookie: admin })
    assert.deepEqual(
      (categories.json().categories as Json[]).map((category) => [
        category.id,
        category.name,
        category.itemCount,
      ]),
      [
        ['roasters', 'Roasters', 3],
        ['espresso', 'Espresso', 1],
        ['gear', 'Gear', 1],
      ],
    )
    // The intro became the site's description, which it lacked; the title its name, still the default.
    const settings = await siteRequest(h, 'GET', '/api/admin/settings', { cookie: admin })
    assert.equal(settings.json().data.site.description, 'A curated list of independent coffee roasters.')
    assert.equal(settings.json().data.site.name, 'Awesome Coffee')
    // Each item's history says it came from the import.
    const [entry] = await h.databases.directory.db
      .select()
      .from(itemHistory)
      .innerJoin(items, eq(items.id, itemHistory.itemId))
      .where(eq(items.slug, 'blue-bottle'))
    assert.equal(entry?.item_history.action, 'created')
    assert.match(entry?.item_history.note ?? '', /^Imported \(import /)
  })

  it('the same file again changes nothing: every item unchanged, no history written', async () => {
    const historyBefore = (await h.databases.directory.db.select().from(itemHistory)).length
    const again = await importFile(h, admin, { format: 'markdown', content: AWESOME })
    assert.deepEqual(
      { ...again.result, errors: undefined },
      { created: 0, updated: 0, unchanged: 5, skipped: 0, errors: undefined, errorCount: 2 },
    )
    assert.equal((await h.databases.directory.db.select().from(itemHistory)).length, historyBefore)
  })

  it('upsert changes the fields the file gives and leaves the rest; an item is found by its URL when the slug differs', async () => {
    const [blue] = await adminItems(h, admin, '&search=Blue')
    assert.ok(blue)
    const tagged = await siteRequest(h, 'PUT', `/api/admin/items/${blue.id}`, {
      cookie: admin,
      payload: { iconUrl: 'https://cdn.example/blue.png' },
    })
    assert.equal(tagged.statusCode, 200, tagged.body)
    const changed = AWESOME.replace(
      'Small-batch roaster with cafés in five cities.',
      'Now in six cities.',
    ).replace(
      '[Comandante](https://comandantegrinder.com)',
      '[Comandante C40](https://comandantegrinder.com)',
    )
    const dry = await importFile(h, admin, { format: 'markdown', content: changed, dryRun: true })
    const result = await importFile(h, admin, { format: 'markdown', content: changed })
    assert.deepEqual(result.result, dry.result)
    assert.deepEqual(
      { ...result.result, errors: undefined },
      { created: 0, updated: 2, unchanged: 3, skipped: 0, errors: undefined, errorCount: 2 },
    )
    const [after] = await adminItems(h, admin, '&search=Blue')
    assert.equal(after?.description, 'Now in six cities.')
    assert.equal(after?.iconUrl, 'https://cdn.example/blue.png')
    const grinders = await adminItems(h, admin, '&search=Comandante')
    assert.deepEqual(
      grinders.map((item) => [item.slug, item.name]),
      [['comandante', 'Comandante C40']],
    )
  })

  it('create-only leaves the items there alone and counts them skipped', async () => {
    const content = `${AWESOME}\n## Gear\n\n- [Kinu](https://kinugrinders.com) - Grinders.\n`
    const dry = await importFile(h, admin, { format: 'markdown', content, mode: 'create-only', dryRun: true })
    const result = await importFile(h, admin, { format: 'markdown', content, mode: 'create-only' })
    assert.deepEqual(result.result, dry.result)
    assert.deepEqual(
      { ...result.result, errors: undefined },
      { created: 1, updated: 0, unchanged: 0, skipped: 5, errors: undefined, errorCount: 2 },
    )
    const [blue] = await adminItems(h, admin, '&search=Blue')
    assert.equal(blue?.description, 'Now in six cities.')
  })

  it('lists imports newest first, and 404s an unknown one', async () => {
    const res = await siteRequest(h, 'GET', '/api/admin/imports?limit=2', { cookie: admin })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.meta.total, 7)
    assert.equal(body.data.length, 2)
    assert.deepEqual(
      body.data.map((entry: ImportAnswer & { mode: string }) => [entry.mode, entry.dryRun]),
      [
        ['create-only', false],
        ['create-only', true],
      ],
    )
    const missing = await siteRequest(h, 'GET', '/api/admin/imports/7f000000-0000-4000-8000-000000000000', {
      cookie: admin,
    })
    assert.equal(missing.statusCode, 404)
    assert.equal(missing.json().code, 'IMPORT_NOT_FOUND')
  })
})

describe('importing CSV and JSON', () => {
  let h: DirectoryHarness
  let admin: string

  before(async () => {
    h = await startDirectory()
    admin = await h.adminCookie()
  })
  after(() => h.close())

  it('CSV: items with their tags and status; an unknown column reported once; a bad row skipped with its line', async () => {
    const result = await importFile(h, admin, { format: 'csv', content: CSV })
    assert.equal(result.status, 'completed')
    assert.equal(result.result?.created, 2)
    assert.equal(result.result?.skipped, 1)
    const messages = result.result?.errors.map((error) => [error.line, error.message]) ?? []
    assert.equal(messages.filter(([, message]) => /colour/.test(String(message))).length, 1)
    assert.ok(
      messages.some(([line, message]) => line === 4 && /name/.test(String(message))),
      JSON.stringify(messages),
    )
    const listed = await adminItems(h, admin)
    const blue = listed.find((item) => item.slug === 'blue-bottle')
    assert.ok(blue)
    assert.deepEqual(
      (blue.tags as Json[]).map((tag) => tag.name),
      ['espresso', 'single origin'],
    )
    assert.equal(listed.find((item) => item.slug === 'drafty')?.status, 'draft')
  })

  it('JSON: the export’s shape; a bad item is named and skipped', async () => {
    const content = JSON.stringify({
      version: 1,
      site: { name: 'Coffee', description: '' },
      categories: ['Gear'],
      tags: [],
      items: [
        { name: 'Kinu', url: 'https://kinugrinders.com', category: 'Gear', tags: [], status: 'published' },
        { name: 'Broken', url: 'https://broken.example', status: 'gone' },
      ],
    })
    const result = await importFile(h, admin, { format: 'json', content })
    assert.equal(result.result?.created, 1)
    assert.equal(result.result?.errors.length, 1)
    assert.match(result.result?.errors[0]?.item ?? '', /Broken/)
  })
})

describe('importing from a URL', () => {
  let h: DirectoryHarness
  let admin: string

  before(async () => {
    h = await startDirectory({ env: { IMPORT_MAX_BYTES: '4096' } })
    admin = await h.adminCookie()
  })
  after(() => h.close())

  it('fetches the file, following a redirect', async () => {
    served.set('/awesome.md', { status: 200, body: AWESOME })
    served.set('/moved', { status: 301, location: '/awesome.md' })
    const result = await importFile(h, admin, { format: 'markdown', url: `${base}/moved` })
    assert.equal(result.status, 'completed', result.failure ?? '')
    assert.equal(result.result?.created, 5)
  })

  it('fails cleanly when the file is missing or too large, and the next import still runs', async () => {
    const missing = await importFile(h, admin, { format: 'markdown', url: `${base}/nothing-here` })
    assert.equal(missing.status, 'failed')
    assert.equal(missing.failure, 'the file could not be fetched: HTTP 404')
    served.set('/huge.md', { status: 200, body: `# Huge\n\n${'- [A](https://a.example) - a\n'.repeat(400)}` })
    const huge = await importFile(h, admin, { format: 'markdown', url: `${base}/huge.md` })
    assert.equal(huge.status, 'failed')
    assert.match(huge.failure ?? '', /larger than 4096 bytes/)
    const next = await importFile(h, admin, { format: 'markdown', content: AWESOME })
    assert.equal(next.status, 'completed')
  })

  it('refuses a body with both or neither of content and url, and content over IMPORT_MAX_BYTES', async () => {
    const both = await siteRequest(h, 'POST', '/api/admin/imports', {
      cookie: admin,
      payload: { format: 'csv', content: CSV, url: `${base}/x.csv` },
    })
    assert.equal(both.statusCode, 400)
    assert.deepEqual(
      (both.json().details as Json[]).map((detail) => detail.field),
      ['body.content', 'body.url'],
    )
    const neither = await siteRequest(h, 'POST', '/api/admin/imports', {
      cookie: admin,
      payload: { format: 'csv' },
    })
    assert.equal(neither.statusCode, 400)
    const large = await siteRequest(h, 'POST', '/api/admin/imports', {
      cookie: admin,
      payload: { format: 'csv', content: 'x'.repeat(5000) },
    })
    assert.equal(large.statusCode, 413)
    assert.equal(large.json().code, 'PAYLOAD_TOO_LARGE')
  })
})

describe('imports run one at a time', () => {
  let h: DirectoryHarness
  let admin: string

  before(async () => {
    h = await startDirectory({ env: { IMPORT_BATCH_SIZE: '5' } })
    admin = await h.adminCookie()
  })
  after(() => h.close())

  it('a second import waits until the first has finished', async () => {
    const lines = (prefix: string) =>
      Array.from(
        { length: 60 },
        (_, i) => `- [${prefix} ${i}](https://${prefix}-${i}.example) - item ${i}`,
      ).join('\n')
    const post = async (content: string) => {
      const res = await siteRequest(h, 'POST', '/api/admin/imports', {
        cookie: admin,
        payload: { format: 'markdown', content },
      })
      assert.equal(res.statusCode, 202)
      return res.json().data.id as string
    }
    const first = await post(`# A\n\n## One\n\n${lines('first')}\n`)
    const second = await post(`# B\n\n## Two\n\n${lines('second')}\n`)
    const seen = new Set<string>()
    for (;;) {
      const res = await siteRequest(h, 'GET', '/api/admin/imports', { cookie: admin })
      const statuses = (res.json().data as ImportAnswer[]).map((entry) => entry.status)
      seen.add(statuses.join(','))
      assert.ok(statuses.filter((status) => status === 'running').length <= 1, statuses.join(','))
      if (statuses.every((status) => status === 'completed')) break
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const both = [await finished(h, admin, first), await finished(h, admin, second)]
    const [a, b] = both.sort((x, y) => String(x.startedAt).localeCompare(String(y.startedAt)))
    assert.ok(a && b)
    assert.ok(
      b.startedAt && a.finishedAt && b.startedAt >= a.finishedAt,
      `${b.startedAt} after ${a.finishedAt}`,
    )
    assert.equal(a.result?.created, 60)
    assert.equal(b.result?.created, 60)
  })
})

describe('an import and the caches of every instance', () => {
  let a: DirectoryHarness
  let b: DirectoryHarness
  let admin: string

  before(async () => {
    a = await startDirectory({ env: { IMPORT_BATCH_SIZE: '2' } })
    b = await startDirectory({ databases: a.databases, env: { IMPORT_BATCH_SIZE: '2' } })
    admin = await a.adminCookie()
  })
  after(async () => {
    await b.close()
    await a.close()
  })

  it('another instance shows the imported items, its caches cleared once for the whole import', async () => {
    const notifications = createNotifications(a.databases.directory.source, createLogger('silent'))
    const heard: string[] = []
    await notifications.listen(CONTENT_CHANGED_CHANNEL, (payload) => heard.push(payload))
    try {
      // Instance B caches the empty public list and category list first.
      const before = await siteRequest(b, 'GET', '/api/items', {})
      assert.equal(before.json().meta.total, 0)
      const result = await importFile(a, admin, { format: 'markdown', content: AWESOME })
      assert.equal(result.result?.created, 5)
      const deadline = Date.now() + 5000
      for (;;) {
        const listed = await siteRequest(b, 'GET', '/api/items', {})
        if (listed.json().meta.total === 5) break
        assert.ok(Date.now() < deadline, `instance B still shows ${listed.json().meta.total} items`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      // Three batches of two rows, one notification of each kind of content, at the end: notifications
      // arrive in commit order, so once the last is heard any sent per batch would have come before it.
      while (!heard.includes('companies')) {
        assert.ok(Date.now() < deadline, `heard ${JSON.stringify(heard)}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.deepEqual(
        heard.filter((payload) => payload === 'items'),
        ['items'],
      )
      assert.deepEqual(
        heard.filter((payload) => payload === 'categories'),
        ['categories'],
      )
    } finally {
      await notifications.close()
    }
  })
})
