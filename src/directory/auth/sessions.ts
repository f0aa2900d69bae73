import { and, eq, gt, sql } from 'drizzle-orm'
import type { Db, DbOrTx } from '../../db/index.ts'
import { deleteExpired } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { randomToken, sha256Hex } from '../../lib/crypto.ts'
import { DAY_MS, toSeconds } from '../../lib/time.ts'
import { users } from '../accounts/tables.ts'
import { roles } from '../roles/tables.ts'
import { sessions } from './tables.ts'

export const SESSION_COOKIE = 'curio_session'

const SESSION_TOKEN_BYTES = 32
/** A session token as `create` makes it: random bytes in base64url, unpadded. */
const SESSION_TOKEN = new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((SESSION_TOKEN_BYTES * 4) / 3)}}$`)

/** Whether a cookie value has the form of a session token; any other value is no session, unlooked-up. */
export const isSessionToken = (value: string | undefined): value is string =>
  value !== undefined && SESSION_TOKEN.test(value)

/** The signed-in user behind a session cookie. */
export interface Viewer {
  sessionId: string
  user: {
    id: string
    email: string
    name: string | null
    avatar: string | null
    provider: string
  }
  /** An admin holds an active role marked isAdmin. */
  isAdmin: boolean
}

export interface SessionMeta {
  ipAddress: string | undefined
  userAgent: string | undefined
}

export function createSessionService({ db, clock, ttlDays }: { db: Db; clock: Clock; ttlDays: number }) {
  // Every signed-in request runs this: prepared, it is parsed once per connection and its plan kept.
  const lookup = db
    .select({
      sessionId: sessions.id,
      id: users.id,
      email: users.email,
      name: users.name,
      avatar: users.avatar,
      provider: users.provider,
      status: users.status,
      roleStatus: roles.status,
      roleIsAdmin: roles.isAdmin,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .leftJoin(roles, eq(roles.id, users.roleId))
    .where(
      and(
        eq(sessions.tokenHash, sql.placeholder('tokenHash')),
        gt(sessions.expiresAt, sql.placeholder('now')),
      ),
    )
    .prepare('directory_session')

  return {
    ttlSeconds: toSeconds(ttlDays * DAY_MS),

    /** Opens a session for the user; only the hash of the returned token is stored. */
    async create(
      executor: DbOrTx,
      userId: string,
      meta: SessionMeta,
    ): Promise<{ token: string; expiresAt: Date }> {
      const token = randomToken(SESSION_TOKEN_BYTES)
      const now = clock.now()
      const expiresAt = new Date(now.getTime() + ttlDays * DAY_MS)
      await executor.insert(sessions).values({
        userId,
        tokenHash: sha256Hex(token),
        ipAddress: meta.ipAddress?.slice(0, 64),
        userAgent: meta.userAgent?.slice(0, 512),
        expiresAt,
        createdAt: now,
      })
      return { token, expiresAt }
    },

    /** The viewer of a live session of an active user, or null. */
    async resolve(token: string): Promise<Viewer | null> {
      const [row] = await lookup.execute({ tokenHash: sha256Hex(token), now: clock.now() })
      if (row?.status !== 'active') return null
      return {
        sessionId: row.sessionId,
        user: { id: row.id, email: row.email, name: row.name, avatar: row.avatar, provider: row.provider },
        isAdmin: row.roleStatus === 'active' && row.roleIsAdmin === true,
      }
    },

    async revoke(token: string): Promise<void> {
      await db.delete(sessions).where(eq(sessions.tokenHash, sha256Hex(token)))
    },

    /** Signs the user out everywhere, in the caller's transaction (a suspension is one change). */
    async revokeAll(tx: DbOrTx, userId: string): Promise<void> {
      await tx.delete(sessions).where(eq(sessions.userId, userId))
    },

    deleteExpired: (): Promise<number> => deleteExpired(db, sessions, sessions.expiresAt, clock.now()),
  }
}

export type SessionService = ReturnType<typeof createSessionService>
