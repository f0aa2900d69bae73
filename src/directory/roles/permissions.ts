/** The admin areas a role's permissions cover (issue 4, SPEC.md "Directory: other admin route groups"). */
export const PERMISSION_AREAS = [
  'clients',
  'users',
  'roles',
  'categories',
  'items',
  'tags',
  'companies',
  'comments',
  'collections',
  'featured-items',
  'sponsor-ads',
  'reports',
  'settings',
  'navigation',
  'notifications',
  'analytics',
  'crm',
  'geocode',
] as const

export type PermissionArea = (typeof PERMISSION_AREAS)[number]

const CRUD = ['read', 'create', 'update', 'delete'] as const

// Actions beyond read/create/update/delete, only where the area has such an operation.
const EXTRA_ACTIONS: Partial<Record<PermissionArea, readonly string[]>> = {
  clients: ['export'],
  users: ['export'],
  roles: ['assign'],
  categories: ['reorder'],
  items: ['review', 'publish'],
  comments: ['moderate'],
  'featured-items': ['reorder'],
  'sponsor-ads': ['approve', 'reject'],
  reports: ['moderate'],
  notifications: ['send'],
  analytics: ['export'],
  crm: ['sync'],
}

/** The catalogue by area: each area's actions, in the order the console shows them. */
export const PERMISSION_CATALOGUE: readonly { area: PermissionArea; actions: readonly string[] }[] =
  PERMISSION_AREAS.map((area) => ({ area, actions: [...CRUD, ...(EXTRA_ACTIONS[area] ?? [])] }))

/** Every valid permission, `area.action`. */
export const PERMISSIONS: readonly string[] = PERMISSION_AREAS.flatMap((area) =>
  [...CRUD, ...(EXTRA_ACTIONS[area] ?? [])].map((action) => `${area}.${action}`),
)

const VALID = new Set(PERMISSIONS)

/** The entries of `permissions` that are not in the catalogue, each once, in order of appearance. */
export function invalidPermissions(permissions: readonly string[]): string[] {
  return [...new Set(permissions.filter((permission) => !VALID.has(permission)))]
}
