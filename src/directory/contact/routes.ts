import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { invalidField } from '../../http/schemas.ts'
import type { Viewer } from '../auth/sessions.ts'
import { errors, metaOf } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'
import {
  CONTACT_LIMITS,
  ContactBody,
  ContactMessageAnswer,
  ContactMessageListAnswer,
  ContactMessageParams,
  ContactMessageQuery,
  ContactReceived,
} from './schemas.ts'
import type { ContactService } from './service.ts'

const tags = ['contact']
const BASE = '/api/admin/contact-messages'

/** The site's contact form: anyone may write, signed in or not. */
export function siteContactRoutes(
  app: App,
  {
    contact,
    rateLimit,
    viewerOf,
  }: {
    contact: ContactService
    rateLimit: RateLimit
    /** The signed-in sender, when there is one. */
    viewerOf: (req: FastifyRequest) => Promise<Viewer | null>
  },
) {
  app.post(
    '/api/contact',
    {
      config: { access: 'public' },
      preHandler: rateLimit('POST /api/contact', RATE_LIMITS.contact),
      schema: {
        tags,
        summary: 'Write to the site’s team',
        description:
          `A visitor's message: \`name\` ${CONTACT_LIMITS.nameMin} to ${CONTACT_LIMITS.nameMax} and \`message\` ` +
          `${CONTACT_LIMITS.messageMin} to ${CONTACT_LIMITS.messageMax} characters once trimmed, a valid ` +
          `\`email\`, an optional \`subject\` of at most ${CONTACT_LIMITS.subjectMax}; text is kept as sent ` +
          '(markup stays text). It is stored, with the sender’s account when signed in, and the admins get ' +
          'a `contact_message` notification. With `SMTP_URL` and the site’s `contactEmail` set it is also ' +
          'emailed there (Reply-To the sender) by a queued job, retried with backoff, so the answer never ' +
          `waits for the mail server. ${describeRule(RATE_LIMITS.contact)}.`,
        security: [{ sessionCookie: [] }, {}],
        body: ContactBody,
        response: {
          201: ContactReceived,
          ...errors(
            [
              400,
              invalidField(
                'body.message',
                `must be ${CONTACT_LIMITS.messageMin} to ${CONTACT_LIMITS.messageMax} characters once trimmed`,
              ),
            ],
            [403, 'CROSS_ORIGIN'],
            413,
            415,
            429,
          ),
        },
      },
    },
    async (req, reply) => {
      const viewer = await viewerOf(req)
      const data = await contact.submit(req.body, { userId: viewer?.user.id ?? null, clientIp: req.ip })
      return reply.code(201).send({
        success: true as const,
        message: 'Thanks! Your message has reached the site’s team.',
        data,
      })
    },
  )
}

/** The admins' reading of contact messages: an admin session (401 without one, 403 for a non-admin). */
export function adminContactRoutes(app: App, { contact }: { contact: ContactService }) {
  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List contact messages',
        description:
          'A page of the messages sent through the contact form, newest first, each with where its email ' +
          'stands (`mail.status`: `not_configured`, `pending`, `sent`, `failed`; `mail.error` says why the ' +
          'last attempt failed). `search` finds text in the name, email, subject or message, whatever its ' +
          'case; `mailStatus` filters.',
        querystring: ContactMessageQuery,
        response: {
          200: ContactMessageListAnswer,
          ...errors([400, invalidField('query.limit', 'must be at most 100')], 401, 403),
        },
      },
    },
    async (req) => {
      const { items: data, meta } = await contact.list(req.query)
      return { success: true as const, data, meta: metaOf(meta) }
    },
  )

  app.get(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a contact message',
        description: 'The message with its sender, their address and where its email stands.',
        params: ContactMessageParams,
        response: { 200: ContactMessageAnswer, ...errors(401, 403, [404, 'CONTACT_MESSAGE_NOT_FOUND']) },
      },
    },
    async (req) => ({ success: true as const, data: await contact.get(req.params.id) }),
  )
}
