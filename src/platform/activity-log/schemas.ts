import { Type } from 'typebox'
import { DateFilter, Timestamp } from '../../http/schemas.ts'
import { ACTION_TYPES, ACTIVITY_STATUSES } from './tables.ts'

export const ACTIVITY_LIST_DEFAULT_LIMIT = 25
export const ACTIVITY_LIST_MAX_LIMIT = 100
export const ACTIVITY_EXPORT_MAX_ROWS = 10_000

/** The filters shared by the list and the export. */
export const ActivityFilters = {
  actionType: Type.Optional(Type.Union(ACTION_TYPES.map((value) => Type.Literal(value)))),
  workId: Type.Optional(Type.String({ format: 'uuid' })),
  status: Type.Optional(Type.Union(ACTIVITY_STATUSES.map((value) => Type.Literal(value)))),
  dateFrom: Type.Optional(DateFilter('ISO 8601 date or date-time; entries created at or after it')),
  dateTo: Type.Optional(
    DateFilter(
      'ISO 8601 date or date-time; entries created at or before it (a bare date: that whole day, UTC)',
    ),
  ),
  search: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'substring of the summary or of the work name',
    }),
  ),
}

export const ListQuery = Type.Object({
  ...ActivityFilters,
  limit: Type.Integer({ minimum: 1, maximum: ACTIVITY_LIST_MAX_LIMIT, default: ACTIVITY_LIST_DEFAULT_LIMIT }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
})

export const ExportQuery = Type.Object(ActivityFilters)

export const ActivityEntry = Type.Object({
  id: Type.String({ format: 'uuid' }),
  userId: Type.String({ format: 'uuid' }),
  workId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  actionType: Type.String({ examples: ['work_created'] }),
  action: Type.String({ examples: ['work.created'] }),
  status: Type.String({ examples: ['completed'] }),
  summary: Type.String({ examples: ['Created work "Coffee Guide"'] }),
  details: Type.Record(Type.String(), Type.Unknown()),
  metadata: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  ipAddress: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})

export const ActivityList = Type.Object({ activities: Type.Array(ActivityEntry), total: Type.Integer() })

export const RunningCount = Type.Object({ count: Type.Integer({ examples: [1] }) })

export const StatusCounts = Type.Object({
  counts: Type.Object({
    pending: Type.Integer(),
    in_progress: Type.Integer(),
    completed: Type.Integer(),
    failed: Type.Integer(),
    cancelled: Type.Integer(),
  }),
})

export const ActivityIdParams = Type.Object({ id: Type.String() })
