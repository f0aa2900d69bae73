import type { App } from '../../http/app.ts'
import { described, invalidField } from '../../http/schemas.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors } from '../http/schemas.ts'
import {
  Availability,
  CheckEmailBody,
  CheckUsernameBody,
  CreateUserBody,
  DeletedAnswer,
  UpdateUserBody,
  UserAnswer,
  UserCreatedAnswer,
  UserIdParams,
  UserListAnswer,
  UserListQuery,
  UserStatsAnswer,
} from './schemas.ts'
import type { UserService } from './service.ts'

const tags = ['users']
/** A write carrying the session cookie from another origin is refused too. */
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
const ROLE_MISSING = { ...invalidField('body.role', 'does not exist'), code: 'ROLE_NOT_FOUND' } as const
const EMAIL_TAKEN = {
  code: 'EMAIL_TAKEN',
  message: 'A user with this email already exists',
  details: [{ field: 'body.email', message: 'is taken' }],
} as const
const BASE = '/api/admin/users'

export interface AdminUserRouteDeps {
  users: UserService
}

/** SPEC.md "Directory: admin users": every route needs an admin session (401 without, 403 for non-admins). */
export function adminUserRoutes(app: App, { users }: AdminUserRouteDeps) {
  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List users',
        description:
          'Pages through users, filtered by a case-insensitive search of name, username or email, by role and ' +
          'by status. Inactive users are left out unless `status=inactive` or `includeInactive=true`.',
        querystring: UserListQuery,
        response: {
          200: UserListAnswer,
          ...errors([400, invalidField('query.limit', 'must be at most 100')], 401, 403),
        },
      },
    },
    async (req) => {
      const { items, meta } = await users.list(req.query)
      return { success: true as const, data: items, ...meta }
    },
  )

  app.post(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a user',
        description:
          'Creates an active user with the given role and their client profile. The password is stored as an ' +
          'argon2id hash. 400 when the role does not exist or the email or username (whatever its case) is taken.',
        body: CreateUserBody,
        response: {
          201: UserCreatedAnswer,
          ...errors(
            [400, invalidField('body.username', 'must look like grace_hopper'), ROLE_MISSING, EMAIL_TAKEN],
            401,
            WRITE_403,
          ),
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send({ success: true as const, data: await users.create(req.body) }),
  )

  app.get(
    `${BASE}/stats`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'User statistics',
        description:
          'Totals by status, registrations of the last 30 days, users per role, the average sign-in count ' +
          'and the five users who signed in most.',
        response: { 200: UserStatsAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await users.stats() }),
  )

  app.post(
    `${BASE}/check-email`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Is an email free',
        description:
          'Whether a user already holds this email, whatever its case; `excludeId` leaves one user out.',
        body: CheckEmailBody,
        response: {
          200: Availability,
          ...errors([400, invalidField('body.email', 'must be an email address')], 401, WRITE_403),
        },
      },
    },
    async (req) => users.checkEmail(req.body.email, req.body.excludeId),
  )

  app.post(
    `${BASE}/check-username`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Is a username free',
        description:
          'Whether a user already holds this username, whatever its case; `excludeId` leaves one user out.',
        body: CheckUsernameBody,
        response: {
          200: Availability,
          ...errors([400, invalidField('body.username', 'is required')], 401, WRITE_403),
        },
      },
    },
    async (req) => users.checkUsername(req.body.username, req.body.excludeId),
  )

  app.get(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a user',
        description: 'The complete user profile; 404 for an unknown id.',
        params: UserIdParams,
        response: { 200: UserAnswer, ...errors(401, 403, [404, 'USER_NOT_FOUND']) },
      },
    },
    async (req) => ({ success: true as const, data: await users.get(req.params.id) }),
  )

  app.put(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Update a user',
        description:
          'Changes the given fields only. 400 when the role does not exist or the email or username is taken ' +
          'by another user; 404 for an unknown id.',
        params: UserIdParams,
        body: UpdateUserBody,
        response: {
          200: described(UserAnswer, 'The updated user'),
          ...errors(
            [400, invalidField('body.avatar', 'must be an absolute URL'), ROLE_MISSING, EMAIL_TAKEN],
            401,
            WRITE_403,
            [404, 'USER_NOT_FOUND'],
          ),
        },
      },
    },
    async (req) => ({ success: true as const, data: await users.update(req.params.id, req.body) }),
  )

  app.delete(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a user',
        description:
          'Deletes the user, their client profile and sessions. An admin cannot delete their own account (400).',
        params: UserIdParams,
        response: {
          200: DeletedAnswer,
          ...errors(
            [400, invalidField('params.id', 'must not contain the NUL character'), 'SELF_DELETION'],
            401,
            WRITE_403,
            [404, 'USER_NOT_FOUND'],
          ),
        },
      },
    },
    async (req) => {
      await users.remove(req.params.id, viewerOf(req).user.id)
      return { success: true as const, message: 'User deleted' }
    },
  )
}
