import { type Static, type TSchema, Type } from 'typebox'
import { HttpUrl, NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { LINK_STATUSES } from './relations.ts'
import { ITEM_STATUSES } from './tables.ts'

/** Field limits of an item; bulk calls and search terms are bounded so one request stays bounded. */
export const ITEM_LIMITS = {
  slugMax: 200,
  nameMin: 2,
  nameMax: 200,
  descriptionMax: 5000,
  urlMax: 2048,
  addressMax: 300,
  cityMax: 100,
  countryMax: 100,
  serviceAreaMax: 300,
  tagsMax: 20,
  collectionsMax: 50,
  noteMax: 1000,
  searchMax: 100,
  bulkMax: 100,
} as const

/** The public list: `limit` 1 to 100, default 20. */
export const PUBLIC_DEFAULT_LIMIT = 20

export const ITEM_SORT_FIELDS = ['createdAt', 'updatedAt', 'publishedAt', 'name', 'status'] as const
export type ItemSortField = (typeof ITEM_SORT_FIELDS)[number]

const EXAMPLE_ID = '3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60'

export const EXAMPLE_PUBLIC = {
  id: EXAMPLE_ID,
  slug: 'blue-bottle-coffee',
  name: 'Blue Bottle Coffee',
  description: 'Small-batch roaster with cafés in five cities.',
  url: 'https://bluebottlecoffee.com',
  iconUrl: 'https://cdn.example.com/icons/blue-bottle.png',
  imageUrl: 'https://cdn.example.com/images/blue-bottle.jpg',
  category: { id: 'coffee-roasters', name: 'Coffee roasters' },
  tags: [
    { id: 'espresso', name: 'Espresso' },
    { id: 'single-origin', name: 'Single origin' },
  ],
  company: { id: '9b1d3f5a-7c2e-4a6b-8d0f-2e4a6c8e0b1d', slug: 'blue-bottle', name: 'Blue Bottle Inc.' },
  location: {
    address: '300 Webster St',
    city: 'Oakland',
    country: 'United States',
    latitude: 37.7955,
    longitude: -122.2764,
    isRemote: false,
    serviceArea: null,
  },
  publishedAt: '2026-11-20T09:00:00.000Z',
  createdAt: '2026-11-19T16:30:00.000Z',
  updatedAt: '2026-11-20T09:00:00.000Z',
}

const EXAMPLE_ITEM = {
  ...EXAMPLE_PUBLIC,
  status: 'published',
  featured: true,
  collectionIds: ['5d7f9b1c-3e5a-4c7e-9a1b-3d5f7a9c1e3b'],
  submittedBy: { id: '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d', name: 'Ada Lovelace', email: 'ada@example.com' },
  reviewNote: 'Checked the address.',
  reviewedBy: '1c3e5a7b-9d0f-4b2d-8e6a-0c2e4a6b8d0f',
  reviewedAt: '2026-11-20T09:00:00.000Z',
  link: {
    status: 'redirected',
    httpStatus: 200,
    finalUrl: 'https://bluebottlecoffee.com/us',
    reason: null,
    checkedAt: '2026-11-27T03:10:00.000Z',
    failures: 0,
  },
}

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

const Location = Type.Object(
  {
    address: Nullable(Type.String({ examples: [EXAMPLE_PUBLIC.location.address] })),
    city: Nullable(Type.String({ examples: [EXAMPLE_PUBLIC.location.city] })),
    country: Nullable(Type.String({ examples: [EXAMPLE_PUBLIC.location.country] })),
    latitude: Nullable(Type.Number({ examples: [EXAMPLE_PUBLIC.location.latitude] })),
    longitude: Nullable(Type.Number({ examples: [EXAMPLE_PUBLIC.location.longitude] })),
    isRemote: Type.Boolean({ description: 'serves customers anywhere, without a place to visit' }),
    serviceArea: Nullable(
      Type.String({ description: 'where a remote or mobile service works', examples: ['EU'] }),
    ),
  },
  { description: 'where the item is; every field may be null' },
)

const Ref = (example: { id: string; name: string }) =>
  Type.Object({
    id: Type.String({ examples: [example.id] }),
    name: Type.String({ examples: [example.name] }),
  })

/** An item as the public site shows it: published items only. */
export const PublicItem = Type.Object({
  id: Type.String({ examples: [EXAMPLE_ID] }),
  slug: Type.String({ examples: [EXAMPLE_PUBLIC.slug] }),
  name: Type.String({ examples: [EXAMPLE_PUBLIC.name] }),
  description: Nullable(Type.String({ examples: [EXAMPLE_PUBLIC.description] })),
  url: Nullable(Type.String({ examples: [EXAMPLE_PUBLIC.url] })),
  iconUrl: Nullable(Type.String({ examples: [EXAMPLE_PUBLIC.iconUrl] })),
  imageUrl: Nullable(Type.String({ examples: [EXAMPLE_PUBLIC.imageUrl] })),
  category: Nullable(Ref(EXAMPLE_PUBLIC.category)),
  tags: Type.Array(Ref(EXAMPLE_PUBLIC.tags[0]!), { description: 'by name' }),
  company: Nullable(
    Type.Object({
      id: Type.String({ examples: [EXAMPLE_PUBLIC.company.id] }),
      slug: Type.String({ examples: [EXAMPLE_PUBLIC.company.slug] }),
      name: Type.String({ examples: [EXAMPLE_PUBLIC.company.name] }),
    }),
  ),
  location: Location,
  publishedAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type PublicItem = Static<typeof PublicItem>

/** What the latest check of an item's current URL found (docs/link-checks.md). */
export const ItemLinkSchema = Type.Object(
  {
    status: Type.Enum([...LINK_STATUSES], {
      description:
        '`ok` (2xx), `redirected` (2xx after redirects), `broken` (LINK_CHECK_FAILURES failed checks in a row), ' +
        '`unchecked` (not checked at its current URL yet, or only failed, fewer times than that); a failure ' +
        'short of the limit keeps the status the link had',
      examples: ['redirected'],
    }),
    httpStatus: Nullable(
      Type.Integer({ description: 'the status of the last answer; null without one', examples: [200] }),
    ),
    finalUrl: Nullable(
      Type.String({ description: 'where the redirects led', examples: ['https://bluebottlecoffee.com/us'] }),
    ),
    reason: Nullable(
      Type.String({
        description: 'why the latest check failed: `HTTP 404`, `timeout`, `DNS: …`, `connection refused`, …',
        examples: ['HTTP 404'],
      }),
    ),
    checkedAt: NullableTimestamp,
    failures: Type.Integer({ description: 'failed checks in a row; a success resets it', examples: [0] }),
  },
  { description: 'the latest link check of the item’s current URL' },
)

/** An item as admins see it: the public fields, its status, review and submitter. */
export const Item = Type.Object({
  ...PublicItem.properties,
  status: Type.Enum([...ITEM_STATUSES], { examples: ['published'] }),
  featured: Type.Boolean({ description: 'an active featured entry names its slug' }),
  collectionIds: Type.Array(Type.String(), { description: 'the collections it is in' }),
  submittedBy: Nullable(
    Type.Object({
      id: Type.String({ examples: [EXAMPLE_ITEM.submittedBy.id] }),
      name: Nullable(Type.String({ examples: [EXAMPLE_ITEM.submittedBy.name] })),
      email: Type.String({ examples: [EXAMPLE_ITEM.submittedBy.email] }),
    }),
  ),
  reviewNote: Nullable(Type.String({ examples: [EXAMPLE_ITEM.reviewNote] })),
  reviewedBy: Nullable(Type.String({ description: 'the reviewing admin’s user id' })),
  reviewedAt: NullableTimestamp,
  link: ItemLinkSchema,
})
export type Item = Static<typeof Item>

const text = (max: number, example: string, description?: string) =>
  Nullable(Type.String({ maxLength: max, examples: [example], ...(description ? { description } : {}) }))

const LocationInput = Type.Object(
  {
    address: Type.Optional(text(ITEM_LIMITS.addressMax, EXAMPLE_PUBLIC.location.address)),
    city: Type.Optional(text(ITEM_LIMITS.cityMax, EXAMPLE_PUBLIC.location.city)),
    country: Type.Optional(text(ITEM_LIMITS.countryMax, EXAMPLE_PUBLIC.location.country)),
    latitude: Type.Optional(Nullable(Type.Number({ minimum: -90, maximum: 90, examples: [37.7955] }))),
    longitude: Type.Optional(Nullable(Type.Number({ minimum: -180, maximum: 180, examples: [-122.2764] }))),
    isRemote: Type.Optional(Type.Boolean()),
    serviceArea: Type.Optional(text(ITEM_LIMITS.serviceAreaMax, 'EU')),
  },
  { description: 'the fields sent replace those of the item’s location; latitude and longitude go together' },
)
export type LocationInput = Static<typeof LocationInput>

const Slug = Type.String({
  minLength: 1,
  maxLength: ITEM_LIMITS.slugMax,
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
  description: 'unique; lower-case letters, digits and single dashes',
  examples: [EXAMPLE_PUBLIC.slug],
})

/** What an item's author may set, on the site's submit form and in the admin. */
const contentFields = {
  name: Type.String({ minLength: 1, maxLength: ITEM_LIMITS.nameMax, examples: [EXAMPLE_PUBLIC.name] }),
  description: text(
    ITEM_LIMITS.descriptionMax,
    EXAMPLE_PUBLIC.description,
    'plain text; markup is kept as text',
  ),
  url: Nullable(HttpUrl(ITEM_LIMITS.urlMax, 'the item’s website', EXAMPLE_PUBLIC.url)),
  iconUrl: Nullable(HttpUrl(ITEM_LIMITS.urlMax, 'a square icon', EXAMPLE_PUBLIC.iconUrl)),
  imageUrl: Nullable(HttpUrl(ITEM_LIMITS.urlMax, 'a cover image', EXAMPLE_PUBLIC.imageUrl)),
  categoryId: Nullable(
    Type.String({ maxLength: 100, examples: ['coffee-roasters'], description: 'a category id' }),
  ),
  tagIds: Type.Array(Type.String({ maxLength: 100 }), {
    maxItems: ITEM_LIMITS.tagsMax,
    uniqueItems: true,
    description: `tag ids, at most ${ITEM_LIMITS.tagsMax}`,
    examples: [['espresso', 'single-origin']],
  }),
  location: LocationInput,
}

const adminFields = {
  ...contentFields,
  slug: Slug,
  status: Type.Enum([...ITEM_STATUSES], { examples: ['published'] }),
  companyId: Nullable(
    Type.String({ format: 'uuid', description: 'a company id', examples: [EXAMPLE_PUBLIC.company.id] }),
  ),
  collectionIds: Type.Array(Type.String({ format: 'uuid' }), {
    maxItems: ITEM_LIMITS.collectionsMax,
    uniqueItems: true,
    description: 'the collections it is in; it joins the end of each new one',
    examples: [EXAMPLE_ITEM.collectionIds],
  }),
}

export const CreateItemBody = Type.Object(
  {
    name: adminFields.name,
    slug: Type.Optional(adminFields.slug),
    description: Type.Optional(adminFields.description),
    url: Type.Optional(adminFields.url),
    iconUrl: Type.Optional(adminFields.iconUrl),
    imageUrl: Type.Optional(adminFields.imageUrl),
    categoryId: Type.Optional(adminFields.categoryId),
    tagIds: Type.Optional(adminFields.tagIds),
    companyId: Type.Optional(adminFields.companyId),
    collectionIds: Type.Optional(adminFields.collectionIds),
    location: Type.Optional(adminFields.location),
    status: Type.Optional(
      Type.Enum([...ITEM_STATUSES], {
        default: 'draft',
        description: 'default `draft`',
        examples: ['published'],
      }),
    ),
  },
  {
    examples: [
      {
        name: EXAMPLE_PUBLIC.name,
        description: EXAMPLE_PUBLIC.description,
        url: EXAMPLE_PUBLIC.url,
        categoryId: 'coffee-roasters',
        tagIds: ['espresso'],
        location: { city: 'Oakland', country: 'United States', latitude: 37.7955, longitude: -122.2764 },
        status: 'published',
      },
    ],
  },
)
export type CreateItemBody = Static<typeof CreateItemBody>

export const UpdateItemBody = Type.Partial(Type.Object(adminFields), {
  minProperties: 1,
  examples: [{ status: 'published' }, { tagIds: ['espresso', 'decaf'], location: { isRemote: true } }],
})
export type UpdateItemBody = Static<typeof UpdateItemBody>

export const SubmitItemBody = Type.Object(
  {
    name: contentFields.name,
    url: HttpUrl(ITEM_LIMITS.urlMax, 'the item’s website', EXAMPLE_PUBLIC.url),
    description: Type.Optional(contentFields.description),
    iconUrl: Type.Optional(contentFields.iconUrl),
    imageUrl: Type.Optional(contentFields.imageUrl),
    categoryId: Type.Optional(contentFields.categoryId),
    tagIds: Type.Optional(contentFields.tagIds),
    location: Type.Optional(contentFields.location),
  },
  {
    examples: [
      {
        name: EXAMPLE_PUBLIC.name,
        url: EXAMPLE_PUBLIC.url,
        description: EXAMPLE_PUBLIC.description,
        categoryId: 'coffee-roasters',
        location: { city: 'Oakland', country: 'United States' },
      },
    ],
  },
)
export type SubmitItemBody = Static<typeof SubmitItemBody>

export const ReviewBody = Type.Object(
  {
    action: Type.Enum(['approve', 'reject'], { description: '`approve` publishes, `reject` rejects' }),
    note: Type.Optional(
      Type.String({ maxLength: ITEM_LIMITS.noteMax, description: 'kept on the item and in its history' }),
    ),
  },
  { examples: [{ action: 'reject', note: 'The website does not answer.' }, { action: 'approve' }] },
)
export type ReviewBody = Static<typeof ReviewBody>

export const BulkItemsBody = Type.Object(
  {
    action: Type.Enum(['approve', 'reject', 'delete']),
    ids: Type.Array(Type.String({ maxLength: 100 }), {
      minItems: 1,
      maxItems: ITEM_LIMITS.bulkMax,
      description: `item ids, 1 to ${ITEM_LIMITS.bulkMax}`,
    }),
  },
  { examples: [{ action: 'approve', ids: [EXAMPLE_ID, '0e2a4c6e-8a1b-4d3f-9b5d-7f9a1c3e5b7d'] }] },
)
export type BulkItemsBody = Static<typeof BulkItemsBody>

export const ItemParams = Type.Object({
  id: Type.String({ description: 'the item’s id (a UUID)', examples: [EXAMPLE_ID] }),
})

export const SlugParams = Type.Object({
  slug: Type.String({
    maxLength: ITEM_LIMITS.slugMax,
    description: 'the item’s slug',
    examples: [EXAMPLE_PUBLIC.slug],
  }),
})

const Search = Type.String({
  maxLength: ITEM_LIMITS.searchMax,
  description: 'words of the name or description; each word matches as a prefix (`cof bean`)',
  examples: ['coffee'],
})
const Bool = (description: string) => Type.Enum(['true', 'false'], { description })

export const AdminItemQuery = Query({
  ...PageQueryFields,
  search: Type.Optional(Search),
  status: Type.Optional(Type.Enum([...ITEM_STATUSES])),
  category: Type.Optional(Type.String({ maxLength: 100, description: 'a category id' })),
  tag: Type.Optional(Type.String({ maxLength: 100, description: 'a tag id' })),
  company: Type.Optional(Type.String({ format: 'uuid', description: 'a company id' })),
  featured: Type.Optional(Bool('only items on (or off) the featured shelf')),
  linkStatus: Type.Optional(
    Type.Enum([...LINK_STATUSES], {
      description: 'only items whose current URL’s link check has this status (`unchecked`: none yet)',
    }),
  ),
  sortBy: Type.Enum([...ITEM_SORT_FIELDS], { default: 'createdAt' }),
  sortOrder: Type.Enum(['asc', 'desc'], { default: 'desc' }),
})
export type AdminItemQuery = Static<typeof AdminItemQuery>

export const PublicItemQuery = Query({
  page: PageQueryFields.page,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: PUBLIC_DEFAULT_LIMIT, examples: [20] }),
  search: Type.Optional(Search),
  category: Type.Optional(Type.String({ maxLength: 100, description: 'a category id' })),
  tag: Type.Optional(Type.String({ maxLength: 100, description: 'a tag id' })),
  sort: Type.Enum(['newest', 'name'], {
    default: 'newest',
    description: '`newest` published first, or by name',
  }),
})
export type PublicItemQuery = Static<typeof PublicItemQuery>

const Meta = Type.Object(PageMetaFields)
const META_EXAMPLE = { page: 1, limit: 20, total: 1, totalPages: 1 }

export const ItemListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(Item), meta: Meta },
  { description: 'A page of items', examples: [{ success: true, data: [EXAMPLE_ITEM], meta: META_EXAMPLE }] },
)

