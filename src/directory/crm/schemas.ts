import { type Static, type TSchema, Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { SYNC_STATUSES } from './tables.ts'

export const CRM_LIMITS = {
  baseUrlMax: 2048,
  apiKeyMax: 1024,
  retryIdsMax: 100,
} as const

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

const EXAMPLE_CLIENT_ID = '3f1c2b9a-6d4e-4f8a-9b0c-1d2e3f4a5b6c'
const EXAMPLE_PERSON_ID = '20202020-c21e-4ec2-873b-de4264d89025'
const EXAMPLE_COMPANY_ID = '20202020-3ec3-4fe3-8997-b76aa0bfa408'

const EXAMPLE_CONFIG = {
  enabled: true,
  baseUrl: 'https://api.twenty.com',
  usesDefaultBaseUrl: true,
  apiKey: '••••9f2c',
  apiKeySet: true,
  sync: { clients: true, companies: true },
  updatedAt: '2026-11-22T10:00:00.000Z',
}

const SyncToggles = {
  clients: Type.Boolean({
    description: 'clients become people in the CRM (name, email, job title, city, company)',
    examples: [true],
  }),
  companies: Type.Boolean({
    description: 'a client’s `company` becomes a company in the CRM, linked to their person',
    examples: [true],
  }),
}

/** The CRM settings as admins read them: the API key only masked. */
export const CrmConfig = Type.Object({
  enabled: Type.Boolean({
    description: 'whether client changes are sent to the CRM',
    examples: [true],
  }),
  baseUrl: Type.String({
    description: 'the Twenty server the sync talks to (`/rest/…` is added); TWENTY_API_URL unless set',
    examples: [EXAMPLE_CONFIG.baseUrl],
  }),
  usesDefaultBaseUrl: Type.Boolean({
    description: 'true while no base URL is saved: TWENTY_API_URL applies',
    examples: [true],
  }),
  apiKey: Nullable(
    Type.String({
      description:
        'the saved key masked, its last 4 characters at most (`••••abcd`); the key itself is never answered',
      examples: [EXAMPLE_CONFIG.apiKey],
    }),
  ),
  apiKeySet: Type.Boolean({ description: 'whether an API key is saved', examples: [true] }),
  sync: Type.Object(SyncToggles, { description: 'which records are sent' }),
  updatedAt: NullableTimestamp,
})
export type CrmConfig = Static<typeof CrmConfig>

export const CrmConfigAnswer = Type.Object(
  { success: Type.Literal(true), data: CrmConfig },
  { description: 'The CRM settings', examples: [{ success: true, data: EXAMPLE_CONFIG }] },
)

const BaseUrl = Type.String({
  minLength: 1,
  maxLength: CRM_LIMITS.baseUrlMax,
  description:
    'an http(s) URL of a Twenty server (https in production); a private or internal address is refused ' +
    'unless it is the host of TWENTY_API_URL',
  examples: ['https://crm.example.com'],
})

const ApiKey = Type.String({
  minLength: 1,
  maxLength: CRM_LIMITS.apiKeyMax,
  pattern: '^\\S+$',
  description: 'a Twenty API key (Settings → APIs & Webhooks); stored encrypted, never answered',
  examples: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ3b3Jrc3BhY2UifQ.c2lnbmF0dXJl9f2c'],
})

export const UpdateCrmConfigBody = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({ description: 'turn the sync on (an API key must be saved or sent) or off' }),
    ),
    baseUrl: Type.Optional(
      Type.Union([BaseUrl, Type.Null()], { description: 'null goes back to TWENTY_API_URL' }),
    ),
    apiKey: Type.Optional(
      Type.Union([ApiKey, Type.Null()], {
        description: 'a new key replaces the saved one; null removes it (the sync must then be off)',
      }),
    ),
    sync: Type.Optional(
      Type.Object(
        { clients: Type.Optional(SyncToggles.clients), companies: Type.Optional(SyncToggles.companies) },
        { description: 'the toggles sent change; the others stay' },
      ),
    ),
  },
  {
    examples: [
      {
        enabled: true,
        apiKey: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ3b3Jrc3BhY2UifQ.c2lnbmF0dXJl9f2c',
        sync: { clients: true, companies: true },
      },
      { baseUrl: 'https://crm.example.com' },
      { enabled: false },
    ],
  },
)
export type UpdateCrmConfigBody = Static<typeof UpdateCrmConfigBody>

export const TestConnectionBody = Type.Object(
  {
    baseUrl: Type.Optional(BaseUrl),
    apiKey: Type.Optional(ApiKey),
  },
  {
    description: 'credentials to try before saving them; what is not sent is taken from the saved settings',
    examples: [{}, { baseUrl: 'https://crm.example.com', apiKey: 'eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl' }],
  },
)
export type TestConnectionBody = Static<typeof TestConnectionBody>

