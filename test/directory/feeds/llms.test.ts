import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { LLMS_PER_SECTION } from '../../../src/directory/feeds/schemas.ts'
import { items } from '../../../src/directory/items/tables.ts'
import { type DirectoryHarness, startDirectory } from '../../helpers/apps.ts'
import { type Method, type Requests, siteRequests } from '../../helpers/requests.ts'

const APP_URL = 'https://coffee-atlas.example'

let h: DirectoryHarness
let api: Requests
let visitor: Requests

before(async () => {
  h = await startDirectory({ env: { APP_URL } })
  api = siteRequests(h, { cookie: await h.adminCookie() })
  visitor = siteRequests(h)
})
after(() => h.close())

async function ok(method: Method, url: string, payload?: unknown, status = 200) {
  const res = await api.request(method, url, { body: payload })
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`)
  return res.json()
}
const category = async (name: string) =>
  (await ok('POST', '/api/admin/categories', { name }, 201)).category as { id: string; name: string }
const item = async (body: Record<string, unknown>) =>
  (await ok('POST', '/api/admin/items', { status: 'published', ...body }, 201)).data as {
    id: string
    slug: string
  }

async function llms() {
  const res = await visitor.get('/llms.txt')
  assert.equal(res.statusCode, 200, res.body)
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  return res.body
}

it('an empty directory: the title, the summary of its size, the addresses', async () => {
  assert.equal(
    await llms(),
    '# Curio directory\n\n> A directory of 0 published items.\n\n' +
      `Every published item as one JSON document: ${APP_URL}/api/items.json. Feeds of the newest: ` +
      `${APP_URL}/feed.xml (RSS), ${APP_URL}/feed.atom (Atom), ${APP_URL}/feed.json (JSON Feed).\n`,
  )
})

it('one section per category in the site’s order, then the items without one; drafts left out', async () => {
  await ok('PUT', '/api/admin/settings', {
    site: { name: 'Coffee Atlas', description: 'The independent\ncoffee roasters of Europe.' },
  })
  const roasters = await category('Roasters')
  const cafes = await category('Cafés')
  await category('Empty')
  await ok('PUT', '/api/admin/categories/reorder', { categoryIds: [cafes.id, roasters.id] })
  await item({
    name: 'Bonanza [Berlin]',
    url: 'https://bonanzacoffee.de/(home)',
    description: 'Berlin roaster\nsince 2006.',
    categoryId: roasters.id,
  })
  const noUrl = await item({ name: 'Café Frieda', categoryId: cafes.id })
  h.clock.advance(1000)
  await item({ name: 'Five Elephant', url: 'https://fiveelephant.com', categoryId: roasters.id })
  await item({ name: 'Kaffeebar', url: 'https://kaffeebar.example', description: 'No category.' })
  await item({ name: 'Hidden draft', status: 'draft', categoryId: roasters.id })

  assert.equal(
    await llms(),
    [
      '# Coffee Atlas',
      '',
      '> The independent coffee roasters of Europe.',
      '',
      `Every published item as one JSON document: ${APP_URL}/api/items.json. Feeds of the newest: ` +
        `${APP_URL}/feed.xml (RSS), ${APP_URL}/feed.atom (Atom), ${APP_URL}/feed.json (JSON Feed).`,
      '',
      '## Cafés',
      '',
      `- [Café Frieda](${APP_URL}/api/items/${noUrl.slug})`,
      '',
      '## Roasters',
      '',
      '- [Five Elephant](https://fiveelephant.com/)',
      '- [Bonanza \\[Berlin\\]](https://bonanzacoffee.de/%28home%29): Berlin roaster since 2006.',
      '',
      '## Other',
      '',
      '- [Kaffeebar](https://kaffeebar.example/): No category.',
      '',
    ].join('\n'),
  )
})

it(`lists a category’s ${LLMS_PER_SECTION} newest items and links to the rest`, async () => {
  const big = await category('Big')
  const now = h.clock.now()
  // Rows written straight to the table: a hundred and more items through the API take long.
  await h.databases.directory.db.insert(items).values(
    Array.from({ length: LLMS_PER_SECTION + 5 }, (_, n) => ({
      slug: `big-${n}`,
      name: `Big ${n}`,
      status: 'published' as const,
      categoryId: big.id,
      publishedAt: new Date(now.getTime() + n * 1000),
      createdAt: now,
      updatedAt: now,
    })),
  )
  // The rows were not written through the items module, so nothing told the cache: a settings save does.
  await ok('PUT', '/api/admin/settings', { site: { name: 'Coffee Atlas' } })
  const text = await llms()
  const section = text.split('## Big\n\n')[1]!.split('\n\n')[0]!.trim().split('\n')
  assert.equal(section.length, LLMS_PER_SECTION + 1)
  assert.equal(
    section[0],
    `- [Big ${LLMS_PER_SECTION + 4}](${APP_URL}/api/items/big-${LLMS_PER_SECTION + 4})`,
  )
  assert.equal(section[LLMS_PER_SECTION - 1], `- [Big 5](${APP_URL}/api/items/big-5)`)
  assert.equal(
    section[LLMS_PER_SECTION],
    `- [All ${LLMS_PER_SECTION + 5} items](${APP_URL}/api/items?category=${big.id}&limit=100): the ${LLMS_PER_SECTION} newest are above`,
  )
})
