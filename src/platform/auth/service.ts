import { randomUUID } from 'node:crypto'
import { and, eq, gt, isNull } from 'drizzle-orm'
import { onUniqueViolation } from '../../db/errors.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import { deleteExpired } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { randomToken, sha256Hex } from '../../lib/crypto.ts'
import { normaliseEmail } from '../../lib/email.ts'
import { conflict, invalidInput, unauthorized } from '../../lib/errors.ts'
import { hashPassword, verifyPassword } from '../../lib/passwords.ts'
import { DAY_MS } from '../../lib/time.ts'
import type { EventContext, PlatformEvents } from '../events.ts'
import { ACCESS_TOKEN_TTL_SECONDS, type AccessTokens } from './jwt.ts'
import type { PlatformUser, TokenPair } from './schemas.ts'
import { refreshTokens, users } from './tables.ts'

export interface AuthServiceDeps {
  db: Db
  clock: Clock
  accessTokens: AccessTokens
  refreshTokenTtlDays: number
  events: Pick<PlatformEvents, 'emit'>
}

const accountOf = (user: typeof users.$inferSelect): PlatformUser => ({
  id: user.id,
  email: user.email,
  name: user.name,
})

const accountGone = () => unauthorized('This account no longer exists', 'ACCOUNT_GONE')

export function createAuthService({ db, clock, accessTokens, refreshTokenTtlDays, events }: AuthServiceDeps) {
  /** Stores the next refresh token of a login, in the caller's transaction. */
  async function storeRefreshToken(executor: DbOrTx, userId: string, familyId: string): Promise<string> {
    const refreshToken = randomToken(32)
    const now = clock.now()
    await executor.insert(refreshTokens).values({
      userId,
      familyId,
      tokenHash: sha256Hex(refreshToken),
      expiresAt: new Date(now.getTime() + refreshTokenTtlDays * DAY_MS),
      createdAt: now,
    })
    return refreshToken
  }

  async function pairFor(user: PlatformUser, refreshToken: string): Promise<TokenPair> {
    return {
      user,
      accessToken: await accessTokens.sign(user.id),
      refreshToken,
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
    }
  }

  async function revokeFamily(familyId: string): Promise<void> {
    await db
      .update(refreshTokens)
      .set({ revokedAt: clock.now() })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
  }

  return {
    /** Creates the account, its first login and its sign-up record together. */
    async register(
      input: { email: string; password: string; name?: string | undefined },
      context: EventContext = {},
    ): Promise<TokenPair> {
      const passwordHash = await hashPassword(input.password)
      const { user, refreshToken } = await db
        .transaction(async (tx) => {
          const now = clock.now()
          const [row] = await tx
            .insert(users)
            .values({
              email: normaliseEmail(input.email),
              name: input.name?.trim() || null,
              passwordHash,
              createdAt: now,
              updatedAt: now,
            })
            .returning()
          const user = accountOf(row!)
          await events.emit({ type: 'UserCreated', userId: user.id, email: user.email, context }, { tx })
          return { user, refreshToken: await storeRefreshToken(tx, user.id, randomUUID()) }
        })
        .catch(
          onUniqueViolation({
            users_email_unique: () => conflict('An account with this email already exists', 'EMAIL_TAKEN'),
          }),
        )
      return pairFor(user, refreshToken)
    },

    async login(input: { email: string; password: string }, context: EventContext = {}): Promise<TokenPair> {
      const [row] = await db
        .select()
        .from(users)
        .where(eq(users.email, normaliseEmail(input.email)))
      const valid = await verifyPassword(row?.passwordHash, input.password)
      if (!row || !valid) throw unauthorized('Wrong email or password', 'INVALID_CREDENTIALS')
      const user = accountOf(row)
      const refreshToken = await db.transaction(async (tx) => {
        await events.emit({ type: 'UserConfirmed', userId: user.id, provider: 'password', context }, { tx })
        return storeRefreshToken(tx, user.id, randomUUID())
      })
      return pairFor(user, refreshToken)
    },

    /**
     * Changes the password after checking the current one. Every refresh token of the account is revoked,
     * so other sessions end; the caller gets a fresh pair to carry on with.
     */
    async changePassword(
      userId: string,
      input: { currentPassword: string; newPassword: string },
      context: EventContext = {},
    ): Promise<TokenPair> {
      const [row] = await db.select().from(users).where(eq(users.id, userId))
      if (!row) throw accountGone()
      if (!(await verifyPassword(row.passwordHash, input.currentPassword))) {
        throw invalidInput('currentPassword', 'is wrong', 'WRONG_PASSWORD')
      }
      const passwordHash = await hashPassword(input.newPassword)
      const refreshToken = await db.transaction(async (tx) => {
        const now = clock.now()
        await tx.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, userId))
        await tx
          .update(refreshTokens)
          .set({ revokedAt: now })
          .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
        await events.emit({ type: 'UserPasswordChanged', userId, context }, { tx })
        return storeRefreshToken(tx, userId, randomUUID())
      })
      return pairFor(accountOf(row), refreshToken)
    },

    /**
     * Spends a refresh token and issues the next pair of its family, in one transaction. A token presented
     * after it was spent means it was copied: the whole family is revoked, so neither copy works any more.
     */
    async refresh(presented: string): Promise<TokenPair> {
      const tokenHash = sha256Hex(presented)
      const renewed = await db.transaction(async (tx) => {
        const now = clock.now()
        const [spent] = await tx
          .update(refreshTokens)
          .set({ usedAt: now })
          .where(
            and(
              eq(refreshTokens.tokenHash, tokenHash),
              isNull(refreshTokens.usedAt),
              isNull(refreshTokens.revokedAt),
              gt(refreshTokens.expiresAt, now),
            ),
          )
          .returning()
        if (!spent) return undefined
        const [row] = await tx.select().from(users).where(eq(users.id, spent.userId))
        if (!row) return undefined
        return { user: accountOf(row), refreshToken: await storeRefreshToken(tx, row.id, spent.familyId) }
      })
      if (renewed) return pairFor(renewed.user, renewed.refreshToken)
      const [known] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash))
      if (known?.usedAt || known?.revokedAt) {
        await revokeFamily(known.familyId)
        throw unauthorized(
          'Refresh token was already used; this login has been signed out',
          'REFRESH_TOKEN_REUSED',
        )
      }
      if (known && known.expiresAt.getTime() <= clock.nowMs()) {
        throw unauthorized('Refresh token expired', 'REFRESH_TOKEN_EXPIRED')
      }
      throw unauthorized('Invalid refresh token', 'INVALID_REFRESH_TOKEN')
    },

    /** Ends the login the refresh token belongs to. Unknown tokens are ignored: there is nothing to end. */
    async logout(refreshToken: string): Promise<void> {
      const [known] = await db
        .select({ familyId: refreshTokens.familyId })
        .from(refreshTokens)
        .where(eq(refreshTokens.tokenHash, sha256Hex(refreshToken)))
      if (known) await revokeFamily(known.familyId)
    },

    async me(userId: string): Promise<PlatformUser> {
      const [row] = await db.select().from(users).where(eq(users.id, userId))
      if (!row) throw accountGone()
      return accountOf(row)
    },

    /** Deletes refresh tokens past their expiry; a spent token is kept until then to detect its reuse. */
    deleteExpiredRefreshTokens: (): Promise<number> =>
      deleteExpired(db, refreshTokens, refreshTokens.expiresAt, clock.now()),
  }
}

export type AuthService = ReturnType<typeof createAuthService>
