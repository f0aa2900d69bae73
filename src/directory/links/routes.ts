import type { App } from '../../http/app.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors } from '../http/schemas.ts'
import { ItemParams } from '../items/schemas.ts'
import { MAX_REDIRECTS } from './checker.ts'
import { LinkCheckRunAnswer, LinkChecksStatusAnswer, LinkRecordAnswer } from './schemas.ts'
import type { LinkService } from './service.ts'

const tags = ['items']
/** A write carrying the session cookie from another origin is refused too. */
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const

const HOW =
  `HEAD, then GET when HEAD answers 4xx/5xx or breaks off, through the SSRF-safe client (a private address ` +
  `is refused in production), following up to ${MAX_REDIRECTS} redirects, each hop checked, with at most 2 ` +
  'requests to one host at once, LINK_CHECK_HOST_DELAY_MS between them and LINK_CHECK_TIMEOUT_MS each. ' +
  '2xx is `ok`, 2xx after redirects `redirected` (with `finalUrl`); anything else (4xx/5xx, a timeout, DNS, a ' +
  `refused connection, more than ${MAX_REDIRECTS} redirects, a blocked address) is a failure, counted in ` +
  '`failures` until a success resets it; at LINK_CHECK_FAILURES failures in a row the link is `broken`.'

/** The link checks' admin routes. */
export function linkRoutes(app: App, { links }: { links: LinkService }) {
  app.post(
    '/api/admin/items/:id/check-link',
    {
      config: { access: 'admin', optionalBody: true },
      schema: {
        tags,
        summary: 'Check an item’s link now',
        description:
          `Checks the item’s URL now, whatever its status, and answers its link record. ${HOW} ` +
          'The check counts as one of the scheduled ones, but tells no admin: the one who asked sees the answer. ' +
          '404 `ITEM_NOT_FOUND` for an unknown item, 400 `ITEM_HAS_NO_URL` when it has no URL.',
        params: ItemParams,
        response: {
          200: LinkRecordAnswer,
          ...errors([400, 'ITEM_HAS_NO_URL'], 401, WRITE_403, [404, 'ITEM_NOT_FOUND']),
        },
      },
    },
    async (req) => ({ success: true as const, data: await links.checkItem(req.params.id) }),
  )

  app.get(
    '/api/admin/link-checks',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Link check status',
        description:
          'The active link check run, else the latest, with its progress (checked of total, ok, redirected, ' +
          'failed, newly broken), how many published items with a URL have each link status now, and the ' +
          'schedule’s interval. `GET /api/admin/items?linkStatus=broken` lists the broken ones.',
        response: { 200: LinkChecksStatusAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await links.status() }),
  )

  app.post(
    '/api/admin/link-checks',
    {
      config: { access: 'admin', optionalBody: true },
      schema: {
        tags,
        summary: 'Check every link now',
        description:
          'Queues a run over every published item’s URL, a durable job in steps of LINK_CHECK_BATCH_SIZE items ' +
          `that saves its progress with each step, so a restart resumes where it stopped. ${HOW} ` +
          'When it ends, the admins get one notification (`links_broken`) listing the links it broke. The ' +
          'schedule starts the same runs every LINK_CHECK_INTERVAL. One run at a time: 409 `LINK_CHECK_BUSY` ' +
          'while one is queued or running (a run without progress for twice the longest a step may take, an hour ' +
          'with the default settings, is taken as failed).',
        response: { 202: LinkCheckRunAnswer, ...errors(401, WRITE_403, [409, 'LINK_CHECK_BUSY']) },
      },
    },
    async (req, reply) =>
      reply.code(202).send({
        success: true as const,
        message: 'Link check queued',
        data: await links.requestRun(viewerOf(req).user.id),
      }),
  )
}
