import { Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { authOf } from '../http/guard.ts'
import { errors } from '../http/schemas.ts'
import type { Reconciler } from './reconcile.ts'
import {
  ACTIVITY_EXPORT_MAX_ROWS,
  ActivityEntry,
  ActivityIdParams,
  ActivityList,
  ExportQuery,
  ListQuery,
  RunningCount,
  StatusCounts,
} from './schemas.ts'
import type { ActivityLogService } from './service.ts'

const tags = ['activity-log']
const badStatus = invalidField(
  'query.status',
  'must be one of "pending", "in_progress", "completed", "failed", "cancelled"',
)

export function activityLogRoutes(
  app: App,
  deps: { activityLog: ActivityLogService; reconciler: Reconciler },
) {
  const { activityLog, reconciler } = deps
  // Every call first closes the caller's stale runs; the pass is debounced and never fails the call.
  const preHandler = async (req: FastifyRequest) => {
    await reconciler.run(authOf(req).userId)
  }
  const config = { access: 'jwt-or-api-key' } as const

  app.get(
    '/api/activity-log',
    {
      config,
      preHandler,
      schema: {
        tags,
        summary: 'List activity',
        description:
          'The caller’s activity, newest first, with filters. `search` matches the summary or the work’s name ' +
          '(case-insensitive substring). `limit` 1–100 (default 25).',
        querystring: ListQuery,
        response: { 200: ActivityList, ...errors([400, badStatus], 401) },
      },
    },
    async (req) => activityLog.list(authOf(req).userId, req.query),
  )

  app.get(
    '/api/activity-log/running-count',
    {
      config,
      preHandler,
      schema: {
        tags,
        summary: 'Count running activity',
        description: 'How many of the caller’s entries are `in_progress`.',
        response: { 200: RunningCount, ...errors(401) },
      },
    },
    async (req) => ({ count: await activityLog.runningCount(authOf(req).userId) }),
  )

  app.get(
    '/api/activity-log/summary',
    {
      config,
      preHandler,
      schema: {
        tags,
        summary: 'Count activity by status',
        description: 'How many of the caller’s entries are in each status, zeros included.',
        response: { 200: StatusCounts, ...errors(401) },
      },
    },
    async (req) => ({ counts: await activityLog.summary(authOf(req).userId) }),
  )

  app.get(
    '/api/activity-log/export',
    {
      config,
      preHandler,
      schema: {
        tags,
        summary: 'Export activity as CSV',
        description:
          `The list’s filters, no paging, at most ${ACTIVITY_EXPORT_MAX_ROWS} rows, newest first, streamed. ` +
          'Columns `id,createdAt,actionType,action,status,summary`; cells are RFC 4180-quoted, and cells a ' +
          "spreadsheet would run as a formula (starting with = + - @, tab or CR) are prefixed with `'`.",
        querystring: ExportQuery,
        produces: ['text/csv'],
        response: {
          200: {
            description: 'text/csv, as an attachment named activity-log.csv',
            content: {
              'text/csv': {
                schema: Type.String(),
                example:
                  'id,createdAt,actionType,action,status,summary\r\n' +
                  '3c9e2f1a-6b4d-4e8f-a1c2-7d5e9f0b3a64,2026-11-22T10:00:00.000Z,work_created,work.created,' +
                  'completed,"Created work ""Coffee Guide"""\r\n',
              },
            },
          },
          ...errors([400, badStatus], 401),
        },
      },
    },
    async (req, reply) => {
      const rows = await activityLog.exportCsv(authOf(req).userId, req.query)
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename=activity-log.csv')
        .send(Readable.from(rows) as never)
    },
  )

  app.get(
    '/api/activity-log/:id',
    {
      config,
      preHandler,
      schema: {
        tags,
        summary: 'One activity entry',
        description:
          'One of the caller’s entries (404 for anyone else’s). An `in_progress` entry of a work carries the ' +
          'work’s recent log lines in `details.liveLogs`.',
        params: ActivityIdParams,
        response: { 200: ActivityEntry, ...errors(401, [404, 'ACTIVITY_NOT_FOUND']) },
      },
    },
    async (req) => activityLog.get(authOf(req).userId, req.params.id),
  )
}
