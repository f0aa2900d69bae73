import { type Db, type DbOrTx, uniqueViolation } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict } from '../../lib/errors.ts'
import { clientProfiles } from '../clients/tables.ts'
import { users } from './tables.ts'
import { usernameFromEmail } from './usernames.ts'

export interface NewAccount {
  email: string
  passwordHash: string | null
  name: string
  roleId: string
  provider?: string
  /** A username the caller has validated; without it one is derived from the email. */
  username?: string
}

export type UserRow = typeof users.$inferSelect

export const normaliseEmail = (email: string) => email.trim().toLowerCase()

const USERNAME_ATTEMPTS = 4

/**
 * Creates a user and their client profile in one transaction, deriving a free username from the email.
 * `then` runs inside the same transaction (e.g. to open a session). An email in use is 409.
 */
export async function createAccount<T>(
  deps: { db: Db; clock: Clock },
  account: NewAccount,
  then: (tx: DbOrTx, user: UserRow) => Promise<T>,
): Promise<{ user: UserRow; result: T }> {
  const email = normaliseEmail(account.email)
  for (let attempt = 0; attempt < USERNAME_ATTEMPTS; attempt++) {
    const username = account.username ?? usernameFromEmail(email, attempt > 0)
    try {
      return await deps.db.transaction(async (tx) => {
        const now = deps.clock.now()
        const provider = account.provider ?? 'credentials'
        const [user] = await tx
          .insert(users)
          .values({
            email,
            username,
            name: account.name,
            passwordHash: account.passwordHash,
            provider,
            roleId: account.roleId,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
        await tx.insert(clientProfiles).values({
          userId: user!.id,
          email,
          username,
          displayName: account.name || email.split('@')[0]!,
          provider,
          joinedAt: now,
          createdAt: now,
          updatedAt: now,
        })
        return { user: user!, result: await then(tx, user!) }
      })
    } catch (error) {
      const violation = uniqueViolation(error)
      if (violation?.constraint.includes('email'))
        throw conflict('An account with this email already exists', 'EMAIL_TAKEN')
      if (violation?.constraint.includes('username')) {
        if (account.username) throw conflict('This username is already taken', 'USERNAME_TAKEN')
        continue
      }
      throw error
    }
  }
  throw conflict('Could not find a free username for this email; try again', 'USERNAME_TAKEN')
}
