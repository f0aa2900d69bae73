import { and, eq, ne, sql } from 'drizzle-orm'
import { onUniqueViolation, uniqueViolation } from '../../db/errors.ts'
import type { Db, DbOrTx, Tx } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict } from '../../lib/errors.ts'
import { normaliseEmail, usernameFromEmail } from './rules.ts'
import { type UserStatus, users } from './tables.ts'

export type UserRow = typeof users.$inferSelect

export interface NewAccount {
  email: string
  passwordHash: string | null
  name: string
  roleId: string
  provider?: string
  /** A username the caller has validated; without it one is derived from the email. */
  username?: string | undefined
  title?: string | undefined
  avatar?: string | undefined
}

export interface AccountChanges {
  username?: string | undefined
  email?: string | undefined
  name?: string | undefined
  title?: string | null | undefined
  avatar?: string | null | undefined
  roleId?: string | undefined
  status?: UserStatus | undefined
  passwordHash?: string | undefined
}

const EMAIL_UNIQUE = 'users_email_unique'
const USERNAME_UNIQUE = ['users_username_unique', 'users_username_lower_unique']
const USERNAME_ATTEMPTS = 4

export const emailTaken = () => conflict('An account with this email already exists', 'EMAIL_TAKEN')
export const usernameTaken = () => conflict('This username is already taken', 'USERNAME_TAKEN')

const identityConflicts = onUniqueViolation({
  [EMAIL_UNIQUE]: emailTaken,
  ...Object.fromEntries(USERNAME_UNIQUE.map((name) => [name, usernameTaken])),
})

/**
 * Directory accounts: the `users` table is written here and nowhere else. Emails are stored lower-cased
 * and usernames are unique whatever their case; a taken one is 409 `EMAIL_TAKEN` / `USERNAME_TAKEN`.
 * Writes take the caller's transaction, so an account and what comes with it (a client profile, a
 * session) are made together.
 */
export function createAccountService({ db, clock }: { db: Db; clock: Clock }) {
  const removalHooks: ((tx: Tx, userId: string) => Promise<void>)[] = []
  return {
    /** Creates the account; a derived username steps around one already taken. */
    async create(account: NewAccount, executor: DbOrTx = db): Promise<UserRow> {
      const email = normaliseEmail(account.email)
      for (let attempt = 0; attempt < USERNAME_ATTEMPTS; attempt++) {
        const username = account.username ?? usernameFromEmail(email, attempt > 0)
        try {
          // A savepoint per attempt: a taken username must not abort the caller's transaction.
          return await executor.transaction(async (savepoint) => {
            const now = clock.now()
            const [user] = await savepoint
              .insert(users)
              .values({
                email,
                username,
                name: account.name,
                passwordHash: account.passwordHash,
                provider: account.provider ?? 'credentials',
                roleId: account.roleId,
                title: account.title,
                avatar: account.avatar,
                createdAt: now,
                updatedAt: now,
              })
              .returning()
            return user!
          })
        } catch (error) {
          const constraint = uniqueViolation(error)?.constraint
          if (account.username === undefined && constraint && USERNAME_UNIQUE.includes(constraint)) continue
          identityConflicts(error)
        }
      }
      throw conflict('Could not find a free username for this email; try again', 'USERNAME_TAKEN')
    },

    async get(id: string, executor: DbOrTx = db): Promise<UserRow | undefined> {
      const [user] = await executor.select().from(users).where(eq(users.id, id))
      return user
    },

    async findByEmail(email: string): Promise<UserRow | undefined> {
      const [user] = await db
        .select()
        .from(users)
        .where(eq(users.email, normaliseEmail(email)))
      return user
    },

    /** Whether another account (not `excludeId`) holds the email. */
    async emailInUse(email: string, excludeId?: string): Promise<boolean> {
      const [row] = await db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.email, normaliseEmail(email)), excludeId ? ne(users.id, excludeId) : undefined))
        .limit(1)
      return row !== undefined
    },

    /** Whether another account (not `excludeId`) holds the username, whatever its case. */
    async usernameInUse(username: string, excludeId?: string): Promise<boolean> {
      const [row] = await db
        .select({ id: users.id })
        .from(users)
        .where(
          and(
            sql`lower(${users.username}) = lower(${username})`,
            excludeId ? ne(users.id, excludeId) : undefined,
          ),
        )
        .limit(1)
      return row !== undefined
    },

    /** Changes the given fields; undefined ones stay. */
    async update(id: string, changes: AccountChanges, executor: DbOrTx = db): Promise<UserRow | undefined> {
      const [user] = await executor
        .update(users)
        .set({
          ...changes,
          ...(changes.email === undefined ? {} : { email: normaliseEmail(changes.email) }),
          updatedAt: clock.now(),
        })
        .where(eq(users.id, id))
        .returning()
        .catch(identityConflicts)
      return user
    },

    /** Counts a sign-in. */
    async recordSignin(id: string, executor: DbOrTx = db): Promise<void> {
      await executor
        .update(users)
        .set({ lastLoginAt: clock.now(), loginCount: sql`${users.loginCount} + 1` })
        .where(eq(users.id, id))
    },

    /**
     * Runs `hook` in the transaction of every account deletion, before the row goes: what a module must do
     * about the account's belongings beyond their foreign keys' cascade (sponsor ads stop their provider
     * subscriptions).
     */
    beforeRemove(hook: (tx: Tx, userId: string) => Promise<void>): void {
      removalHooks.push(hook)
    },

    /** Deletes the account; its sessions and client profile go with it (foreign keys). */
    async remove(id: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        for (const hook of removalHooks) await hook(tx, id)
        const deleted = await tx.delete(users).where(eq(users.id, id)).returning({ id: users.id })
        return deleted.length > 0
      })
    },
  }
}

export type AccountService = ReturnType<typeof createAccountService>
