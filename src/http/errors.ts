import type { FastifyError } from 'fastify'
import { HttpError } from '../lib/errors.ts'

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

export function toPublicError(error: FastifyError | Error | unknown): PublicError {
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
