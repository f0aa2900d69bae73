import type { App } from '../../http/app.ts'
import { described, invalidField } from '../../http/schemas.ts'
import { errors } from '../http/schemas.ts'
import { PERMISSION_CATALOGUE } from './permissions.ts'
import {
  ActiveRoles,
  CreateRoleBody,
  DeleteRoleQuery,
  PermissionCatalogue,
  PermissionsBody,
  RoleAnswer,
  RoleChanged,
  RoleDeleted,
  RoleList,
  RoleListQuery,
  RoleParams,
  RolePermissions,
  RoleStats,
  UpdateRoleBody,
} from './schemas.ts'
import type { RoleService } from './service.ts'

const tags = ['roles']
/** A write carrying the session cookie from another origin is refused too. */
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
const badId = invalidField('params.id', 'must be at most 64 characters long')

export function roleRoutes(app: App, { roles }: { roles: RoleService }) {
  app.get(
    '/api/admin/roles',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List roles',
        description: `Roles of every status unless \`status\` is given, sorted by name by default.`,
        querystring: RoleListQuery,
        response: {
          200: RoleList,
          ...errors([400, invalidField('query.status', 'must be one of "active", "inactive"')], 401, 403),
        },
      },
    },
    async (req) => {
      const { items, meta } = await roles.list(req.query)
      return { success: true as const, roles: items, ...meta }
    },
  )

  app.post(
    '/api/admin/roles',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a role',
        description:
          'The id is the slug of the name (diacritics stripped, at most 64 characters). A name or id already ' +
          `taken, whatever its case and inactive roles included, answers 409.`,
        body: CreateRoleBody,
        response: {
          201: described(RoleChanged, 'The created role'),
          ...errors(
            [400, invalidField('body.name', 'must be at least 3 characters long')],
            401,
            WRITE_403,
            [409, 'ROLE_EXISTS'],
            413,
            415,
          ),
        },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send({ success: true as const, data: await roles.create(req.body), message: 'Role created' }),
  )

  app.get(
    '/api/admin/roles/active',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'List active roles',
        description: 'The active roles, by name. Public: no session needed.',
        response: { 200: ActiveRoles },
      },
    },
    async () => ({ roles: await roles.listActive() }),
  )

  app.get(
    '/api/admin/roles/permissions',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'The permission catalogue',
        description:
          'Every permission a role may hold, by area: `area.action` for each action of the area (read, create, ' +
          'update and delete everywhere, and the area’s own actions). `PUT /api/admin/roles/:id/permissions` ' +
          'takes these and no others.',
        response: { 200: PermissionCatalogue, ...errors(401, 403) },
      },
    },
    async () => ({
      success: true as const,
      data: PERMISSION_CATALOGUE.map(({ area, actions }) => ({
        area,
        actions: [...actions],
        permissions: actions.map((action) => `${area}.${action}`),
      })),
    }),
  )

  app.get(
    '/api/admin/roles/stats',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Role statistics',
        description: `Counts by status and the mean number of permissions per role.`,
        response: { 200: RoleStats, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await roles.stats() }),
  )

  app.get(
    '/api/admin/roles/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a role',
        description: `The role with its permissions, status and timestamps; 404 when unknown.`,
        params: RoleParams,
        response: { 200: RoleAnswer, ...errors([400, badId], 401, 403, [404, 'ROLE_NOT_FOUND']) },
      },
    },
    async (req) => ({ success: true as const, data: await roles.get(req.params.id) }),
  )

  app.put(
    '/api/admin/roles/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Update a role',
        description:
          'Changes the given fields of name, description, status and isAdmin; the id stays. A name taken by ' +
          'another role answers 409. The seeded `admin` role cannot be deactivated or lose `isAdmin` (400).',
        params: RoleParams,
        body: UpdateRoleBody,
        response: {
          200: described(RoleChanged, 'The updated role'),
          ...errors(
            [
              400,
              invalidField('body.name', 'must be at least 3 characters long'),
              {
                code: 'ADMIN_ROLE_PROTECTED',
                message: 'The admin role cannot be deactivated or lose admin rights',
              },
            ],
            401,
            WRITE_403,
            [404, 'ROLE_NOT_FOUND'],
            [409, 'ROLE_EXISTS'],
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await roles.update(req.params.id, req.body),
      message: 'Role updated',
    }),
  )

  app.delete(
    '/api/admin/roles/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a role',
        description:
          'With `hard=true` the role is deleted for good and its users lose it; otherwise it is marked ' +
          'inactive. The seeded `admin` role cannot be deleted (400 `ADMIN_ROLE_PROTECTED`), nor the `user` ' +
          'role every new account gets, for good (400 `USER_ROLE_PROTECTED`; it may be made inactive).',
        params: RoleParams,
        querystring: DeleteRoleQuery,
        response: {
          200: RoleDeleted,
          ...errors(
            [
              400,
              invalidField('query.hard', 'must be true or false'),
              'ADMIN_ROLE_PROTECTED',
              'USER_ROLE_PROTECTED',
            ],
            401,
            WRITE_403,
            [404, 'ROLE_NOT_FOUND'],
          ),
        },
      },
    },
    async (req) => {
      const { hard } = await roles.remove(req.params.id, req.query.hard)
      return { success: true as const, message: hard ? 'Role deleted' : 'Role deactivated' }
    },
  )

  app.get(
    '/api/admin/roles/:id/permissions',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a role’s permissions',
        description: `The role’s permissions with its id, name and description.`,
        params: RoleParams,
        response: { 200: RolePermissions, ...errors([400, badId], 401, 403, [404, 'ROLE_NOT_FOUND']) },
      },
    },
    async (req) => ({ success: true as const, data: await roles.permissions(req.params.id) }),
  )

  app.put(
    '/api/admin/roles/:id/permissions',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Replace a role’s permissions',
        description:
          'Replaces the whole array, duplicates removed. Each entry must be an `area.action` of the catalogue; ' +
          `otherwise 400 lists the invalid ones.`,
        params: RoleParams,
        body: PermissionsBody,
        response: {
          200: described(RoleChanged, 'The role with its new permissions'),
          ...errors(
            [400, invalidField('body.permissions', 'must have at most 500 items'), 'INVALID_PERMISSIONS'],
            401,
            WRITE_403,
            [404, 'ROLE_NOT_FOUND'],
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await roles.replacePermissions(req.params.id, req.body.permissions),
      message: 'Permissions updated',
    }),
  )
}
