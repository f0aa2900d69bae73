import { STATUS_CODES } from 'node:http'
import { type Static, type TObject, type TProperties, type TSchema, Type } from 'typebox'
import { DATE_FILTER_PATTERN } from '../lib/dates.ts'
import { ERROR_CODES, type ErrorCode } from '../lib/error-codes.ts'

/** A timestamp in an answer: services return Dates, the serializer writes ISO 8601 strings. */
export const Timestamp = Type.Unsafe<Date | string>(
  Type.String({ format: 'date-time', examples: ['2026-11-22T10:00:00.000Z'] }),
)

export const NullableTimestamp = Type.Unsafe<Date | string | null>({
  type: ['string', 'null'],
  format: 'date-time',
  examples: ['2026-11-22T10:00:00.000Z'],
})

/** One failing field of a 400, named with where it was sent. */
export interface FieldIssue {
  field: string
  message: string
}

/** `details` of a 400: every failing field with where it was sent. */
export const FieldIssues = Type.Array(
  Type.Object({
    field: Type.String({ examples: ['body.name'] }),
    message: Type.String({ examples: ['must be at least 2 characters long'] }),
  }),
  { description: 'the failing fields of a 400' },
)

/**
 * An http(s) URL of at most `maxLength` characters: these end up in links and `<img src>`, so no other
 * scheme (`javascript:`, `data:`) is taken.
 */
export const HttpUrl = (maxLength: number, description?: string, example?: string) =>
  Type.String({
    format: 'uri',
    pattern: '^https?://',
    maxLength,
    ...(description === undefined ? {} : { description }),
    ...(example === undefined ? {} : { examples: [example] }),
  })

/** An email address as accounts take it: compared and stored lower-cased. */
export const EmailAddress = Type.String({ format: 'email', maxLength: 254, examples: ['ada@example.com'] })

/**
 * A date filter: a date (`2026-11-01`, from the start of that UTC day; as an upper bound, the whole day)
 * or a date-time (without an offset, UTC).
 */
export const DateFilter = (description: string) =>
  Type.String({
    pattern: DATE_FILTER_PATTERN,
    description,
    examples: ['2026-11-01', '2026-11-22T10:00:00Z'],
  })

/** The answer of a route that answers 204. */
export const NoContent = Type.Null({ description: 'Done: no body' })

/** A copy of a schema (TypeBox's hidden kind kept) with `changes` applied. */
function withOptions<T extends TSchema>(schema: T, changes: Record<string, unknown>): T {
  const copy = Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema))
  return Object.assign(copy, changes) as T
}

/**
 * A body as one route answers it: the shared schema with this route's description (the response's title in
 * the reference: 'The created work') and, when given, its own example.
 */
export function described<T extends TSchema>(schema: T, description: string, example?: Static<T>): T {
  return withOptions(schema, example === undefined ? { description } : { description, examples: [example] })
}

/**
 * A querystring's schema: a field with a `default` is optional to send, and so not `required` in the
 * document, while handlers still see it set (validation fills the default in first).
 */
export function Query<P extends TProperties>(properties: P, options?: Record<string, unknown>): TObject<P> {
  const schema = Type.Object(properties, options)
  const raw = schema as unknown as { required?: string[] }
  const required = (raw.required ?? []).filter(
    (key) => (properties[key] as { default?: unknown }).default === undefined,
  )
  if (required.length > 0) raw.required = required
  else delete raw.required
  return schema
}

// ---------------------------------------------------------------------------------------------------------
// Error answers: `errors(400, 401, [404, 'WORK_NOT_FOUND'])`.

/** One error answer a route documents: a code of ERROR_CODES, with its message (and `details` for a 400). */
export interface ErrorExample {
  code: ErrorCode
  message: string
  details?: readonly FieldIssue[]
}

/** A code as shorthand for its usual example, or an example of the route's own. */
export type ErrorCase = ErrorCode | ErrorExample

/** A status alone (its usual code), or a status with the codes the route answers it with. */
export type ErrorSpec = number | readonly [number, ...ErrorCase[]]

/** An error of a service, as its error handler renders it. */
export type RenderError = (error: ErrorExample & { status: number }) => unknown

/** A 400 for one invalid field: `invalidField('query.limit', 'must be at most 100')`. */
export const invalidField = (field: string, message: string): ErrorExample => ({
  code: 'VALIDATION_ERROR',
  message: `${field} ${message}`,
  details: [{ field, message }],
})

