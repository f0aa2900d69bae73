import type { App } from '../../http/app.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { described, invalidField, NoContent } from '../../http/schemas.ts'
import { contextOf } from '../http/context.ts'
import { authOf } from '../http/guard.ts'
import { errors } from '../http/schemas.ts'
import { PLATFORM_RATE_LIMITS } from '../rate-limit.ts'
import {
  ChangePasswordBody,
  LoginBody,
  PlatformUser,
  RefreshBody,
  RegisterBody,
  TokenPair,
} from './schemas.ts'
import type { AuthService } from './service.ts'

const tags = ['auth']

export interface AuthRouteDeps {
  auth: AuthService
  rateLimit: RateLimit
}

export function authRoutes(app: App, { auth, rateLimit }: AuthRouteDeps) {
  const limits = PLATFORM_RATE_LIMITS
  app.post(
    '/api/auth/register',
    {
      config: { access: 'public' },
      preHandler: rateLimit('POST /api/auth/register', limits.register),
      schema: {
        tags,
        summary: 'Create an account',
        description:
          'Creates an account and signs it in. Emails are case-insensitive; 409 when one is taken. ' +
          `Limited to ${describeRule(limits.register)} (429 with \`Retry-After\`).`,
        body: RegisterBody,
        response: {
          201: described(TokenPair, 'The new account, signed in'),
          ...errors(
            [400, invalidField('body.email', 'must be an email address')],
            [409, 'EMAIL_TAKEN'],
            413,
            415,
            429,
          ),
        },
      },
    },
    async (req, reply) => reply.code(201).send(await auth.register(req.body, contextOf(req))),
  )

  app.post(
    '/api/auth/login',
    {
      config: { access: 'public' },
      preHandler: rateLimit('POST /api/auth/login', limits.login),
      schema: {
        tags,
        summary: 'Sign in',
        description:
          'Exchanges email and password for an access token (15 minutes) and a refresh token. ' +
          `Limited to ${describeRule(limits.login)} (429 with \`Retry-After\`).`,
        body: LoginBody,
        response: {
          200: described(TokenPair, 'Signed in: the account and its tokens'),
          ...errors([400, invalidField('body.password', 'is required')], [401, 'INVALID_CREDENTIALS'], 429),
        },
      },
    },
    async (req) => auth.login(req.body, contextOf(req)),
  )

  app.post(
    '/api/auth/refresh',
    {
      config: { access: 'public' },
      preHandler: rateLimit('POST /api/auth/refresh', limits.refresh),
      schema: {
        tags,
        summary: 'Rotate tokens',
        description:
          'Spends the refresh token and returns a new pair. A refresh token works once: presenting a spent ' +
          'one again answers 401 and revokes every token of that login. ' +
          `Limited to ${describeRule(limits.refresh)} (429 with \`Retry-After\`).`,
        body: RefreshBody,
        response: {
          200: described(TokenPair, 'A new token pair; the refresh token sent is spent'),
          ...errors(
            [400, invalidField('body.refreshToken', 'is required')],
            [401, 'INVALID_REFRESH_TOKEN', 'REFRESH_TOKEN_EXPIRED', 'REFRESH_TOKEN_REUSED'],
            429,
          ),
        },
      },
    },
    async (req) => auth.refresh(req.body.refreshToken),
  )

  app.post(
    '/api/auth/logout',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Sign out',
        description: 'Revokes the refresh token and every token of its login. Always 204.',
        body: RefreshBody,
        response: {
          204: described(NoContent, 'Signed out'),
          ...errors([400, invalidField('body.refreshToken', 'is required')]),
        },
      },
    },
    async (req, reply) => {
      await auth.logout(req.body.refreshToken)
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/api/auth/me',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'The signed-in account',
        description: 'The account behind the access token or API key of the request.',
        response: {
          200: described(PlatformUser, 'The account signed in'),
          ...errors([401, 'UNAUTHORIZED', 'INVALID_TOKEN', 'INVALID_API_KEY', 'ACCOUNT_GONE']),
        },
      },
    },
    async (req) => auth.me(authOf(req).userId),
  )

  app.post(
    '/api/auth/change-password',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Change the password',
        description:
          'Checks the current password and sets the new one (8–128 characters). Every refresh token of the ' +
          'account is revoked, ending other sessions; the answer is a fresh token pair for this one. ' +
          'Needs an access token: API keys cannot change passwords.',
        body: ChangePasswordBody,
        response: {
          200: described(TokenPair, 'The password is changed: a fresh token pair for this session'),
          ...errors(
            [400, invalidField('body.newPassword', 'must be at least 8 characters long'), 'WRONG_PASSWORD'],
            [401, 'UNAUTHORIZED', 'INVALID_TOKEN', 'ACCOUNT_GONE'],
            [403, 'API_KEY_NOT_ALLOWED'],
          ),
        },
      },
    },
    async (req) => auth.changePassword(authOf(req).userId, req.body, contextOf(req)),
  )
}