export const PublicListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(PublicItem), meta: Meta },
  {
    description: 'A page of published items',
    examples: [{ success: true, data: [EXAMPLE_PUBLIC], meta: META_EXAMPLE }],
  },
)

export const ItemAnswer = Type.Object(
  { success: Type.Literal(true), data: Item },
  { description: 'The item', examples: [{ success: true, data: EXAMPLE_ITEM }] },
)

export const PublicItemAnswer = Type.Object(
  { success: Type.Literal(true), data: PublicItem },
  { description: 'The published item', examples: [{ success: true, data: EXAMPLE_PUBLIC }] },
)

export const SubmittedAnswer = Type.Object(
  { success: Type.Literal(true), data: Item, message: Type.String() },
  {
    description: 'Submitted: it waits for review',
    examples: [
      {
        success: true,
        data: { ...EXAMPLE_ITEM, status: 'pending', featured: false, collectionIds: [], publishedAt: null },
        message: 'Thanks! Your item will appear once an admin has reviewed it.',
      },
    ],
  },
)

export const ItemDeleted = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['Item deleted'] }) },
  { description: 'The item is gone', examples: [{ success: true, message: 'Item deleted' }] },
)

export const ItemStatsAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      total: Type.Integer(),
      published: Type.Integer(),
      pending: Type.Integer(),
      rejected: Type.Integer(),
      draft: Type.Integer(),
    }),
  },
  {
    description: 'How many items there are in each status',
    examples: [{ success: true, data: { total: 412, published: 380, pending: 21, rejected: 7, draft: 4 } }],
  },
)

