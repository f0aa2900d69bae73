import { type Static, Type } from 'typebox'
import { Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { ITEM_STATUSES } from '../items/tables.ts'

export const COLLECTION_NAME_MIN_LENGTH = 2
export const COLLECTION_NAME_MAX_LENGTH = 200
export const COLLECTION_SLUG_MAX_LENGTH = 200
export const COLLECTION_SLUG_PATTERN = '^[a-z0-9-]+$'
export const COLLECTION_DESCRIPTION_MAX_LENGTH = 2000
/** The most items one collection holds: a hand-picked list, read whole without paging. */
export const COLLECTION_MAX_ITEMS = 500
export const COLLECTION_SEARCH_MAX_LENGTH = 100
export const COLLECTION_SORT_FIELDS = ['name', 'createdAt', 'updatedAt', 'itemCount'] as const

/** Postgres reads only these as a uuid (ajv's `uuid` format also lets `urn:uuid:` through). */
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'

const EXAMPLE = {
  id: '5b0e7a4c-2f1d-4e8a-9c3b-7d6e5f4a3b2c',
  slug: 'best-coffee-in-lisbon',
  name: 'Best coffee in Lisbon',
  description: 'Where we go for a proper bica, from Alfama to Campo de Ourique',
  isActive: true,
  itemCount: 2,
  createdAt: '2026-03-02T10:00:00.000Z',
  updatedAt: '2026-03-05T16:30:00.000Z',
}

const EXAMPLE_ITEM_IDS = ['0f8c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f', '9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b']

const EXAMPLE_ENTRY = {
  position: 0,
  addedAt: '2026-03-02T10:00:00.000Z',
  item: {
    id: EXAMPLE_ITEM_IDS[0],
    slug: 'fabrica-coffee-roasters',
    name: 'Fábrica Coffee Roasters',
    status: 'published',
    iconUrl: 'https://cdn.example.com/icons/fabrica.png',
    categoryId: 'coffee',
  },
}

export const Collection = Type.Object(
  {
    id: Type.String({ format: 'uuid', examples: [EXAMPLE.id] }),
    slug: Type.String({ pattern: COLLECTION_SLUG_PATTERN, examples: [EXAMPLE.slug] }),
    name: Type.String({ examples: [EXAMPLE.name] }),
    description: Type.Union([Type.String({ examples: [EXAMPLE.description] }), Type.Null()]),
    isActive: Type.Boolean({
      description: 'inactive collections are not shown on the site',
      examples: [true],
    }),
    itemCount: Type.Integer({ minimum: 0, description: 'how many items it holds', examples: [2] }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A collection', examples: [EXAMPLE] },
)
export type Collection = Static<typeof Collection>

const fields = {
  name: Type.String({
    minLength: COLLECTION_NAME_MIN_LENGTH,
    maxLength: COLLECTION_NAME_MAX_LENGTH,
    pattern: '\\S',
    description: `${COLLECTION_NAME_MIN_LENGTH} to ${COLLECTION_NAME_MAX_LENGTH} characters once trimmed`,
    examples: [EXAMPLE.name],
  }),
  slug: Type.String({
    minLength: 1,
    maxLength: COLLECTION_SLUG_MAX_LENGTH,
    pattern: COLLECTION_SLUG_PATTERN,
    description: 'unique; made from the name when a collection is created without one',
    examples: [EXAMPLE.slug],
  }),
  description: Type.Union(
    [
      Type.String({
        maxLength: COLLECTION_DESCRIPTION_MAX_LENGTH,
        description: 'stored as sent: text, never HTML',
        examples: [EXAMPLE.description],
      }),
      Type.Null(),
    ],
    { description: `at most ${COLLECTION_DESCRIPTION_MAX_LENGTH} characters; null: none` },
  ),
  isActive: Type.Boolean({ description: 'inactive collections are not shown on the site', examples: [true] }),
}

const ItemIds = (description: string) =>
  Type.Array(Type.String({ format: 'uuid', pattern: UUID_PATTERN, examples: [EXAMPLE_ITEM_IDS[0]] }), {
    maxItems: COLLECTION_MAX_ITEMS,
    uniqueItems: true,
    description,
    examples: [EXAMPLE_ITEM_IDS],
  })

export const CreateCollectionBody = Type.Object(
  {
    name: fields.name,
    slug: Type.Optional(fields.slug),
    description: Type.Optional(fields.description),
    isActive: Type.Optional(Type.Boolean({ default: true, description: 'default true', examples: [true] })),
    itemIds: Type.Optional(
      ItemIds(`the first items, in order: ids of existing items, each once, at most ${COLLECTION_MAX_ITEMS}`),
    ),
  },
  {
    examples: [
      { name: EXAMPLE.name, description: EXAMPLE.description, itemIds: EXAMPLE_ITEM_IDS },
      { name: 'Rooftop bars', slug: 'rooftops', isActive: false },
    ],
  },
)
export type CreateCollectionBody = Static<typeof CreateCollectionBody>

export const UpdateCollectionBody = Type.Partial(Type.Object(fields), {
  minProperties: 1,
  description: 'the fields to change, at least one',
  examples: [{ name: 'Best coffee in Lisbon and Porto', slug: 'best-coffee-portugal' }, { isActive: false }],
})
export type UpdateCollectionBody = Static<typeof UpdateCollectionBody>

export const CollectionParams = Type.Object({
  id: Type.String({ description: 'the collection’s id (a UUID)', examples: [EXAMPLE.id] }),
})

export const CollectionListQuery = Query({
  ...PageQueryFields,
  search: Type.Optional(
    Type.String({
      maxLength: COLLECTION_SEARCH_MAX_LENGTH,
      description: 'case-insensitive substring of the name, slug or description',
      examples: ['coffee'],
    }),
  ),
  isActive: Type.Optional(
    Type.Enum(['true', 'false'], { description: 'only active (or inactive) collections' }),
  ),
  sortBy: Type.Enum(COLLECTION_SORT_FIELDS, { default: 'createdAt' }),
  sortOrder: Type.Enum(['asc', 'desc'], { default: 'desc' }),
})
export type CollectionListQuery = Static<typeof CollectionListQuery>

export const CollectionListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(Collection), meta: Type.Object(PageMetaFields) },
  {
    description: 'A page of collections, newest first unless `sortBy` / `sortOrder` say otherwise',
    examples: [{ success: true, data: [EXAMPLE], meta: { page: 1, limit: 10, total: 1, totalPages: 1 } }],
  },
)

export const CollectionAnswer = Type.Object(
  { success: Type.Literal(true), data: Collection },
  { description: 'The collection', examples: [{ success: true, data: EXAMPLE }] },
)

export const CollectionDeleted = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['Collection deleted'] }) },
  {
    description: 'The collection and its memberships are gone; its items are not',
    examples: [{ success: true, message: 'Collection deleted' }],
  },
)

