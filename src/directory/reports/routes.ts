import type { App } from '../../http/app.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { invalidField } from '../../http/schemas.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'
import {
  AdminReportQuery,
  ClientParams,
  CreatedReportAnswer,
  CreateReportBody,
  ModerationAnswer,
  REPORT_LIMITS,
  ReportAnswer,
  ReportListAnswer,
  ReportParams,
  ReportStatsAnswer,
  UpdatedReportAnswer,
  UpdateReportBody,
} from './schemas.ts'
import type { ReportService } from './service.ts'

const tags = ['reports']
const BASE = '/api/admin/reports'
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
const NOT_FOUND = [404, 'REPORT_NOT_FOUND'] as const

export function reportRoutes(
  app: App,
  { reports, rateLimit }: { reports: ReportService; rateLimit: RateLimit },
) {
  app.post(
    '/api/reports',
    {
      config: { access: 'session' },
      preHandler: rateLimit('POST /api/reports', RATE_LIMITS.reports),
      schema: {
        tags,
        summary: 'Report an item or a comment',
        description:
          'A signed-in user with a client profile reports content: `contentType` `item` (named by its id or ' +
          'slug) or `comment` (by its id), a `reason` (`spam`, `harassment`, `inappropriate`, `other`) and ' +
          `optional \`details\` (up to ${REPORT_LIMITS.detailsMax} characters). Content this database does not ` +
          'hold is still accepted, as the content may be the site’s own. The report starts `pending` and the admins ' +
          'get a notification. A second report of the same content by the same user is 409 `REPORT_DUPLICATE`, ' +
          'whether it names an item by id or by slug, also when both arrive at once. 403 ' +
          '`CLIENT_PROFILE_REQUIRED` without a client profile, `ACCOUNT_SUSPENDED` or `ACCOUNT_BANNED` for a ' +
          `user under moderation. ${describeRule(RATE_LIMITS.reports)}.`,
        body: CreateReportBody,
        response: {
          200: CreatedReportAnswer,
          ...errors(
            [400, invalidField('body.contentType', 'must be one of item, comment')],
            401,
            [403, 'CLIENT_PROFILE_REQUIRED', 'ACCOUNT_SUSPENDED', 'ACCOUNT_BANNED', 'CROSS_ORIGIN'],
            [409, 'REPORT_DUPLICATE'],
            413,
            415,
            429,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      message: 'Report submitted',
      report: await reports.create(req.body, viewerOf(req).user.id),
    }),
  )

  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List reports',
        description:
          'A page of reports, newest first, each with its reporter and reviewer. `status`, `contentType` and ' +
          '`reason` filter; `search` finds text in the content id, the details, or the reporter’s name or ' +
          'email, whatever its case.',
        querystring: AdminReportQuery,
        response: {
          200: ReportListAnswer,
          ...errors([400, invalidField('query.limit', 'must be at most 100')], 401, 403),
        },
      },
    },
    async (req) => ({ success: true as const, data: await reports.list(req.query) }),
  )

  // Before `/:id`, which would otherwise take `stats` for an id.
  app.get(
    `${BASE}/stats`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Report statistics',
        description: 'How many reports there are, pending and resolved, by status, content type and reason.',
        response: { 200: ReportStatsAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await reports.stats() }),
  )

  app.get(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a report',
        description:
          'The report with its reporter and reviewer (`{id, name, email}`, null when their account is gone), ' +
          'its last moderation result, and the content it names as this database holds it now (`content.found` ' +
          'false when it is gone or was never held here; `ownerId` is the item’s submitter or the comment’s author).',
        params: ReportParams,
        response: { 200: ReportAnswer, ...errors(401, 403, NOT_FOUND) },
      },
    },
    async (req) => ({ success: true as const, data: await reports.get(req.params.id) }),
  )

  app.put(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Review a report',
        description:
          'Sets any of `status` (any of the four), `resolution` and `reviewNote`; the admin is recorded as ' +
          'reviewer. A new `resolution` runs its moderation action in the same transaction, on the content or on ' +
          'its owner (an item’s submitter, a comment’s author): `content_removed` deletes the content, ' +
          '`user_warned` adds a warning, `user_suspended` suspends the owner’s client profile and signs them out, ' +
          '`user_banned` bans them for good (a suspension with `bannedAt`; lifted only by an admin setting the ' +
          'client’s status), `no_action` does nothing. The review note is the action’s reason, and the action ' +
          'and acting admin go into the owner’s moderation history. Without `status`, a new resolution sets ' +
          '`resolved`. A user-level resolution whose content has no owner here is 400 ' +
          '`REPORT_OWNER_NOT_FOUND` and saves nothing; an action that fails otherwise (content already gone, an ' +
          'owner without a client profile) leaves the report saved and says why in `moderationResult`. Setting ' +
          'the resolution the report already has does not run it again, also when two admins resolve at once.',
        params: ReportParams,
        body: UpdateReportBody,
        response: {
          200: UpdatedReportAnswer,
          ...errors(
            [
              400,
              invalidField(
                'body.resolution',
                'must be one of content_removed, user_warned, user_suspended, user_banned, no_action',
              ),
              'REPORT_OWNER_NOT_FOUND',
            ],
            401,
            WRITE_403,
            NOT_FOUND,
            413,
            415,
          ),
        },
      },
    },
    async (req) => {
      const { data, moderationResult } = await reports.update(req.params.id, req.body, viewerOf(req).user.id)
      return { success: true as const, message: 'Report updated', data, moderationResult }
    },
  )

  app.get(
    '/api/admin/clients/:clientId/moderation',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['reports', 'clients'],
        summary: 'A client’s moderation',
        description:
          'The client’s status, warning count, when they were suspended or banned, and every moderation action ' +
          'reports ran on them (warnings, suspensions, bans, removals of their content), newest first, each with ' +
          'its reason, report and acting admin.',
        params: ClientParams,
        response: { 200: ModerationAnswer, ...errors(401, 403, [404, 'CLIENT_NOT_FOUND']) },
      },
    },
    async (req) => ({ success: true as const, data: await reports.moderationOf(req.params.clientId) }),
  )
}
