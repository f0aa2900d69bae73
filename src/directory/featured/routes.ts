import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { createSerializedAnswers } from '../../http/serialized.ts'
import { HttpError } from '../../lib/errors.ts'
import { errors, pageAnswer } from '../http/schemas.ts'
import {
  CreateFeaturedBody,
  FeaturedAnswer,
  FeaturedDeleted,
  FeaturedListAnswer,
  FeaturedListQuery,
  FeaturedParams,
  SHELF_MAX_LIMIT,
  ShelfAnswer,
  ShelfQuery,
  UpdateFeaturedBody,
} from './schemas.ts'
import type { FeaturedService } from './service.ts'

const tags = ['featured-items']
const BASE = '/api/admin/featured-items'
const notFound = [404, 'FEATURED_ITEM_NOT_FOUND'] as const
const badWindow = invalidField('body.featuredUntil', 'must be after featuredAt')

export function featuredRoutes(app: App, { featured }: { featured: FeaturedService }) {
  const answers = createSerializedAnswers()
  app.get(
    '/api/featured-items',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'The featured shelf',
        description:
          'Active featured items, `featuredOrder` then `featuredAt` descending; those whose `featuredUntil` ' +
          `has passed are left out unless \`includeExpired=true\`. \`limit\` 1 to ${SHELF_MAX_LIMIT} (default ` +
          '6). Served from a cache every write clears on every instance. 500 `FEATURED_ITEMS_UNAVAILABLE` when the ' +
          'shelf cannot be read.',
        querystring: ShelfQuery,
        response: {
          200: ShelfAnswer,
          ...errors(
            [400, invalidField('query.limit', 'must be at most 50')],
            [500, 'FEATURED_ITEMS_UNAVAILABLE'],
          ),
        },
      },
    },
    async (req, reply) => {
      try {
        const data = await featured.shelf(req.query)
        // The same shelf is sent as the same bytes, made once.
        return answers.send(reply, data, () => ({ success: true as const, data, count: data.length }))
      } catch (error) {
        req.log.error({ err: error }, 'featured shelf failed')
        // SPEC.md's body, with the stable code every error has.
        throw new HttpError(500, 'FEATURED_ITEMS_UNAVAILABLE', 'Failed to fetch featured items')
      }
    },
  )

  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List featured items',
        description:
          'A page of featured entries in shelf order, expired ones included; `isActive` filters. `page` below ' +
          '1 or `limit` outside 1 to 100 is 400.',
        querystring: FeaturedListQuery,
        response: {
          200: FeaturedListAnswer,
          ...errors([400, invalidField('query.page', 'must be at least 1')], 401, 403),
        },
      },
    },
    async (req) => pageAnswer(await featured.list(req.query)),
  )

  app.post(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Feature an item',
        description:
          'Puts an item on the shelf with the fields it is shown with. When an item of this directory has the ' +
          '`itemSlug`, the display fields not sent (name, description, icon, image) are copied from it; ' +
          'otherwise `itemName` is required. `featuredAt` defaults to now; `featuredUntil` (null: never) must ' +
          'come after it. Text is stored as sent.',
        body: CreateFeaturedBody,
        response: {
          201: FeaturedAnswer,
          ...errors([400, badWindow], 401, [403, 'FORBIDDEN', 'CROSS_ORIGIN'], 413, 415),
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send({ success: true as const, data: await featured.create(req.body) }),
  )

  app.get(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a featured item',
        description: 'The entry, active or not, expired or not.',
        params: FeaturedParams,
        response: { 200: FeaturedAnswer, ...errors(401, 403, notFound) },
      },
    },
    async (req) => ({ success: true as const, data: await featured.get(req.params.id) }),
  )

  app.put(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change a featured item',
        description: 'Changes the fields sent (at least one); `featuredUntil: null` removes the expiry.',
        params: FeaturedParams,
        body: UpdateFeaturedBody,
        response: {
          200: FeaturedAnswer,
          ...errors([400, badWindow], 401, [403, 'FORBIDDEN', 'CROSS_ORIGIN'], notFound, 413, 415),
        },
      },
    },
    async (req) => ({ success: true as const, data: await featured.update(req.params.id, req.body) }),
  )

  app.delete(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Take an item off the shelf',
        description: 'Deletes the entry for good; the item it names is untouched.',
        params: FeaturedParams,
        response: { 200: FeaturedDeleted, ...errors(401, [403, 'FORBIDDEN', 'CROSS_ORIGIN'], notFound) },
      },
    },
    async (req) => {
      await featured.delete(req.params.id)
      return { success: true as const, message: 'Featured item deleted' }
    },
  )
}
