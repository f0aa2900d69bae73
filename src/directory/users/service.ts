import { and, asc, count, desc, eq, gte, isNotNull, ne, or, type SQL, sql } from 'drizzle-orm'
import { type Db, uniqueViolation } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { badRequest, HttpError, notFound } from '../../lib/errors.ts'
import { offsetOf } from '../../lib/pagination.ts'
import { hashPassword } from '../../lib/passwords.ts'
import { clientProfiles } from '../clients/tables.ts'
import { roles } from '../roles/tables.ts'
import { createAccount, normaliseEmail, type UserRow } from './accounts.ts'
import type { AdminUser, CreateUserBody, UpdateUserBody, UserListQuery, UserSortField } from './schemas.ts'
import { users } from './tables.ts'

const RECENT_DAYS = 30
const TOP_ACTIVE_USERS = 5
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const SORT_COLUMNS: Record<UserSortField, SQL> = {
  name: sql`lower(${users.name})`,
  username: sql`lower(${users.username})`,
  email: sql`${users.email}`,
  role: sql`${users.roleId}`,
  created_at: sql`${users.createdAt}`,
}

export function toAdminUser(user: UserRow): AdminUser {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    name: user.name,
    title: user.title,
    avatar: user.avatar,
    role: user.roleId,
    status: user.status,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
    last_login: user.lastLoginAt,
  }
}

