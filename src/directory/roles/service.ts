import { asc, count, desc, eq, sql } from 'drizzle-orm'
import { onUniqueViolation } from '../../db/errors.ts'
import type { Db } from '../../db/index.ts'
import { pageOfRows } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { badRequest, conflict, invalidInput, notFound } from '../../lib/errors.ts'
import type { Page, PageOf } from '../../lib/pagination.ts'
import { slugify } from '../../lib/slug.ts'
import { invalidPermissions } from './permissions.ts'
import {
  ROLE_ID_MAX_LENGTH,
  ROLE_NAME_MAX_LENGTH,
  ROLE_NAME_MIN_LENGTH,
  type ROLE_SORT_FIELDS,
  type Role,
} from './schemas.ts'
import { ADMIN_ROLE_ID, type RoleStatus, roles, USER_ROLE_ID } from './tables.ts'

export interface RoleListQuery extends Page {
  status?: RoleStatus
  sortBy: (typeof ROLE_SORT_FIELDS)[number]
  sortOrder: 'asc' | 'desc'
}

export interface CreateRoleInput {
  name: string
  description: string
  status?: RoleStatus
  isAdmin?: boolean
}

export type UpdateRoleInput = Partial<CreateRoleInput>

export interface RoleServiceDeps {
  db: Db
  clock: Clock
}

type RoleRow = typeof roles.$inferSelect

const viewOf = (row: RoleRow): Role => ({
  id: row.id,
  name: row.name,
  description: row.description,
  status: row.status,
  isAdmin: row.isAdmin,
  permissions: row.permissions,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})

const SORT_COLUMNS = { name: roles.name, id: roles.id, created_at: roles.createdAt } as const

/** The trimmed name, 400 when trimming leaves it out of its limits. */
function checkedName(name: string): string {
  const trimmed = name.trim()
  if (trimmed.length < ROLE_NAME_MIN_LENGTH || trimmed.length > ROLE_NAME_MAX_LENGTH) {
    throw invalidInput('name', `must be ${ROLE_NAME_MIN_LENGTH} to ${ROLE_NAME_MAX_LENGTH} characters`)
  }
  return trimmed
}

/** SPEC.md: a duplicate role name or id is 409. */
function duplicates(name: string, id?: string) {
  const nameTaken = () => conflict(`A role named "${name}" already exists`, 'ROLE_EXISTS')
  return onUniqueViolation({
    roles_pkey:
      id === undefined ? nameTaken : () => conflict(`A role with id "${id}" already exists`, 'ROLE_EXISTS'),
    roles_name_unique: nameTaken,
    roles_name_lower_unique: nameTaken,
  })
}

