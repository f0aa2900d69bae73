import { and, asc, count, desc, eq, type SQL } from 'drizzle-orm'
import { anyContaining } from '../../db/filters.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import { clip } from '../../lib/values.ts'
import { users } from '../accounts/tables.ts'
import { type Clearable, COMMENTS_CONTENT, checkedName, contentWriter } from '../content.ts'
import { itemNotFound } from '../items/read.ts'
import { items } from '../items/tables.ts'
import { notifyAdmins } from '../notifications/service.ts'
import {
  type AdminCommentQuery,
  COMMENT_LIMITS,
  type Comment,
  type CreateCommentBody,
  type PostedComment,
  type PublicComment,
  type PublicCommentQuery,
} from './schemas.ts'
import { type CommentStatus, commentCounts, comments } from './tables.ts'

/**
 * How the site moderates: `pre` holds a new comment `pending` until an admin approves it; `post` shows it
 * at once (`approved`), and admins remove what they must afterwards.
 */
export type CommentModeration = 'pre' | 'post'

export interface CommentServiceDeps {
  db: Db
  clock: Clock
  /** Asked for each new comment, so a change of the site's settings applies to the next one. */
  moderation: () => CommentModeration | Promise<CommentModeration>
  /** Caches a comment write makes stale on this instance (the others hear the notification). */
  caches?: Clearable[]
}

export interface CommentAuthor {
  id: string
  name: string | null
  email: string
}

export interface Actor {
  id: string
}

const commentNotFound = () => notFound('Comment not found', 'COMMENT_NOT_FOUND')
const published = eq(items.status, 'published')

/** The status a new comment starts in: the one place the site's moderation decides it. */
const initialStatus = (moderation: CommentModeration): CommentStatus =>
  moderation === 'post' ? 'approved' : 'pending'

const adminColumns = {
  row: comments,
  itemSlug: items.slug,
  itemName: items.name,
  authorName: users.name,
  authorEmail: users.email,
}

/** `select … from comments` as admins see them: add `where`, order and limits, then `adminCommentOf`. */
const selectAdminComments = (db: DbOrTx) =>
  db
    .select(adminColumns)
    .from(comments)
    .innerJoin(items, eq(items.id, comments.itemId))
    .innerJoin(users, eq(users.id, comments.authorId))

type AdminRow = {
  row: typeof comments.$inferSelect
  itemSlug: string
  itemName: string
  authorName: string | null
  authorEmail: string
}

