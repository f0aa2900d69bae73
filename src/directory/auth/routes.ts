import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../http/app.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import { described, invalidField } from '../../http/schemas.ts'
import { errors } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'
import type { DirectoryGuards } from './guard.ts'
import { AccountAnswer, CurrentUserAnswer, RegisterBody, SigninBody, SignoutAnswer } from './schemas.ts'
import type { DirectoryAuthService } from './service.ts'
import { SESSION_COOKIE, type SessionMeta } from './sessions.ts'

const tags = ['auth']

export interface DirectoryAuthRouteDeps {
  auth: DirectoryAuthService
  guards: DirectoryGuards
  rateLimit: RateLimit
  secureCookies: boolean
  sessionTtlSeconds: number
}

const metaOf = (req: FastifyRequest): SessionMeta => ({
  ipAddress: req.ip,
  userAgent: req.headers['user-agent'],
})

export function directoryAuthRoutes(app: App, deps: DirectoryAuthRouteDeps) {
  const { auth, guards, rateLimit } = deps

  const setSessionCookie = (reply: FastifyReply, token: string) =>
    reply.setCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.secureCookies,
      path: '/',
      maxAge: deps.sessionTtlSeconds,
    })

  app.post(
    '/api/auth/register',
    {
      config: { access: 'public' },
      preHandler: rateLimit('POST /api/auth/register', RATE_LIMITS.register),
      schema: {
        tags,
        summary: 'Create an account',
        description:
          'Creates the user and their client profile and signs them in (session cookie). ' +
          'Limited to 3 per hour per client IP; 409 when the email is taken.',
        body: RegisterBody,
        response: {
          201: described(AccountAnswer, 'The new user, signed in: the session cookie is set'),
          ...errors(
            [400, invalidField('body.email', 'must be an email address')],
            [403, 'CROSS_ORIGIN'],
            [409, 'EMAIL_TAKEN'],
            413,
            415,
            429,
          ),
        },
      },
    },
    async (req, reply) => {
      const { user, session } = await auth.register(req.body, metaOf(req))
      setSessionCookie(reply, session.token)
      return reply.code(201).send({ success: true as const, user })
    },
  )

  app.post(
    '/api/auth/signin',
    {
      config: { access: 'public' },
      preHandler: rateLimit('POST /api/auth/signin', RATE_LIMITS.signin),
      schema: {
        tags,
        summary: 'Sign in',
        description:
          'Checks email and password and sets a new session cookie (30 days, HttpOnly, SameSite=Lax); a ' +
          'session the browser already held is revoked. Limited to 5 per 15 minutes per client IP.',
        body: SigninBody,
        response: {
          200: AccountAnswer,
          ...errors(
            [400, invalidField('body.password', 'is required')],
            [401, 'INVALID_CREDENTIALS'],
            [403, 'ACCOUNT_INACTIVE', 'CROSS_ORIGIN'],
            429,
          ),
        },
      },
    },
    async (req, reply) => {
      const { user, session } = await auth.signin(req.body, metaOf(req), req.cookies[SESSION_COOKIE])
      setSessionCookie(reply, session.token)
      return { success: true as const, user }
    },
  )

  app.post(
    '/api/auth/signout',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Sign out',
        description: 'Revokes the session and clears its cookie.',
        security: [{ sessionCookie: [] }],
        response: { 200: SignoutAnswer, ...errors([403, 'CROSS_ORIGIN']) },
      },
    },
    async (req, reply) => {
      await auth.signout(req.cookies[SESSION_COOKIE])
      reply.clearCookie(SESSION_COOKIE, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: deps.secureCookies,
      })
      return { success: true as const }
    },
  )

  app.get(
    '/api/current-user',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'The signed-in user',
        description: 'The safe profile of the session’s user, or JSON `null` when not signed in. Always 200.',
        security: [{ sessionCookie: [] }, {}],
        response: { 200: CurrentUserAnswer },
      },
    },
    async (req) => {
      const viewer = await guards.viewerOf(req)
      if (!viewer) return null
      return {
        id: viewer.user.id,
        name: viewer.user.name,
        email: viewer.user.email,
        image: viewer.user.avatar,
        provider: viewer.user.provider,
        isAdmin: viewer.isAdmin,
      }
    },
  )
}
