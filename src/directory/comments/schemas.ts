import { type Static, type TSchema, Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { COMMENT_STATUSES } from './tables.ts'

/** A comment's body once trimmed, a moderation note, a search term, an item slug: each bounded. */
export const COMMENT_LIMITS = {
  bodyMin: 1,
  bodyMax: 2000,
  noteMax: 1000,
  searchMax: 100,
  slugMax: 200,
  /** The public list: `limit` 1 to 100, default 20, as the public item list. */
  publicDefaultLimit: 20,
} as const

const EXAMPLE_ID = '8c2e4a6b-0d1f-4b3d-9e5a-7c9e1b3d5f70'
const EXAMPLE_ITEM = {
  id: '3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60',
  slug: 'blue-bottle-coffee',
  name: 'Blue Bottle Coffee',
}
const EXAMPLE_AUTHOR = { id: '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d', name: 'Ada Lovelace' }
const EXAMPLE_BODY = 'The cortado is the best in Oakland. <b>Go early</b> on weekends.'

const EXAMPLE_PUBLIC = {
  id: EXAMPLE_ID,
  body: EXAMPLE_BODY,
  author: EXAMPLE_AUTHOR,
  createdAt: '2026-11-21T08:15:00.000Z',
}

const EXAMPLE_COMMENT = {
  id: EXAMPLE_ID,
  body: EXAMPLE_BODY,
  status: 'approved',
  item: EXAMPLE_ITEM,
  author: { ...EXAMPLE_AUTHOR, email: 'ada@example.com' },
  moderationNote: null,
  moderatedBy: '1c3e5a7b-9d0f-4b2d-8e6a-0c2e4a6b8d0f',
  moderatedAt: '2026-11-21T09:00:00.000Z',
  createdAt: '2026-11-21T08:15:00.000Z',
  updatedAt: '2026-11-21T09:00:00.000Z',
}

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const Status = Type.Enum([...COMMENT_STATUSES], { examples: ['pending'] })
const AuthorName = Nullable(
  Type.String({
    description: 'their display name; null when they gave none',
    examples: [EXAMPLE_AUTHOR.name],
  }),
)

/** A comment as the public site shows it: approved ones only, and never the author's email. */
export const PublicComment = Type.Object({
  id: Type.String({ examples: [EXAMPLE_ID] }),
  body: Type.String({ description: 'plain text; markup is text', examples: [EXAMPLE_BODY] }),
  author: Type.Object({ id: Type.String({ examples: [EXAMPLE_AUTHOR.id] }), name: AuthorName }),
  createdAt: Timestamp,
})
export type PublicComment = Static<typeof PublicComment>

/** A comment as admins see it: any status, its item, its author with their email, and its moderation. */
export const Comment = Type.Object({
  id: Type.String({ examples: [EXAMPLE_ID] }),
  body: Type.String({ description: 'plain text; markup is text', examples: [EXAMPLE_BODY] }),
  status: Status,
  item: Type.Object({
    id: Type.String({ examples: [EXAMPLE_ITEM.id] }),
    slug: Type.String({ examples: [EXAMPLE_ITEM.slug] }),
    name: Type.String({ examples: [EXAMPLE_ITEM.name] }),
  }),
  author: Type.Object({
    id: Type.String({ examples: [EXAMPLE_AUTHOR.id] }),
    name: AuthorName,
    email: Type.String({ examples: ['ada@example.com'] }),
  }),
  moderationNote: Nullable(Type.String({ examples: ['Off topic.'] })),
  moderatedBy: Nullable(Type.String({ description: 'the moderating admin’s user id' })),
  moderatedAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type Comment = Static<typeof Comment>

/** A comment as its author gets it back when posting. */
export const PostedComment = Type.Object({
  id: Type.String({ examples: [EXAMPLE_ID] }),
  itemId: Type.String({ examples: [EXAMPLE_ITEM.id] }),
  body: Type.String({ examples: [EXAMPLE_BODY] }),
  status: Type.Enum([...COMMENT_STATUSES], {
    description:
      '`pending` until an admin approves it (`approved` at once when the site moderates afterwards)',
    examples: ['pending'],
  }),
  author: Type.Object({ id: Type.String({ examples: [EXAMPLE_AUTHOR.id] }), name: AuthorName }),
  createdAt: Timestamp,
})
export type PostedComment = Static<typeof PostedComment>

export const CreateCommentBody = Type.Object(
  {
    itemId: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'the item’s id; or send `itemSlug`',
        examples: [EXAMPLE_ITEM.id],
      }),
    ),
    itemSlug: Type.Optional(
      Type.String({
        maxLength: COMMENT_LIMITS.slugMax,
        description: 'the item’s slug; or send `itemId`',
        examples: [EXAMPLE_ITEM.slug],
      }),
    ),
    body: Type.String({
      minLength: COMMENT_LIMITS.bodyMin,
      maxLength: COMMENT_LIMITS.bodyMax,
      description: `${COMMENT_LIMITS.bodyMin} to ${COMMENT_LIMITS.bodyMax} characters once trimmed; plain text, markup is kept as text`,
      examples: [EXAMPLE_BODY],
    }),
  },
  {
    description: 'One of `itemId` and `itemSlug` names the item',
    examples: [
      { itemSlug: EXAMPLE_ITEM.slug, body: EXAMPLE_BODY },
      { itemId: EXAMPLE_ITEM.id, body: 'Great beans.' },
    ],
  },
)
export type CreateCommentBody = Static<typeof CreateCommentBody>