export const ConnectionCheck = Type.Object({
  ok: Type.Boolean({ description: 'Twenty answered and accepted the key', examples: [true] }),
  status: Nullable(
    Type.Integer({
      description: 'Twenty’s HTTP status; null when it gave none (timeout, no connection, refused address)',
      examples: [200],
    }),
  ),
  message: Type.String({
    description: 'what happened, in our words and Twenty’s; never the key',
    examples: ['Connected: Twenty accepted the API key'],
  }),
})

export const TestConnectionAnswer = Type.Object(
  { success: Type.Literal(true), data: ConnectionCheck },
  {
    description: 'What Twenty answered: a refusal, an error or silence is reported here, not as an error',
    examples: [
      {
        success: true,
        data: { ok: true, status: 200, message: 'Connected: Twenty accepted the API key' },
      },
      { success: true, data: { ok: false, status: 401, message: 'Twenty answered 401: Token invalid.' } },
    ],
  },
)

const SyncStatus = Type.Enum([...SYNC_STATUSES], {
  description:
    '`pending`: queued, running or waiting for a retry; `synced`; `failed` after the last attempt (or at ' +
    'once for a refusal a retry cannot change, such as a 401); `skipped`: the sync was turned off first',
  examples: ['failed'],
})

const EXAMPLE_RECORD = {
  clientId: EXAMPLE_CLIENT_ID,
  client: { email: 'ada@example.com', displayName: 'Ada Lovelace' },
  status: 'failed',
  attempts: 8,
  lastError: 'Twenty answered 503: Service Unavailable',
  lastStatus: 503,
  personId: EXAMPLE_PERSON_ID,
  companyId: EXAMPLE_COMPANY_ID,
  nextAttemptAt: null,
  syncedAt: '2026-11-21T08:15:02.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
}

export const SyncRecord = Type.Object({
  clientId: Type.String({ examples: [EXAMPLE_CLIENT_ID] }),
  client: Type.Object({
    email: Type.String({ examples: [EXAMPLE_RECORD.client.email] }),
    displayName: Type.String({ examples: [EXAMPLE_RECORD.client.displayName] }),
  }),
  status: SyncStatus,
  attempts: Type.Integer({ description: 'attempts at the latest change so far', examples: [8] }),
  lastError: Nullable(
    Type.String({
      description: 'why the last attempt failed; null once synced',
      examples: [EXAMPLE_RECORD.lastError],
    }),
  ),
  lastStatus: Nullable(
    Type.Integer({ description: 'Twenty’s HTTP status of the last failed attempt', examples: [503] }),
  ),
  personId: Nullable(
    Type.String({ description: 'the person’s id in Twenty', examples: [EXAMPLE_PERSON_ID] }),
  ),
  companyId: Nullable(
    Type.String({ description: 'the company’s id in Twenty', examples: [EXAMPLE_COMPANY_ID] }),
  ),
  nextAttemptAt: NullableTimestamp,
  syncedAt: NullableTimestamp,
  updatedAt: Timestamp,
})
export type SyncRecord = Static<typeof SyncRecord>

export const SyncQuery = Query({
  ...PageQueryFields,
  status: Type.Optional(SyncStatus),
})
export type SyncQuery = Static<typeof SyncQuery>

const SyncCounts = Type.Object(
  Object.fromEntries(SYNC_STATUSES.map((status) => [status, Type.Integer({ examples: [0] })])) as Record<
    (typeof SYNC_STATUSES)[number],
    ReturnType<typeof Type.Integer>
  >,
  { description: 'records by status, over all pages' },
)

export const SyncListAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(SyncRecord),
    meta: Type.Object(PageMetaFields),
    counts: SyncCounts,
  },
  {
    description: 'A page of sync records, most recently changed first',
    examples: [
      {
        success: true,
        data: [EXAMPLE_RECORD],
        meta: { page: 1, limit: 10, total: 1, totalPages: 1 },
        counts: { pending: 0, synced: 41, failed: 1, skipped: 0 },
      },
    ],
  },
)

export const RetryBody = Type.Object(
  {
    clientIds: Type.Optional(
      Type.Array(Type.String({ format: 'uuid', examples: [EXAMPLE_CLIENT_ID] }), {
        minItems: 1,
        maxItems: CRM_LIMITS.retryIdsMax,
        uniqueItems: true,
        description: 'only these clients’ records; without it, every failed or skipped one',
      }),
    ),
  },
  { examples: [{}, { clientIds: [EXAMPLE_CLIENT_ID] }] },
)
export type RetryBody = Static<typeof RetryBody>

export const RetryAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      queued: Type.Integer({ description: 'records queued again', examples: [3] }),
    }),
  },
  { description: 'The records queued again', examples: [{ success: true, data: { queued: 3 } }] },
)
