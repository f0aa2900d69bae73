import { eq } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { forbidden, unauthorized } from '../../lib/errors.ts'
import { hashPassword, verifyPassword } from '../../lib/passwords.ts'
import type { AccountService } from '../accounts/service.ts'
import type { ProfileService } from '../clients/profiles.ts'
import { clientProfiles } from '../clients/tables.ts'
import { USER_ROLE_ID } from '../roles/tables.ts'
import type { AccountUser } from './schemas.ts'
import type { SessionMeta, SessionService } from './sessions.ts'

export interface SignedIn {
  user: AccountUser
  session: { token: string; expiresAt: Date }
}

export interface DirectoryAuthDeps {
  db: Db
  accounts: Pick<AccountService, 'findByEmail' | 'recordSignin'>
  profiles: Pick<ProfileService, 'openAccount'>
  sessions: SessionService
}

export function createDirectoryAuthService({ db, accounts, profiles, sessions }: DirectoryAuthDeps) {
  return {
    /** Creates the user, their client profile and a session, all or nothing. */
    async register(
      input: { email: string; password: string; name: string },
      meta: SessionMeta,
    ): Promise<SignedIn> {
      const passwordHash = await hashPassword(input.password)
      return db.transaction(async (tx) => {
        const { user } = await profiles.openAccount(
          { email: input.email, passwordHash, name: input.name.trim(), roleId: USER_ROLE_ID },
          {},
          tx,
        )
        const session = await sessions.create(tx, user.id, meta)
        return { user: { id: user.id, email: user.email, name: user.name }, session }
      })
    },

    /** Checks the password and opens a new session; the session the browser held before is revoked. */
    async signin(
      input: { email: string; password: string },
      meta: SessionMeta,
      previousToken: string | undefined,
    ): Promise<SignedIn> {
      const user = await accounts.findByEmail(input.email)
      const valid = await verifyPassword(user?.passwordHash, input.password)
      if (!user || !valid) throw unauthorized('Wrong email or password', 'INVALID_CREDENTIALS')
      if (user.status !== 'active') throw forbidden('This account is inactive', 'ACCOUNT_INACTIVE')
      const [profile] = await db
        .select({ status: clientProfiles.status, bannedAt: clientProfiles.bannedAt })
        .from(clientProfiles)
        .where(eq(clientProfiles.userId, user.id))
      if (profile?.bannedAt) throw forbidden('This account is banned', 'ACCOUNT_BANNED')
      if (profile?.status === 'suspended') throw forbidden('This account is suspended', 'ACCOUNT_SUSPENDED')
      if (previousToken) await sessions.revoke(previousToken)
      const session = await db.transaction(async (tx) => {
        await accounts.recordSignin(user.id, tx)
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
