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
