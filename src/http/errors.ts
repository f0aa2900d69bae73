import type { FastifyError } from 'fastify'
import { HttpError, InputError } from '../lib/errors.ts'

/** An error reduced to what may be shown to a client. */
export interface PublicError {
  status: number
  code: string
  message: string
  details?: unknown
}

interface ValidationIssue {
  instancePath: string
  message?: string
  keyword: string
  params: Record<string, unknown>
}

/** `body.email`, `query.limit`: the failing field as a client names it. */
function fieldOf(context: string | undefined, issue: ValidationIssue): string {
  const path = issue.instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (issue.keyword === 'required' && typeof issue.params.missingProperty === 'string') {
    path.push(issue.params.missingProperty)
  }
  const where = context === 'querystring' ? 'query' : (context ?? 'body')
  return [where, ...path].join('.')
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
    const details = error.issues.map((issue) => ({ field: locate(issue.field), message: issue.message }))
    const first = details[0]
    const message = error.summary ?? (first ? `${first.field} ${first.message}` : error.message)
    return { status: 400, code: error.code, message, details }
  }
  if (error instanceof HttpError) {
    return { status: error.status, code: error.code, message: error.message, details: error.details }
  }
  if (!(error instanceof Error))
    return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error' }
  const fastifyError = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string }
  if (Array.isArray(fastifyError.validation)) {
    const fields = fastifyError.validation.map((issue) => ({
      field: fieldOf(fastifyError.validationContext, issue),
      message: issue.message ?? 'is invalid',
    }))
    const first = fields[0]
    return {
      status: 400,
      code: 'VALIDATION_ERROR',
      message: first ? `${first.field} ${first.message}` : 'Invalid request',
      details: fields,
    }
  }
  const known = fastifyError.code ? FASTIFY_CLIENT_ERRORS[fastifyError.code] : undefined
  if (known) return known(fastifyError)
  // A JSON syntax error from the body parser carries statusCode 400 and no Fastify code.
  if (fastifyError.statusCode === 400 && error instanceof SyntaxError) {
    return { status: 400, code: 'INVALID_JSON', message: 'Request body is not valid JSON' }
  }
  const status = fastifyError.statusCode
  if (typeof status === 'number' && status >= 400 && status < 500 && fastifyError.code?.startsWith('FST_')) {
    return { status, code: 'BAD_REQUEST', message: fastifyError.message }
  }
  return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error' }
}
