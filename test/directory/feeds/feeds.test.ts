import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { XMLParser } from 'fast-xml-parser'
import { type DirectoryHarness, startDirectory, until } from '../../helpers/apps.ts'
import { type Method, type Requests, siteRequests } from '../../helpers/requests.ts'

const APP_URL = 'https://coffee-atlas.example'

let h: DirectoryHarness
let api: Requests
/** Anonymous requests, each from its own address. */
let visitor: Requests

before(async () => {
  h = await startDirectory({ env: { APP_URL } })
  api = siteRequests(h, { cookie: await h.adminCookie() })
  visitor = siteRequests(h)
  await ok('PUT', '/api/admin/settings', {
    site: { name: 'Coffee Atlas', description: 'The independent coffee roasters of Europe.' },
  })
})
after(() => h.close())

async function ok(method: Method, url: string, payload?: unknown, status = 200) {
  const res = await api.request(method, url, { body: payload })
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`)
  return res.json()
}

let counter = 0
const unique = (prefix: string) => `${prefix} ${++counter} ${Math.random().toString(36).slice(2, 7)}`

const category = async (name = unique('Category')) =>
  (await ok('POST', '/api/admin/categories', { name }, 201)).category as { id: string; name: string }
const tag = async (name = unique('Tag')) =>
  (await ok('POST', '/api/admin/tags', { name }, 201)).data as { id: string; name: string }
const item = async (body: Record<string, unknown> = {}) =>
  (await ok('POST', '/api/admin/items', { name: unique('Item'), status: 'published', ...body }, 201))
    .data as {
    id: string
    slug: string
    name: string
    publishedAt: string
    updatedAt: string
  }

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false })
const list = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value]

interface RssItem {
  title: string
  link: string
  guid: { '#text': string; '@isPermaLink': string }
  pubDate: string
  description?: string
  category?: string | string[]
}
interface AtomEntry {
  title: { '#text': string }
  id: string
  link: { '@href': string }
  updated: string
  published: string
  summary?: { '#text': string }
  category?: { '@term': string } | { '@term': string }[]
}
interface JsonFeedItem {
  id: string
  url: string
  title: string
  content_text: string
  date_published: string
  date_modified: string
  tags?: string[]
}

async function rss(query = '') {
  const res = await visitor.get(`/feed.xml${query}`)
  assert.equal(res.statusCode, 200, res.body)
  assert.equal(res.headers['content-type'], 'application/rss+xml; charset=utf-8')
  const channel = xml.parse(res.body).rss.channel
  return { channel, items: list<RssItem>(channel.item), res }
}
async function atom(query = '') {
  const res = await visitor.get(`/feed.atom${query}`)
  assert.equal(res.statusCode, 200, res.body)
  assert.equal(res.headers['content-type'], 'application/atom+xml; charset=utf-8')
  const feed = xml.parse(res.body).feed
  return { feed, entries: list<AtomEntry>(feed.entry), res }
}
async function jsonFeed(query = '') {
  const res = await visitor.get(`/feed.json${query}`)
  assert.equal(res.statusCode, 200, res.body)
  assert.equal(res.headers['content-type'], 'application/feed+json; charset=utf-8')
  return res.json() as {
    version: string
    title: string
    home_page_url: string
    feed_url: string
    items: JsonFeedItem[]
  }
}

describe('feeds', () => {
  let roasters: { id: string; name: string }
  let espresso: { id: string; name: string }
  let first: Awaited<ReturnType<typeof item>>
  let second: Awaited<ReturnType<typeof item>>

  before(async () => {
    roasters = await category('Roasters')
    espresso = await tag('Espresso')
    first = await item({
      name: 'Bonanza Coffee',
      description: 'Berlin roaster since 2006.',
      url: 'https://bonanzacoffee.de',
      categoryId: roasters.id,
      tagIds: [espresso.id],
    })
    h.clock.advance(60_000)
    second = await item({
      name: 'Tim Wendelboe & Co <Oslo> ]]>]]>',
      description: 'Light <b>roasts</b> ]]> more',
    })
    await item({ name: 'A draft', status: 'draft' })
  })

  it('RSS 2.0: the channel is the site, the items are the published ones, newest first', async () => {
    const { channel, items } = await rss()
    assert.equal(channel.title, 'Coffee Atlas')
    assert.equal(channel.link, `${APP_URL}/`)
    assert.equal(channel.description, 'The independent coffee roasters of Europe.')
    assert.equal(channel['atom:link']['@href'], `${APP_URL}/feed.xml`)
    assert.deepEqual(
      items.map((entry) => entry.title),
      ['Tim Wendelboe & Co <Oslo> ]] >]] >', 'Bonanza Coffee'],
      'a title is text; a CDATA section cannot hold ]]>',
    )
    const [latest, older] = items as [RssItem, RssItem]
    assert.equal(older.link, 'https://bonanzacoffee.de/')
    assert.equal(
      latest.link,
      `${APP_URL}/api/items/${second.slug}`,
      'an item without a URL links to its JSON',
    )
    assert.equal(older.guid['#text'], `urn:uuid:${first.id}`)
    assert.equal(older.guid['@isPermaLink'], 'false')
    assert.equal(new Date(older.pubDate).getTime(), Math.floor(Date.parse(first.publishedAt) / 1000) * 1000)
    assert.equal(older.description, 'Berlin roaster since 2006.')
    assert.deepEqual(list(older.category), ['Roasters', 'Espresso'])
    assert.equal(latest.description, 'Light &lt;b&gt;roasts&lt;/b&gt; ]]&gt; more', 'descriptions are HTML')
  })

  it('Atom 1.0: the feed is the site, entries carry ids, links and dates', async () => {
    const { feed, entries } = await atom()
    assert.equal(feed.title, 'Coffee Atlas')
    assert.equal(feed.id, `${APP_URL}/`)
    assert.equal(feed.subtitle, 'The independent coffee roasters of Europe.')
    const links = list<{ '@rel': string; '@href': string }>(feed.link)
    assert.deepEqual(
      links.map((link) => [link['@rel'], link['@href']]),
      [
        ['alternate', `${APP_URL}/`],
        ['self', `${APP_URL}/feed.atom`],
      ],
    )
    assert.deepEqual(
      entries.map((entry) => entry.title['#text']),
      ['Tim Wendelboe &amp; Co &lt;Oslo&gt; ]]&gt;]]&gt;', 'Bonanza Coffee'],
      'titles are HTML, so the text is escaped',
    )
    const older = entries[1]!
    assert.equal(older.id, `urn:uuid:${first.id}`)
    assert.equal(older.link['@href'], 'https://bonanzacoffee.de/')
    assert.equal(older.published, new Date(first.publishedAt).toISOString())
    assert.equal(older.updated, new Date(first.updatedAt).toISOString())
    assert.deepEqual(
      list(older.category).map((entry) => entry['@term']),
      [roasters.id, espresso.id],
    )
  })

  it('JSON Feed 1.1: version, site and items with ids, urls, text and dates', async () => {
    const feed = await jsonFeed()
    assert.equal(feed.version, 'https://jsonfeed.org/version/1.1')
    assert.equal(feed.title, 'Coffee Atlas')
    assert.equal(feed.home_page_url, `${APP_URL}/`)
    assert.equal(feed.feed_url, `${APP_URL}/feed.json`)
    assert.deepEqual(feed.items[1], {
      id: `urn:uuid:${first.id}`,
      url: 'https://bonanzacoffee.de/',
      title: 'Bonanza Coffee',
      content_text: 'Berlin roaster since 2006.',
      date_published: new Date(first.publishedAt).toISOString(),
      date_modified: new Date(first.updatedAt).toISOString(),
      tags: ['Roasters', 'Espresso'],
    })
    assert.equal(feed.items[0]!.title, 'Tim Wendelboe & Co <Oslo> ]]>]]>')
    assert.equal(feed.items[0]!.content_text, 'Light <b>roasts</b> ]]> more')
  })

  it('shows the 50 newest published items', async () => {
    const many = await category()
    for (let n = 0; n < 52; n++) {
      h.clock.advance(1000)
      await item({ name: `Many ${n} ${unique('m')}`, categoryId: many.id })
    }
    const feed = await jsonFeed(`?category=${many.id}`)
    assert.equal(feed.items.length, 50)
    assert.match(feed.items[0]!.title, /^Many 51 /)
    assert.match(feed.items[49]!.title, /^Many 2 /)
  })

  it('filters by category, by tag, and by both', async () => {
    const other = await category()
    const decaf = await tag()
    const inOther = await item({ categoryId: other.id, tagIds: [decaf.id] })
    const tagged = await item({ tagIds: [decaf.id] })
    const titles = async (query: string) => (await jsonFeed(query)).items.map((entry) => entry.title).sort()

    assert.deepEqual(await titles(`?category=${other.id}`), [inOther.name])
    assert.deepEqual(await titles(`?tag=${decaf.id}`), [inOther.name, tagged.name].sort())
    assert.deepEqual(await titles(`?category=${other.id}&tag=${decaf.id}`), [inOther.name])
    assert.deepEqual(await titles(`?category=${roasters.id}&tag=${decaf.id}`), [])

    const { channel } = await rss(`?category=${other.id}&tag=${decaf.id}`)
    assert.equal(channel.title, `Coffee Atlas: ${other.name} · ${decaf.name}`)
    assert.equal(channel['atom:link']['@href'], `${APP_URL}/feed.xml?category=${other.id}&tag=${decaf.id}`)
    const { entries } = await atom(`?tag=${decaf.id}`)
    assert.equal(entries.length, 2)
  })

  it('an unknown category or tag is a 404 in the directory’s error shape', async () => {
    for (const path of ['/feed.xml', '/feed.atom', '/feed.json']) {
      const noCategory = await visitor.get(`${path}?category=no-such-category`)
      assert.equal(noCategory.statusCode, 404)
      assert.deepEqual(noCategory.json(), {
        success: false,
        error: 'Category not found',
        code: 'CATEGORY_NOT_FOUND',
      })
      const noTag = await visitor.get(`${path}?tag=no-such-tag`)
      assert.equal(noTag.statusCode, 404)
      assert.equal(noTag.json().code, 'TAG_NOT_FOUND')
    }
    const inactive = await category()
    await item({ categoryId: inactive.id })
    // A category in use is deactivated rather than deleted.
    await ok('DELETE', `/api/admin/categories/${inactive.id}`)
    assert.equal((await visitor.get(`/feed.json?category=${inactive.id}`)).statusCode, 404)
    const bad = await visitor.get('/feed.xml?category=Not%20A%20Slug')
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().code, 'VALIDATION_ERROR')
  })
})

describe('conditional requests', () => {
  it('answers 304 to the ETag and to a date not before Last-Modified, 200 once something changed', async () => {
    await item()
    const first = await visitor.get('/feed.xml')
    const etag = first.headers.etag as string
    const lastModified = first.headers['last-modified'] as string
    assert.match(etag, /^"[0-9a-f]{32}"$/)
    assert.ok(!Number.isNaN(Date.parse(lastModified)))
    assert.equal(first.headers['cache-control'], 'public, max-age=60')

    const same = await visitor.get('/feed.xml', { headers: { 'if-none-match': etag } })
    assert.equal(same.statusCode, 304)
    assert.equal(same.body, '')
    assert.equal(same.headers.etag, etag)
    const listed = await visitor.get('/feed.xml', { headers: { 'if-none-match': `"other", W/${etag}` } })
    assert.equal(listed.statusCode, 304)
    const since = await visitor.get('/feed.xml', { headers: { 'if-modified-since': lastModified } })
    assert.equal(since.statusCode, 304)
    const other = await visitor.get('/feed.xml', { headers: { 'if-none-match': '"other"' } })
    assert.equal(other.statusCode, 200)
    const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString()
    assert.equal(
      (await visitor.get('/feed.xml', { headers: { 'if-modified-since': earlier } })).statusCode,
      200,
    )

    h.clock.advance(5000)
    await item()
    const changed = await visitor.get('/feed.xml', {
      headers: { 'if-none-match': etag },
    })
    assert.equal(changed.statusCode, 200)
    assert.notEqual(changed.headers.etag, etag)
    const after = await visitor.get('/feed.xml', { headers: { 'if-modified-since': lastModified } })
    assert.equal(after.statusCode, 200, 'rendered again after the write, later than the date held')
  })

  it('each format and llms.txt has its own ETag', async () => {
    const tags = await Promise.all(
      ['/feed.xml', '/feed.atom', '/feed.json', '/llms.txt'].map(
        async (path) => (await visitor.get(path)).headers.etag,
      ),
    )
    assert.equal(new Set(tags).size, 4)
  })
})

describe('writes show in the next read', () => {
  it('publishing, editing and deleting an item, and saving the settings, on this instance and another', async () => {
    const second = await startDirectory({ databases: h.databases, env: { APP_URL } })
    try {
      const elsewhere = siteRequests(second)
      const titlesHere = async () => (await jsonFeed()).items.map((entry) => entry.title)
      const titlesThere = async () => {
        const res = await elsewhere.get('/feed.json')
        return (res.json().items as JsonFeedItem[]).map((entry) => entry.title)
      }
      // Both instances have the feed cached.
      await titlesHere()
      await titlesThere()

      h.clock.advance(1000)
      const draft = await item({ name: unique('Fresh'), status: 'draft' })
      assert.ok(!(await titlesHere()).includes(draft.name))
      await ok('PUT', `/api/admin/items/${draft.id}`, { status: 'published' })
      assert.equal((await titlesHere())[0], draft.name)
      await until(async () => (await titlesThere())[0] === draft.name, 'the other instance shows the item')

      await ok('PUT', `/api/admin/items/${draft.id}`, { name: 'Renamed roaster' })
      assert.ok((await titlesHere()).includes('Renamed roaster'))
      await until(async () => (await titlesThere()).includes('Renamed roaster'), 'the other shows the edit')

      await ok('DELETE', `/api/admin/items/${draft.id}`)
      assert.ok(!(await titlesHere()).includes('Renamed roaster'))
      await until(async () => !(await titlesThere()).includes('Renamed roaster'), 'the other drops it')

      await ok('PUT', '/api/admin/settings', { site: { name: 'Roaster Atlas' } })
      assert.equal((await rss()).channel.title, 'Roaster Atlas')
      assert.match((await visitor.get('/llms.txt')).body, /^# Roaster Atlas\n/)
      await until(
        async () => (await elsewhere.get('/feed.atom')).body.includes('<title>Roaster Atlas</title>'),
        'the other instance shows the new name',
      )
      await ok('PUT', '/api/admin/settings', { site: { name: 'Coffee Atlas' } })
    } finally {
      await second.close()
    }
  })
})
