import { type Static, Type } from 'typebox'
import { Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { ROLE_STATUSES } from './tables.ts'

/** SPEC.md "Limits", Roles. */
export const ROLE_NAME_MIN_LENGTH = 3
export const ROLE_NAME_MAX_LENGTH = 100
export const ROLE_DESCRIPTION_MAX_LENGTH = 500
export const ROLE_ID_MAX_LENGTH = 64

export const ROLE_SORT_FIELDS = ['name', 'id', 'created_at'] as const

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
    description: Type.String(),
    status: RoleStatus,
    isAdmin: Type.Boolean(),
    permissions: Type.Array(Type.String({ examples: ['items.update'] })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { description: 'A role' },
)
export type Role = Static<typeof Role>

export const RoleParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: ROLE_ID_MAX_LENGTH }) })

export const RoleListQuery = Type.Object({
  ...PageQueryFields,
  status: Type.Optional(RoleStatus),
  sortBy: Type.Enum(ROLE_SORT_FIELDS, { default: 'name' }),
  sortOrder: Type.Enum(['asc', 'desc'], { default: 'asc' }),
})

export const CreateRoleBody = Type.Object({
  name: RoleName,
  description: RoleDescription,
  status: Type.Optional(RoleStatus),
  isAdmin: Type.Optional(Type.Boolean()),
})

export const UpdateRoleBody = Type.Object({
  name: Type.Optional(RoleName),
  description: Type.Optional(RoleDescription),
  status: Type.Optional(RoleStatus),
  isAdmin: Type.Optional(Type.Boolean()),
})

export const DeleteRoleQuery = Type.Object({
  hard: Type.Boolean({
    default: false,
    description: '`true` deletes for good; otherwise the role is marked inactive',
  }),
})

export const PermissionsBody = Type.Object({
  permissions: Type.Array(Type.String({ maxLength: 100 }), {
    maxItems: 500,
    examples: [['items.read', 'items.update']],
  }),
})

export const RoleList = Type.Object({
  success: Type.Literal(true),
  roles: Type.Array(Role),
  ...PageMetaFields,
})

export const RoleAnswer = Type.Object({ success: Type.Literal(true), data: Role })

export const RoleChanged = Type.Object({
  success: Type.Literal(true),
  data: Role,
  message: Type.String({ examples: ['Role created'] }),
})

export const RoleDeleted = Type.Object({
  success: Type.Literal(true),
  message: Type.String({ examples: ['Role deactivated'] }),
})

export const ActiveRoles = Type.Object({ roles: Type.Array(Role) })

export const RoleStats = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({
    total: Type.Integer(),
    active: Type.Integer(),
    inactive: Type.Integer(),
    averagePermissions: Type.Number({ description: 'mean number of permissions per role, two decimals' }),
  }),
})

export const RolePermissions = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({
    permissions: Type.Array(Type.String()),
    role: Type.Object({ id: Type.String(), name: Type.String(), description: Type.String() }),
  }),
})
