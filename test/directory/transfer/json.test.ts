import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseJson, renderJson } from '../../../src/directory/transfer/json.ts'
import { exportItem, exportSource, rendered } from './sources.ts'

describe('parseJson', () => {
  it('reads the site, the declared categories and tags, and each item field by field', () => {
    const file = parseJson(
      JSON.stringify({
        version: 1,
        site: { name: 'Awesome Coffee', description: 'Roasters.' },
        categories: ['Roasters', 'Empty'],
        tags: ['beans'],
        items: [
          {
            name: 'Bonanza',
            url: 'https://bonanza.de',
            tags: ['beans'],
            location: { city: 'Berlin', isRemote: false },
          },
          {
            slug: 'barn',
            name: 'The Barn',
            status: 'draft',
            publishedAt: '2024-03-01T10:00:00Z',
            category: null,
          },
        ],
      }),
    )
    assert.deepEqual(file, {
      site: { name: 'Awesome Coffee', description: 'Roasters.' },
      categories: ['Roasters', 'Empty'],
      tags: ['beans'],
      items: [
        {
          item: {
            name: 'Bonanza',
            url: 'https://bonanza.de',
            tags: ['beans'],
            location: { city: 'Berlin', isRemote: false },
          },
        },
        {
          item: {
            slug: 'barn',
            name: 'The Barn',
            status: 'draft',
            publishedAt: '2024-03-01T10:00:00.000Z',
            category: null,
          },
        },
      ],
      issues: [],
    })
  })

  it('skips a bad item with an issue naming it and why, and reports unknown fields once', () => {
    const file = parseJson(
      JSON.stringify({
        items: [
          { name: 'Good', stars: 5 },
          { name: 'Bad status', status: 'archived', stars: 4 },
          { name: 'Bad tags', tags: 'beans' },
          { name: '' },
          'not an object',
          { name: 'Far', location: { latitude: 'north', altitude: 3 } },
          { name: 'Late', publishedAt: 'yesterday' },
        ],
      }),
    )
    assert.deepEqual(
      file.items.map(({ item }) => item.name),
      ['Good'],
    )
    assert.deepEqual(file.issues, [
      { item: 'items[0] "Good"', message: 'unknown field "stars": ignored' },
      { item: 'items[1] "Bad status"', message: 'status must be one of draft, pending, published, rejected' },
      { item: 'items[2] "Bad tags"', message: 'tags must be a list of names' },
      { item: 'items[3] ""', message: 'name must be a string that is not empty' },
      { item: 'items[4]', message: 'not an object' },
      { item: 'items[5] "Far"', message: 'unknown field "location.altitude": ignored' },
      { item: 'items[5] "Far"', message: 'location.latitude must be a number or null' },
      { item: 'items[6] "Late"', message: 'publishedAt must be an ISO 8601 date or null' },
    ])
  })

  it('gives one issue and no items for what is not an export', () => {
    for (const [text, message] of [
      ['{"items": [', /^not a JSON document: /],
      ['[{"name": "A"}]', /^not an export: an object with an "items" list is expected$/],
      ['{"version": 2, "items": []}', /^version 2 is not one this reads \(1\)$/],
    ] as const) {
      const file = parseJson(text)
      assert.equal(file.items.length, 0)
      assert.equal(file.issues.length, 1, text)
      assert.match(file.issues[0]!.message, message)
    }
  })
})

describe('renderJson', () => {
  const items = [
    exportItem({
      slug: 'bonanza',
      name: 'Bonanza "the" roaster',
      url: 'https://bonanza.de',
      description: 'Line one\nline two \u2028 ü',
      category: 'Roasters',
      tags: ['beans', 'espresso'],
      company: 'Bonanza GmbH',
      location: {
        city: 'Berlin',
        latitude: 52.5,
        longitude: 13.4,
        isRemote: false,
        address: null,
        country: null,
        serviceArea: null,
      },
      publishedAt: '2024-03-01T10:00:00.000Z',
    }),
    exportItem({ slug: 'draft', name: 'Draft', status: 'draft' }),
  ]
  const source = () =>
    exportSource(items, { categories: ['Roasters', 'Empty'], tags: ['beans', 'espresso', 'unused'] })

  it('writes the document with one item per line', async () => {
    const text = await rendered(renderJson(source()))
    assert.equal(
      text,
      `{
  "version": 1,
  "site": {"name":"Awesome Coffee","description":"Roasters, cafés and tools."},
  "categories": ["Roasters","Empty"],
  "tags": ["beans","espresso","unused"],
  "items": [
    {"slug":"bonanza","name":"Bonanza \\"the\\" roaster","description":"Line one\\nline two \u2028 ü","url":"https://bonanza.de","iconUrl":null,"imageUrl":null,"category":"Roasters","tags":["beans","espresso"],"company":"Bonanza GmbH","status":"published","location":{"address":null,"city":"Berlin","country":null,"latitude":52.5,"longitude":13.4,"isRemote":false,"serviceArea":null},"publishedAt":"2024-03-01T10:00:00.000Z"},
    {"slug":"draft","name":"Draft","description":null,"url":null,"iconUrl":null,"imageUrl":null,"category":null,"tags":[],"company":null,"status":"draft","location":{"address":null,"city":null,"country":null,"latitude":null,"longitude":null,"isRemote":false,"serviceArea":null},"publishedAt":null}
  ]
}
`,
    )
    assert.deepEqual(JSON.parse(text).items, items)
  })

  it('writes an empty list for a directory without items', async () => {
    const text = await rendered(renderJson(exportSource([], { name: 'Empty' })))
    assert.deepEqual(JSON.parse(text), {
      version: 1,
      site: { name: 'Empty', description: 'Roasters, cafés and tools.' },
      categories: [],
      tags: [],
      items: [],
    })
    assert.match(text, /"items": \[\]\n\}\n$/)
  })

  it('parses back to every field, category and tag it wrote', async () => {
    const file = parseJson(await rendered(renderJson(source())))
    assert.deepEqual(file.issues, [])
    assert.deepEqual(file.site, { name: 'Awesome Coffee', description: 'Roasters, cafés and tools.' })
    assert.deepEqual(file.categories, ['Roasters', 'Empty'])
    assert.deepEqual(file.tags, ['beans', 'espresso', 'unused'])
    assert.deepEqual(
      file.items.map(({ item }) => item),
      items,
    )
  })
})
