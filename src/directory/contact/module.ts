import type { FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import { createSmtpMailer } from '../../integrations/smtp/mailer.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Viewer } from '../auth/sessions.ts'
import type { SiteService } from '../site/service.ts'
import { adminContactRoutes, siteContactRoutes } from './routes.ts'
import { CONTACT_MAIL_JOB, createContactService } from './service.ts'

/**
 * The contact form: messages stored and raised to the admins, and emailed to the site's contact address
 * through SMTP (`SMTP_URL`) by a durable job.
 */
export function contactModule(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  jobs: Pick<Jobs, 'send'>
  rateLimit: RateLimit
  viewerOf: (req: FastifyRequest) => Promise<Viewer | null>
  site: Pick<SiteService, 'settings'>
  config: Pick<Config, 'smtpUrl' | 'smtpFrom' | 'smtpTimeoutMs' | 'smtpRetryBaseMs' | 'smtpMaxAttempts'>
}) {
  const { config } = deps
  const mailer = config.smtpUrl
    ? createSmtpMailer({ url: config.smtpUrl, from: config.smtpFrom, timeoutMs: config.smtpTimeoutMs })
    : undefined
  const contact = createContactService({
    ...deps,
    mailer,
    retry: { maxAttempts: config.smtpMaxAttempts, baseMs: config.smtpRetryBaseMs },
  })
  const module: Module = {
    name: 'contact',
    routes: (app) => {
      siteContactRoutes(app, { contact, rateLimit: deps.rateLimit, viewerOf: deps.viewerOf })
      adminContactRoutes(app, { contact })
    },
    jobs: [
      {
        name: CONTACT_MAIL_JOB,
        handler: async ({ messageId }: { messageId: string }) => contact.deliver(messageId),
        // The service schedules the retries of a failed email; these are for a handler that failed
        // (a lost database).
        retryLimit: 5,
        retryDelaySeconds: 30,
      },
    ],
    onClose: async () => mailer?.close(),
  }
  return { contact, module }
}
