import { type Static, Type } from 'typebox'
import { Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'

/** A tag's name once trimmed, and its id: the limits of their columns. */
export const TAG_NAME_MIN_LENGTH = 1
export const TAG_NAME_MAX_LENGTH = 100
export const TAG_ID_MAX_LENGTH = 100
export const TAG_ID_PATTERN = '^[a-z0-9-]+$'
export const TAG_SEARCH_MAX_LENGTH = 100
/** How many tags the stats' `topTags` lists. */
export const TOP_TAGS = 10

const EXAMPLE = {
  id: 'open-source',
  name: 'Open source',
  itemCount: 3,
  createdAt: '2026-01-15T09:30:00.000Z',
  updatedAt: '2026-02-02T16:05:00.000Z',
}

const TagName = Type.String({
  minLength: TAG_NAME_MIN_LENGTH,
  maxLength: TAG_NAME_MAX_LENGTH,
  pattern: '\\S',
  description: `${TAG_NAME_MIN_LENGTH} to ${TAG_NAME_MAX_LENGTH} characters once trimmed; unique whatever the case; stored as text`,
  examples: [EXAMPLE.name],
})

const TagId = Type.String({ pattern: TAG_ID_PATTERN, examples: [EXAMPLE.id] })
const ItemCount = Type.Integer({
  minimum: 0,
  description: 'how many items carry the tag, whatever their status',
  examples: [EXAMPLE.itemCount],
})

export const Tag = Type.Object(
  {
    id: TagId,
    name: Type.String({ examples: [EXAMPLE.name] }),
    itemCount: ItemCount,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A tag', examples: [EXAMPLE] },
)
export type Tag = Static<typeof Tag>

export const TagIdParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: TAG_ID_MAX_LENGTH,
    description: 'the tag’s id (a slug)',
    examples: [EXAMPLE.id],
  }),
})

export const TAG_SORT_FIELDS = ['name', 'createdAt', 'itemCount'] as const

export const TagListQuery = Query({
  ...PageQueryFields,
  search: Type.Optional(
    Type.String({
      maxLength: TAG_SEARCH_MAX_LENGTH,
      description: 'case-insensitive substring of the name or id',
      examples: ['source'],
    }),
  ),
  sortBy: Type.Enum(TAG_SORT_FIELDS, {
    default: 'name',
    description: '`itemCount` with `sortOrder=desc` puts the most used first',
  }),
  sortOrder: Type.Enum(['asc', 'desc'], { default: 'asc' }),
})
export type TagListQuery = Static<typeof TagListQuery>

export const CreateTagBody = Type.Object(
  {
    name: TagName,
    id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: TAG_ID_MAX_LENGTH,
        pattern: TAG_ID_PATTERN,
        description: 'a slug; the slug of the name when omitted',
        examples: [EXAMPLE.id],
      }),
    ),
  },
  { examples: [{ name: EXAMPLE.name }, { name: 'C++', id: 'cpp' }] },
)
export type CreateTagBody = Static<typeof CreateTagBody>

export const UpdateTagBody = Type.Object({ name: TagName }, { examples: [{ name: 'Open Source' }] })
export type UpdateTagBody = Static<typeof UpdateTagBody>

export const TagListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(Tag), meta: Type.Object(PageMetaFields) },
  {
    description: 'A page of tags',
    examples: [{ success: true, data: [EXAMPLE], meta: { page: 1, limit: 10, total: 1, totalPages: 1 } }],
  },
)

export const TagAnswer = Type.Object(
  { success: Type.Literal(true), data: Tag },
  { description: 'The tag', examples: [{ success: true, data: EXAMPLE }] },
)

export const TagCreatedAnswer = Type.Object(
  { success: Type.Literal(true), data: Tag },
  {
    description: 'The created tag',
    examples: [{ success: true, data: { ...EXAMPLE, itemCount: 0, updatedAt: EXAMPLE.createdAt } }],
  },
)

export const TagUpdatedAnswer = Type.Object(
  { success: Type.Literal(true), data: Tag },
  {
    description: 'The renamed tag',
    examples: [{ success: true, data: { ...EXAMPLE, name: 'Open Source' } }],
  },
)

export const TagDeleted = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['Tag deleted'] }) },
  { description: 'The tag is gone', examples: [{ success: true, message: 'Tag deleted' }] },
)

export const TagOption = Type.Object({ id: TagId, name: Type.String({ examples: [EXAMPLE.name] }) })
export type TagOption = Static<typeof TagOption>

export const AllTagsAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(TagOption) },
  {
    description: 'Every tag by name',
    examples: [
      {
        success: true,
        data: [
          { id: 'cpp', name: 'C++' },
          { id: EXAMPLE.id, name: EXAMPLE.name },
        ],
      },
    ],
  },
)

const TagUsage = Type.Object({
  id: TagId,
  name: Type.String({ examples: [EXAMPLE.name] }),
  itemCount: ItemCount,
})

export const TagStats = Type.Object({
  total: Type.Integer({ minimum: 0, examples: [42] }),
  used: Type.Integer({ minimum: 0, description: 'tags carried by at least one item', examples: [30] }),
  unused: Type.Integer({ minimum: 0, description: 'tags no item carries', examples: [12] }),
  topTags: Type.Array(TagUsage, {
    maxItems: TOP_TAGS,
    description: `the ${TOP_TAGS} used most, most first (then by name); unused tags are not listed`,
  }),
})
export type TagStats = Static<typeof TagStats>

export const TagStatsAnswer = Type.Object(
  { success: Type.Literal(true), data: TagStats },
  {
    description: 'Tag statistics',
    examples: [
      {
        success: true,
        data: {
          total: 42,
          used: 30,
          unused: 12,
          topTags: [
            { id: 'open-source', name: 'Open source', itemCount: 17 },
            { id: 'cpp', name: 'C++', itemCount: 9 },
          ],
        },
      },
    ],
  },
)
