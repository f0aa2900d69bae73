import { randomBytes } from 'node:crypto'
import { Type } from 'typebox'

export { EmailAddress } from '../../http/schemas.ts'
export { normaliseEmail } from '../../lib/email.ts'

/**
 * SPEC.md "Limits", Users: a username is 3 to 30 of `[a-zA-Z0-9_-]` when an account is created, and may
 * be 3 to 50 once changed. It is unique whatever its case. The one place these rules are written.
 */
export const USERNAME_MIN_LENGTH = 3
export const USERNAME_MAX_LENGTH_ON_CREATE = 30
export const USERNAME_MAX_LENGTH = 50
export const USERNAME_PATTERN = /^[a-zA-Z0-9_-]+$/

/** A username given when an account is created. */
export const NewUsername = Type.String({
  pattern: `^[a-zA-Z0-9_-]{${USERNAME_MIN_LENGTH},${USERNAME_MAX_LENGTH_ON_CREATE}}$`,
  description: `${USERNAME_MIN_LENGTH} to ${USERNAME_MAX_LENGTH_ON_CREATE} letters, digits, _ or -; unique whatever its case`,
  examples: ['grace_hopper'],
})

/** A username given to an existing account or profile. */
export const Username = Type.String({
  minLength: USERNAME_MIN_LENGTH,
  maxLength: USERNAME_MAX_LENGTH,
  pattern: USERNAME_PATTERN.source,
  description: `${USERNAME_MIN_LENGTH} to ${USERNAME_MAX_LENGTH} letters, digits, _ or -; unique whatever its case`,
  examples: ['grace_hopper'],
})

const DERIVED_BASE_MAX = 24

/**
 * A username derived from an email's local part, within the create rule; `withSuffix` adds a random tail
 * to step around a taken one.
 */
export function usernameFromEmail(email: string, withSuffix = false): string {
  let base = (email.split('@')[0] ?? '')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^a-zA-Z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, DERIVED_BASE_MAX)
  if (base.length < USERNAME_MIN_LENGTH) base = `user-${base}`.replace(/-+$/, '')
  return withSuffix ? `${base}-${randomBytes(2).toString('hex')}` : base
}
