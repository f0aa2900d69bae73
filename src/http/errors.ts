import type { FastifyError } from 'fastify'
import { DatabaseUnavailableError, databaseUnavailable } from '../db/errors.ts'
import { type ErrorCode, HttpError, InputError } from '../lib/errors.ts'
import { clip } from '../lib/values.ts'

/** An error reduced to what may be shown to a client. */
export interface PublicError {
  status: number
  code: ErrorCode
  message: string
  details?: unknown
  /** Headers the answer carries (a 503's `Retry-After`). */
  headers?: Readonly<Record<string, string>>
}

interface ValidationIssue {
  instancePath: string
  message?: string
  keyword: string
  params: Record<string, unknown>
  /** The schema holding the failing keyword (ajv's `verbose`). */
  parentSchema?: { examples?: unknown[]; format?: string; description?: string }
}

/** Formats in words: a client reads what to send, never a regular expression. */
const FORMATS: Record<string, string> = {
  'date-time': 'an ISO 8601 date-time such as 2026-11-22T10:00:00Z',
  date: 'a date such as 2026-11-22',
  time: 'a time such as 10:00:00',
  email: 'an email address',
  uri: 'an absolute URL',
  url: 'an absolute URL',
  uuid: 'a UUID',
  hostname: 'a host name',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  null: 'null',
}

const typeWords = (type: unknown) =>
  (Array.isArray(type) ? type : [type]).map((name) => TYPE_WORDS[String(name)] ?? String(name)).join(' or ')

