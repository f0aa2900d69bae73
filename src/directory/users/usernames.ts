import { randomBytes } from 'node:crypto'

/** Usernames follow the admin API's create rule: 3 to 30 of `[a-zA-Z0-9_-]`. */
export const USERNAME_PATTERN = /^[a-zA-Z0-9_-]{3,30}$/

/** A username derived from an email's local part; `withSuffix` adds a random tail to step around a taken one. */
export function usernameFromEmail(email: string, withSuffix = false): string {
  let base = (email.split('@')[0] ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-zA-Z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 24)
  if (base.length < 3) base = `user-${base}`.replace(/-+$/, '')
  return withSuffix ? `${base.slice(0, 24)}-${randomBytes(2).toString('hex')}` : base
}
