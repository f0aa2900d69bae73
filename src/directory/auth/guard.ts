import type { FastifyRequest } from 'fastify'
import { forbidden, unauthorized } from '../../lib/errors.ts'
import { isSessionToken, SESSION_COOKIE, type SessionService, type Viewer } from './sessions.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the directory's session guards. */
    viewer: Viewer | null
  }
}

export type Guard = (req: FastifyRequest) => Promise<void>

export interface DirectoryGuards {
  /** The viewer of the request's session cookie, or null; looked up once per request. */
  viewerOf(req: FastifyRequest): Promise<Viewer | null>
  /** Any signed-in user, else 401. */
  requireSession: Guard
  /** An admin: 401 without a session, 403 without an admin role. */
  requireAdmin: Guard
  /** An admin, 401 for both a missing session and a non-admin (SPEC.md: categories). */
  requireAdminOr401: Guard
}

export function createDirectoryGuards(sessions: SessionService): DirectoryGuards {
  const lookups = new WeakMap<FastifyRequest, Promise<Viewer | null>>()

  async function viewerOf(req: FastifyRequest): Promise<Viewer | null> {
    const token = req.cookies[SESSION_COOKIE]
    if (!isSessionToken(token)) {
      req.viewer = null
      return null
    }
    let lookup = lookups.get(req)
    if (!lookup) {
      lookup = sessions.resolve(token)
      lookups.set(req, lookup)
    }
    req.viewer = await lookup
    return req.viewer
  }

  return {
    viewerOf,
    async requireSession(req) {
      if (!(await viewerOf(req))) throw unauthorized()
    },
    async requireAdmin(req) {
      const viewer = await viewerOf(req)
      if (!viewer) throw unauthorized()
      if (!viewer.isAdmin) throw forbidden('Admin access required')
    },
    async requireAdminOr401(req) {
      const viewer = await viewerOf(req)
      if (!viewer?.isAdmin) throw unauthorized('Admin session required')
    },
  }
}

/** The viewer of a route behind a session guard. */
export function viewerOf(req: FastifyRequest): Viewer {
  if (!req.viewer) throw unauthorized()
  return req.viewer
}
