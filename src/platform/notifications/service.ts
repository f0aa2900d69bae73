import { and, count, desc, eq, gt, isNull, lt, lte, or, type SQL, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, DbOrTx } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { badRequest, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { DAY_MS } from '../../lib/time.ts'
import * as alerts from './alerts.ts'
import { NOTIFICATION_LIST_DEFAULT_LIMIT, NOTIFICATION_LIST_MAX_LIMIT } from './schemas.ts'
import { type NotificationCategory, type NotificationType, notifications } from './tables.ts'

export {
  NOTIFICATION_CATEGORIES,
  NOTIFICATION_TYPES,
  type NotificationCategory,
  type NotificationType,
} from './tables.ts'

/** SPEC.md "Limits", notification retention: expired at once, dismissed after 7 days, all after 30. */
export const DISMISSED_RETENTION_MS = 7 * DAY_MS
export const NOTIFICATION_RETENTION_MS = 30 * DAY_MS

/** A notification to raise: what it says, and whose it is. */
export interface NewNotification extends alerts.Alert {
  userId: string
}

/** A notification as the API shows it (CONTRACT.md). */
export interface Notification {
  id: string
  type: NotificationType
  category: NotificationCategory
  title: string
  message: string
  actionUrl: string | null
  actionLabel: string | null
  isPersistent: boolean
  isRead: boolean
  isDismissed: boolean
  deduplicationKey: string | null
  expiresAt: Date | null
  createdAt: Date
}

export interface NotificationListFilters {
  unreadOnly?: boolean | undefined
  limit?: number | undefined
  offset?: number | undefined
  category?: NotificationCategory | undefined
}

/** What the daily cleanup removed, by SPEC.md's three rules. */
export interface CleanupCounts {
  expired: number
  dismissed: number
  old: number
}

export interface NotificationServiceDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'error'>
}

const COLUMNS = {
  id: notifications.id,
  type: notifications.type,
  category: notifications.category,
  title: notifications.title,
  message: notifications.message,
  actionUrl: notifications.actionUrl,
  actionLabel: notifications.actionLabel,
  isPersistent: notifications.isPersistent,
  isRead: notifications.isRead,
  isDismissed: notifications.isDismissed,
  deduplicationKey: notifications.deduplicationKey,
  expiresAt: notifications.expiresAt,
  createdAt: notifications.createdAt,
}

const NEWEST_FIRST = [desc(notifications.createdAt), desc(notifications.id)]

/** The predicate of the partial unique index `notifications_user_dedup_unique`, for ON CONFLICT. */
const HOLDS_ITS_KEY = sql`${notifications.deduplicationKey} is not null and not ${notifications.isDismissed}`

const notificationNotFound = () => notFound('Notification not found', 'NOTIFICATION_NOT_FOUND')

