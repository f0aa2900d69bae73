import { type Static, Type } from 'typebox'
import { HttpUrl, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'

/** SPEC.md Limits: the public shelf's `limit` is 1 to 50, default 6. */
export const SHELF_MAX_LIMIT = 50
export const SHELF_DEFAULT_LIMIT = 6

const EXAMPLE = {
  id: '8c2f4e1a-3b5d-4c6e-9f70-1a2b3c4d5e6f',
  itemSlug: 'blue-bottle-coffee',
  itemName: 'Blue Bottle Coffee',
  itemDescription: 'Small-batch roaster with cafés in five cities',
  itemIconUrl: 'https://cdn.example.com/icons/blue-bottle.png',
  itemImageUrl: 'https://cdn.example.com/images/blue-bottle.jpg',
  featuredOrder: 10,
  isActive: true,
  featuredAt: '2026-03-01T09:00:00.000Z',
  featuredUntil: '2026-04-01T09:00:00.000Z',
  createdAt: '2026-03-01T09:00:00.000Z',
  updatedAt: null,
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()])

export const FeaturedItem = Type.Object({
  id: Type.String({ examples: [EXAMPLE.id] }),
  itemSlug: Type.String({ examples: [EXAMPLE.itemSlug] }),
  itemName: Type.String({ examples: [EXAMPLE.itemName] }),
  itemDescription: Nullable(Type.String({ examples: [EXAMPLE.itemDescription] })),
  itemIconUrl: Nullable(Type.String({ examples: [EXAMPLE.itemIconUrl] })),
  itemImageUrl: Nullable(Type.String({ examples: [EXAMPLE.itemImageUrl] })),
  featuredOrder: Type.Integer({ description: 'higher is more prominent', examples: [10] }),
  isActive: Type.Boolean({ examples: [true] }),
  featuredAt: Timestamp,
  featuredUntil: Type.Union([Timestamp, Type.Null()], { description: 'null: no expiry' }),
  createdAt: Timestamp,
  updatedAt: Type.Union([Timestamp, Type.Null()]),
})
export type FeaturedItem = Static<typeof FeaturedItem>

const fields = {
  itemSlug: Type.String({ minLength: 1, maxLength: 200, examples: [EXAMPLE.itemSlug] }),
  itemName: Type.String({ minLength: 1, maxLength: 200, examples: [EXAMPLE.itemName] }),
  itemDescription: Type.Union([
    Type.String({ maxLength: 2000, examples: [EXAMPLE.itemDescription] }),
    Type.Null(),
  ]),
  itemIconUrl: Type.Union([HttpUrl(2048, 'the icon shown on the shelf', EXAMPLE.itemIconUrl), Type.Null()]),
  itemImageUrl: Type.Union([
    HttpUrl(2048, 'the image shown on the shelf', EXAMPLE.itemImageUrl),
    Type.Null(),
  ]),
  featuredOrder: Type.Integer({
    minimum: -1_000_000,
    maximum: 1_000_000,
    description: 'higher is more prominent',
    examples: [10],
  }),
  isActive: Type.Boolean({ examples: [true] }),
  featuredAt: Type.String({
    format: 'date-time',
    description: 'when it was featured (default: now)',
    examples: [EXAMPLE.featuredAt],
  }),
  featuredUntil: Type.Union([
    Type.String({
      format: 'date-time',
      description: 'when it leaves the shelf; null: never',
      examples: [EXAMPLE.featuredUntil],
    }),
    Type.Null(),
  ]),
}

export const CreateFeaturedBody = Type.Object(
  {
    itemSlug: fields.itemSlug,
    itemName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        examples: [EXAMPLE.itemName],
        description: 'required unless an item of this directory has the slug (its name is used then)',
      }),
    ),
    itemDescription: Type.Optional(fields.itemDescription),
    itemIconUrl: Type.Optional(fields.itemIconUrl),
    itemImageUrl: Type.Optional(fields.itemImageUrl),
    featuredOrder: Type.Optional(fields.featuredOrder),
    isActive: Type.Optional(fields.isActive),
    featuredAt: Type.Optional(fields.featuredAt),
    featuredUntil: Type.Optional(fields.featuredUntil),
  },
  {
    examples: [
      {
        itemSlug: EXAMPLE.itemSlug,
        itemName: EXAMPLE.itemName,
        itemDescription: EXAMPLE.itemDescription,
        itemIconUrl: EXAMPLE.itemIconUrl,
        featuredOrder: 10,
        featuredUntil: EXAMPLE.featuredUntil,
      },
    ],
  },
)
export type CreateFeaturedBody = Static<typeof CreateFeaturedBody>

export const UpdateFeaturedBody = Type.Partial(Type.Object(fields), {
  minProperties: 1,
  examples: [{ featuredOrder: 20, featuredUntil: null }, { isActive: false }],
})
export type UpdateFeaturedBody = Static<typeof UpdateFeaturedBody>

export const FeaturedParams = Type.Object({
  id: Type.String({ description: 'the featured entry’s id (a UUID)', examples: [EXAMPLE.id] }),
})

export const FeaturedListQuery = Query({
  ...PageQueryFields,
  isActive: Type.Optional(Type.Enum(['true', 'false'], { description: 'only active (or inactive) entries' })),
})
export type FeaturedListQuery = Static<typeof FeaturedListQuery>

export const FeaturedListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(FeaturedItem), meta: Type.Object(PageMetaFields) },
  {
    description: 'A page of featured entries in shelf order (featuredOrder, then featuredAt, descending)',
    examples: [{ success: true, data: [EXAMPLE], meta: { page: 1, limit: 10, total: 1, totalPages: 1 } }],
  },
)

export const FeaturedAnswer = Type.Object(
  { success: Type.Literal(true), data: FeaturedItem },
  { description: 'The featured entry', examples: [{ success: true, data: EXAMPLE }] },
)

export const FeaturedDeleted = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['Featured item deleted'] }) },
  { description: 'The entry is gone', examples: [{ success: true, message: 'Featured item deleted' }] },
)

export const ShelfQuery = Query({
  limit: Type.Integer({ minimum: 1, maximum: SHELF_MAX_LIMIT, default: SHELF_DEFAULT_LIMIT, examples: [6] }),
  includeExpired: Type.Enum(['true', 'false'], {
    default: 'false',
    description: '`true` also shows entries whose featuredUntil has passed',
  }),
})
export type ShelfQuery = Static<typeof ShelfQuery>

export const ShelfAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(FeaturedItem),
    count: Type.Integer({ description: 'how many are in `data`', examples: [1] }),
  },
  {
    description: 'Active featured items, most prominent first',
    examples: [{ success: true, data: [EXAMPLE], count: 1 }],
  },
)