/** `%`, `_` and `\` match themselves in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`)

const sameUsername = (username: string) => sql`lower(${users.username}) = lower(${username})`

const duplicateError = (field: 'email' | 'username') =>
  field === 'email'
    ? badRequest(
        'A user with this email already exists',
        [{ field: 'email', message: 'is taken' }],
        'EMAIL_TAKEN',
      )
    : badRequest(
        'A user with this username already exists',
        [{ field: 'username', message: 'is taken' }],
        'USERNAME_TAKEN',
      )

export function createUserService({ db, clock }: { db: Db; clock: Clock }) {
  async function find(id: string): Promise<UserRow> {
    if (!UUID.test(id)) throw notFound('User not found', 'USER_NOT_FOUND')
    const [user] = await db.select().from(users).where(eq(users.id, id))
    if (!user) throw notFound('User not found', 'USER_NOT_FOUND')
    return user
  }

  async function emailExists(email: string, excludeId?: string): Promise<boolean> {
    const [row] = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.email, normaliseEmail(email)), excludeId ? ne(users.id, excludeId) : undefined))
      .limit(1)
    return row !== undefined
  }

  async function usernameExists(username: string, excludeId?: string): Promise<boolean> {
    const [row] = await db
      .select({ id: users.id })
      .from(users)
      .where(and(sameUsername(username), excludeId ? ne(users.id, excludeId) : undefined))
      .limit(1)
    return row !== undefined
  }

  async function assertRoleExists(roleId: string): Promise<void> {
    const [role] = await db.select({ id: roles.id }).from(roles).where(eq(roles.id, roleId))
    if (!role)
      throw badRequest(`Role ${roleId} does not exist`, [{ field: 'role', message: 'does not exist' }])
  }

  async function assertFree(fields: { email?: string; username?: string }, excludeId?: string) {
    if (fields.email !== undefined && (await emailExists(fields.email, excludeId)))
      throw duplicateError('email')
    if (fields.username !== undefined && (await usernameExists(fields.username, excludeId)))
      throw duplicateError('username')
  }

  /** A unique violation that slipped past the checks (a concurrent write) is the same 400. */
  function rethrowDuplicate(error: unknown): never {
    const constraint = uniqueViolation(error)?.constraint
    if (constraint?.includes('email')) throw duplicateError('email')
    if (constraint?.includes('username')) throw duplicateError('username')
    if (error instanceof HttpError && error.status === 409)
      throw duplicateError(error.code === 'EMAIL_TAKEN' ? 'email' : 'username')
    throw error
  }

  return {
    async list(query: UserListQuery) {
      const search = query.search?.trim()
      const pattern = search ? `%${likeLiteral(search)}%` : undefined
      const where = and(
        pattern
          ? or(
              sql`${users.name} ilike ${pattern}`,
              sql`${users.username} ilike ${pattern}`,
              sql`${users.email} ilike ${pattern}`,
            )
          : undefined,
        query.role ? eq(users.roleId, query.role) : undefined,
        query.status
          ? eq(users.status, query.status)
          : query.includeInactive
            ? undefined
            : eq(users.status, 'active'),
      )
      const order = query.sortOrder === 'desc' ? desc : asc
      const [rows, [totals]] = await Promise.all([
        db
          .select()
          .from(users)
          .where(where)
          .orderBy(order(SORT_COLUMNS[query.sortBy]), asc(users.id))
          .limit(query.limit)
          .offset(offsetOf(query)),
        db.select({ total: count() }).from(users).where(where),
      ])
      const total = totals?.total ?? 0
      return {
        data: rows.map(toAdminUser),
        total,
        page: query.page,
        limit: query.limit,
        totalPages: Math.ceil(total / query.limit),
      }
    },

    async create(input: CreateUserBody) {
      await assertRoleExists(input.role)
      await assertFree(input)
      const passwordHash = await hashPassword(input.password)
      const { user } = await createAccount(
        { db, clock },
        {
          email: input.email,
          username: input.username,
          passwordHash,
          name: input.name.trim(),
          roleId: input.role,
        },
        async (tx, created) => {
          if (input.title === undefined && input.avatar === undefined) return
          await tx
            .update(users)
            .set({ title: input.title, avatar: input.avatar })
            .where(eq(users.id, created.id))
          if (input.avatar !== undefined)
            await tx
              .update(clientProfiles)
              .set({ avatar: input.avatar })
              .where(eq(clientProfiles.userId, created.id))
        },
      ).catch(rethrowDuplicate)
      return {
        id: user.id,
        username: user.username,
        email: user.email,
        name: user.name,
        role: user.roleId,
        status: user.status,
        created_at: user.createdAt,
      }
    },

    async get(id: string): Promise<AdminUser> {
      return toAdminUser(await find(id))
    },

    async update(id: string, changes: UpdateUserBody): Promise<AdminUser> {
      const existing = await find(id)
      if (changes.role !== undefined) await assertRoleExists(changes.role)
      await assertFree(changes, existing.id)
      const email = changes.email === undefined ? undefined : normaliseEmail(changes.email)
      const updated = await db
        .transaction(async (tx) => {
          const now = clock.now()
          const [user] = await tx
            .update(users)
            .set({
              username: changes.username,
              email,
              name: changes.name?.trim(),
              title: changes.title,
              avatar: changes.avatar,
              roleId: changes.role,
              status: changes.status,
              updatedAt: now,
            })
            .where(eq(users.id, existing.id))
            .returning()
          // The profile mirrors the account's identity fields.
          if (changes.username !== undefined || email !== undefined)
            await tx
              .update(clientProfiles)
              .set({ username: changes.username, email, updatedAt: now })
              .where(eq(clientProfiles.userId, existing.id))
          return user!
        })
        .catch(rethrowDuplicate)
      return toAdminUser(updated)
    },

    async remove(id: string, viewerId: string): Promise<void> {
      const user = await find(id)
      if (user.id === viewerId)
        throw badRequest('You cannot delete your own account', undefined, 'SELF_DELETION')
      await db.delete(users).where(eq(users.id, user.id))
    },

    async checkEmail(email: string, excludeId?: string) {
      const exists = await emailExists(email, excludeId)
      return { available: !exists, exists }
    },

    async checkUsername(username: string, excludeId?: string) {
      const exists = await usernameExists(username, excludeId)
      return { available: !exists, exists }
    },

    async stats() {
      const since = new Date(clock.now().getTime() - RECENT_DAYS * 86_400_000)
      const [[totals], distribution, top] = await Promise.all([
        db
          .select({
            totalUsers: count(),
            activeUsers: sql<number>`count(*) filter (where ${users.status} = 'active')`.mapWith(Number),
            inactiveUsers: sql<number>`count(*) filter (where ${users.status} = 'inactive')`.mapWith(Number),
            recentRegistrations: sql<number>`count(*) filter (where ${gte(users.createdAt, since)})`.mapWith(
              Number,
            ),
            averageLoginFrequency: sql<number>`coalesce(round(avg(${users.loginCount}), 2), 0)`.mapWith(
              Number,
            ),
          })
          .from(users),
        db
          .select({ role: users.roleId, users: count() })
          .from(users)
          .where(isNotNull(users.roleId))
          .groupBy(users.roleId),
        db
          .select({
            id: users.id,
            username: users.username,
            name: users.name,
            loginCount: users.loginCount,
            lastLogin: users.lastLoginAt,
          })
          .from(users)
          .orderBy(desc(users.loginCount), sql`${users.lastLoginAt} desc nulls last`, asc(users.id))
          .limit(TOP_ACTIVE_USERS),
      ])
      return {
        totalUsers: totals?.totalUsers ?? 0,
        activeUsers: totals?.activeUsers ?? 0,
        inactiveUsers: totals?.inactiveUsers ?? 0,
        recentRegistrations: totals?.recentRegistrations ?? 0,
        roleDistribution: Object.fromEntries(distribution.map((row) => [row.role!, row.users])),
        averageLoginFrequency: totals?.averageLoginFrequency ?? 0,
        topActiveUsers: top,
      }
    },
  }
}

export type UserService = ReturnType<typeof createUserService>
