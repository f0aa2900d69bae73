import { randomBytes } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { hashPassword, verifyPassword } from '../../lib/passwords.ts'
import { ADMIN_ROLE_ID, roles } from '../roles/tables.ts'
import { createAccount, normaliseEmail } from '../users/accounts.ts'
import { users } from '../users/tables.ts'

export const LOCAL_ADMIN_EMAIL = 'admin@localhost'

interface Deps {
  db: Db
  clock: Clock
}

/** Makes sure the seeded admin role exists, is active and grants admin. */
async function ensureAdminRole({ db, clock }: Deps): Promise<void> {
  await db
    .insert(roles)
    .values({
      id: ADMIN_ROLE_ID,
      name: 'Administrator',
      description: 'Full access to every admin area',
      isAdmin: true,
    })
    .onConflictDoUpdate({
      target: roles.id,
      set: { status: 'active', isAdmin: true, updatedAt: clock.now() },
    })
}

/**
 * Makes sure `email` is an active admin whose password is `password`: creates the account when missing,
 * otherwise moves it to the admin role (unless its role already grants admin) and resets the password.
 * Returns whether an account was created.
 */
export async function ensureAdmin(
  deps: Deps,
  email: string,
  password: string,
): Promise<{ created: boolean }> {
  const { db, clock } = deps
  await ensureAdminRole(deps)
  const [existing] = await db
    .select({ user: users, role: roles })
    .from(users)
    .leftJoin(roles, eq(roles.id, users.roleId))
    .where(eq(users.email, normaliseEmail(email)))
  if (!existing) {
    await createAccount(
      deps,
      { email, passwordHash: await hashPassword(password), name: 'Administrator', roleId: ADMIN_ROLE_ID },
      async () => undefined,
    )
    return { created: true }
  }
  const holdsAdmin = existing.role?.status === 'active' && existing.role.isAdmin
  const passwordMatches = await verifyPassword(existing.user.passwordHash, password)
  await db
    .update(users)
    .set({
      status: 'active',
      updatedAt: clock.now(),
      ...(holdsAdmin ? {} : { roleId: ADMIN_ROLE_ID }),
      ...(passwordMatches ? {} : { passwordHash: await hashPassword(password) }),
    })
    .where(eq(users.id, existing.user.id))
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
