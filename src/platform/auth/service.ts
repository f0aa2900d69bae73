import { randomUUID } from 'node:crypto'
import { and, eq, gt, isNull, lt } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { isUniqueViolation } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { randomToken, sha256Hex } from '../../lib/crypto.ts'
import { badRequest, conflict, unauthorized } from '../../lib/errors.ts'
import { hashPassword, verifyPassword } from '../../lib/passwords.ts'
import type { EventBus, EventContext } from '../events.ts'
import { ACCESS_TOKEN_TTL_SECONDS, type AccessTokens } from './jwt.ts'
import { refreshTokens, users } from './tables.ts'

const DAY_MS = 86_400_000

export interface PlatformUserView {
  id: string
  email: string
  name: string | null
}

export interface TokenPairView {
  user: PlatformUserView
  accessToken: string
  refreshToken: string
  expiresIn: number
}

export interface AuthServiceDeps {
  db: Db
  clock: Clock
  accessTokens: AccessTokens
  refreshTokenTtlDays: number
  events: EventBus
}

const normaliseEmail = (email: string) => email.trim().toLowerCase()
const view = (user: typeof users.$inferSelect): PlatformUserView => ({
  id: user.id,
  email: user.email,
  name: user.name,
})

export function createAuthService({ db, clock, accessTokens, refreshTokenTtlDays, events }: AuthServiceDeps) {
  async function issuePair(user: PlatformUserView, familyId: string): Promise<TokenPairView> {
    const refreshToken = randomToken(32)
    const now = clock.now()
    await db.insert(refreshTokens).values({
      userId: user.id,
      familyId,
      tokenHash: sha256Hex(refreshToken),
      expiresAt: new Date(now.getTime() + refreshTokenTtlDays * DAY_MS),
      createdAt: now,
    })
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
    async register(
      input: { email: string; password: string; name?: string | undefined },
      context: EventContext = {},
    ): Promise<TokenPairView> {
      const now = clock.now()
      const passwordHash = await hashPassword(input.password)
      let created: PlatformUserView
      try {
        const [user] = await db
          .insert(users)
          .values({
            email: normaliseEmail(input.email),
            name: input.name?.trim() || null,
            passwordHash,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
        created = view(user!)
      } catch (error) {
        if (isUniqueViolation(error))
          throw conflict('An account with this email already exists', 'EMAIL_TAKEN')
        throw error
      }
      await events.emit({ type: 'UserCreated', userId: created.id, email: created.email, context })
      return issuePair(created, randomUUID())
    },

    async login(
      input: { email: string; password: string },
      context: EventContext = {},
    ): Promise<TokenPairView> {
      const [user] = await db
        .select()
        .from(users)
        .where(eq(users.email, normaliseEmail(input.email)))
      const valid = await verifyPassword(user?.passwordHash, input.password)
      if (!user || !valid) throw unauthorized('Wrong email or password', 'INVALID_CREDENTIALS')
      await events.emit({ type: 'UserConfirmed', userId: user.id, provider: 'password', context })
      return issuePair(view(user), randomUUID())
    },

    /**
     * Changes the password after checking the current one. Every refresh token of the account is revoked,
     * so other sessions end; the caller gets a fresh pair to carry on with.
     */
    async changePassword(
      userId: string,
      input: { currentPassword: string; newPassword: string },
      context: EventContext = {},
    ): Promise<TokenPairView> {
      const [user] = await db.select().from(users).where(eq(users.id, userId))
      if (!user) throw unauthorized('This account no longer exists', 'ACCOUNT_GONE')
      if (!(await verifyPassword(user.passwordHash, input.currentPassword))) {
        throw badRequest(
          'The current password is wrong',
          [{ field: 'body.currentPassword', message: 'is wrong' }],
          'WRONG_PASSWORD',
        )
      }
      const now = clock.now()
      const passwordHash = await hashPassword(input.newPassword)
      await db.transaction(async (tx) => {
        await tx.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, userId))
        await tx
          .update(refreshTokens)
          .set({ revokedAt: now })
          .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
      })
      await events.emit({ type: 'UserPasswordChanged', userId, context })
      return issuePair(view(user), randomUUID())
    },

    /**
     * Spends a refresh token and issues the next pair of its family. A token presented after it was spent
     * means it was copied: the whole family is revoked, so neither copy works any more.
     */
    async refresh(refreshToken: string): Promise<TokenPairView> {
      const tokenHash = sha256Hex(refreshToken)
      const now = clock.now()
      const [spent] = await db
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
      if (spent) {
        const [user] = await db.select().from(users).where(eq(users.id, spent.userId))
        if (!user) throw unauthorized('Invalid refresh token', 'INVALID_REFRESH_TOKEN')
        return issuePair(view(user), spent.familyId)
      }
      const [known] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash))
      if (known?.usedAt || known?.revokedAt) {
        await revokeFamily(known.familyId)
        throw unauthorized(
          'Refresh token was already used; this login has been signed out',
          'REFRESH_TOKEN_REUSED',
        )
      }
      if (known) throw unauthorized('Refresh token expired', 'REFRESH_TOKEN_EXPIRED')
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

    async me(userId: string): Promise<PlatformUserView> {
      const [user] = await db.select().from(users).where(eq(users.id, userId))
      if (!user) throw unauthorized('This account no longer exists', 'ACCOUNT_GONE')
      return view(user)
    },

    /** Deletes refresh tokens past their expiry; a spent token is kept until then to detect its reuse. */
    async deleteExpiredRefreshTokens(): Promise<number> {
      const deleted = await db
        .delete(refreshTokens)
        .where(lt(refreshTokens.expiresAt, clock.now()))
        .returning({ id: refreshTokens.id })
      return deleted.length
    },
  }
}

export type AuthService = ReturnType<typeof createAuthService>
