import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { Logger } from 'pino'
import { uniqueViolation } from '../../db/errors.ts'
import { anyContaining } from '../../db/filters.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, forbidden, HttpError, invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { fetchPage } from '../../lib/pagination.ts'
import { users } from '../accounts/tables.ts'
import type { SessionService } from '../auth/sessions.ts'
import type { ProfileService } from '../clients/profiles.ts'
import { clientProfiles } from '../clients/tables.ts'
import type { CommentService } from '../comments/service.ts'
import { comments } from '../comments/tables.ts'
import { type Clearable, contentWriter, REPORTS_CONTENT } from '../content.ts'
import type { ItemService } from '../items/service.ts'
import { items } from '../items/tables.ts'
import { notifyAdmins } from '../notifications/service.ts'
import type { AdminReportQuery, CreateReportBody, Report, UpdateReportBody } from './schemas.ts'
import {
  type ModerationAction,
  type ModerationOutcome,
  moderationActions,
  REPORT_CONTENT_TYPES,
  REPORT_REASONS,
  REPORT_STATUSES,
  type ReportContentType,
  type ReportResolution,
  reports,
} from './tables.ts'

export interface ReportServiceDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'error'>
  items: Pick<ItemService, 'removeWithin'>
  comments: Pick<CommentService, 'removeWithin'>
  /** Warnings and suspensions are kept on the content owner's client profile. */
  profiles: Pick<ProfileService, 'warn' | 'suspend'>
  sessions: Pick<SessionService, 'revokeAll'>
  /** What a moderation write makes stale on this instance: item and comment caches. */
  caches: readonly Clearable[]
}

const reportNotFound = () => notFound('Report not found', 'REPORT_NOT_FOUND')

/** The resolutions that act on the content's owner, who must be found first (SPEC.md: else 400). */
const USER_ACTIONS: Partial<Record<ReportResolution, ModerationAction>> = {
  user_warned: 'warned',
  user_suspended: 'suspended',
  user_banned: 'banned',
}

/** A moderation action that could not be carried out: the report is saved and says why. */
class ActionFailed extends Error {}

const reporter = alias(users, 'reporter')
const reviewer = alias(users, 'reviewer')

const personOf = (id: string | null, name: string | null, email: string | null) =>
  id === null || email === null ? null : { id, name, email }

/** The content a report names, as this database holds it now (by id, or for items also by slug). */
async function contentOf(
  executor: DbOrTx,
  type: ReportContentType,
  contentId: string,
): Promise<{ id: string; title: string; ownerId: string | null } | null> {
  if (type === 'item') {
    const where = isUuid(contentId) ? eq(items.id, contentId) : eq(items.slug, contentId.toLowerCase())
    const [row] = await executor
      .select({ id: items.id, title: items.name, ownerId: items.submittedBy })
      .from(items)
      .where(where)
    return row ?? null
  }
  if (!isUuid(contentId)) return null
  const [row] = await executor
    .select({ id: comments.id, title: sql<string>`left(${comments.body}, 200)`, ownerId: comments.authorId })
    .from(comments)
    .where(eq(comments.id, contentId))
  return row ?? null
}

const contentNamed = (report: {
  contentType: ReportContentType
  targetId: string | null
  contentId: string
}) => report.targetId ?? report.contentId

/** How the admins' notification names reported content: the article its word takes. */
const REPORTED_CONTENT: Record<(typeof REPORT_CONTENT_TYPES)[number], string> = {
  item: 'An item',
  comment: 'A comment',
}
/** The reason as the notification's sentence ends: "… was reported as spam." */
const REPORTED_FOR: Record<(typeof REPORT_REASONS)[number], string> = {
  spam: 'as spam',
  harassment: 'for harassment',
  inappropriate: 'as inappropriate',
  other: 'for another reason',
}

