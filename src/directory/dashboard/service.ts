import { isNull } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { createInvalidatedCache, type InvalidatedCache } from '../../db/invalidated-cache.ts'
import { countRows } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import type { ClientService } from '../clients/service.ts'
import type { CommentService } from '../comments/service.ts'
import { COMMENTS_CONTENT, CONTENT_CHANGED_CHANNEL, ITEMS_CONTENT, NOTICES_CONTENT } from '../content.ts'
import type { ItemService } from '../items/service.ts'
import { adminNotifications } from '../notifications/tables.ts'

const ITEMS = 'items'
const COMMENTS = 'comments'
const UNREAD = 'unread'

type Figures =
  | Awaited<ReturnType<ItemService['stats']>>
  | Awaited<ReturnType<CommentService['stats']>>
  | number

/**
 * The dashboard's figures, each instance's own: item counts until an item write, comment counts until a
 * comment write, the unread count until a notification is raised or read, each write notifying
 * `CONTENT_CHANGED_CHANNEL` in its transaction. A figure is counted once per change, not once per call.
 */
export function createDashboardCache(clock: Pick<Clock, 'nowMs'>): InvalidatedCache<Figures> {
  const keys: Record<string, string> = {
    [ITEMS_CONTENT]: ITEMS,
    [COMMENTS_CONTENT]: COMMENTS,
    [NOTICES_CONTENT]: UNREAD,
  }
  return createInvalidatedCache<Figures>({
    name: 'dashboard',
    channel: CONTENT_CHANGED_CHANNEL,
    invalidates: (payload) => (keys[payload] ? { key: keys[payload] } : 'none'),
    clock,
  })
}

/**
 * What a write clears of the figures on the instance that made it (the others hear its notification):
 * only the figures it changes, so an item write never makes the comments be counted again. Item and
 * comment writes may raise a notice, so they clear the unread count too.
 */
export function figureClears(cache: InvalidatedCache<Figures>) {
  return {
    items: {
      clear: () => {
        cache.delete(ITEMS)
        cache.delete(UNREAD)
      },
    },
    comments: {
      clear: () => {
        cache.delete(COMMENTS)
        cache.delete(UNREAD)
      },
    },
    notices: { clear: () => cache.delete(UNREAD) },
  }
}

/** What an admin opens the console for, from figures each kept until what they count changes. */
export function createDashboardService(deps: {
  db: Db
  cache: InvalidatedCache<Figures>
  items: Pick<ItemService, 'stats'>
  comments: Pick<CommentService, 'stats'>
  clients: Pick<ClientService, 'stats'>
}) {
  const { db, cache } = deps
  return {
    async stats() {
      const [items, comments, unread, clients] = await Promise.all([
        cache.get(ITEMS, () => deps.items.stats()) as ReturnType<ItemService['stats']>,
        cache.get(COMMENTS, () => deps.comments.stats()) as ReturnType<CommentService['stats']>,
        cache.get(UNREAD, () =>
          countRows(db, adminNotifications, isNull(adminNotifications.readAt)),
        ) as Promise<number>,
        // The clients' statistics have their own cache, cleared by every change of a client profile.
        deps.clients.stats(),
      ])
      return {
        items,
        pendingReviews: items.pending,
        comments: { total: comments.total, awaitingModeration: comments.pending },
        clients: {
          total: clients.overview.totalClients,
          active: clients.overview.activeClients,
          newToday: clients.growth.newClientsToday,
          newThisWeek: clients.growth.newClientsThisWeek,
        },
        notifications: { unread },
      }
    },
  }
}

export type DashboardService = ReturnType<typeof createDashboardService>