const adminCommentOf = ({ row, itemSlug, itemName, authorName, authorEmail }: AdminRow): Comment => ({
  id: row.id,
  body: row.body,
  status: row.status,
  item: { id: row.itemId, slug: itemSlug, name: itemName },
  author: { id: row.authorId, name: authorName, email: authorEmail },
  moderationNote: row.moderationNote,
  moderatedBy: row.moderatedBy,
  moderatedAt: row.moderatedAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

/** Which item a new comment names: exactly one of `itemId` and `itemSlug`. */
function itemOf(body: CreateCommentBody): SQL {
  if (body.itemId !== undefined && body.itemSlug !== undefined) {
    throw invalidInput('itemSlug', 'must not be sent with itemId: name the item one way')
  }
  if (body.itemId !== undefined) {
    if (!isUuid(body.itemId)) throw itemNotFound()
    return eq(items.id, body.itemId)
  }
  if (body.itemSlug !== undefined) return eq(items.slug, body.itemSlug)
  throw invalidInput('itemId', 'or itemSlug is required: name the item the comment is about')
}

/** Comments: posted by signed-in users on published items, read by the site, moderated by admins. */
export function createCommentService({ db, clock, moderation, caches = [] }: CommentServiceDeps) {
  const write = contentWriter(db, COMMENTS_CONTENT, caches)

  async function read(id: string, executor: DbOrTx = db): Promise<Comment> {
    if (!isUuid(id)) throw commentNotFound()
    const [row] = await selectAdminComments(executor).where(eq(comments.id, id))
    if (!row) throw commentNotFound()
    return adminCommentOf(row)
  }

  function listWhere(query: AdminCommentQuery): SQL | undefined {
    return and(
      query.status === undefined ? undefined : eq(comments.status, query.status),
      query.itemId === undefined ? undefined : eq(comments.itemId, query.itemId),
      query.search === undefined
        ? undefined
        : anyContaining([comments.body, users.name, users.email], query.search),
    )
  }

  return {
    /**
     * A signed-in user's comment on a published item (404 otherwise): `pending` under pre-moderation, with
     * a notification for the admins in the same transaction.
     */
    async post(body: CreateCommentBody, author: CommentAuthor): Promise<PostedComment> {
      const text = checkedName(
        body.body,
        { min: COMMENT_LIMITS.bodyMin, max: COMMENT_LIMITS.bodyMax },
        'body',
      )
      const which = itemOf(body)
      const status = initialStatus(await moderation())
      return write(async (tx) => {
        // Held against deletion until the comment is in: it never points at an item deleted meanwhile.
        const [item] = await tx
          .select({ id: items.id, slug: items.slug, name: items.name })
          .from(items)
          .where(and(which, published))
          .for('key share')
        if (!item) throw itemNotFound()
        const now = clock.now()
        const [row] = await tx
          .insert(comments)
          .values({
            itemId: item.id,
            authorId: author.id,
            body: text,
            status,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
        if (!row) throw new Error('comment insert returned no row')
        if (status === 'pending') {
          await notifyAdmins(tx, now, {
            type: 'comment_pending',
            title: clip(`New comment on ${item.name}`, 200),
            message: `${author.name ?? author.email} commented on "${item.name}": ${clip(text, 280)}`,
            data: { commentId: row.id, itemId: item.id, itemSlug: item.slug, authorId: author.id },
          })
        }
        return {
          id: row.id,
          itemId: row.itemId,
          body: row.body,
          status: row.status,
          author: { id: author.id, name: author.name },
          createdAt: row.createdAt,
        }
      })
    },

    /** The approved comments of the published item `slug`, oldest first; 404 for any other slug. */
    async publicList(slug: string, query: PublicCommentQuery): Promise<PageOf<PublicComment>> {
      const [item] = await db
        .select({ id: items.id })
        .from(items)
        .where(and(eq(items.slug, slug), published))
      if (!item) throw itemNotFound()
      const where = and(eq(comments.itemId, item.id), eq(comments.status, 'approved'))
      return fetchPage(query, {
        rows: async (limit, offset) => {
          const rows = await db
            .select({
              id: comments.id,
              body: comments.body,
              authorId: comments.authorId,
              authorName: users.name,
              createdAt: comments.createdAt,
            })
            .from(comments)
            .innerJoin(users, eq(users.id, comments.authorId))
            .where(where)
            .orderBy(asc(comments.createdAt), asc(comments.id))
            .limit(limit)
            .offset(offset)
          return rows.map(({ authorId, authorName, ...comment }) => ({
            ...comment,
            author: { id: authorId, name: authorName },
          }))
        },
        total: async () => {
          const [row] = await db.select({ total: count() }).from(comments).where(where)
          return row?.total ?? 0
        },
      })
    },

    async list(query: AdminCommentQuery): Promise<PageOf<Comment>> {
      const where = listWhere(query)
      return fetchPage(query, {
        rows: async (limit, offset) => {
          const rows = await selectAdminComments(db)
            .where(where)
            .orderBy(desc(comments.createdAt), desc(comments.id))
            .limit(limit)
            .offset(offset)
          return rows.map(adminCommentOf)
        },
        total: async () => {
          // The author is joined only when the search reads their name or email.
          const counted = db.select({ total: count() }).from(comments)
          const [row] = await (query.search === undefined
            ? counted.where(where)
            : counted.innerJoin(users, eq(users.id, comments.authorId)).where(where))
          return row?.total ?? 0
        },
      })
    },

    get: (id: string) => read(id),

    /**
     * Approves or rejects a comment, keeping the note and the moderating admin; 409 when it already has the
     * status asked. The row is locked, so two admins acting at once are served one after the other.
     */
    async moderate(
      id: string,
      status: Exclude<CommentStatus, 'pending'>,
      note: string | undefined,
      actor: Actor,
    ): Promise<Comment> {
      if (!isUuid(id)) throw commentNotFound()
      return write(async (tx) => {
        const [row] = await tx
          .select({ status: comments.status })
          .from(comments)
          .where(eq(comments.id, id))
          .for('update')
        if (!row) throw commentNotFound()
        if (row.status === status) {
          throw conflict(
            `The comment is already ${status}`,
            status === 'approved' ? 'COMMENT_ALREADY_APPROVED' : 'COMMENT_ALREADY_REJECTED',
          )
        }
        const now = clock.now()
        await tx
          .update(comments)
          .set({
            status,
            moderationNote: note?.trim() || null,
            moderatedBy: actor.id,
            moderatedAt: now,
            updatedAt: now,
          })
          .where(eq(comments.id, id))
        return read(id, tx)
      })
    },

    async remove(id: string): Promise<void> {
      if (!isUuid(id)) throw commentNotFound()
      await write(async (tx) => {
        const deleted = await tx.delete(comments).where(eq(comments.id, id)).returning({ id: comments.id })
        if (deleted.length === 0) throw commentNotFound()
      })
    },

    /**
     * Deletes a comment inside another module's write (a report's moderation), naming comments among what
     * `touched` tells every instance changed.
     */
    async removeWithin(tx: DbOrTx, touched: Set<string>, id: string): Promise<void> {
      await tx.delete(comments).where(eq(comments.id, id))
      touched.add(COMMENTS_CONTENT)
    },

    /** Read from the counts the triggers keep (see `commentCounts`), not by counting the comments. */
    async stats() {
      const rows = await db.select().from(commentCounts)
      const of = (status: CommentStatus) => rows.find((row) => row.status === status)?.count ?? 0
      const [pending, approved, rejected] = [of('pending'), of('approved'), of('rejected')]
      return { total: pending + approved + rejected, pending, approved, rejected }
    },
  }
}

export type CommentService = ReturnType<typeof createCommentService>