/** Reports of items and comments, their review, and the moderation actions a resolution runs. */
export function createReportService(deps: ReportServiceDeps) {
  const { db, clock, log, items: itemService, comments: commentService, profiles, sessions, caches } = deps
  const write = contentWriter(db, REPORTS_CONTENT, caches)

  const selectReports = (executor: DbOrTx = db) =>
    executor
      .select({
        row: reports,
        reporterName: reporter.name,
        reporterEmail: reporter.email,
        reviewerName: reviewer.name,
        reviewerEmail: reviewer.email,
      })
      .from(reports)
      .leftJoin(reporter, eq(reporter.id, reports.reportedBy))
      .leftJoin(reviewer, eq(reviewer.id, reports.reviewedBy))

  type Selected = Awaited<ReturnType<ReturnType<typeof selectReports>['execute']>>[number]

  const reportOf = ({ row, reporterName, reporterEmail, reviewerName, reviewerEmail }: Selected): Report => ({
    id: row.id,
    contentType: row.contentType,
    contentId: row.contentId,
    reason: row.reason,
    details: row.details,
    status: row.status,
    resolution: row.resolution,
    reviewNote: row.reviewNote,
    reportedBy: row.reportedBy,
    reviewedBy: row.reviewedBy,
    reviewedAt: row.reviewedAt,
    reporter: personOf(row.reportedBy, reporterName, reporterEmail),
    reviewer: personOf(row.reviewedBy, reviewerName, reviewerEmail),
    moderationResult: row.moderationResult,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  })

  function listWhere(query: AdminReportQuery): SQL | undefined {
    const search = query.search?.trim()
    return and(
      query.status ? eq(reports.status, query.status) : undefined,
      query.contentType ? eq(reports.contentType, query.contentType) : undefined,
      query.reason ? eq(reports.reason, query.reason) : undefined,
      search
        ? anyContaining([reports.contentId, reports.details, reporter.name, reporter.email], search)
        : undefined,
    )
  }

  /** Runs the resolution's action inside the report's transaction; throws `ActionFailed` (or worse) to fail. */
  async function act(
    tx: DbOrTx,
    touched: Set<string>,
    report: typeof reports.$inferSelect,
    resolution: ReportResolution,
    ownerId: string | null,
    reason: string | null,
    actorId: string,
  ): Promise<string> {
    const now = clock.now()
    const record = (action: ModerationAction, userId: string | null) =>
      tx.insert(moderationActions).values({
        userId,
        action,
        reason,
        reportId: report.id,
        contentType: report.contentType,
        contentId: report.contentId,
        actedBy: actorId,
        createdAt: now,
      })

    if (resolution === 'no_action') return 'No action taken'

    if (resolution === 'content_removed') {
      const content = await contentOf(tx, report.contentType, contentNamed(report))
      if (!content) throw new ActionFailed(`The reported ${report.contentType} no longer exists`)
      if (report.contentType === 'item') {
        await itemService.removeWithin(tx, touched, content.id, { id: actorId })
      } else {
        await commentService.removeWithin(tx, touched, content.id)
      }
      await record('content_removed', content.ownerId)
      return `Removed the reported ${report.contentType}`
    }

    const action = USER_ACTIONS[resolution]
    if (!action || !ownerId) throw new ActionFailed('No content owner to act on')
    const noProfile = () => new ActionFailed('The content owner has no client profile to act on')
    let message: string
    if (action === 'warned') {
      const warnings = await profiles.warn(tx, ownerId, now)
      if (warnings === null) throw noProfile()
      message = `Warned the content owner (${warnings} warning${warnings === 1 ? '' : 's'} now)`
    } else {
      if (!(await profiles.suspend(tx, ownerId, { ban: action === 'banned' }, now))) throw noProfile()
      // Signed out everywhere at once; signing in again is refused while the suspension lasts.
      await sessions.revokeAll(tx, ownerId)
      message = action === 'banned' ? 'Banned the content owner' : 'Suspended the content owner'
    }
    await record(action, ownerId)
    return message
  }

  return {
    /** A signed-in user's report; they need a client profile in good standing. */
    async create(body: CreateReportBody, userId: string) {
      const [profile] = await db
        .select({ status: clientProfiles.status, bannedAt: clientProfiles.bannedAt })
        .from(clientProfiles)
        .where(eq(clientProfiles.userId, userId))
      if (!profile)
        throw forbidden('Only users with a client profile can report content', 'CLIENT_PROFILE_REQUIRED')
      if (profile.bannedAt) throw forbidden('This account is banned', 'ACCOUNT_BANNED')
      if (profile.status === 'suspended') throw forbidden('This account is suspended', 'ACCOUNT_SUSPENDED')
      const contentId = body.contentId.trim()
      const details = body.details?.trim() || null
      const now = clock.now()
      try {
        return await db.transaction(async (tx) => {
          const content = await contentOf(tx, body.contentType, contentId)
          const [row] = await tx
            .insert(reports)
            .values({
              contentType: body.contentType,
              contentId,
              targetId: content?.id ?? null,
              reason: body.reason,
              details,
              reportedBy: userId,
              createdAt: now,
              updatedAt: now,
            })
            .returning()
          if (!row) throw new Error('report insert returned no row')
          await notifyAdmins(tx, now, {
            type: 'report_created',
            title: `New report: ${content?.title ?? contentId}`,
            message: `${REPORTED_CONTENT[body.contentType]} was reported ${REPORTED_FOR[body.reason]}.`,
            data: { reportId: row.id, contentType: body.contentType, contentId },
          })
          const { id, contentType, reason, status, createdAt } = row
          return { id, contentType, contentId: row.contentId, reason, status, createdAt }
        })
      } catch (error) {
        if (uniqueViolation(error)?.constraint === 'reports_reporter_content_unique') {
          throw conflict('You have already reported this content', 'REPORT_DUPLICATE')
        }
        throw error
      }
    },

    async list(query: AdminReportQuery) {
      const where = listWhere(query)
      const page = await fetchPage(query, {
        rows: async (limit, offset) =>
          (
            await selectReports()
              .where(where)
              .orderBy(desc(reports.createdAt), desc(reports.id))
              .limit(limit)
              .offset(offset)
          ).map(reportOf),
        total: async () => {
          const [row] = await db
            .select({ total: count() })
            .from(reports)
            .leftJoin(reporter, eq(reporter.id, reports.reportedBy))
            .where(where)
          return row?.total ?? 0
        },
      })
      const { total, page: number, limit, totalPages } = page.meta
      return { reports: page.items, pagination: { total, page: number, limit, totalPages } }
    },

    /** One query grouped by every dimension (at most 32 rows), folded into the three breakdowns. */
    async stats() {
      const rows = await db
        .select({
          status: reports.status,
          contentType: reports.contentType,
          reason: reports.reason,
          n: count(),
        })
        .from(reports)
        .groupBy(reports.status, reports.contentType, reports.reason)
      const zeros = (keys: readonly string[]) => Object.fromEntries(keys.map((key) => [key, 0]))
      const byStatus = zeros(REPORT_STATUSES)
      const byContentType = zeros(REPORT_CONTENT_TYPES)
      const byReason = zeros(REPORT_REASONS)
      let total = 0
      for (const row of rows) {
        total += row.n
        byStatus[row.status] = (byStatus[row.status] ?? 0) + row.n
        byContentType[row.contentType] = (byContentType[row.contentType] ?? 0) + row.n
        byReason[row.reason] = (byReason[row.reason] ?? 0) + row.n
      }
      return {
        total,
        pendingCount: byStatus.pending ?? 0,
        resolvedCount: byStatus.resolved ?? 0,
        byStatus,
        byContentType,
        byReason,
      }
    },

    async get(id: string) {
      if (!isUuid(id)) throw reportNotFound()
      const [selected] = await selectReports().where(eq(reports.id, id))
      if (!selected) throw reportNotFound()
      const report = reportOf(selected)
      const content = await contentOf(db, report.contentType, contentNamed(selected.row))
      return {
        ...report,
        content: content
          ? { found: true, id: content.id, title: content.title, ownerId: content.ownerId }
          : { found: false, id: null, title: null, ownerId: null },
      }
    },

    /**
     * Saves the review and, when it sets a new resolution, runs its action in the same transaction: a
     * user-level action without an owner to find is 400 and saves nothing; an action that fails rolls back
     * alone (a savepoint) and the report is saved with the failure in `moderationResult`. The report row is
     * locked, so two admins resolving at once act one after the other, and the second sees the first's
     * resolution: the same resolution is not run twice.
     */
    async update(id: string, body: UpdateReportBody, actorId: string) {
      if (body.status === undefined && body.resolution === undefined && body.reviewNote === undefined) {
        throw invalidInput('body', 'names nothing to change (send status, resolution or reviewNote)')
      }
      if (!isUuid(id)) throw reportNotFound()
      return write(async (tx, touched) => {
        const [report] = await tx.select().from(reports).where(eq(reports.id, id)).for('update')
        if (!report) throw reportNotFound()
        const resolution = body.resolution
        const runs = resolution !== undefined && resolution !== report.resolution
        let ownerId: string | null = null
        if (runs && USER_ACTIONS[resolution]) {
          ownerId = (await contentOf(tx, report.contentType, contentNamed(report)))?.ownerId ?? null
          if (!ownerId) {
            throw invalidInput(
              'resolution',
              `needs the ${report.contentType}'s owner, and the reported ${report.contentType} has none here ` +
                '(it is gone, was never held here, or nobody submitted it)',
              'REPORT_OWNER_NOT_FOUND',
            )
          }
        }
        const reviewNote = body.reviewNote === undefined ? report.reviewNote : body.reviewNote.trim() || null
        const now = clock.now()
        let moderationResult: ModerationOutcome
        if (runs) {
          try {
            const message = await tx.transaction((savepoint) =>
              act(savepoint, touched, report, resolution, ownerId, reviewNote, actorId),
            )
            moderationResult = { success: true, message }
          } catch (error) {
            if (!(error instanceof ActionFailed) && !(error instanceof HttpError)) {
              log.error({ err: error, reportId: id, resolution }, 'report moderation action failed')
            }
            moderationResult = {
              success: false,
              message:
                error instanceof ActionFailed || error instanceof HttpError
                  ? `The action failed: ${error.message}`
                  : 'The action failed: internal error',
            }
          }
        } else {
          moderationResult = {
            success: true,
            message:
              resolution === undefined
                ? 'No resolution set: no moderation action'
                : `The report is already resolved as ${resolution}: no action run again`,
          }
        }
        const status = body.status ?? (runs ? 'resolved' : report.status)
        const [saved] = await tx
          .update(reports)
          .set({
            status,
            ...(resolution === undefined ? {} : { resolution }),
            reviewNote,
            reviewedBy: actorId,
            reviewedAt: now,
            ...(runs ? { moderationResult } : {}),
            updatedAt: now,
          })
          .where(eq(reports.id, id))
          .returning()
        if (!saved) throw reportNotFound()
        return {
          data: {
            id: saved.id,
            status: saved.status,
            resolution: saved.resolution,
            reviewNote: saved.reviewNote,
          },
          moderationResult,
        }
      })
    },

    /** A client's warnings, suspension, ban and every moderation action taken on them, newest first. */
    async moderationOf(clientId: string) {
      const notFoundClient = () => notFound('Client not found', 'CLIENT_NOT_FOUND')
      if (!isUuid(clientId)) throw notFoundClient()
      const [profile] = await db.select().from(clientProfiles).where(eq(clientProfiles.id, clientId))
      if (!profile) throw notFoundClient()
      const history = await db
        .select({
          id: moderationActions.id,
          action: moderationActions.action,
          reason: moderationActions.reason,
          reportId: moderationActions.reportId,
          contentType: moderationActions.contentType,
          contentId: moderationActions.contentId,
          actedBy: moderationActions.actedBy,
          createdAt: moderationActions.createdAt,
        })
        .from(moderationActions)
        .where(eq(moderationActions.userId, profile.userId))
        .orderBy(desc(moderationActions.createdAt), desc(moderationActions.id))
      return {
        clientId: profile.id,
        userId: profile.userId,
        status: profile.status,
        warningCount: profile.warningCount,
        suspendedAt: profile.suspendedAt,
        bannedAt: profile.bannedAt,
        history,
      }
    },
  }
}

export type ReportService = ReturnType<typeof createReportService>
