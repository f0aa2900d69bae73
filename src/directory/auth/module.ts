import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { AccountService } from '../accounts/service.ts'
import type { ProfileService } from '../clients/profiles.ts'
import type { DirectoryGuards } from './guard.ts'
import { directoryAuthRoutes } from './routes.ts'
import { createDirectoryAuthService } from './service.ts'
import type { SessionService } from './sessions.ts'

export const SESSION_CLEANUP_JOB = 'session-cleanup'

export interface DirectoryAuthModuleDeps {
  db: Db
  log: Pick<Logger, 'info'>
  accounts: Pick<AccountService, 'findByEmail' | 'recordSignin'>
  profiles: Pick<ProfileService, 'openAccount'>
  sessions: SessionService
  guards: DirectoryGuards
  rateLimit: RateLimit
  secureCookies: boolean
  sessionCleanupCron: string
}

/** Directory accounts and sessions: register, sign in and out, the current user, expired-session cleanup. */
export function directoryAuthModule(deps: DirectoryAuthModuleDeps) {
  const { sessions } = deps
  const auth = createDirectoryAuthService(deps)
  const module: Module = {
    name: 'auth',
    routes: (app) =>
      directoryAuthRoutes(app, {
        auth,
        guards: deps.guards,
        rateLimit: deps.rateLimit,
        secureCookies: deps.secureCookies,
        sessionTtlSeconds: sessions.ttlSeconds,
      }),
    jobs: [
      {
        name: SESSION_CLEANUP_JOB,
        cron: deps.sessionCleanupCron,
        handler: async () => {
          const deleted = await sessions.deleteExpired()
          deps.log.info({ deleted }, 'expired sessions deleted')
        },
      },
    ],
  }
  return { auth, module }
}
