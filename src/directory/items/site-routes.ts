import type { App } from '../../http/app.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { invalidField } from '../../http/schemas.ts'
import { createSerializedAnswers } from '../../http/serialized.ts'
import { forbidden } from '../../lib/errors.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors, metaOf } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'
import type { PublicItems } from './public.ts'
import {
  PublicItemAnswer,
  PublicItemQuery,
  PublicListAnswer,
  SlugParams,
  SubmitItemBody,
  SubmittedAnswer,
} from './schemas.ts'
import type { ItemService } from './service.ts'

const tags = ['items']

/** The published site's item routes: the public list and page, and submissions from signed-in users. */
export function siteItemRoutes(
  app: App,
  {
    items,
    site,
    rateLimit,
    submissionsOpen,
  }: {
    items: ItemService
    site: PublicItems
    rateLimit: RateLimit
    /** Whether the site's settings take submissions now. */
    submissionsOpen: () => Promise<boolean>
  },
) {
  const answers = createSerializedAnswers()
  app.get(
    '/api/items',
    {
      config: { access: 'public' },
      preHandler: rateLimit('GET /api/items', RATE_LIMITS.items),
      schema: {
        tags,
        summary: 'Published items',
        description:
          'A page of published items, newest first (`sort=name` for A to Z). `search` matches words of the ' +
          'name and description, each as a prefix; `category` and `tag` filter by id. `limit` 1 to 100 ' +
          `(default 20). ${describeRule(RATE_LIMITS.items)}. Served from a cache every content write clears on ` +
          'every instance.',
        querystring: PublicItemQuery,
        response: {
          200: PublicListAnswer,
          ...errors([400, invalidField('query.limit', 'must be at most 100')], 429),
        },
      },
    },
    async (req, reply) => {
      const page = await site.list(req.query)
      // The cached page's bytes are made once, then sent as they are until the cache lets the page go.
      return answers.send(reply, page, () => ({
        success: true as const,
        data: page.items,
        meta: metaOf(page.meta),
      }))
    },
  )

  app.get(
    '/api/items/:slug',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'A published item',
        description:
          'The published item with this slug; 404 for an unknown slug and for an item not published.',
        params: SlugParams,
        response: { 200: PublicItemAnswer, ...errors([404, 'ITEM_NOT_FOUND']) },
      },
    },
    async (req) => ({ success: true as const, data: await site.get(req.params.slug) }),
  )

  app.post(
    '/api/submit',
    {
      config: { access: 'session' },
      preHandler: rateLimit('POST /api/submit', RATE_LIMITS.submit),
      schema: {
        tags,
        summary: 'Submit an item',
        description:
          'A signed-in user proposes an item. It starts `pending`, with a slug made from its name (the first free ' +
          'of `-2`, `-3` … when taken, also when submissions of one name race), and the admins get a ' +
          'notification; it shows on the site once approved. Only active ' +
          `categories and existing tags may be named; 403 \`SUBMISSIONS_CLOSED\` while the settings close submissions (400 naming the field otherwise). ${describeRule(RATE_LIMITS.submit)}.`,
        body: SubmitItemBody,
        response: {
          201: SubmittedAnswer,
          ...errors(
            [400, invalidField('body.url', 'must match pattern "^https?://"')],
            401,
            [403, 'SUBMISSIONS_CLOSED', 'CROSS_ORIGIN'],
            413,
            415,
            429,
          ),
        },
      },
    },
    async (req, reply) => {
      const { user } = viewerOf(req)
      if (!(await submissionsOpen())) {
        throw forbidden('This site does not take submissions at the moment', 'SUBMISSIONS_CLOSED')
      }
      const data = await items.submit(req.body, user)
      return reply.code(201).send({
        success: true as const,
        data,
        message: 'Thanks! Your item will appear once an admin has reviewed it.',
      })
    },
  )
}
