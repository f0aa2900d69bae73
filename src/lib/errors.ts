/**
 * The one error a service throws to answer with a status. Each service's error handler renders it in that
 * service's body shape; anything else becomes a 500 that says only "Internal server error".
 */
export class HttpError extends Error {
  readonly status: number
  readonly code: string
  readonly details: unknown
  constructor(status: number, code: string, message: string, details?: unknown) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.code = code
    this.details = details
  }
}

export const badRequest = (message: string, details?: unknown, code = 'BAD_REQUEST') =>
  new HttpError(400, code, message, details)
export const unauthorized = (message = 'Authentication required', code = 'UNAUTHORIZED') =>
  new HttpError(401, code, message)
export const forbidden = (message = 'Forbidden', code = 'FORBIDDEN') => new HttpError(403, code, message)
export const notFound = (message = 'Not found', code = 'NOT_FOUND') => new HttpError(404, code, message)
export const conflict = (message: string, code = 'CONFLICT') => new HttpError(409, code, message)