const plural = (count: unknown, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`
const listed = (values: unknown[]) => values.map((value) => JSON.stringify(value)).join(', ')

/** One ajv issue in words. */
function messageOf(issue: ValidationIssue): string {
  const p = issue.params
  switch (issue.keyword) {
    case 'required':
      return 'is required'
    case 'type':
      return `must be ${typeWords(p.type)}`
    case 'enum':
      return `must be one of ${listed(p.allowedValues as unknown[])}`
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`
    case 'format':
      return `must be ${FORMATS[String(p.format)] ?? `in the ${String(p.format)} format`}`
    case 'pattern': {
      const examples = issue.parentSchema?.examples?.filter((example) => typeof example === 'string')
      return examples?.length ? `must look like ${examples.join(' or ')}` : 'is not in the expected form'
    }
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${plural(p.limit, 'character')} long`
    case 'maxLength':
      return `must be at most ${plural(p.limit, 'character')} long`
    case 'minimum':
      return `must be at least ${p.limit}`
    case 'maximum':
      return `must be at most ${p.limit}`
    case 'exclusiveMinimum':
      return `must be greater than ${p.limit}`
    case 'exclusiveMaximum':
      return `must be less than ${p.limit}`
    case 'minItems':
      return `must have at least ${plural(p.limit, 'item')}`
    case 'maxItems':
      return `must have at most ${plural(p.limit, 'item')}`
    case 'uniqueItems':
      return 'must not repeat an item'
    case 'minProperties':
      return `must have at least ${plural(p.limit, 'field')}`
    case 'multipleOf':
      return `must be a multiple of ${p.multipleOf}`
    default:
      return issue.message ?? 'is invalid'
  }
}

type FieldDetail = { field: string; message: string }

/**
 * ajv's issues by the field they concern, in the order ajv found them: every issue of the first `keep`
 * fields, and the names of the fields after them. A 1 MB body can hold half a million issues, so those
 * fields are only named (once for a run of issues of the same field, as ajv reports them), never grouped.
 */
function issuesByField(
  context: string | undefined,
  issues: readonly ValidationIssue[],
  keep = Number.POSITIVE_INFINITY,
): { byField: Map<string, ValidationIssue[]>; fields: string[] } {
  const byField = new Map<string, ValidationIssue[]>()
  const after: string[] = []
  for (const issue of issues) {
    const field = fieldOf(context, issue)
    const list = byField.get(field)
    if (list) list.push(issue)
    else if (byField.size < keep) byField.set(field, [issue])
    else if (after.at(-1) !== field) after.push(field)
  }
  return { byField, fields: [...byField.keys(), ...after] }
}

/**
 * One field's issues in one message: a failed union (`anyOf`) says what each branch wanted
 * (`must be one of "a", "b"`, `must be a string or null`) instead of one line per branch.
 */
function fieldMessage(fieldIssues: readonly ValidationIssue[]): string {
  const concrete = fieldIssues.filter((issue) => issue.keyword !== 'anyOf' && issue.keyword !== 'oneOf')
  if (concrete.length === 0) return 'does not match any allowed form'
  const union = concrete.length < fieldIssues.length
  const constants = concrete
    .filter((issue) => issue.keyword === 'const')
    .map((issue) => issue.params.allowedValue)
  const enums = concrete
    .filter((issue) => issue.keyword === 'enum')
    .flatMap((issue) => issue.params.allowedValues as unknown[])
  const types = concrete.filter((issue) => issue.keyword === 'type').flatMap((issue) => issue.params.type)
  const messages: string[] = []
  if (union && (constants.length > 0 || enums.length > 0)) {
    messages.push(`must be one of ${listed([...new Set([...constants, ...enums])])}`)
  }
  if (union && types.length > 0) messages.push(`must be ${typeWords([...new Set(types)])}`)
  for (const issue of concrete) {
    if (union && ['const', 'enum', 'type'].includes(issue.keyword)) continue
    messages.push(messageOf(issue))
  }
  return [...new Set(messages)].join('; ')
}

/** ajv's issues reduced to one message per field. */
export function validationDetails(
  context: string | undefined,
  issues: readonly ValidationIssue[],
): FieldDetail[] {
  return [...issuesByField(context, issues).byField].map(([field, fieldIssues]) => ({
    field,
    message: fieldMessage(fieldIssues),
  }))
}

/** The most entries `details` of a 400 holds: past it, the last entry counts the fields not listed. */
export const MAX_LISTED_FIELDS = 20
/** How much of a field's name an error repeats: a name can echo an object key of any length. */
export const MAX_FIELD_LENGTH = 120
/**
 * How much of one message an error repeats: the longest this API writes (an enum's allowed values) is
 * under 700 characters; a service's message can quote input.
 */
export const MAX_MESSAGE_LENGTH = 1000
/** The characters the listed fields and messages take together, so that a 400 stays a few KB. */
const LISTED_CHARACTERS = 3000

const counted = (count: number) => count.toLocaleString('en-US')

/**
 * What fields have in common: their parent path (`body.ids` for `body.ids.20` and `body.ids.21`), else
 * the first one's location (`body`).
 */
function parentOf(fields: readonly string[]): string {
  const first = fields[0]!
  let prefix = first.slice(0, first.lastIndexOf('.') + 1)
  for (const field of fields) {
    while (prefix !== '' && !field.startsWith(prefix)) {
      prefix = prefix.slice(0, prefix.lastIndexOf('.', prefix.length - 2) + 1)
    }
    if (prefix === '') break
  }
  return prefix === '' ? first.split('.', 1)[0]! : prefix.slice(0, -1)
}

/**
 * A 400's message and details for the failing `fields` (each one's detail made only if shown). Details:
 * each field's name and message cut to a bounded length, at most MAX_LISTED_FIELDS entries and
 * LISTED_CHARACTERS characters; when some are left out, the last entry names where they are and how many
 * (`{field: 'body.ids', message: 'holds 19,982 more invalid fields, not listed'}`). The message: the
 * service's own (`given`), else the one field's issue, else how many fail, those listed, and how many more.
 */
function invalidFields(
  fields: readonly string[],
  detailOf: (index: number) => FieldDetail,
  given?: string,
): { message: string; details: FieldDetail[] } {
  const listed: FieldDetail[] = []
  let characters = 0
  for (let index = 0; index < fields.length && listed.length < MAX_LISTED_FIELDS; index++) {
    const detail = detailOf(index)
    const entry = {
      field: clip(detail.field, MAX_FIELD_LENGTH),
      message: clip(detail.message, MAX_MESSAGE_LENGTH),
    }
    // As written in the answer: a control character in a key takes six.
    characters += JSON.stringify(entry.field).length + JSON.stringify(entry.message).length
    if (listed.length > 0 && characters > LISTED_CHARACTERS) break
    listed.push(entry)
  }
  // Room for the entry that counts the rest.
  if (listed.length === MAX_LISTED_FIELDS && fields.length > MAX_LISTED_FIELDS) listed.pop()
  const details = [...listed]
  const rest = fields.length - listed.length
  if (rest > 0) {
    details.push({
      field: clip(parentOf(fields.slice(listed.length)), MAX_FIELD_LENGTH),
      message: `holds ${counted(rest)} more invalid field${rest === 1 ? '' : 's'}, not listed`,
    })
  }
  if (given !== undefined) return { message: clip(given, MAX_MESSAGE_LENGTH), details }
  if (fields.length === 0) return { message: 'Invalid request', details }
  if (fields.length === 1) return { message: `${listed[0]!.field} ${listed[0]!.message}`, details }
  const named = listed.map((detail) => detail.field).join(', ')
  const message = `${counted(fields.length)} fields are invalid: ${named}${rest > 0 ? ` and ${counted(rest)} more` : ''}`
  return { message, details }
}

/** `body.email`, `query.limit`: the failing field as a client names it. */
function fieldOf(context: string | undefined, issue: ValidationIssue): string {
  const where = context === 'querystring' ? 'query' : (context ?? 'body')
  // A JSON pointer (`/ids/3`), its `~1` and `~0` escaping `/` and `~`; one replacement each, as a 400 can
  // hold an issue per item of a large array.
  let field = where + issue.instancePath.replaceAll('/', '.')
  if (field.includes('~')) field = field.replaceAll('~1', '/').replaceAll('~0', '~')
  if (issue.keyword === 'required' && typeof issue.params.missingProperty === 'string') {
    field += `.${issue.params.missingProperty}`
  }
  return field
}

// Fastify's own client errors, with messages that name no internals.
const FASTIFY_CLIENT_ERRORS: Record<string, (error: FastifyError) => PublicError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => ({
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Unsupported content type: send application/json',
  }),
  FST_ERR_CTP_BODY_TOO_LARGE: () => ({
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: 'Request body is too large',
  }),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => ({
    status: 400,
    code: 'INVALID_JSON',
    message: 'Request body is empty but the content type is application/json',
  }),
  FST_ERR_CTP_INVALID_JSON_BODY: () => ({
    status: 400,
    code: 'INVALID_JSON',
    message: 'Request body is not valid JSON',
  }),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => ({
    status: 400,
    code: 'BAD_REQUEST',
    message: 'Content-Length does not match the body',
  }),
  FST_ERR_BAD_URL: () => ({
    status: 400,
    code: 'BAD_REQUEST',
    message: 'The URL is not valid: a percent-encoded sequence does not decode',
  }),
  FST_ERR_MAX_PARAM_LENGTH: () => ({
    status: 414,
    code: 'URI_TOO_LONG',
    message: 'A path segment of the URL is too long (over 100 characters)',
  }),
  FST_ERR_CTP_INVALID_TYPE: () => ({
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'The content type is not valid: send application/json',
  }),
}

/**
 * What a connection-level error answers (written to the socket by the service's client error handler), or
 * nothing when the client is gone.
 */
export function clientErrorAnswer(error: Error & { code?: string }): PublicError | undefined {
  switch (error.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request was not sent completely in time' }
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'HEADERS_TOO_LARGE', message: 'The request headers are too large' }
    case 'HPE_URI_TOO_LONG':
      return { status: 414, code: 'URI_TOO_LONG', message: 'The URL is too long' }
    default:
      return { status: 400, code: 'BAD_REQUEST', message: 'The request is not valid HTTP' }
  }
}

/** Where a route's input field came from: `name` → `body.name`, `limit` → `query.limit`. */
export type FieldLocator = (field: string) => string

type PartSchema = { properties?: Record<string, unknown> } | undefined

/**
 * A locator reading the route's declared schemas: a field belongs to the part (params, query, body) that
 * declares its first segment. A field no part declares keeps its name.
 */
export function fieldLocator(
  schema:
    | {
        params?: unknown
        querystring?: unknown
        body?: unknown
      }
    | undefined,
): FieldLocator {
  const parts: [string, PartSchema][] = [
    ['params', schema?.params as PartSchema],
    ['query', schema?.querystring as PartSchema],
    ['body', schema?.body as PartSchema],
  ]
  return (field) => {
    const top = field.split('.', 1)[0]!
    const part = parts.find(([, declared]) => declared?.properties && top in declared.properties)
    return part ? `${part[0]}.${field}` : field
  }
}

const unlocated: FieldLocator = (field) => field

export function toPublicError(
  error: FastifyError | Error | unknown,
  locate: FieldLocator = unlocated,
): PublicError {
  if (error instanceof InputError) {
    const fields = error.issues.map((issue) => locate(issue.field))
    const { message, details } = invalidFields(
      fields,
      (index) => ({ field: fields[index]!, message: error.issues[index]!.message }),
      error.summary,
    )
    return { status: 400, code: error.code, message, details }
  }
  if (error instanceof HttpError) {
    return {
      status: error.status,
      code: error.code,
      message: error.message,
      details: error.details,
      ...(error.headers ? { headers: error.headers } : {}),
    }
  }
  // Drizzle wraps the driver's error: a lost database is a 503 wherever the request was.
  if (databaseUnavailable(error) !== undefined) {
    const { status, code, message, headers } = new DatabaseUnavailableError('')
    return { status, code, message, ...(headers ? { headers } : {}) }
  }
  if (!(error instanceof Error))
    return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error' }
  const fastifyError = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string }
  if (Array.isArray(fastifyError.validation)) {
    const { byField, fields } = issuesByField(
      fastifyError.validationContext,
      fastifyError.validation,
      MAX_LISTED_FIELDS,
    )
    const { message, details } = invalidFields(fields, (index) => ({
      field: fields[index]!,
      message: fieldMessage(byField.get(fields[index]!)!),
    }))
    return { status: 400, code: 'VALIDATION_ERROR', message, details }
  }
  const known = fastifyError.code ? FASTIFY_CLIENT_ERRORS[fastifyError.code] : undefined
  if (known) return known(fastifyError)
  // A JSON syntax error from the body parser carries statusCode 400 and no Fastify code.
  if (fastifyError.statusCode === 400 && error instanceof SyntaxError) {
    return { status: 400, code: 'INVALID_JSON', message: 'Request body is not valid JSON' }
  }
  // The client went away while its body was being read.
  if (fastifyError.code === 'ECONNRESET') {
    return { status: 400, code: 'BAD_REQUEST', message: 'The client closed the connection mid-request' }
  }
  const status = fastifyError.statusCode
  if (typeof status === 'number' && status >= 400 && status < 500 && fastifyError.code?.startsWith('FST_')) {
    return { status, code: 'BAD_REQUEST', message: fastifyError.message }
  }
  return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error' }
}
