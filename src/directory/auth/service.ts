import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { forbidden, unauthorized } from '../../lib/errors.ts'
import { hashPassword, verifyPassword } from '../../lib/passwords.ts'
import { USER_ROLE_ID } from '../roles/tables.ts'
import { createAccount, normaliseEmail } from '../users/accounts.ts'
import { users } from '../users/tables.ts'
import type { SessionMeta, SessionService } from './sessions.ts'

export interface AccountView {
  id: string
  email: string
  name: string | null
}

export interface SignedIn {
  user: AccountView
  session: { token: string; expiresAt: Date }
}

export function createDirectoryAuthService({
  db,
  clock,
  sessions,
}: {
  db: Db
  clock: Clock
  sessions: SessionService
}) {
  return {
    /** Creates the user, their client profile and a session, all or nothing. */
    async register(
      input: { email: string; password: string; name: string },
      meta: SessionMeta,
    ): Promise<SignedIn> {
      const passwordHash = await hashPassword(input.password)
      const { user, result: session } = await createAccount(
        { db, clock },
        { email: input.email, passwordHash, name: input.name.trim(), roleId: USER_ROLE_ID },
        (tx, created) => sessions.create(tx, created.id, meta),
      )
      return { user: { id: user.id, email: user.email, name: user.name }, session }
    },

    /** Checks the password and opens a new session; the session the browser held before is revoked. */
    async signin(
      input: { email: string; password: string },
      meta: SessionMeta,
      previousToken: string | undefined,
    ): Promise<SignedIn> {
      const [user] = await db
        .select()
        .from(users)
        .where(eq(users.email, normaliseEmail(input.email)))
      const valid = await verifyPassword(user?.passwordHash, input.password)
      if (!user || !valid) throw unauthorized('Wrong email or password', 'INVALID_CREDENTIALS')
      if (user.status !== 'active') throw forbidden('This account is inactive', 'ACCOUNT_INACTIVE')
      if (previousToken) await sessions.revoke(previousToken)
      const session = await db.transaction(async (tx) => {
        await tx
          .update(users)
          .set({ lastLoginAt: clock.now(), loginCount: sql`${users.loginCount} + 1` })
          .where(eq(users.id, user.id))
        return sessions.create(tx, user.id, meta)
      })
      return { user: { id: user.id, email: user.email, name: user.name }, session }
    },

    async signout(token: string | undefined): Promise<void> {
      if (token) await sessions.revoke(token)
    },
  }
}

export type DirectoryAuthService = ReturnType<typeof createDirectoryAuthService>
