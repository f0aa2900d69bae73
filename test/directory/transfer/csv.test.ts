import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CSV_COLUMNS, parseCsv, renderCsv } from '../../../src/directory/transfer/csv.ts'
import { exportItem, exportSource, rendered } from './sources.ts'

describe('parseCsv', () => {
  it('reads the columns it knows, whatever their case and spacing, with aliases, BOM and CRLF', () => {
    const file = parseCsv(
      '\uFEFFTitle,Website,Service Area,icon-url,Tag\r\n' +
        'Bonanza,https://bonanza.de,Berlin,https://cdn.example/b.png,beans|espresso\r\n',
    )
    assert.deepEqual(file.issues, [])
    assert.deepEqual(file.items, [
      {
        line: 2,
        item: {
          name: 'Bonanza',
          url: 'https://bonanza.de',
          iconUrl: 'https://cdn.example/b.png',
          tags: ['beans', 'espresso'],
          location: { serviceArea: 'Berlin' },
        },
      },
    ])
  })

  it('reports unknown columns once and reads the rest', () => {
    const file = parseCsv(
      'Name,Website,Stars,category,Tag,is_remote,LATITUDE,published_at\n' +
        'Bonanza,https://bonanza.de,5,Roasters,espresso; filter | beans ;,yes,52.5,2024-03-01T10:00:00Z\n' +
        'The Barn,https://thebarn.de,4,,,,,\n',
    )
    assert.deepEqual(file.issues, [{ line: 1, message: 'unknown column "Stars": ignored' }])
    assert.deepEqual(file.items, [
      {
        line: 2,
        item: {
          name: 'Bonanza',
          url: 'https://bonanza.de',
          category: 'Roasters',
          tags: ['espresso', 'filter', 'beans'],
          location: { isRemote: true, latitude: 52.5 },
          publishedAt: '2024-03-01T10:00:00.000Z',
        },
      },
      {
        line: 3,
        item: {
          name: 'The Barn',
          url: 'https://thebarn.de',
          category: null,
          tags: [],
          location: { latitude: null },
          publishedAt: null,
        },
      },
    ])
  })

  it('without a name column gives one issue and no items', () => {
    const file = parseCsv('url,description\nhttps://a.example,A\n')
    assert.deepEqual(file.items, [])
    assert.deepEqual(file.issues, [{ line: 1, message: 'no name column: a name is what every item needs' }])
  })

  it('reports each bad row at its first line, a quoted cell spanning lines included, and gives no item for it', () => {
    const file = parseCsv(
      [
        'name,description,status,latitude,publishedAt',
        'Good,"one\r\ntwo\r\nthree",published,,',
        '',
        ',no name,,,',
        'Odd status,,archived,,',
        'Far,,,north,',
        'Late,,,,yesterday',
        'Ragged,,',
        'Fine,"last ""one""",DRAFT,-33.9,2024-01-02',
      ].join('\r\n'),
    )
    assert.deepEqual(file.issues, [
      { line: 6, item: undefined, message: 'no name' },
      {
        line: 7,
        item: 'Odd status',
        message: 'status must be one of draft, pending, published, rejected: "archived"',
      },
      { line: 8, item: 'Far', message: 'latitude is not a number: "north"' },
      { line: 9, item: 'Late', message: 'publishedAt is not an ISO 8601 date: "yesterday"' },
      { line: 10, item: 'Ragged', message: 'has 3 cells where the header has 5' },
    ])
    assert.deepEqual(
      file.items.map(({ line, item }) => ({ line, ...item })),
      [
        {
          line: 2,
          name: 'Good',
          description: 'one\r\ntwo\r\nthree',
          status: 'published',
          location: { latitude: null },
          publishedAt: null,
        },
        {
          line: 11,
          name: 'Fine',
          description: 'last "one"',
          status: 'draft',
          location: { latitude: -33.9 },
          publishedAt: '2024-01-02T00:00:00.000Z',
        },
      ],
    )
  })

  it('restores cells the export defused against CSV injection', () => {
    const file = parseCsv("name,description\r\n'=SUM(A1),'-5 degrees\r\n'+plus,'@at\r\n")
    assert.deepEqual(
      file.items.map(({ item }) => [item.name, item.description]),
      [
        ['=SUM(A1)', '-5 degrees'],
        ['+plus', '@at'],
      ],
    )
  })

  it('says what it could not read in a broken file', () => {
    const file = parseCsv('name,description\nA,"never closed\n')
    assert.equal(file.items.length, 0)
    assert.equal(file.issues.length, 1)
    assert.match(file.issues[0]!.message, /^not a CSV file: .*Quote Not Closed/)
  })
})

describe('renderCsv', () => {
  const items = [
    exportItem({
      slug: 'bonanza',
      name: 'Bonanza, "the" roaster',
      url: 'https://bonanza.de',
      description: 'Line one\nline two',
      category: 'Roasters',
      tags: ['beans', 'espresso'],
      company: 'Bonanza GmbH',
      iconUrl: 'https://cdn.example/b.png',
      imageUrl: 'https://cdn.example/b.jpg',
      location: {
        address: 'Oderberger Str. 35',
        city: 'Berlin',
        country: 'DE',
        latitude: 52.5386,
        longitude: 13.4099,
        isRemote: false,
        serviceArea: null,
      },
      publishedAt: '2024-03-01T10:00:00.000Z',
    }),
    exportItem({
      slug: 'formula',
      name: '=HYPERLINK("x")',
      status: 'draft',
      description: '-5 degrees',
      location: { isRemote: true },
    }),
  ]

  it('writes the header and one CRLF row per item, every field', async () => {
    const text = await rendered(renderCsv(exportSource(items)))
    assert.equal(
      text,
      `${CSV_COLUMNS.join(',')}\r\n` +
        'bonanza,"Bonanza, ""the"" roaster",https://bonanza.de,"Line one\nline two",Roasters,beans; espresso,published,Bonanza GmbH,https://cdn.example/b.png,https://cdn.example/b.jpg,Oderberger Str. 35,Berlin,DE,52.5386,13.4099,false,,2024-03-01T10:00:00.000Z\r\n' +
        `formula,"'=HYPERLINK(""x"")",,'-5 degrees,,,draft,,,,,,,,,true,,\r\n`,
    )
    assert.equal(
      CSV_COLUMNS.join(','),
      'slug,name,url,description,category,tags,status,company,iconUrl,imageUrl,address,city,country,latitude,longitude,isRemote,serviceArea,publishedAt',
    )
  })

  it('parses back to every field it wrote', async () => {
    const file = parseCsv(await rendered(renderCsv(exportSource(items))))
    assert.deepEqual(file.issues, [])
    assert.deepEqual(
      file.items.map(({ item }) => item),
      items
        .map(({ slug, ...item }) => ({ ...item, slug, location: { ...item.location } }))
        .map((item) =>
          Object.fromEntries(
            [
              'name',
              'slug',
              'url',
              'iconUrl',
              'imageUrl',
              'category',
              'company',
              'description',
              'tags',
              'status',
              'location',
              'publishedAt',
            ].map((key) => [key, item[key as keyof typeof item]]),
          ),
        ),
    )
  })
})
