import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Clearable } from '../content.ts'
import { adminCommentRoutes, siteCommentRoutes } from './routes.ts'
import { type CommentModeration, createCommentService } from './service.ts'

/**
 * Comments: signed-in users comment on published items, the site shows the approved ones, admins
 * moderate. `moderation` is the site's choice for new comments, asked for each one (the settings module
 * supplies it); without it every comment waits for an admin.
 */
export function commentsModule(deps: {
  db: Db
  clock: Clock
  rateLimit: RateLimit
  moderation?: () => CommentModeration | Promise<CommentModeration>
  /** Whether the site takes comments now (the settings); open without it. */
  commentsOpen?: () => Promise<boolean>
  /** Caches a comment write makes stale on this instance (the dashboard's figures). */
  caches?: Clearable[]
}) {
  const { db, clock, rateLimit } = deps
  const comments = createCommentService({
    db,
    clock,
    moderation: deps.moderation ?? (() => 'pre'),
    caches: deps.caches ?? [],
  })
  const module: Module = {
    name: 'comments',
    routes: (app) => {
      siteCommentRoutes(app, { comments, rateLimit, commentsOpen: deps.commentsOpen ?? (async () => true) })
      adminCommentRoutes(app, { comments })
    },
  }
  return { comments, module }
}