export const CollectionStats = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'all collections', examples: [12] }),
    active: Type.Integer({ minimum: 0, description: 'shown on the site', examples: [9] }),
    inactive: Type.Integer({ minimum: 0, examples: [3] }),
    empty: Type.Integer({ minimum: 0, description: 'collections holding no item', examples: [2] }),
    totalItems: Type.Integer({
      minimum: 0,
      description: 'memberships over all collections: an item in two collections counts twice',
      examples: [87],
    }),
    averageItems: Type.Number({
      minimum: 0,
      description: 'items per collection, rounded to two decimals; 0 without collections',
      examples: [7.25],
    }),
  },
  {
    examples: [{ total: 12, active: 9, inactive: 3, empty: 2, totalItems: 87, averageItems: 7.25 }],
  },
)
export type CollectionStats = Static<typeof CollectionStats>

export const CollectionStatsAnswer = Type.Object(
  { success: Type.Literal(true), data: CollectionStats },
  {
    description: 'Collection statistics',
    examples: [
      {
        success: true,
        data: { total: 12, active: 9, inactive: 3, empty: 2, totalItems: 87, averageItems: 7.25 },
      },
    ],
  },
)

export const CollectionEntry = Type.Object(
  {
    position: Type.Integer({ minimum: 0, description: 'from 0, in the collection’s order', examples: [0] }),
    addedAt: Timestamp,
    item: Type.Object({
      id: Type.String({ format: 'uuid', examples: [EXAMPLE_ENTRY.item.id] }),
      slug: Type.String({ examples: [EXAMPLE_ENTRY.item.slug] }),
      name: Type.String({ examples: [EXAMPLE_ENTRY.item.name] }),
      status: Type.Enum(ITEM_STATUSES, { description: 'the item’s review status', examples: ['published'] }),
      iconUrl: Type.Union([Type.String({ examples: [EXAMPLE_ENTRY.item.iconUrl] }), Type.Null()]),
      categoryId: Type.Union([Type.String({ examples: [EXAMPLE_ENTRY.item.categoryId] }), Type.Null()]),
    }),
  },
  { description: 'An item of a collection, at its position', examples: [EXAMPLE_ENTRY] },
)
export type CollectionEntry = Static<typeof CollectionEntry>

export const CollectionItemsAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(CollectionEntry),
    count: Type.Integer({ minimum: 0, description: 'how many are in `data`', examples: [1] }),
  },
  {
    description: 'The collection’s items in order, whatever their status',
    examples: [{ success: true, data: [EXAMPLE_ENTRY], count: 1 }],
  },
)

export const ReplaceCollectionItemsBody = Type.Object(
  {
    itemIds: ItemIds(
      `the whole list, in order: ids of existing items, each once, 0 to ${COLLECTION_MAX_ITEMS}; ` +
        'items left out leave the collection',
    ),
  },
  { examples: [{ itemIds: EXAMPLE_ITEM_IDS }, { itemIds: [] }] },
)
export type ReplaceCollectionItemsBody = Static<typeof ReplaceCollectionItemsBody>

export const CollectionsExistAnswer = Type.Object(
  {
    exists: Type.Boolean({ description: 'whether `count` is above 0', examples: [true] }),
    count: Type.Integer({ minimum: 0, description: 'active collections', examples: [9] }),
  },
  { description: 'Whether the site has active collections', examples: [{ exists: true, count: 9 }] },
)

export const COLLECTIONS_UNAVAILABLE_MESSAGE = 'Failed to check collections existence'

/** SPEC.md's failure body of `/api/collections/exists`, not the usual error shape, with the stable code. */
export const CollectionsExistFailure = Type.Object(
  {
    exists: Type.Literal(false),
    count: Type.Literal(0),
    error: Type.Literal(COLLECTIONS_UNAVAILABLE_MESSAGE),
    code: Type.Literal('COLLECTIONS_UNAVAILABLE'),
  },
  {
    description:
      'Server error. `COLLECTIONS_UNAVAILABLE`: the count could not be read; this route’s own body, ' +
      'not the usual error shape',
    examples: [
      { exists: false, count: 0, error: COLLECTIONS_UNAVAILABLE_MESSAGE, code: 'COLLECTIONS_UNAVAILABLE' },
    ],
  },
)
