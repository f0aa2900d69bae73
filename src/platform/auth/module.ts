import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { Clock } from '../../lib/clock.ts'
import type { PlatformEvents } from '../events.ts'
import type { AccessTokens } from './jwt.ts'
import { authRoutes } from './routes.ts'
import { createAuthService } from './service.ts'

export const REFRESH_TOKEN_CLEANUP_JOB = 'refresh-token-cleanup'

export interface AuthModuleDeps {
  db: Db
  clock: Clock
  log: { info(object: object, message: string): void }
  accessTokens: AccessTokens
  refreshTokenTtlDays: number
  events: Pick<PlatformEvents, 'emit'>
  rateLimit: RateLimit
}

/** Platform accounts: register, login, refresh, logout, password change, and the cleanup of spent tokens. */
export function authModule(deps: AuthModuleDeps) {
  const auth = createAuthService(deps)
  const module: Module<PlatformEvents> = {
    name: 'auth',
    routes: (app) => authRoutes(app, { auth, rateLimit: deps.rateLimit }),
    jobs: [
      {
        name: REFRESH_TOKEN_CLEANUP_JOB,
        cron: '40 3 * * *',
        handler: async () => {
          const deleted = await auth.deleteExpiredRefreshTokens()
          deps.log.info({ deleted }, 'expired refresh tokens deleted')
        },
      },
    ],
  }
  return { auth, module }
}
