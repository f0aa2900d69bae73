import { Type } from 'typebox'
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts'
import { ItemLinkSchema } from '../items/schemas.ts'
import { LINK_CHECK_RUN_STATUSES } from './tables.ts'

const EXAMPLE_ITEM_ID = '3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60'

const EXAMPLE_RECORD = {
  itemId: EXAMPLE_ITEM_ID,
  url: 'https://bluebottlecoffee.com',
  status: 'unchecked' as const,
  httpStatus: 404,
  finalUrl: null,
  reason: 'HTTP 404',
  checkedAt: '2026-11-27T10:00:00.000Z',
  failures: 1,
}

export const LinkRecordAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      itemId: Type.String({ examples: [EXAMPLE_ITEM_ID] }),
      url: Type.String({ description: 'the URL checked: the item’s', examples: [EXAMPLE_RECORD.url] }),
      ...ItemLinkSchema.properties,
      checkedAt: Timestamp,
    }),
  },
  {
    description: 'The item’s link record after this check',
    examples: [{ success: true, data: EXAMPLE_RECORD }],
  },
)

const Count = (example: number, description: string) => Type.Integer({ examples: [example], description })

const EXAMPLE_RUN = {
  id: '8c0e2b4d-6f8a-4c0e-9b2d-4f6a8c0e2b4d',
  status: 'running' as const,
  trigger: 'schedule' as const,
  total: 1200,
  processed: 300,
  ok: 281,
  redirected: 12,
  failed: 7,
  newlyBroken: 2,
  error: null,
  requestedBy: null,
  createdAt: '2026-11-27T03:10:00.000Z',
  startedAt: '2026-11-27T03:10:01.000Z',
  finishedAt: null,
  updatedAt: '2026-11-27T03:14:40.000Z',
}

export const LinkCheckRun = Type.Object(
  {
    id: Type.String({ examples: [EXAMPLE_RUN.id] }),
    status: Type.Enum([...LINK_CHECK_RUN_STATUSES], { examples: ['running'] }),
    trigger: Type.Enum(['schedule', 'admin'], { description: 'who started it', examples: ['schedule'] }),
    total: Count(1200, 'published items with a URL, counted when the run started'),
    processed: Count(300, 'items checked so far'),
    ok: Count(281, 'checks answered 2xx'),
    redirected: Count(12, 'checks answered 2xx after redirects'),
    failed: Count(
      7,
      'checks that failed (the item is `broken` once it fails LINK_CHECK_FAILURES times in a row)',
    ),
    newlyBroken: Count(2, 'items whose link became `broken` in this run'),
    error: Type.Union([Type.String({ examples: ['stalled: no progress for 60 minutes'] }), Type.Null()], {
      description: 'why a failed run failed',
    }),
    requestedBy: Type.Union([Type.String(), Type.Null()], {
      description: 'the admin who started it; null for the schedule',
    }),
    createdAt: Timestamp,
    startedAt: NullableTimestamp,
    finishedAt: NullableTimestamp,
    updatedAt: Timestamp,
  },
  { description: 'a check of every published item’s URL' },
)

export const LinkCheckRunAnswer = Type.Object(
  {
    success: Type.Literal(true),
    message: Type.String({ examples: ['Link check queued'] }),
    data: LinkCheckRun,
  },
  {
    description: 'The run is queued: follow it with GET /api/admin/link-checks',
    examples: [
      {
        success: true,
        message: 'Link check queued',
        data: {
          ...EXAMPLE_RUN,
          status: 'queued',
          trigger: 'admin',
          total: 0,
          processed: 0,
          ok: 0,
          redirected: 0,
          failed: 0,
          newlyBroken: 0,
          requestedBy: '1c3e5a7b-9d0f-4b2d-8e6a-0c2e4a6b8d0f',
          startedAt: null,
          updatedAt: EXAMPLE_RUN.createdAt,
        },
      },
    ],
  },
)

export const LinkChecksStatusAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      run: Type.Union([LinkCheckRun, Type.Null()], {
        description: 'the active run, else the latest; null before any',
      }),
      counts: Type.Object(
        {
          ok: Count(1150, 'answered 2xx'),
          redirected: Count(30, 'answered 2xx after redirects'),
          broken: Count(5, 'failed LINK_CHECK_FAILURES checks in a row'),
          unchecked: Count(15, 'not checked at their current URL yet, or failing fewer times than that'),
        },
        { description: 'published items with a URL, by the link status of their current URL' },
      ),
      schedule: Type.Object({
        intervalMs: Type.Union([Type.Integer({ examples: [86_400_000] }), Type.Null()], {
          description: 'LINK_CHECK_INTERVAL in milliseconds; null when the schedule is off',
        }),
      }),
    }),
  },
  {
    description: 'The latest link check run and the link status of the published items',
    examples: [
      {
        success: true,
        data: {
          run: EXAMPLE_RUN,
          counts: { ok: 1150, redirected: 30, broken: 5, unchecked: 15 },
          schedule: { intervalMs: 86_400_000 },
        },
      },
    ],
  },
)