/** What each status means to a caller, said first in its description. */
const STATUS_MEANINGS: Record<number, string> = {
  400: 'Invalid input',
  401: 'Not authenticated',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Body not JSON',
  429: 'Rate limited',
  500: 'Server error',
  502: 'Upstream failure',
  504: 'Upstream timeout',
  503: 'Not ready',
}

/** The code a status is answered with when a route names none. */
const USUAL_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE',
}

/** The usual example of a code: the message the services send with it. */
const EXAMPLES: Partial<Record<ErrorCode, Omit<ErrorExample, 'code'>>> = {
  VALIDATION_ERROR: invalidField('body.name', 'must be at least 2 characters long'),
  INVALID_JSON: { message: 'Request body is not valid JSON' },
  UNAUTHORIZED: { message: 'Authentication required' },
  FORBIDDEN: { message: 'Forbidden' },
  CROSS_ORIGIN: { message: 'Cross-origin request refused' },
  PAYLOAD_TOO_LARGE: { message: 'Request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { message: 'Unsupported content type: send application/json' },
  RATE_LIMITED: { message: 'Too many requests; try again in 840 seconds' },
  INTERNAL_ERROR: { message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { message: 'Service Unavailable' },
  DATABASE_UNAVAILABLE: { message: 'The database is unavailable; try again shortly' },
  INVALID_CREDENTIALS: { message: 'Wrong email or password' },
  INVALID_TOKEN: { message: 'Invalid or expired access token' },
  INVALID_REFRESH_TOKEN: { message: 'Invalid refresh token' },
  REFRESH_TOKEN_EXPIRED: { message: 'Refresh token expired' },
  REFRESH_TOKEN_REUSED: { message: 'Refresh token was already used; this login has been signed out' },
  INVALID_API_KEY: { message: 'Invalid, expired or revoked API key' },
  ACCOUNT_GONE: { message: 'This account no longer exists' },
  API_KEY_NOT_ALLOWED: {
    message:
      'API keys cannot manage API keys, passwords, plugins, notifications or deployments: use an access token',
  },
  WRONG_PASSWORD: invalidField('body.currentPassword', 'is wrong'),
  EMAIL_TAKEN: { message: 'An account with this email already exists' },
  API_KEY_LIMIT: { message: 'At most 10 API keys per user' },
  API_KEY_NOT_FOUND: { message: 'API key not found' },
  WORK_NOT_FOUND: { message: 'Work not found' },
  WORK_EDIT_FORBIDDEN: { message: 'You may not change this work' },
  WORK_OWNER_REQUIRED: { message: 'Only the owner may do this' },
  SLUG_TAKEN: { message: 'You already have a work with the slug "cafe-guide"' },
  USER_NOT_FOUND: { message: 'User not found' },
  ALREADY_OWNER: { message: 'This account owns the work' },
  ALREADY_MEMBER: { message: 'This account is already a member of the work' },
  MEMBER_NOT_FOUND: { message: 'Member not found' },
  ACTIVITY_NOT_FOUND: { message: 'Activity entry not found' },
  PLUGIN_NOT_FOUND: { message: `No plugin has the id "openia"` },
  PLUGIN_NOT_ENABLED: { message: `The OpenAI plugin is not enabled for your account: enable it first` },
  WORK_PLUGIN_NOT_ENABLED: { message: `The OpenAI plugin is not enabled for this work: enable it first` },
  CAPABILITY_NOT_OFFERED: { message: `The OpenAI plugin does not offer "deploy"; it offers ai-provider` },
  PLUGIN_NOT_CONFIGURED: {
    message: `The OpenAI plugin is missing a required setting (apiKey): set it with PATCH /api/plugins/openai/settings`,
  },
  NOT_AN_AI_PROVIDER: { message: `The GitHub plugin is not an AI provider: it has no models` },
  PROVIDER_CREDENTIALS_REJECTED: {
    message: `OpenAI: The provider rejected the API key (401): Incorrect API key provided`,
  },
  PROVIDER_CREDITS_EXHAUSTED: {
    message: `OpenAI: The provider has no credits left (429): You exceeded your current quota`,
  },
  PROVIDER_ERROR: {
    message: `OpenAI: The provider failed (500): The server had an error while processing your request`,
  },
  PROVIDER_ADDRESS_BLOCKED: {
    message: `OpenAI: The provider's address is not allowed: 10.0.0.5 is a private address, not a public one`,
  },
  PROVIDER_TIMEOUT: { message: `OpenAI: The provider did not answer within 120000 ms` },
  NO_AI_PROVIDER: {
    message: `No AI provider is active for "Café Guide": enable one with POST /api/works/:workId/plugins/:pluginId/enable and {"activeCapability": "ai-provider"}`,
  },
  GENERATION_RUNNING: { message: `A generation is already running for this work` },
  GENERATION_NOT_RUNNING: { message: `No generation is running for this work` },
  WEBHOOK_NOT_FOUND: { message: 'Webhook subscription not found' },
  DELIVERY_NOT_FOUND: { message: 'Delivery not found' },
  WEBHOOK_URL_REFUSED: { message: 'body.url 10.0.0.5 is a private address, not a public one' },
  WEBHOOK_LIMIT: { message: 'At most 25 active webhook subscriptions per account' },
  WEBHOOK_RESUME_UNSUPPORTED: { message: 'Resuming a subscription is not supported: create a new one' },
  WEBHOOK_FAILED: { message: 'A failed subscription cannot be changed: create a new one' },
  WEBHOOK_NOT_ACTIVE: { message: 'The subscription is paused: it receives no deliveries' },
  DEPLOY_PROVIDER_NOT_FOUND: { message: 'No deployment provider has the id "netlify"' },
  DEPLOY_NOT_CONFIGURED: {
    message: 'Vercel is not configured for this work: enable the vercel plugin with a token',
  },
  DEPLOY_TOKEN_INVALID: { message: 'Vercel rejected the token: Not authorized' },
  DEPLOY_PROVIDER_UNAVAILABLE: { message: 'Vercel could not be asked: Vercel answered 503' },
  GIT_HOST_NOT_CONFIGURED: {
    message: 'GitHub is not configured for this work: enable the github plugin with a token',
  },
  GIT_TOKEN_REJECTED: {
    message: 'GitHub rejected the token: reconnect GitHub with a token that has the repo and workflow scopes',
  },
  DEPLOY_STEP_FAILED: {
    message:
      'Deploy step "set the required secrets" failed: GitHub answered 422: Bad request - encrypted_value is not valid',
  },
  ENCRYPTION_KEY_MISSING: {
    message:
      'PLATFORM_ENCRYPTION_KEY is not set on this production instance, so it cannot store secrets: set it (64 hex characters) and restart',
  },
  NOTIFICATION_NOT_FOUND: { message: 'Notification not found' },
  NOTIFICATION_PERSISTENT: { message: 'Persistent notifications cannot be dismissed' },
  ACCOUNT_INACTIVE: { message: 'This account is inactive' },
  ACCOUNT_SUSPENDED: { message: 'This account is suspended' },
  ACCOUNT_BANNED: { message: 'This account is banned' },
  USERNAME_TAKEN: { message: 'This username is already taken' },
  SELF_DELETION: { message: 'You cannot delete your own account' },
  ROLE_NOT_FOUND: { message: 'Role not found' },
  ROLE_EXISTS: { message: 'A role named "Content editor" already exists' },
  ADMIN_ROLE_PROTECTED: { message: 'The admin role cannot be deleted' },
  INVALID_PERMISSIONS: {
    message: 'Invalid permissions: items.fly',
    details: [{ field: 'body.permissions', message: 'unknown permissions: items.fly' }],
  },
  CLIENT_NOT_FOUND: { message: 'Client not found' },
  CLIENT_EXISTS: { message: 'A client with this email already exists' },
  CATEGORY_NOT_FOUND: { message: 'Category not found' },
  CATEGORY_ID_EXISTS: { message: 'A category with the id "ai-tools" already exists; give another id' },
  CATEGORY_NAME_EXISTS: { message: 'A category with this name already exists' },
  UNKNOWN_CATEGORY_IDS: {
    message: 'Unknown category ids: robots',
    details: [{ field: 'body.categoryIds', message: 'no category has the id "robots"' }],
  },
  GIT_NOT_CONFIGURED: { message: 'Data repository or Git token not configured' },
  GIT_HOST_ERROR: { message: 'The Git host could not be reached while reading the repository' },
  GIT_AUTH_FAILED: { message: 'The Git host refused the token' },
  USER_ROLE_PROTECTED: {
    message: 'The user role, which every new account gets, cannot be deleted (it can be made inactive)',
  },
  ITEM_NOT_FOUND: { message: 'Item not found' },
  ITEM_SLUG_EXISTS: {
    message: 'An item with the slug "blue-bottle-coffee" already exists; give another slug',
  },
  ITEM_ALREADY_PUBLISHED: { message: 'The item is already published' },
  ITEM_ALREADY_REJECTED: { message: 'The item is already rejected' },
  COMMENTS_CLOSED: { message: 'This site does not take comments at the moment' },
  SUBMISSIONS_CLOSED: { message: 'This site does not take submissions at the moment' },
  CATEGORY_IN_USE: { message: 'Items are in this category (12): move them to another category first' },
  FAVORITE_EXISTS: { message: 'This item is already in your favorites' },
  FAVORITE_NOT_FOUND: { message: 'This item is not in your favorites' },
  FEATURED_ITEM_NOT_FOUND: { message: 'No featured item has this id' },
  FEATURED_ITEMS_UNAVAILABLE: { message: 'Failed to fetch featured items' },
  COLLECTION_NOT_FOUND: { message: 'No collection has this id' },
  COLLECTION_SLUG_EXISTS: {
    message: 'A collection with the slug "best-coffee-in-lisbon" already exists; give another slug',
  },
  UNKNOWN_ITEM_IDS: {
    message: 'Unknown item ids: 0f8c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f',
    details: [
      { field: 'body.itemIds', message: 'no item has the id "0f8c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f"' },
    ],
  },
  COLLECTIONS_UNAVAILABLE: { message: 'Failed to check collections existence' },
  COMMENT_NOT_FOUND: { message: 'Comment not found' },
  COMMENT_ALREADY_APPROVED: { message: 'The comment is already approved' },
  COMMENT_ALREADY_REJECTED: { message: 'The comment is already rejected' },
  CONTACT_MESSAGE_NOT_FOUND: { message: 'Contact message not found' },
  SPONSOR_AD_NOT_FOUND: { message: 'Sponsor ad not found' },
  SPONSOR_AD_DUPLICATE: {
    message: 'You already have a sponsor ad for this item awaiting payment, in review or running',
  },
  SPONSOR_AD_INVALID_TRANSITION: { message: 'A sponsor ad in status rejected cannot be cancelled' },
  PAYMENT_NOT_RECEIVED: {
    message: 'The ad has not been paid for; send forceApprove: true to approve it without payment',
  },
  PAYMENT_NOT_CONFIGURED: {
    message: 'Sponsor ads cannot be paid for yet: stripe checkout is not configured on this site',
  },
  PAYMENT_PROVIDER_ERROR: {
    message: 'The payment provider could not start the checkout; please try again later',
  },
  CLIENT_PROFILE_REQUIRED: { message: 'Only users with a client profile can report content' },
  REPORT_NOT_FOUND: { message: 'Report not found' },
  REPORT_DUPLICATE: { message: 'You have already reported this content' },
  REPORT_OWNER_NOT_FOUND: {
    message: 'The owner of the reported item could not be found, so no user-level action can be taken',
  },
  LOCATION_DISABLED: { message: 'Location features are disabled on this site' },
  GEOCODING_NOT_CONFIGURED: { message: 'No geocoding provider is configured' },
  GEOCODING_FAILED: {
    message:
      'The geocoding providers could not answer (mapbox: timed out; google: rate limited); try again later',
  },
  GEOCODE_NO_RESULT: { message: 'No location found for this address' },
  LOCATION_INDEX_BUSY: { message: 'A location index rebuild is already running (412 of 1,500 items done)' },
  TAG_NOT_FOUND: { message: 'Tag not found' },
  TAG_NAME_EXISTS: { message: 'A tag with this name already exists' },
  TAG_ID_EXISTS: { message: 'A tag with the id "open-source" already exists; give another id' },
  TAG_IN_USE: { message: 'This tag is in use: remove it from its 3 items first' },
  COMPANY_NOT_FOUND: { message: 'Company not found' },
  COMPANY_NAME_EXISTS: { message: 'A company with this name already exists' },
  COMPANY_SLUG_EXISTS: { message: 'A company with the slug "acme" already exists; give another slug' },
  COMPANY_IN_USE: {
    message: 'This company is in use: move its 3 items to another company first, or deactivate it',
  },
  GIT_REPO_NOT_FOUND: { message: 'The data repository was not found on the Git host' },
  GIT_FILE_INVALID: { message: 'categories.json in the data repository is not a JSON array of {id, name}' },
  GIT_FILE_CHANGED: { message: 'categories.json kept changing in the data repository; try again' },
  CRM_URL_REFUSED: {
    message: 'body.baseUrl 10.0.0.5 is a private address, not a public one',
    details: [{ field: 'body.baseUrl', message: '10.0.0.5 is a private address, not a public one' }],
  },
  CRM_NOT_CONFIGURED: {
    message: 'body.apiKey is required to turn the sync on: no API key is saved',
    details: [{ field: 'body.apiKey', message: 'is required to turn the sync on: no API key is saved' }],
  },
  CRM_NOT_ENABLED: { message: 'The CRM sync is off: turn it on with PUT /api/admin/crm/config first' },
}

/** What a 429 answer carries besides its body (every answer of a limited route has the X-RateLimit ones). */
const RATE_LIMIT_HEADERS = {
  'Retry-After': { type: 'integer', description: 'seconds until the window resets', examples: [840] },
  'X-RateLimit-Limit': { type: 'integer', description: 'requests allowed per window', examples: [5] },
  'X-RateLimit-Remaining': { type: 'integer', description: 'requests left in the window', examples: [0] },
  'X-RateLimit-Reset': {
    type: 'integer',
    description: 'when the window resets, in Unix seconds',
    examples: [1795860000],
  },
}

/** What a 503 `DATABASE_UNAVAILABLE` carries besides its body. */
const OUTAGE_HEADERS = {
  'Retry-After': {
    type: 'integer',
    description: 'seconds to wait before trying again while the database cannot be reached',
    examples: [5],
  },
}

/**
 * A service's `errors(…)`: the response entries of the error statuses a route can answer, each with its
 * own description and examples in the service's shape, all referring to the one error schema (`$id`).
 *
 * - `errors(401, 403)`: a status answers with its usual code (`UNAUTHORIZED`, `FORBIDDEN`, …).
 * - `errors([404, 'WORK_NOT_FOUND'])`: the codes the route answers that status with, one example each.
 * - `errors([400, 'ALREADY_OWNER'])`: a 400 always documents `VALIDATION_ERROR` first, then the codes named.
 * - `errors([400, invalidField('query.limit', 'must be at most 100')])`, `errors([409, { code, message }])`:
 *   an example of the route's own.
 *
 * A 429 declares the rate-limit headers. `serviceExamples` gives a code the message this service sends with
 * it. The entries are typed as the error schema, as the handlers see it.
 */
export function errorResponses<T extends TSchema & { $id?: string }>(
  body: T,
  render: RenderError,
  serviceExamples: Partial<Record<ErrorCode, Omit<ErrorExample, 'code'>>> = {},
) {
  const id = body.$id
  if (!id) throw new Error('An error schema needs an $id: it is shared by every error answer')
  const exampleOf = (entry: ErrorCase): ErrorExample => {
    if (typeof entry !== 'string') return entry
    // The code last: a usual example may be a 400 made with invalidField.
    return {
      ...(serviceExamples[entry] ?? EXAMPLES[entry] ?? { message: ERROR_CODES[entry][1] }),
      code: entry,
    }
  }
  return (...specs: ErrorSpec[]): Record<number, T> => {
    const entries: Record<number, unknown> = {}
    for (const spec of specs) {
      const [status, ...named] = typeof spec === 'number' ? [spec] : spec
      if (!(status >= 400 && status <= 599)) throw new Error(`errors(${status}): only error statuses`)
      const cases = named.map(exampleOf)
      if (status === 400 && !cases.some((example) => example.code === 'VALIDATION_ERROR')) {
        cases.unshift(exampleOf('VALIDATION_ERROR'))
      }
      // Any route may find the database away: a 503 of its own reasons lists that one too.
      if (
        status === 503 &&
        cases.length > 0 &&
        !cases.some((example) => example.code === 'DATABASE_UNAVAILABLE')
      ) {
        cases.push(exampleOf('DATABASE_UNAVAILABLE'))
      }
      const usual = USUAL_CODES[status]
      if (cases.length === 0) {
        if (!usual)
          throw new Error(`errors(${status}): name the codes it answers with, as [${status}, 'CODE']`)
        cases.push(exampleOf(usual))
      }
      const examples: Record<string, { summary: string; value: unknown }> = {}
      for (const example of cases) {
        // A code shown twice is told apart by the field its example names.
        let key: string = example.code
        if (key in examples && example.details?.[0]) key = `${example.code} (${example.details[0].field})`
        for (let n = 2; key in examples; n++) key = `${example.code} (${n})`
        examples[key] = { summary: ERROR_CODES[example.code][1], value: render({ status, ...example }) }
      }
      const codes = [...new Set(cases.map((example) => example.code))]
      const meaning = STATUS_MEANINGS[status] ?? STATUS_CODES[status] ?? 'Error'
      entries[status] = {
        description: `${meaning}. ${codes.map((code) => `\`${code}\`: ${ERROR_CODES[code][1]}`).join(' ')}`,
        ...(status === 429 ? { headers: RATE_LIMIT_HEADERS } : {}),
        ...(codes.includes('DATABASE_UNAVAILABLE') ? { headers: OUTAGE_HEADERS } : {}),
        content: { 'application/json': { schema: Type.Ref(id), examples } },
      }
    }
    return entries as Record<number, T>
  }
}

// ---------------------------------------------------------------------------------------------------------
// The probes every service answers.

const ReadinessStatus = Type.Enum(['ok', 'degraded', 'unavailable'])

const ReadinessCheckBody = Type.Object({ status: ReadinessStatus, detail: Type.Optional(Type.String()) })

const ReadinessBody = Type.Object({
  status: ReadinessStatus,
  checks: Type.Object({
    database: ReadinessCheckBody,
    jobs: ReadinessCheckBody,
    redis: Type.Optional(ReadinessCheckBody),
  }),
})

export const ReadyAnswer = described(ReadinessBody, 'Ready: what was checked and how it answered', {
  status: 'degraded',
  checks: {
    database: { status: 'ok' },
    jobs: { status: 'ok', detail: 'job queue started' },
    redis: {
      status: 'degraded',
      detail: 'Redis unreachable since 2025-01-01T12:00:00.000Z: limits are counted per instance',
    },
  },
})

export const NotReadyAnswer = described(
  ReadinessBody,
  'Not ready: the checks that failed say `unavailable`',
  {
    status: 'unavailable',
    checks: { database: { status: 'unavailable' }, jobs: { status: 'ok', detail: 'job queue started' } },
  },
)

export const HealthAnswer = Type.Object(
  { status: Type.String({ examples: ['ok'] }) },
  { description: 'The process serves requests', examples: [{ status: 'ok' }] },
)

const ROOT_PROPERTIES = {
  name: Type.String(),
  service: Type.String(),
  version: Type.String(),
  links: Type.Object({
    docs: Type.String(),
    openapi: Type.String(),
    health: Type.String(),
    ready: Type.String(),
  }),
  clients: Type.Record(Type.String(), Type.String(), {
    description:
      'Where programs read this service besides its REST API: `guide` is the path of the guide to them in ' +
      'the Curio repository (docs/clients.md); the others are paths on this service, or the typed ' +
      'client package’s name',
  }),
}

const ROOT_OPTIONS = {
  description: 'The service, its version, and where its reference, probes and machine clients are',
  examples: [
    {
      name: 'Curio platform API',
      service: 'platform',
      version: '0.1.0',
      links: { docs: '/docs', openapi: '/openapi.json', health: '/healthz', ready: '/readyz' },
      clients: { guide: 'docs/clients.md', typedClient: '@curio/client', mcp: '/mcp' },
    },
  ],
}

export const RootAnswer = Type.Object(ROOT_PROPERTIES, ROOT_OPTIONS)

/** The providers a demo instance reaches through local stand-ins (DEMO_STAND_INS). */
const DemoAnswer = Type.Object(
  {
    standIns: Type.Array(
      Type.Object({
        provider: Type.String({ description: 'the plugin id: `openai`, `github` or `vercel`' }),
        name: Type.String({ description: 'the provider’s name, e.g. `OpenAI`' }),
        url: Type.String({ description: 'the local stand-in’s API address, in place of the provider’s' }),
      }),
    ),
  },
  {
    description:
      'Only on an instance started by `npm run demo` (`DEMO_STAND_INS`, refused in production): the ' +
      'providers it reaches through local stand-ins instead of the real services, so that a console can ' +
      'say so on every screen',
    examples: [
      {
        standIns: [
          { provider: 'openai', name: 'OpenAI', url: 'http://127.0.0.1:41001/v1' },
          { provider: 'github', name: 'GitHub', url: 'http://127.0.0.1:41002' },
          { provider: 'vercel', name: 'Vercel', url: 'http://127.0.0.1:41003' },
        ],
      },
    ],
  },
)

/** `GET /` of a service that may run on stand-ins (the platform): RootAnswer, and `demo` when it does. */
export const RootAnswerWithDemo = Type.Object(
  { ...ROOT_PROPERTIES, demo: Type.Optional(DemoAnswer) },
  ROOT_OPTIONS,
)
