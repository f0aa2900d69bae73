import { type Static, Type } from 'typebox'
import { Query } from '../../http/schemas.ts'
import { ITEM_STATUSES } from '../items/tables.ts'
import { CSV_COLUMNS } from '../transfer/csv.ts'
import type { TransferFormat } from '../transfer/records.ts'

export const EXPORT_FORMATS = ['markdown', 'csv', 'json'] as const satisfies readonly TransferFormat[]

export const EXPORT_MEDIA_TYPES: Record<TransferFormat, string> = {
  markdown: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
}

export const ExportQuery = Query(
  {
    format: Type.Enum(EXPORT_FORMATS, {
      description: 'the file’s format: an awesome list, a spreadsheet, or the JSON document an import reads',
      examples: ['markdown'],
    }),
  },
  { additionalProperties: false },
)
export type ExportQuery = Static<typeof ExportQuery>

const TextOrNull = Type.Union([Type.String(), Type.Null()])
const NumberOrNull = Type.Union([Type.Number(), Type.Null()])

/** One item as the JSON export writes it: every field, what it points at by name. */
export const ExportItem = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: TextOrNull,
  url: TextOrNull,
  iconUrl: TextOrNull,
  imageUrl: TextOrNull,
  category: Type.Union([Type.String(), Type.Null()], { description: 'the category’s name' }),
  tags: Type.Array(Type.String(), { description: 'tag names, by name' }),
  company: Type.Union([Type.String(), Type.Null()], { description: 'the company’s name' }),
  status: Type.Enum(ITEM_STATUSES),
  location: Type.Object({
    address: TextOrNull,
    city: TextOrNull,
    country: TextOrNull,
    latitude: NumberOrNull,
    longitude: NumberOrNull,
    isRemote: Type.Boolean(),
    serviceArea: TextOrNull,
  }),
  publishedAt: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601, UTC, milliseconds' }),
})

const EXAMPLE_ITEM: Static<typeof ExportItem> = {
  slug: 'bonanza-coffee',
  name: 'Bonanza Coffee',
  description: 'Specialty roaster in Berlin since 2006.',
  url: 'https://bonanzacoffee.de',
  iconUrl: null,
  imageUrl: null,
  category: 'Roasters',
  tags: ['Espresso', 'Filter'],
  company: 'Bonanza GmbH',
  status: 'published',
  location: {
    address: 'Oderberger Str. 35',
    city: 'Berlin',
    country: 'DE',
    latitude: 52.5386,
    longitude: 13.4099,
    isRemote: false,
    serviceArea: null,
  },
  publishedAt: '2026-11-20T09:00:00.000Z',
}

/** The JSON export: the document `parseJson` reads back. */
export const ExportJson = Type.Object({
  version: Type.Literal(1),
  site: Type.Object({ name: Type.String(), description: Type.String() }),
  categories: Type.Array(Type.String(), { description: 'every category’s name, in the site’s order' }),
  tags: Type.Array(Type.String(), { description: 'every tag’s name, by name' }),
  items: Type.Array(ExportItem, { description: 'every item, whatever its status, by slug' }),
})

export const JSON_EXAMPLE: Static<typeof ExportJson> = {
  version: 1,
  site: { name: 'Coffee Atlas', description: 'The independent coffee roasters of Europe.' },
  categories: ['Roasters', 'Cafés'],
  tags: ['Espresso', 'Filter'],
  items: [EXAMPLE_ITEM],
}

export const MARKDOWN_EXAMPLE = `# Coffee Atlas

> The independent coffee roasters of Europe.

## Contents

- [Roasters](#roasters)

## Roasters

- [Bonanza Coffee](https://bonanzacoffee.de) - Specialty roaster in Berlin since 2006.
`

export const CSV_EXAMPLE =
  `${CSV_COLUMNS.join(',')}\r\n` +
  'bonanza-coffee,Bonanza Coffee,https://bonanzacoffee.de,Specialty roaster in Berlin since 2006.,Roasters,' +
  'Espresso; Filter,published,Bonanza GmbH,,,Oderberger Str. 35,Berlin,DE,52.5386,13.4099,false,,' +
  '2026-11-20T09:00:00.000Z\r\n'
