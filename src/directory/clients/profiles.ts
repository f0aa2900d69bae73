import { eq, sql } from 'drizzle-orm'
import { onUniqueViolation } from '../../db/errors.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict } from '../../lib/errors.ts'
import type { AccountService, NewAccount, UserRow } from '../accounts/service.ts'
import { clientProfiles } from './tables.ts'

export type ClientRow = typeof clientProfiles.$inferSelect

/** What a profile adds to its account; the identity fields (email, username) mirror the account's. */
export type ProfileFields = Partial<
  Pick<
    typeof clientProfiles.$inferInsert,
    | 'displayName'
    | 'bio'
    | 'jobTitle'
    | 'company'
    | 'industry'
    | 'phone'
    | 'website'
    | 'location'
    | 'avatar'
    | 'accountType'
    | 'status'
    | 'plan'
  >
>

export const clientExists = () => conflict('A client with this email already exists', 'CLIENT_EXISTS')
/** A unique violation of a profile write as the answer the admin clients API gives. */
export const profileConflicts = onUniqueViolation({
  client_profiles_user_id_unique: clientExists,
  client_profiles_username_unique: () => conflict('This username is already taken', 'USERNAME_TAKEN'),
})

/**
 * Client profiles, one per account: the `client_profiles` table is written here (and by the admin clients
 * service beside it) and nowhere else. Accounts are made and changed through the account service, in
 * the same transaction, so an account and its profile never exist apart.
 */
export function createProfileService({
  db,
  clock,
  accounts,
}: {
  db: Db
  clock: Clock
  accounts: Pick<AccountService, 'create' | 'update'>
}) {
  /** The profile of an account that has none; the display name defaults to the email's local part. */
  async function addProfile(user: UserRow, fields: ProfileFields, executor: DbOrTx = db): Promise<ClientRow> {
    const now = clock.now()
    const [row] = await executor
      .insert(clientProfiles)
      .values({
        ...fields,
        userId: user.id,
        email: user.email,
        username: user.username,
        displayName: fields.displayName || user.name || user.email.split('@')[0]!,
        avatar: fields.avatar ?? user.avatar,
        provider: user.provider,
        joinedAt: user.createdAt,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .catch(profileConflicts)
    return row!
  }

  /** The user's profile, locked for the transaction's change of it. */
  async function lockedProfile(tx: DbOrTx, userId: string): Promise<ClientRow | undefined> {
    const [profile] = await tx
      .select()
      .from(clientProfiles)
      .where(eq(clientProfiles.userId, userId))
      .for('update')
    return profile
  }

  return {
    addProfile,

    /** Opens an account with its client profile, all or nothing (sign-up, an admin adding a user or client). */
    async openAccount(
      account: NewAccount,
      fields: ProfileFields = {},
      executor: DbOrTx = db,
    ): Promise<{ user: UserRow; profile: ClientRow }> {
      return executor.transaction(async (tx) => {
        const user = await accounts.create(account, tx)
        return { user, profile: await addProfile(user, fields, tx) }
      })
    },

    /** Counts a submission of the user's (the clients' figures read it); no profile, nothing counted. */
    async countSubmission(tx: DbOrTx, userId: string): Promise<void> {
      await tx
        .update(clientProfiles)
        .set({ totalSubmissions: sql`${clientProfiles.totalSubmissions} + 1` })
        .where(eq(clientProfiles.userId, userId))
    },

    /** A moderation warning: the user's warnings now, or null when they have no profile to warn. */
    async warn(tx: DbOrTx, userId: string, at: Date): Promise<number | null> {
      const profile = await lockedProfile(tx, userId)
      if (!profile) return null
      const [row] = await tx
        .update(clientProfiles)
        .set({ warningCount: sql`${clientProfiles.warningCount} + 1`, updatedAt: at })
        .where(eq(clientProfiles.id, profile.id))
        .returning({ warningCount: clientProfiles.warningCount })
      return row?.warningCount ?? profile.warningCount + 1
    },

    /**
     * Suspends the user (a ban is a suspension that also records when it was banned), keeping the first
     * time of each; false when they have no profile. Their sessions are the caller's to end.
     */
    async suspend(tx: DbOrTx, userId: string, { ban }: { ban: boolean }, at: Date): Promise<boolean> {
      const profile = await lockedProfile(tx, userId)
      if (!profile) return false
      await tx
        .update(clientProfiles)
        .set({
          status: 'suspended',
          suspendedAt: profile.suspendedAt ?? at,
          ...(ban ? { bannedAt: profile.bannedAt ?? at } : {}),
          updatedAt: at,
        })
        .where(eq(clientProfiles.id, profile.id))
      return true
    },

    /** Keeps the profile's copy of its account's username and email in step with the account. */
    async mirrorIdentity(
      userId: string,
      identity: { username?: string | undefined; email?: string | undefined },
      executor: DbOrTx = db,
    ): Promise<void> {
      if (identity.username === undefined && identity.email === undefined) return
      await executor
        .update(clientProfiles)
        .set({ username: identity.username, email: identity.email, updatedAt: clock.now() })
        .where(eq(clientProfiles.userId, userId))
        .catch(profileConflicts)
    },
  }
}

export type ProfileService = ReturnType<typeof createProfileService>
