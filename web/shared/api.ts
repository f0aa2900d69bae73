/**
 * What every console screen needs of an API answer: the data, or an `ApiError` that says what went wrong
 * in a form the screen can show where it belongs: a 400's failing fields next to their inputs, any other
 * refusal as a message, a 401 as "sign in again" (the app listens for it and keeps where the user was).
 */

export interface FieldError {
  field: string
  message: string
}

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  readonly details: readonly FieldError[]

  constructor(status: number, code: string, message: string, details: readonly FieldError[] = []) {
    super(message)
    this.status = status
    this.code = code
    this.details = details
  }

  /** The message of each failing field, by its name without the `body.`/`query.` part. */
  fieldErrors(): Record<string, string> {
    const fields: Record<string, string> = {}
    for (const { field, message } of this.details) {
      const name = field.replace(/^(body|query|params)\.?/, '') || field
      fields[name] ??= message
    }
    return fields
  }
}

/** Fired on `window` when an API call answers 401: the session is gone. */
export const SIGNED_OUT_EVENT = 'curio:signed-out'

/** Reads a failed answer's body in either service's error shape. */
export async function errorOf(response: Response, body?: unknown): Promise<ApiError> {
  let parsed = body
  if (parsed === undefined) {
    try {
      parsed = await response.clone().json()
    } catch {
      parsed = undefined
    }
  }
  const shape = (parsed ?? {}) as {
    error?: string
    message?: string
    code?: string
    details?: FieldError[]
  }
  // Directory: {success:false, error, code, details}; platform: {statusCode, error, message, code, details}.
  const message =
    shape.message ??
    shape.error ??
    (response.status === 0 ? 'The service could not be reached' : `Request failed (${response.status})`)
  const details = Array.isArray(shape.details)
    ? shape.details.filter((d) => typeof d?.field === 'string')
    : []
  return new ApiError(response.status, shape.code ?? `HTTP_${response.status}`, message, details)
}

/**
 * Unwraps an openapi-fetch answer: its data, or throws its error. A 401 also tells the app that the
 * session has ended, unless the call asked not to (the sign-in form answers its own 401).
 */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  options: { quiet401?: boolean } = {},
): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response }
  try {
    answer = await call
  } catch (error) {
    if ((error as Error)?.name === 'AbortError') throw error
    throw new ApiError(
      0,
      'NETWORK_ERROR',
      'The service could not be reached. Check your connection and try again.',
    )
  }
  if (answer.response.ok) return answer.data as T
  const error = await errorOf(answer.response, answer.error)
  if (error.status === 401 && !options.quiet401) window.dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT))
  throw error
}

/** A message for anything a call threw. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message
  if (error instanceof Error) return error.message
  return 'Something went wrong'
}
