import { type Static, Type } from 'typebox'
import { HttpUrl, NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../lib/passwords.ts'
import { EmailAddress, NewUsername, USERNAME_MAX_LENGTH, Username } from '../accounts/rules.ts'

/** SPEC.md "Limits", Users. */
export const USER_LIMITS = {
  nameMin: 2,
  nameMax: 100,
  titleMax: 100,
  avatarMax: 500,
  searchMax: 100,
  roleMax: 50,
} as const

export const USER_SORT_FIELDS = ['name', 'username', 'email', 'role', 'created_at'] as const
export type UserSortField = (typeof USER_SORT_FIELDS)[number]

const EXAMPLE_USER = {
  id: '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d',
  username: 'grace_hopper',
  email: 'grace@example.com',
  name: 'Grace Hopper',
  title: 'Rear Admiral',
  avatar: 'https://example.com/grace.png',
  role: 'user',
  status: 'active',
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-11-20T16:45:00.000Z',
  last_login: '2026-11-21T08:15:00.000Z',
} as const

const Status = Type.Enum(['active', 'inactive'], { examples: ['active'] })
const Name = Type.String({
  minLength: USER_LIMITS.nameMin,
  maxLength: USER_LIMITS.nameMax,
  examples: ['Grace Hopper'],
})
const RoleId = Type.String({ minLength: 1, maxLength: 64, examples: ['user'] })
const Title = Type.String({ maxLength: USER_LIMITS.titleMax, examples: ['Rear Admiral'] })
const Avatar = HttpUrl(USER_LIMITS.avatarMax, undefined, 'https://example.com/grace.png')
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  // Null first: with type coercion on, a string branch tried first would turn null into ''.
  Type.Union([Type.Null(), schema])

export const UserListQuery = Query({
  ...PageQueryFields,
  search: Type.Optional(
    Type.String({
      maxLength: USER_LIMITS.searchMax,
      description: 'case-insensitive substring of name, username or email',
      examples: ['grace'],
    }),
  ),
  role: Type.Optional(
    Type.String({ maxLength: USER_LIMITS.roleMax, description: 'role id', examples: ['user'] }),
  ),
  status: Type.Optional(Status),
  sortBy: Type.Enum(USER_SORT_FIELDS, { default: 'name' }),
  sortOrder: Type.Enum(['asc', 'desc'], { default: 'asc' }),
  includeInactive: Type.Boolean({
    default: false,
    description: 'include inactive users when no status is asked',
  }),
})
export type UserListQuery = Static<typeof UserListQuery>

export const CreateUserBody = Type.Object(
  {
    username: NewUsername,
    email: EmailAddress,
    name: Name,
    password: Type.String({
      minLength: PASSWORD_MIN_LENGTH,
      maxLength: PASSWORD_MAX_LENGTH,
      examples: ['a long passphrase'],
    }),
    role: RoleId,
    title: Type.Optional(Title),
    avatar: Type.Optional(Avatar),
  },
  {
    examples: [
      {
        username: 'grace_hopper',
        email: 'grace@example.com',
        name: 'Grace Hopper',
        password: 'a long passphrase',
        role: 'user',
        title: 'Rear Admiral',
        avatar: 'https://example.com/grace.png',
      },
    ],
  },
)
export type CreateUserBody = Static<typeof CreateUserBody>

export const UpdateUserBody = Type.Object(
  {
    username: Type.Optional(Username),
    email: Type.Optional(EmailAddress),
    name: Type.Optional(Name),
    title: Type.Optional(Nullable(Title)),
    avatar: Type.Optional(Nullable(Avatar)),
    role: Type.Optional(RoleId),
    status: Type.Optional(Status),
  },
  { examples: [{ name: 'Grace Brewster Hopper', title: null, status: 'inactive' }] },
)
export type UpdateUserBody = Static<typeof UpdateUserBody>

const ExcludeId = Type.Optional(
  Type.String({ format: 'uuid', description: 'a user to leave out', examples: [EXAMPLE_USER.id] }),
)

export const CheckEmailBody = Type.Object(
  { email: EmailAddress, excludeId: ExcludeId },
  { examples: [{ email: 'grace@example.com', excludeId: EXAMPLE_USER.id }] },
)

export const CheckUsernameBody = Type.Object(
  {
    username: Type.String({
      minLength: 1,
      maxLength: USERNAME_MAX_LENGTH,
      examples: ['grace_hopper'],
    }),
    excludeId: ExcludeId,
  },
  { examples: [{ username: 'grace_hopper' }] },
)

export const Availability = Type.Object(
  { available: Type.Boolean(), exists: Type.Boolean() },
  { description: 'Whether another user holds it', examples: [{ available: false, exists: true }] },
)

export const UserIdParams = Type.Object({
  id: Type.String({ description: 'the user id (a UUID)', examples: [EXAMPLE_USER.id] }),
})

/** SPEC.md "Directory: user"; never carries the password hash. */
export const AdminUser = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    username: Type.String({ examples: ['grace_hopper'] }),
    email: Type.String({ examples: ['grace@example.com'] }),
    name: Type.Union([Type.String(), Type.Null()], { examples: ['Grace Hopper'] }),
    title: Type.Union([Type.String(), Type.Null()]),
    avatar: Type.Union([Type.String(), Type.Null()]),
    role: Type.Union([Type.String(), Type.Null()], { examples: ['user'] }),
    status: Status,
    created_at: Timestamp,
    updated_at: Timestamp,
    last_login: NullableTimestamp,
  },
  { description: 'A directory user' },
)
export type AdminUser = Static<typeof AdminUser>

