import { type Static, Type } from 'typebox'
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts'
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

const Status = Type.Union([Type.Literal('active'), Type.Literal('inactive')], {
  examples: ['active'],
})
const Name = Type.String({
  minLength: USER_LIMITS.nameMin,
  maxLength: USER_LIMITS.nameMax,
  examples: ['Grace Hopper'],
})
const RoleId = Type.String({ minLength: 1, maxLength: 64, examples: ['user'] })
const Title = Type.String({ maxLength: USER_LIMITS.titleMax, examples: ['Rear Admiral'] })
// http(s) only: the avatar ends up in an <img src>.
const Avatar = Type.String({
  format: 'uri',
  pattern: '^https?://',
  maxLength: USER_LIMITS.avatarMax,
  examples: ['https://example.com/grace.png'],
})
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  // Null first: with type coercion on, a string branch tried first would turn null into ''.
  Type.Union([Type.Null(), schema])

export const UserListQuery = Type.Object({
  ...PageQueryFields,
  search: Type.Optional(
    Type.String({
      maxLength: USER_LIMITS.searchMax,
      description: 'case-insensitive substring of name, username or email',
    }),
  ),
  role: Type.Optional(Type.String({ maxLength: USER_LIMITS.roleMax, description: 'role id' })),
  status: Type.Optional(Status),
  sortBy: Type.Union(
    [
      Type.Literal('name'),
      Type.Literal('username'),
      Type.Literal('email'),
      Type.Literal('role'),
      Type.Literal('created_at'),
    ],
    { default: 'name' },
  ),
  sortOrder: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'asc' }),
  includeInactive: Type.Boolean({
    default: false,
    description: 'include inactive users when no status is asked',
  }),
})
export type UserListQuery = Static<typeof UserListQuery>

export const CreateUserBody = Type.Object({
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
})
export type CreateUserBody = Static<typeof CreateUserBody>

export const UpdateUserBody = Type.Object({
  username: Type.Optional(Username),
  email: Type.Optional(EmailAddress),
  name: Type.Optional(Name),
  title: Type.Optional(Nullable(Title)),
  avatar: Type.Optional(Nullable(Avatar)),
  role: Type.Optional(RoleId),
  status: Type.Optional(Status),
})
export type UpdateUserBody = Static<typeof UpdateUserBody>

export const CheckEmailBody = Type.Object({
  email: EmailAddress,
  excludeId: Type.Optional(Type.String({ format: 'uuid', description: 'a user to leave out' })),
})

export const CheckUsernameBody = Type.Object({
  username: Type.String({
    minLength: 1,
    maxLength: USERNAME_MAX_LENGTH,
    examples: ['grace_hopper'],
  }),
  excludeId: Type.Optional(Type.String({ format: 'uuid', description: 'a user to leave out' })),
})

export const Availability = Type.Object({ available: Type.Boolean(), exists: Type.Boolean() })

export const UserIdParams = Type.Object({ id: Type.String() })

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

export const UserAnswer = Type.Object({ success: Type.Literal(true), data: AdminUser })

export const UserListAnswer = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(AdminUser),
  ...PageMetaFields,
})

export const UserCreatedAnswer = Type.Object({
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
})

export const UserStatsAnswer = Type.Object({
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
})

export const DeletedAnswer = Type.Object({ success: Type.Literal(true), message: Type.String() })