export function createRoleService({ db, clock }: RoleServiceDeps) {
  async function find(id: string): Promise<RoleRow> {
    const [row] = await db.select().from(roles).where(eq(roles.id, id))
    if (!row) throw notFound('Role not found', 'ROLE_NOT_FOUND')
    return row
  }

  return {
    async list(query: RoleListQuery): Promise<PageOf<Role>> {
      const where = query.status ? eq(roles.status, query.status) : undefined
      const order = query.sortOrder === 'desc' ? desc : asc
      return pageOfRows(db, roles, query, {
        where,
        orderBy: [order(SORT_COLUMNS[query.sortBy]), order(roles.id)],
        map: viewOf,
      })
    },

    async exists(id: string): Promise<boolean> {
      const [row] = await db.select({ id: roles.id }).from(roles).where(eq(roles.id, id))
      return row !== undefined
    },

    /** Makes sure the seeded admin role exists, is active and grants admin. */
    async ensureAdminRole(): Promise<void> {
      await db
        .insert(roles)
        .values({
          id: ADMIN_ROLE_ID,
          name: 'Administrator',
          description: 'Full access to every admin area',
          isAdmin: true,
        })
        .onConflictDoUpdate({
          target: roles.id,
          set: { status: 'active', isAdmin: true, updatedAt: clock.now() },
        })
    },

    async listActive(): Promise<Role[]> {
      const rows = await db.select().from(roles).where(eq(roles.status, 'active')).orderBy(asc(roles.name))
      return rows.map(viewOf)
    },

    async stats() {
      const [row] = await db
        .select({
          total: count(),
          active: sql<number>`count(*) filter (where ${roles.status} = 'active')`.mapWith(Number),
          inactive: sql<number>`count(*) filter (where ${roles.status} = 'inactive')`.mapWith(Number),
          averagePermissions:
            sql<number>`coalesce(round(avg(jsonb_array_length(${roles.permissions})), 2), 0)`.mapWith(Number),
        })
        .from(roles)
      return row ?? { total: 0, active: 0, inactive: 0, averagePermissions: 0 }
    },

    async get(id: string): Promise<Role> {
      return viewOf(await find(id))
    },

    /** The id is the name's slug; the primary key and the case-insensitive name index settle races. */
    async create(input: CreateRoleInput): Promise<Role> {
      const name = checkedName(input.name)
      const id = slugify(name, ROLE_ID_MAX_LENGTH)
      if (!id) throw invalidInput('name', 'must contain letters or digits')
      const now = clock.now()
      const [row] = await db
        .insert(roles)
        .values({
          id,
          name,
          description: input.description,
          status: input.status ?? 'active',
          isAdmin: input.isAdmin ?? false,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .catch(duplicates(name, id))
      return viewOf(row!)
    },

    async update(id: string, input: UpdateRoleInput): Promise<Role> {
      await find(id)
      const name = input.name === undefined ? undefined : checkedName(input.name)
      // An instance must keep a working admin role; demoting it could lock every admin out.
      if (id === ADMIN_ROLE_ID && (input.status === 'inactive' || input.isAdmin === false)) {
        throw badRequest('The admin role cannot be deactivated or lose admin rights', 'ADMIN_ROLE_PROTECTED')
      }
      const [row] = await db
        .update(roles)
        .set({
          ...(name === undefined ? {} : { name }),
          ...(input.description === undefined ? {} : { description: input.description }),
          ...(input.status === undefined ? {} : { status: input.status }),
          ...(input.isAdmin === undefined ? {} : { isAdmin: input.isAdmin }),
          updatedAt: clock.now(),
        })
        .where(eq(roles.id, id))
        .returning()
        .catch(duplicates(name ?? ''))
      if (!row) throw notFound('Role not found', 'ROLE_NOT_FOUND')
      return viewOf(row)
    },

    /** `hard` removes the role (its users lose it); otherwise it is marked inactive. */
    async remove(id: string, hard: boolean): Promise<{ hard: boolean }> {
      if (id === ADMIN_ROLE_ID) {
        throw badRequest('The admin role cannot be deleted', 'ADMIN_ROLE_PROTECTED')
      }
      // Every new account gets it: without it, sign-up and client creation could not make accounts.
      if (id === USER_ROLE_ID && hard) {
        throw badRequest(
          'The user role, which every new account gets, cannot be deleted (it can be made inactive)',
          'USER_ROLE_PROTECTED',
        )
      }
      const changed = hard
        ? await db.delete(roles).where(eq(roles.id, id)).returning({ id: roles.id })
        : await db
            .update(roles)
            .set({ status: 'inactive', updatedAt: clock.now() })
            .where(eq(roles.id, id))
            .returning({ id: roles.id })
      if (changed.length === 0) throw notFound('Role not found', 'ROLE_NOT_FOUND')
      return { hard }
    },

    async permissions(id: string) {
      const row = await find(id)
      return {
        permissions: row.permissions,
        role: { id: row.id, name: row.name, description: row.description },
      }
    },

    async replacePermissions(id: string, permissions: string[]): Promise<Role> {
      const invalid = invalidPermissions(permissions)
      if (invalid.length > 0) {
        throw invalidInput(
          [{ field: 'permissions', message: `unknown permissions: ${invalid.join(', ')}` }],
          {
            code: 'INVALID_PERMISSIONS',
            summary: `Invalid permissions: ${invalid.join(', ')}`,
          },
        )
      }
      const [row] = await db
        .update(roles)
        .set({ permissions: [...new Set(permissions)], updatedAt: clock.now() })
        .where(eq(roles.id, id))
        .returning()
      if (!row) throw notFound('Role not found', 'ROLE_NOT_FOUND')
      return viewOf(row)
    },
  }
}

export type RoleService = ReturnType<typeof createRoleService>