export const HistoryEntry = Type.Object({
  id: Type.String(),
  action: Type.Enum(['created', 'submitted', 'updated', 'approved', 'rejected', 'deleted']),
  actor: Nullable(
    Type.Object(
      { id: Type.String(), name: Nullable(Type.String()), email: Type.String() },
      {
        description: 'who did it; null once their account is gone',
      },
    ),
  ),
  changes: Type.Array(Type.Object({ field: Type.String(), from: Type.Unknown(), to: Type.Unknown() }), {
    description: 'each field that changed, from what to what',
  }),
  note: Nullable(Type.String()),
  createdAt: Timestamp,
})
export type HistoryEntry = Static<typeof HistoryEntry>

export const HistoryQuery = Query({ ...PageQueryFields })
export type HistoryQuery = Static<typeof HistoryQuery>

export const HistoryAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(HistoryEntry), meta: Meta },
  {
    description: 'The item’s changes, newest first',
    examples: [
      {
        success: true,
        data: [
          {
            id: '6e8a0c2e-4a6b-4d8f-9b1d-3f5a7c9e1b3d',
            action: 'approved',
            actor: {
              id: '1c3e5a7b-9d0f-4b2d-8e6a-0c2e4a6b8d0f',
              name: 'Grace Hopper',
              email: 'grace@example.com',
            },
            changes: [{ field: 'status', from: 'pending', to: 'published' }],
            note: 'Checked the address.',
            createdAt: '2026-11-20T09:00:00.000Z',
          },
        ],
        meta: { page: 1, limit: 10, total: 1, totalPages: 1 },
      },
    ],
  },
)

/** The clients' bulk answer shape, for items. */
export const BulkItemsAnswer = Type.Object(
  {
    success: Type.Literal(true),
    message: Type.String({ examples: ['1 of 2 items approved'] }),
    results: Type.Array(
      Type.Object({ index: Type.Integer(), id: Type.String(), success: Type.Literal(true) }),
    ),
    errors: Type.Array(Type.Object({ index: Type.Integer(), id: Type.String(), error: Type.String() })),
    summary: Type.Object({ total: Type.Integer(), successful: Type.Integer(), failed: Type.Integer() }),
  },
  {
    description: 'What happened to each id, by its index in `ids`',
    examples: [
      {
        success: true,
        message: '1 of 2 items approved',
        results: [{ index: 0, id: EXAMPLE_ID, success: true }],
        errors: [{ index: 1, id: 'no-such-item', error: 'Item not found' }],
        summary: { total: 2, successful: 1, failed: 1 },
      },
    ],
  },
)
