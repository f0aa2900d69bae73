import { Type } from 'typebox'
import { DateFilter, Query, Timestamp } from '../../http/schemas.ts'
import { ACTION_TYPES, ACTIVITY_STATUSES } from './tables.ts'

const EXAMPLE_WORK_ID = '0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10'

export const ACTIVITY_LIST_DEFAULT_LIMIT = 25
export const ACTIVITY_LIST_MAX_LIMIT = 100
export const ACTIVITY_EXPORT_MAX_ROWS = 10_000

/** The filters shared by the list and the export. */
export const ActivityFilters = {
  actionType: Type.Optional(Type.Enum(ACTION_TYPES, { examples: ['work_created'] })),
  workId: Type.Optional(Type.String({ format: 'uuid', examples: [EXAMPLE_WORK_ID] })),
  status: Type.Optional(Type.Enum(ACTIVITY_STATUSES, { examples: ['completed'] })),
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
      examples: ['coffee'],
    }),
  ),
}

export const ListQuery = Query({
  ...ActivityFilters,
  limit: Type.Integer({
    minimum: 1,
    maximum: ACTIVITY_LIST_MAX_LIMIT,
    default: ACTIVITY_LIST_DEFAULT_LIMIT,
    examples: [ACTIVITY_LIST_DEFAULT_LIMIT],
  }),
  offset: Type.Integer({ minimum: 0, default: 0, description: 'entries to skip', examples: [0] }),
})

export const ExportQuery = Type.Object(ActivityFilters)

const EXAMPLE_ENTRY = {
  id: '3c9e2f1a-6b4d-4e8f-a1c2-7d5e9f0b3a64',
  userId: '5f0c2a8e-7d3b-4e21-8a4c-9b1e6d2f7c30',
  workId: EXAMPLE_WORK_ID,
  actionType: 'work_created',
  action: 'work.created',
  status: 'completed',
  summary: 'Created work "Coffee Guide"',
  details: { workName: 'Coffee Guide' },
  metadata: null,
  ipAddress: '203.0.113.7',
  userAgent: 'curl/8.5.0',
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
}

export const ActivityEntry = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    userId: Type.String({ format: 'uuid' }),
    workId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'null once the work is deleted',
    }),
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
  },
  { description: 'One activity entry of yours', examples: [EXAMPLE_ENTRY] },
)

export const ActivityList = Type.Object(
  {
    activities: Type.Array(ActivityEntry),
    total: Type.Integer({ description: 'matching entries over all pages', examples: [1] }),
  },
  {
    description: 'A page of your activity, newest first',
    examples: [{ activities: [EXAMPLE_ENTRY], total: 1 }],
  },
)

export const RunningCount = Type.Object(
  { count: Type.Integer({ examples: [1] }) },
  { description: 'How many entries are in progress', examples: [{ count: 1 }] },
)

export const StatusCounts = Type.Object(
  {
    counts: Type.Object({
      pending: Type.Integer(),
      in_progress: Type.Integer(),
      completed: Type.Integer(),
      failed: Type.Integer(),
      cancelled: Type.Integer(),
    }),
  },
  {
    description: 'Your entries by status',
    examples: [{ counts: { pending: 0, in_progress: 1, completed: 12, failed: 2, cancelled: 0 } }],
  },
)

export const ActivityIdParams = Type.Object({
  id: Type.String({ description: 'the entry id (a UUID)', examples: [EXAMPLE_ENTRY.id] }),
})
