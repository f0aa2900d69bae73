import { HttpError } from '../lib/errors.ts'

/** Postgres error codes the services turn into answers. */
export const PG_UNIQUE_VIOLATION = '23505'
export const PG_FOREIGN_KEY_VIOLATION = '23503'

/** The constraint a violation of `code` broke, or undefined when the error is something else. */
function violationOf(error: unknown, code: string): { constraint: string } | undefined {
  let current: unknown = error
  // Drizzle wraps driver errors; the Postgres code sits on the cause.
  for (let depth = 0; depth < 3 && current && typeof current === 'object'; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown }
    if (candidate.code === code) {
      return { constraint: typeof candidate.constraint === 'string' ? candidate.constraint : '' }
    }
    current = candidate.cause
  }
  return undefined
}

/** The constraint a unique violation broke, or undefined when the error is something else. */
export const uniqueViolation = (error: unknown) => violationOf(error, PG_UNIQUE_VIOLATION)

/** The foreign key a write broke (a row still referenced, or a reference to nothing), or undefined. */
export const foreignKeyViolation = (error: unknown) => violationOf(error, PG_FOREIGN_KEY_VIOLATION)

/**
 * For `.catch()` after a write: a unique violation becomes the error its constraint names in `byConstraint`
 * (a 409, or the 400 some routes answer for a duplicate); any other error, and a violation of a
 * constraint not listed, is rethrown as it is.
 */
export function onUniqueViolation(byConstraint: Record<string, () => Error>): (error: unknown) => never {
  return (error) => {
    const violation = uniqueViolation(error)
    const mapped = violation ? byConstraint[violation.constraint] : undefined
    throw mapped ? mapped() : error
  }
}

/** `onUniqueViolation` for foreign keys: e.g. deleting a row an item still references becomes a 409. */
export function onForeignKeyViolation(byConstraint: Record<string, () => Error>): (error: unknown) => never {
  return (error) => {
    const violation = foreignKeyViolation(error)
    const mapped = violation ? byConstraint[violation.constraint] : undefined
    throw mapped ? mapped() : error
  }
}

/** Seconds a client is asked to wait (`Retry-After`) while the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5

/**
 * The database could not be reached, or did not answer in time: a 503 `DATABASE_UNAVAILABLE` with
 * `Retry-After`, whatever the request was doing. `reason` says why in words safe for a log or /readyz
 * (never an address or a credential).
 */
export class DatabaseUnavailableError extends HttpError {
  readonly reason: string
  constructor(reason: string, cause?: unknown) {
    super(503, 'DATABASE_UNAVAILABLE', 'The database is unavailable; try again shortly', undefined, {
      'retry-after': String(DATABASE_RETRY_AFTER_SECONDS),
    })
    this.name = 'DatabaseUnavailableError'
    this.reason = reason
    if (cause !== undefined) this.cause = cause
  }
}

/** Socket errors of a connection to the database, in words. */
const SOCKET_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name not resolved',
}

/** SQLSTATEs that mean the server cannot serve this connection now, in words. */
const SERVER_FAILURES: Record<string, string> = {
  '57P01': 'the server terminated the connection',
  '57P02': 'the server crashed',
  '57P03': 'the server is starting up or shutting down',
  '53300': 'the server has too many connections',
}

/**
 * node-postgres raises these without a code, and they are all it says; this is the one place that reads
 * its messages.
 */
const DRIVER_FAILURES: [RegExp, string][] = [
  [/^Connection terminated/, 'connection lost'],
  // pg-boss repeats these with the queue and worker in parentheses.
  [/^timeout exceeded when trying to connect\b/, 'no connection within the connect timeout'],
  [/^Query read timeout\b/, 'no answer within the query timeout'],
  [/is not queryable\b/, 'connection lost'],
]

/** How deep `databaseUnavailable` follows causes (Drizzle wraps the driver's error once). */
const MAX_CAUSE_DEPTH = 5

/**
 * Why `error` means the database is unreachable (a DatabaseUnavailableError's reason, a socket error, a
 * server that refuses connections now, a connection node-postgres lost), or undefined when it is an
 * error of the statement itself.
 */
export function databaseUnavailable(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current && typeof current === 'object'; depth++) {
    if (current instanceof DatabaseUnavailableError) return current.reason
    const { code, message, errors, cause } = current as {
      code?: unknown
      message?: unknown
      errors?: unknown
      cause?: unknown
    }
    if (typeof code === 'string') {
      const reason =
        SOCKET_FAILURES[code] ??
        SERVER_FAILURES[code] ??
        (code.startsWith('08') ? 'connection failure' : undefined)
      if (reason) return reason
    }
    if (typeof message === 'string') {
      const known = DRIVER_FAILURES.find(([pattern]) => pattern.test(message))
      if (known) return known[1]
    }
    // A host name with several addresses fails with every attempt's error (AggregateError).
    if (Array.isArray(errors) && errors.length > 0) {
      const reason = databaseUnavailable(errors[0])
      if (reason) return reason
    }
    current = cause
  }
  return undefined
}