export function createNotificationService({ db, clock, log }: NotificationServiceDeps) {
  /** Shown to the user: theirs, not dismissed, not past its expiry. */
  const visible = (userId: string, now: Date): SQL =>
    and(
      eq(notifications.userId, userId),
      eq(notifications.isDismissed, false),
      or(isNull(notifications.expiresAt), gt(notifications.expiresAt, now)),
    )!

  /** One of the user's notifications, by id; anyone else's (or a malformed id) is 404. */
  async function owned(userId: string, id: string) {
    if (!isUuid(id)) throw notificationNotFound()
    const [row] = await db
      .select({ isPersistent: notifications.isPersistent })
      .from(notifications)
      .where(and(eq(notifications.id, id), eq(notifications.userId, userId)))
    if (!row) throw notificationNotFound()
    return row
  }

  /**
   * Creates a notification; null when one with the same `deduplicationKey` is already live for the user
   * (not dismissed and not expired). The partial unique index decides, so of two creates racing with one
   * key exactly one row is made, and the loser answers null without an error. The write runs in a
   * savepoint of `executor`'s transaction: a failure undoes only it, so a caller that catches carries on.
   */
  async function create(input: NewNotification, executor: DbOrTx = db): Promise<Notification | null> {
    const now = clock.now()
    const key = input.deduplicationKey ?? null
    return executor.transaction(async (tx) => {
      if (key !== null) {
        // An expired notification is gone for the user, and the cleanup would remove it: it must not
        // hold its key against a new occurrence of the same issue.
        await tx
          .delete(notifications)
          .where(
            and(
              eq(notifications.userId, input.userId),
              eq(notifications.deduplicationKey, key),
              eq(notifications.isDismissed, false),
              lte(notifications.expiresAt, now),
            ),
          )
      }
      const [row] = await tx
        .insert(notifications)
        .values({
          userId: input.userId,
          type: input.type,
          category: input.category,
          title: input.title,
          message: input.message,
          actionUrl: input.actionUrl ?? null,
          actionLabel: input.actionLabel ?? null,
          isPersistent: input.isPersistent ?? false,
          deduplicationKey: key,
          expiresAt: input.expiresAt ?? null,
          createdAt: now,
        })
        .onConflictDoNothing({
          target: [notifications.userId, notifications.deduplicationKey],
          where: HOLDS_ITS_KEY,
        })
        .returning(COLUMNS)
      return row ?? null
    })
  }

  /**
   * A helper's notification: like `create`, but a failure is logged and answers null, because telling
   * the user about a problem must never break the work that ran into it.
   */
  async function notify(input: NewNotification, executor?: DbOrTx): Promise<Notification | null> {
    try {
      return await create(input, executor)
    } catch (error) {
      log.error(
        {
          err: error,
          userId: input.userId,
          category: input.category,
          deduplicationKey: input.deduplicationKey,
        },
        'notification could not be created',
      )
      return null
    }
  }

  return {
    create,

    /** The AI provider answered 402 or a quota error: a banner until the key is fixed or credits added. */
    notifyAiCreditsDepleted(
      userId: string,
      details: { provider: string; workId?: string },
      executor?: DbOrTx,
    ) {
      return notify({ userId, ...alerts.aiCreditsDepleted(details) }, executor)
    },

    /**
     * The AI provider failed: an ERROR when it refused the credentials (the user must act), a WARNING
     * otherwise (a later run may succeed). Listed for 24 hours.
     */
    notifyAiProviderError(
      userId: string,
      details: { provider: string; error: string; workId?: string },
      executor?: DbOrTx,
    ) {
      return notify({ userId, ...alerts.aiProviderError(details, clock.now()) }, executor)
    },

    /** The AI provider could not be reached: a generation notification naming the cause; 24 hours. */
    notifyAiProviderUnreachable(
      userId: string,
      details: { provider: string; error: string; workId?: string },
      executor?: DbOrTx,
    ) {
      return notify({ userId, ...alerts.aiProviderUnreachable(details, clock.now()) }, executor)
    },

    /** Generation could not run because of the user's account (plan, limits, credentials). */
    notifyGenerationAccountError(
      userId: string,
      details: { reason: string; workId?: string },
      executor?: DbOrTx,
    ) {
      return notify({ userId, ...alerts.generationAccountError(details) }, executor)
    },

    /** A work's scheduled generation was paused. */
    notifySchedulePaused(
      userId: string,
      details: { workId: string; workName: string; reason: string },
      executor?: DbOrTx,
    ) {
      return notify({ userId, ...alerts.schedulePaused(details) }, executor)
    },

    /** The Git host rejected the user's token: a banner until it is reconnected. */
    notifyGitAuthExpired(userId: string, details: { provider?: string }, executor?: DbOrTx) {
      return notify({ userId, ...alerts.gitAuthExpired(details) }, executor)
    },

    /** The issue behind `key` is resolved: removes the user's notifications with it; answers how many. */
    async clearByDeduplicationKey(userId: string, key: string, executor: DbOrTx = db): Promise<number> {
      const removed = await executor
        .delete(notifications)
        .where(and(eq(notifications.userId, userId), eq(notifications.deduplicationKey, key)))
        .returning({ id: notifications.id })
      return removed.length
    },

    /** A page of the user's visible notifications, newest first, with the total over all pages. */
    async list(
      userId: string,
      filters: NotificationListFilters = {},
    ): Promise<{ notifications: Notification[]; total: number }> {
      const limit = Math.min(filters.limit ?? NOTIFICATION_LIST_DEFAULT_LIMIT, NOTIFICATION_LIST_MAX_LIMIT)
      const where = and(
        visible(userId, clock.now()),
        filters.unreadOnly ? eq(notifications.isRead, false) : undefined,
        filters.category ? eq(notifications.category, filters.category) : undefined,
      )
      const [rows, [counted]] = await Promise.all([
        db
          .select(COLUMNS)
          .from(notifications)
          .where(where)
          .orderBy(...NEWEST_FIRST)
          .limit(limit)
          .offset(filters.offset ?? 0),
        db.select({ total: count() }).from(notifications).where(where),
      ])
      return { notifications: rows, total: counted?.total ?? 0 }
    },

    /** How many visible notifications the user has not read. */
    async unreadCount(userId: string): Promise<number> {
      const [row] = await db
        .select({ total: count() })
        .from(notifications)
        .where(and(visible(userId, clock.now()), eq(notifications.isRead, false)))
      return row?.total ?? 0
    },

    /** The user's visible persistent notifications (the banners), newest first, at most 100. */
    async persistent(userId: string): Promise<Notification[]> {
      return db
        .select(COLUMNS)
        .from(notifications)
        .where(and(visible(userId, clock.now()), eq(notifications.isPersistent, true)))
        .orderBy(...NEWEST_FIRST)
        .limit(NOTIFICATION_LIST_MAX_LIMIT)
    },

    /** Marks one read; reading it again changes nothing. */
    async markRead(userId: string, id: string): Promise<void> {
      if (!isUuid(id)) throw notificationNotFound()
      const now = clock.now()
      const [row] = await db
        .update(notifications)
        .set({
          isRead: true,
          readAt: sql`coalesce(${notifications.readAt}, ${now.toISOString()}::timestamptz)`,
        })
        .where(and(eq(notifications.id, id), eq(notifications.userId, userId)))
        .returning({ id: notifications.id })
      if (!row) throw notificationNotFound()
    },

    /** Marks every visible unread notification read; answers how many it marked. */
    async markAllRead(userId: string): Promise<number> {
      const now = clock.now()
      const marked = await db
        .update(notifications)
        .set({ isRead: true, readAt: now })
        .where(and(visible(userId, now), eq(notifications.isRead, false)))
        .returning({ id: notifications.id })
      return marked.length
    },

    /** Hides one; a persistent notification is a banner and answers 400. Dismissing it again is fine. */
    async dismiss(userId: string, id: string): Promise<void> {
      if (!isUuid(id)) throw notificationNotFound()
      const now = clock.now()
      const [row] = await db
        .update(notifications)
        .set({
          isDismissed: true,
          dismissedAt: sql`coalesce(${notifications.dismissedAt}, ${now.toISOString()}::timestamptz)`,
        })
        .where(
          and(
            eq(notifications.id, id),
            eq(notifications.userId, userId),
            eq(notifications.isPersistent, false),
          ),
        )
        .returning({ id: notifications.id })
      if (row) return
      const { isPersistent } = await owned(userId, id)
      if (isPersistent) {
        throw badRequest('Persistent notifications cannot be dismissed', 'NOTIFICATION_PERSISTENT')
      }
    },

    /**
     * SPEC.md's daily cleanup, in its order: expired notifications (past `expiresAt`), dismissed ones
     * dismissed more than 7 days ago, then any older than 30 days. Each count is of rows the earlier rules
     * left.
     */
    async cleanup(): Promise<CleanupCounts> {
      const now = clock.nowMs()
      const removed = async (where: SQL) =>
        (await db.delete(notifications).where(where).returning({ id: notifications.id })).length
      const expired = await removed(lte(notifications.expiresAt, new Date(now)))
      const dismissed = await removed(
        and(
          eq(notifications.isDismissed, true),
          lt(notifications.dismissedAt, new Date(now - DISMISSED_RETENTION_MS)),
        )!,
      )
      const old = await removed(lt(notifications.createdAt, new Date(now - NOTIFICATION_RETENTION_MS)))
      return { expired, dismissed, old }
    },
  }
}

export type NotificationService = ReturnType<typeof createNotificationService>