export const UserAnswer = Type.Object(
  { success: Type.Literal(true), data: AdminUser },
  { description: 'The user', examples: [{ success: true, data: EXAMPLE_USER }] },
)

export const UserListAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(AdminUser),
    ...PageMetaFields,
  },
  {
    description: 'A page of users',
    examples: [{ success: true, data: [EXAMPLE_USER], page: 1, limit: 10, total: 1, totalPages: 1 }],
  },
)

export const UserCreatedAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      id: Type.String({ format: 'uuid' }),
      username: Type.String(),
      email: Type.String(),
      name: Type.Union([Type.String(), Type.Null()]),
      role: Type.Union([Type.String(), Type.Null()]),
      status: Status,
      created_at: Timestamp,
    }),
  },
  {
    description: 'The created user',
    examples: [
      {
        success: true,
        data: {
          id: EXAMPLE_USER.id,
          username: EXAMPLE_USER.username,
          email: EXAMPLE_USER.email,
          name: EXAMPLE_USER.name,
          role: EXAMPLE_USER.role,
          status: 'active',
          created_at: EXAMPLE_USER.created_at,
        },
      },
    ],
  },
)

export const UserStatsAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      totalUsers: Type.Integer(),
      activeUsers: Type.Integer(),
      inactiveUsers: Type.Integer(),
      recentRegistrations: Type.Integer({ description: 'created in the last 30 days' }),
      roleDistribution: Type.Record(Type.String(), Type.Integer(), { description: 'users per role id' }),
      averageLoginFrequency: Type.Number({ description: 'average sign-in count, 2 decimals' }),
      topActiveUsers: Type.Array(
        Type.Object({
          id: Type.String({ format: 'uuid' }),
          username: Type.String(),
          name: Type.Union([Type.String(), Type.Null()]),
          loginCount: Type.Integer(),
          lastLogin: NullableTimestamp,
        }),
      ),
    }),
  },
  {
    description: 'User statistics',
    examples: [
      {
        success: true,
        data: {
          totalUsers: 42,
          activeUsers: 40,
          inactiveUsers: 2,
          recentRegistrations: 5,
          roleDistribution: { admin: 1, user: 41 },
          averageLoginFrequency: 3.25,
          topActiveUsers: [
            {
              id: EXAMPLE_USER.id,
              username: EXAMPLE_USER.username,
              name: EXAMPLE_USER.name,
              loginCount: 27,
              lastLogin: '2026-11-21T08:15:00.000Z',
            },
          ],
        },
      },
    ],
  },
)

export const DeletedAnswer = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['User deleted'] }) },
  { description: 'Deleted', examples: [{ success: true, message: 'User deleted' }] },
)
