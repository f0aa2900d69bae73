import { randomBytes } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { hashPassword, verifyPassword } from '../../lib/passwords.ts'
import { normaliseEmail } from '../accounts/rules.ts'
import { createAccountService } from '../accounts/service.ts'
import { users } from '../accounts/tables.ts'
import { createProfileService } from '../clients/profiles.ts'
import { createRoleService } from '../roles/service.ts'
import { ADMIN_ROLE_ID, roles } from '../roles/tables.ts'

export const LOCAL_ADMIN_EMAIL = 'admin@localhost'

interface Deps {
  db: Db
  clock: Clock
}

/**
 * Makes sure `email` is an active admin whose password is `password`: creates the account (with its client
 * profile) when missing, otherwise moves it to the admin role (unless its role already grants admin) and
 * resets the password. Returns whether an account was created. Runs before the app exists (start-up, the
 * CLI), so it builds the services it needs.
 */
export async function ensureAdmin(
  deps: Deps,
  email: string,
  password: string,
): Promise<{ created: boolean }> {
  const accounts = createAccountService(deps)
  await createRoleService(deps).ensureAdminRole()
  const [existing] = await deps.db
    .select({ user: users, role: roles })
    .from(users)
    .leftJoin(roles, eq(roles.id, users.roleId))
    .where(eq(users.email, normaliseEmail(email)))
  if (!existing) {
    await createProfileService({ ...deps, accounts }).openAccount({
      email,
      passwordHash: await hashPassword(password),
      name: 'Administrator',
      roleId: ADMIN_ROLE_ID,
    })
    return { created: true }
  }
  const holdsAdmin = existing.role?.status === 'active' && existing.role.isAdmin
  const passwordMatches = await verifyPassword(existing.user.passwordHash, password)
  await accounts.update(existing.user.id, {
    status: 'active',
    ...(holdsAdmin ? {} : { roleId: ADMIN_ROLE_ID }),
    ...(passwordMatches ? {} : { passwordHash: await hashPassword(password) }),
  })
  return { created: false }
}

/** Whether any active user holds an active admin role. */
export async function hasAdmin({ db }: Deps): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .innerJoin(roles, eq(roles.id, users.roleId))
    .where(and(eq(users.status, 'active'), eq(roles.status, 'active'), eq(roles.isAdmin, true)))
    .limit(1)
  return row !== undefined
}

/**
 * On a local instance with no admin at all, creates admin@localhost with a random password and returns
 * the login so start-up can print it once. Returns null when an admin exists.
 */
export async function ensureLocalAdmin(deps: Deps): Promise<{ email: string; password: string } | null> {
  if (await hasAdmin(deps)) return null
  const password = randomBytes(12).toString('base64url')
  await ensureAdmin(deps, LOCAL_ADMIN_EMAIL, password)
  return { email: LOCAL_ADMIN_EMAIL, password }
}
