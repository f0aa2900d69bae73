import { type Static, Type } from 'typebox'
import { Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { ROLE_STATUSES } from './tables.ts'

/** SPEC.md "Limits", Roles. */
export const ROLE_NAME_MIN_LENGTH = 3
export const ROLE_NAME_MAX_LENGTH = 100
export const ROLE_DESCRIPTION_MAX_LENGTH = 500
export const ROLE_ID_MAX_LENGTH = 64

export const ROLE_SORT_FIELDS = ['name', 'id', 'created_at'] as const

const EXAMPLE_ROLE = {
  id: 'content-editor',
  name: 'Content editor',
  description: 'Edits items and categories',
  status: 'active',
  isAdmin: false,
  permissions: ['items.read', 'items.update', 'categories.read'],
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-11-20T16:45:00.000Z',
} as const

const RoleStatus = Type.Enum(ROLE_STATUSES, { examples: ['active'] })
const RoleName = Type.String({
  minLength: ROLE_NAME_MIN_LENGTH,
  maxLength: ROLE_NAME_MAX_LENGTH,
  description: `${ROLE_NAME_MIN_LENGTH} to ${ROLE_NAME_MAX_LENGTH} characters once trimmed; unique whatever the case`,
  examples: ['Content editor'],
})
const RoleDescription = Type.String({
  maxLength: ROLE_DESCRIPTION_MAX_LENGTH,
  examples: ['Edits items and categories'],
})

export const Role = Type.Object(
  {
    id: Type.String({ description: 'slug of the name', examples: ['content-editor'] }),
    name: Type.String({ examples: ['Content editor'] }),
    description: Type.String({ examples: [EXAMPLE_ROLE.description] }),
    status: RoleStatus,
    isAdmin: Type.Boolean(),
    permissions: Type.Array(Type.String({ examples: ['items.update'] })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { description: 'A role', examples: [EXAMPLE_ROLE] },
)
export type Role = Static<typeof Role>

export const RoleParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: ROLE_ID_MAX_LENGTH,
    description: 'the role id',
    examples: [EXAMPLE_ROLE.id],
  }),
})

export const RoleListQuery = Query({
  ...PageQueryFields,
  status: Type.Optional(RoleStatus),
  sortBy: Type.Enum(ROLE_SORT_FIELDS, { default: 'name' }),
  sortOrder: Type.Enum(['asc', 'desc'], { default: 'asc' }),
})

export const CreateRoleBody = Type.Object(
  {
    name: RoleName,
    description: RoleDescription,
    status: Type.Optional(RoleStatus),
    isAdmin: Type.Optional(Type.Boolean()),
  },
  { examples: [{ name: 'Content editor', description: 'Edits items and categories', status: 'active' }] },
)

export const UpdateRoleBody = Type.Object(
  {
    name: Type.Optional(RoleName),
    description: Type.Optional(RoleDescription),
    status: Type.Optional(RoleStatus),
    isAdmin: Type.Optional(Type.Boolean()),
  },
  { examples: [{ description: 'Edits items, categories and tags', status: 'inactive' }] },
)

export const DeleteRoleQuery = Query({
  hard: Type.Boolean({
    default: false,
    description: '`true` deletes for good; otherwise the role is marked inactive',
    examples: [false],
  }),
})

export const PermissionsBody = Type.Object(
  {
    permissions: Type.Array(Type.String({ maxLength: 100 }), {
      maxItems: 500,
      description: 'every permission of the role, each an `area.action` of the catalogue',
      examples: [['items.read', 'items.update']],
    }),
  },
  { examples: [{ permissions: ['items.read', 'items.update', 'categories.read'] }] },
)

export const RoleList = Type.Object(
  {
    success: Type.Literal(true),
    roles: Type.Array(Role),
    ...PageMetaFields,
  },
  {
    description: 'A page of roles',
    examples: [{ success: true, roles: [EXAMPLE_ROLE], page: 1, limit: 10, total: 1, totalPages: 1 }],
  },
)

export const RoleAnswer = Type.Object(
  { success: Type.Literal(true), data: Role },
  { description: 'The role', examples: [{ success: true, data: EXAMPLE_ROLE }] },
)

export const RoleChanged = Type.Object(
  {
    success: Type.Literal(true),
    data: Role,
    message: Type.String({ examples: ['Role created'] }),
  },
  {
    description: 'The role as it now is',
    examples: [{ success: true, data: EXAMPLE_ROLE, message: 'Role created' }],
  },
)

export const RoleDeleted = Type.Object(
  {
    success: Type.Literal(true),
    message: Type.String({ examples: ['Role deactivated'] }),
  },
  {
    description: 'Deactivated, or deleted with `hard=true`',
    examples: [{ success: true, message: 'Role deactivated' }],
  },
)

export const ActiveRoles = Type.Object(
  { roles: Type.Array(Role) },
  { description: 'The active roles, by name', examples: [{ roles: [EXAMPLE_ROLE] }] },
)

export const PermissionCatalogue = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(
      Type.Object({
        area: Type.String({ examples: ['items'] }),
        actions: Type.Array(Type.String(), { examples: [['read', 'create', 'update', 'delete', 'review']] }),
        permissions: Type.Array(Type.String(), {
          description: 'the area’s permissions as roles hold them, `area.action`',
          examples: [['items.read', 'items.create', 'items.update', 'items.delete', 'items.review']],
        }),
      }),
      { description: 'every area, in a fixed order' },
    ),
  },
  {
    description: 'The permissions a role may hold, by area',
    examples: [
      {
        success: true,
        data: [
          {
            area: 'tags',
            actions: ['read', 'create', 'update', 'delete'],
            permissions: ['tags.read', 'tags.create', 'tags.update', 'tags.delete'],
          },
        ],
      },
    ],
  },
)

export const RoleStats = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      total: Type.Integer(),
      active: Type.Integer(),
      inactive: Type.Integer(),
      averagePermissions: Type.Number({ description: 'mean number of permissions per role, two decimals' }),
    }),
  },
  {
    description: 'Role statistics',
    examples: [{ success: true, data: { total: 4, active: 3, inactive: 1, averagePermissions: 12.5 } }],
  },
)

export const RolePermissions = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      permissions: Type.Array(Type.String()),
      role: Type.Object({ id: Type.String(), name: Type.String(), description: Type.String() }),
    }),
  },
  {
    description: 'The role’s permissions',
    examples: [
      {
        success: true,
        data: {
          permissions: EXAMPLE_ROLE.permissions,
          role: { id: EXAMPLE_ROLE.id, name: EXAMPLE_ROLE.name, description: EXAMPLE_ROLE.description },
        },
      },
    ],
  },
)
