import type { App } from '../../http/app.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { invalidField } from '../../http/schemas.ts'
import { forbidden } from '../../lib/errors.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors, metaOf } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'
import {
  AdminCommentQuery,
  COMMENT_LIMITS,
  CommentAnswer,
  CommentDeleted,
  CommentListAnswer,
  CommentParams,
  CommentStatsAnswer,
  CreateCommentBody,
  ItemSlugParams,
  ModerateCommentBody,
  PostedCommentAnswer,
  PublicCommentListAnswer,
  PublicCommentQuery,
} from './schemas.ts'
import type { CommentService } from './service.ts'

const tags = ['comments']
const BASE = '/api/admin/comments'
/** A write carrying the session cookie from another origin is refused too. */
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
const notFound = [404, 'COMMENT_NOT_FOUND'] as const

/** The site's comment routes: posting one, and reading an item's approved comments. */
export function siteCommentRoutes(
  app: App,
  {
    comments,
    rateLimit,
    commentsOpen,
  }: {
    comments: CommentService
    rateLimit: RateLimit
    /** Whether the site's settings take comments now. */
    commentsOpen: () => Promise<boolean>
  },
) {
  app.post(
    '/api/comments',
    {
      config: { access: 'session' },
      preHandler: rateLimit('POST /api/comments', RATE_LIMITS.comments),
      schema: {
        tags,
        summary: 'Comment on an item',
        description:
          'A signed-in user comments on a published item, named by `itemId` or `itemSlug` (one of them; 404 ' +
          '`ITEM_NOT_FOUND` for an unknown or unpublished item). The body is ' +
          `${COMMENT_LIMITS.bodyMin} to ${COMMENT_LIMITS.bodyMax} characters once trimmed and is kept as ` +
          'plain text (markup stays text). Under the settings’ pre-moderation (the default) it starts `pending` ' +
          'and the admins get a notification, and it shows on the site once approved; under post-moderation it ' +
          'shows at once. 403 `COMMENTS_CLOSED` while the settings turn comments off. ' +
          `${describeRule(RATE_LIMITS.comments)}.`,
        body: CreateCommentBody,
        response: {
          201: PostedCommentAnswer,
          ...errors(
            [
              400,
              invalidField('body.body', `must be 1 to ${COMMENT_LIMITS.bodyMax} characters once trimmed`),
            ],
            401,
            [403, 'COMMENTS_CLOSED', 'CROSS_ORIGIN'],
            [404, 'ITEM_NOT_FOUND'],
            413,
            415,
            429,
          ),
        },
      },
    },
    async (req, reply) => {
      const { user } = viewerOf(req)
      if (!(await commentsOpen()))
        throw forbidden('This site does not take comments at the moment', 'COMMENTS_CLOSED')
      return reply.code(201).send({ success: true as const, data: await comments.post(req.body, user) })
    },
  )

  app.get(
    '/api/items/:slug/comments',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'An item’s comments',
        description:
          'A page of the approved comments of the published item with this slug, oldest first, each with ' +
          'its author’s id and name (never their email); 404 for an unknown slug and for an item not ' +
          `published. \`limit\` 1 to 100 (default ${COMMENT_LIMITS.publicDefaultLimit}).`,
        params: ItemSlugParams,
        querystring: PublicCommentQuery,
        response: {
          200: PublicCommentListAnswer,
          ...errors([400, invalidField('query.limit', 'must be at most 100')], [404, 'ITEM_NOT_FOUND']),
        },
      },
    },
    async (req) => {
      const { items: data, meta } = await comments.publicList(req.params.slug, req.query)
      return { success: true as const, data, meta: metaOf(meta) }
    },
  )
}

/** The admin's moderation routes: every one needs an admin session (401 without one, 403 for a non-admin). */
export function adminCommentRoutes(app: App, { comments }: { comments: CommentService }) {
  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List comments',
        description:
          'A page of comments in any status, newest first, each with its item and author. `status` and ' +
          '`itemId` filter; `search` finds text in the body or the author’s name or email, whatever its case.',
        querystring: AdminCommentQuery,
        response: {
          200: CommentListAnswer,
          ...errors(
            [400, invalidField('query.status', 'must be one of pending, approved, rejected')],
            401,
            403,
          ),
        },
      },
    },
    async (req) => {
      const { items: data, meta } = await comments.list(req.query)
      return { success: true as const, data, meta: metaOf(meta) }
    },
  )

  // Before `/:id`, which would otherwise take `stats` for an id.
  app.get(
    `${BASE}/stats`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Comment statistics',
        description: 'How many comments there are, and in each status.',
        response: { 200: CommentStatsAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await comments.stats() }),
  )

  app.get(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a comment',
        description: 'The comment in any status, with its item, its author’s email and its moderation.',
        params: CommentParams,
        response: { 200: CommentAnswer, ...errors(401, 403, notFound) },
      },
    },
    async (req) => ({ success: true as const, data: await comments.get(req.params.id) }),
  )

  app.put(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Approve or reject a comment',
        description:
          '`approved` shows the comment on the site, `rejected` hides it; either may follow the other. The ' +
          '`note` and the moderating admin are kept on the comment. Setting the status it already has is ' +
          '409; two admins moderating at once are served one after the other.',
        params: CommentParams,
        body: ModerateCommentBody,
        response: {
          200: CommentAnswer,
          ...errors(
            [400, invalidField('body.status', 'must be one of approved, rejected')],
            401,
            WRITE_403,
            notFound,
            [409, 'COMMENT_ALREADY_APPROVED', 'COMMENT_ALREADY_REJECTED'],
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await comments.moderate(req.params.id, req.body.status, req.body.note, {
        id: viewerOf(req).user.id,
      }),
    }),
  )

  app.delete(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a comment',
        description: 'Deletes the comment for good, whatever its status.',
        params: CommentParams,
        response: { 200: CommentDeleted, ...errors(401, WRITE_403, notFound) },
      },
    },
    async (req) => {
      await comments.remove(req.params.id)
      return { success: true as const, message: 'Comment deleted' }
    },
  )
}
