import { and, asc, count, desc, eq, gte, isNotNull, type SQL, sql } from 'drizzle-orm'
import { anyContaining } from '../../db/filters.ts'
import type { Db } from '../../db/index.ts'
import { pageOfRows } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { badRequest, HttpError, invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import type { PageOf } from '../../lib/pagination.ts'
import { hashPassword } from '../../lib/passwords.ts'
import { DAY_MS } from '../../lib/time.ts'
import { normaliseEmail } from '../accounts/rules.ts'
import type { AccountService, UserRow } from '../accounts/service.ts'
import { users } from '../accounts/tables.ts'
import type { ProfileService } from '../clients/profiles.ts'
import type { RoleService } from '../roles/service.ts'
import type { AdminUser, CreateUserBody, UpdateUserBody, UserListQuery, UserSortField } from './schemas.ts'

const RECENT_DAYS = 30
const TOP_ACTIVE_USERS = 5

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

/** SPEC.md: a duplicate email or username is 400 on the admin users API (409 elsewhere). */
const duplicateError = (field: 'email' | 'username') =>
  invalidInput([{ field, message: 'is taken' }], {
    code: field === 'email' ? 'EMAIL_TAKEN' : 'USERNAME_TAKEN',
    summary: `A user with this ${field} already exists`,
  })

/** A taken email or username found by the database (a concurrent write) is the same 400. */
function asDuplicate(error: unknown): never {
  if (error instanceof HttpError && error.status === 409) {
    if (error.code === 'EMAIL_TAKEN') throw duplicateError('email')
    if (error.code === 'USERNAME_TAKEN') throw duplicateError('username')
  }
  throw error
}

export interface UserServiceDeps {
  db: Db
  clock: Clock
  accounts: Omit<AccountService, 'recordSignin'>
  profiles: Pick<ProfileService, 'openAccount' | 'mirrorIdentity'>
  roles: Pick<RoleService, 'exists'>
}

export function createUserService({ db, clock, accounts, profiles, roles }: UserServiceDeps) {
  async function find(id: string): Promise<UserRow> {
    const user = isUuid(id) ? await accounts.get(id) : undefined
    if (!user) throw notFound('User not found', 'USER_NOT_FOUND')
    return user
  }

  async function assertRoleExists(roleId: string): Promise<void> {
    if (!(await roles.exists(roleId))) throw invalidInput('role', 'does not exist', 'ROLE_NOT_FOUND')
  }

  /** 400 when another user holds the email or username, whatever its case. */
  async function assertFree(
    fields: { email?: string | undefined; username?: string | undefined },
    excludeId?: string,
  ) {
    if (fields.email !== undefined && (await accounts.emailInUse(fields.email, excludeId)))
      throw duplicateError('email')
    if (fields.username !== undefined && (await accounts.usernameInUse(fields.username, excludeId)))
      throw duplicateError('username')
  }

  return {
    async list(query: UserListQuery): Promise<PageOf<AdminUser>> {
      const search = query.search?.trim()
      const where = and(
        search ? anyContaining([users.name, users.username, users.email], search) : undefined,
        query.role ? eq(users.roleId, query.role) : undefined,
        query.status
          ? eq(users.status, query.status)
          : query.includeInactive
            ? undefined
            : eq(users.status, 'active'),
      )
      const order = query.sortOrder === 'desc' ? desc : asc
      return pageOfRows(db, users, query, {
        where,
        orderBy: [order(SORT_COLUMNS[query.sortBy]), asc(users.id)],
        map: toAdminUser,
      })
    },

    /** Creates an active user with their client profile. */
    async create(input: CreateUserBody): Promise<AdminUser> {
      await assertRoleExists(input.role)
      await assertFree(input)
      const passwordHash = await hashPassword(input.password)
      const { user } = await profiles
        .openAccount({
          email: input.email,
          username: input.username,
          passwordHash,
          name: input.name.trim(),
          roleId: input.role,
          title: input.title,
          avatar: input.avatar,
        })
        .catch(asDuplicate)
      return toAdminUser(user)
    },

    async get(id: string): Promise<AdminUser> {
      return toAdminUser(await find(id))
    },

    /** Changes the given fields; the client profile follows a new username or email. */
    async update(id: string, changes: UpdateUserBody): Promise<AdminUser> {
      const existing = await find(id)
      if (changes.role !== undefined) await assertRoleExists(changes.role)
      await assertFree(changes, existing.id)
      const updated = await db
        .transaction(async (tx) => {
          const user = await accounts.update(
            existing.id,
            {
              username: changes.username,
              email: changes.email,
              name: changes.name?.trim(),
              title: changes.title,
              avatar: changes.avatar,
              roleId: changes.role,
              status: changes.status,
            },
            tx,
          )
          if (!user) throw notFound('User not found', 'USER_NOT_FOUND')
          await profiles.mirrorIdentity(
            user.id,
            {
              username: changes.username === undefined ? undefined : user.username,
              email: changes.email === undefined ? undefined : normaliseEmail(user.email),
            },
            tx,
          )
          return user
        })
        .catch(asDuplicate)
      return toAdminUser(updated)
    },

    async remove(id: string, viewerId: string): Promise<void> {
      const user = await find(id)
      if (user.id === viewerId) throw badRequest('You cannot delete your own account', 'SELF_DELETION')
      if (!(await accounts.remove(user.id))) throw notFound('User not found', 'USER_NOT_FOUND')
    },

    async checkEmail(email: string, excludeId?: string) {
      const exists = await accounts.emailInUse(email, excludeId)
      return { available: !exists, exists }
    },

    async checkUsername(username: string, excludeId?: string) {
      const exists = await accounts.usernameInUse(username, excludeId)
      return { available: !exists, exists }
    },

    async stats() {
      const since = new Date(clock.nowMs() - RECENT_DAYS * DAY_MS)
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
