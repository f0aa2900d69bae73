import type { ExportItem, ExportSource, TransferLocation } from '../../../src/directory/transfer/records.ts'

/** An item with every field, null or empty where `fields` does not say. */
export const exportItem = (
  fields: Partial<Omit<ExportItem, 'location'>> &
    Pick<ExportItem, 'slug' | 'name'> & { location?: TransferLocation },
): ExportItem => ({
  description: null,
  url: null,
  iconUrl: null,
  imageUrl: null,
  category: null,
  tags: [],
  company: null,
  status: 'published',
  publishedAt: null,
  ...fields,
  location: {
    address: null,
    city: null,
    country: null,
    latitude: null,
    longitude: null,
    isRemote: false,
    serviceArea: null,
    ...fields.location,
  },
})

/** A source over `items`, as the export reads it; categories are counted from the items. */
export function exportSource(
  items: ExportItem[],
  more: { categories?: string[]; tags?: string[]; name?: string; description?: string } = {},
): ExportSource {
  const categoryNames = more.categories ?? [
    ...new Set(items.flatMap(({ category }) => (category === null ? [] : [category]))),
  ]
  const published = (name: string | null) =>
    items.filter((item) => item.category === name && item.status === 'published').length
  return {
    site: {
      name: more.name ?? 'Awesome Coffee',
      description: more.description ?? 'Roasters, cafés and tools.',
      url: 'https://coffee.example/',
    },
    categories: categoryNames.map((name) => ({ id: name.toLowerCase(), name, published: published(name) })),
    tags: (more.tags ?? []).map((name) => ({ id: name.toLowerCase(), name })),
    uncategorized: published(null),
    items: (async function* () {
      yield* items
    })(),
  }
}

/** Everything a renderer yields, joined. */
export async function rendered(pieces: AsyncIterable<string>): Promise<string> {
  let text = ''
  for await (const piece of pieces) text += piece
  return text
}