export const ModerateCommentBody = Type.Object(
  {
    status: Type.Enum(['approved', 'rejected'], {
      description: '`approved` shows it on the site, `rejected` hides it',
    }),
    note: Type.Optional(
      Type.String({ maxLength: COMMENT_LIMITS.noteMax, description: 'why; kept on the comment for admins' }),
    ),
  },
  { examples: [{ status: 'approved' }, { status: 'rejected', note: 'Advertising.' }] },
)
export type ModerateCommentBody = Static<typeof ModerateCommentBody>

export const CommentParams = Type.Object({
  id: Type.String({ description: 'the comment’s id (a UUID)', examples: [EXAMPLE_ID] }),
})

export const ItemSlugParams = Type.Object({
  slug: Type.String({
    maxLength: COMMENT_LIMITS.slugMax,
    description: 'the item’s slug',
    examples: [EXAMPLE_ITEM.slug],
  }),
})

export const AdminCommentQuery = Query({
  ...PageQueryFields,
  status: Type.Optional(Status),
  itemId: Type.Optional(Type.String({ format: 'uuid', description: 'an item id' })),
  search: Type.Optional(
    Type.String({
      maxLength: COMMENT_LIMITS.searchMax,
      description: 'text in the body, or in the author’s name or email, whatever its case',
      examples: ['cortado'],
    }),
  ),
})
export type AdminCommentQuery = Static<typeof AdminCommentQuery>

export const PublicCommentQuery = Query({
  page: PageQueryFields.page,
  limit: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: COMMENT_LIMITS.publicDefaultLimit,
    examples: [COMMENT_LIMITS.publicDefaultLimit],
  }),
})
export type PublicCommentQuery = Static<typeof PublicCommentQuery>

const Meta = Type.Object(PageMetaFields)

export const PublicCommentListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(PublicComment), meta: Meta },
  {
    description: 'A page of the item’s approved comments, oldest first',
    examples: [
      { success: true, data: [EXAMPLE_PUBLIC], meta: { page: 1, limit: 20, total: 1, totalPages: 1 } },
    ],
  },
)

export const CommentListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(Comment), meta: Meta },
  {
    description: 'A page of comments, newest first',
    examples: [
      { success: true, data: [EXAMPLE_COMMENT], meta: { page: 1, limit: 10, total: 1, totalPages: 1 } },
    ],
  },
)

export const CommentAnswer = Type.Object(
  { success: Type.Literal(true), data: Comment },
  { description: 'The comment', examples: [{ success: true, data: EXAMPLE_COMMENT }] },
)

export const PostedCommentAnswer = Type.Object(
  { success: Type.Literal(true), data: PostedComment },
  {
    description: 'Posted: it waits for moderation',
    examples: [
      {
        success: true,
        data: {
          id: EXAMPLE_ID,
          itemId: EXAMPLE_ITEM.id,
          body: EXAMPLE_BODY,
          status: 'pending',
          author: EXAMPLE_AUTHOR,
          createdAt: EXAMPLE_PUBLIC.createdAt,
        },
      },
    ],
  },
)

export const CommentDeleted = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['Comment deleted'] }) },
  { description: 'The comment is gone', examples: [{ success: true, message: 'Comment deleted' }] },
)

export const CommentStatsAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      total: Type.Integer(),
      pending: Type.Integer(),
      approved: Type.Integer(),
      rejected: Type.Integer(),
    }),
  },
  {
    description: 'How many comments there are, and in each status',
    examples: [{ success: true, data: { total: 1250, pending: 14, approved: 1201, rejected: 35 } }],
  },
)
