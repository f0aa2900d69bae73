import type { ErrorCode } from './error-codes.ts'

export type { ErrorCode } from './error-codes.ts'

/**
 * The one error a service throws to answer with a status. Each service's error handler renders it in that
 * service's body shape; anything else becomes a 500 that says only "Internal server error".
 */
export class HttpError extends Error {
  readonly status: number
  readonly code: ErrorCode
  readonly details: unknown
  /** Headers the answer carries besides the body (a 503's `Retry-After`). */
  readonly headers: Readonly<Record<string, string>> | undefined
  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    details?: unknown,
    headers?: Record<string, string>,
  ) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.code = code
    this.details = details
    this.headers = headers
  }
}

/** One failing input field, named as the caller's input names it (`name`, `clients.2.username`). */
export interface FieldIssue {
  field: string
  message: string
}

/**
 * A 400 naming the failing input fields. Services name fields as their input does; the HTTP layer adds
 * where each came from (`body.name`, `query.dateFrom`), since only the route knows. Without a `summary`
 * the message is the first field's issue.
 */
export class InputError extends HttpError {
  readonly issues: FieldIssue[]
  readonly summary: string | undefined
  constructor(issues: FieldIssue[], options: { code?: ErrorCode; summary?: string } = {}) {
    const first = issues[0]
    super(
      400,
      options.code ?? 'VALIDATION_ERROR',
      options.summary ?? (first ? `${first.field} ${first.message}` : 'Invalid request'),
      issues,
    )
    this.name = 'InputError'
    this.issues = issues
    this.summary = options.summary
  }
}

/** 400 for one input field (`invalidInput('name', 'must not be blank')`), or several. */
export function invalidInput(field: string, message: string, code?: ErrorCode): InputError
export function invalidInput(
  issues: FieldIssue[],
  options?: { code?: ErrorCode; summary?: string },
): InputError
export function invalidInput(
  fieldOrIssues: string | FieldIssue[],
  messageOrOptions?: string | { code?: ErrorCode; summary?: string },
  code?: ErrorCode,
): InputError {
  if (typeof fieldOrIssues === 'string') {
    return new InputError(
      [{ field: fieldOrIssues, message: messageOrOptions as string }],
      code ? { code } : {},
    )
  }
  return new InputError(fieldOrIssues, (messageOrOptions as { code?: ErrorCode; summary?: string }) ?? {})
}

export const badRequest = (message: string, code: ErrorCode = 'BAD_REQUEST') =>
  new HttpError(400, code, message)
export const unauthorized = (message = 'Authentication required', code: ErrorCode = 'UNAUTHORIZED') =>
  new HttpError(401, code, message)
export const forbidden = (message = 'Forbidden', code: ErrorCode = 'FORBIDDEN') =>
  new HttpError(403, code, message)
export const notFound = (message = 'Not found', code: ErrorCode = 'NOT_FOUND') =>
  new HttpError(404, code, message)
export const conflict = (message: string, code: ErrorCode = 'CONFLICT') => new HttpError(409, code, message)
