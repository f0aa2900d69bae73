import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { errors, pageAnswer } from '../http/schemas.ts'
import {
  COLLECTION_MAX_ITEMS,
  COLLECTIONS_UNAVAILABLE_MESSAGE,
  CollectionAnswer,
  CollectionDeleted,
  CollectionItemsAnswer,
  CollectionListAnswer,
  CollectionListQuery,
  CollectionParams,
  CollectionStatsAnswer,
  CollectionsExistAnswer,
  CollectionsExistFailure,
  CreateCollectionBody,
  ReplaceCollectionItemsBody,
  UpdateCollectionBody,
} from './schemas.ts'
import type { CollectionService } from './service.ts'

const tags = ['collections']
const BASE = '/api/admin/collections'
const notFound = [404, 'COLLECTION_NOT_FOUND'] as const
const writeRefused = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
const repeatedItem = invalidField('body.itemIds', 'must not repeat an item')

export function collectionRoutes(app: App, { collections }: { collections: CollectionService }) {
  app.get(
    '/api/collections/exists',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Whether the site has collections',
        description:
          'The number of active collections and whether it is above 0, so the site can show or hide its ' +
          'collections link. Served from a cache every collections write clears on every instance. 500 with ' +
          'this route’s own body `{exists:false, count:0, error}` (and `code`) when the count cannot be read.',
        response: { 200: CollectionsExistAnswer, 500: CollectionsExistFailure },
      },
    },
    async (req, reply) => {
      try {
        return await collections.exists()
      } catch (error) {
        req.log.error({ err: error }, 'collections count failed')
        // SPEC.md's body for this route rather than the error shape, with the stable code every error has.
        return reply.code(500).send({
          exists: false as const,
          count: 0 as const,
          error: COLLECTIONS_UNAVAILABLE_MESSAGE,
          code: 'COLLECTIONS_UNAVAILABLE' as const,
        })
      }
    },
  )

  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List collections',
        description:
          'A page of collections with their item counts. `search` matches the name, slug or description ' +
          '(case-insensitive substring); `isActive` filters; `sortBy` is `name`, `createdAt` (default), ' +
          '`updatedAt` or `itemCount`, `sortOrder` `desc` by default. `page` below 1 or `limit` outside 1 to ' +
          '100 is 400.',
        querystring: CollectionListQuery,
        response: {
          200: CollectionListAnswer,
          ...errors([400, invalidField('query.page', 'must be at least 1')], 401, 403),
        },
      },
    },
    async (req) => pageAnswer(await collections.list(req.query)),
  )

  app.post(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a collection',
        description:
          'Creates a collection, active unless `isActive: false`. The slug is made from the name when omitted ' +
          '(400 naming `body.slug` when the name has no letters or digits); 409 `COLLECTION_SLUG_EXISTS` when ' +
          `another collection has it. \`itemIds\` (at most ${COLLECTION_MAX_ITEMS}, each once) are its first ` +
          'items in order; 400 `UNKNOWN_ITEM_IDS` lists those that name no item. The name is trimmed; text is ' +
          'stored as sent.',
        body: CreateCollectionBody,
        response: {
          201: CollectionAnswer,
          ...errors(
            [
              400,
              invalidField('body.name', 'must be at least 2 characters long'),
              repeatedItem,
              'UNKNOWN_ITEM_IDS',
            ],
            401,
            writeRefused,
            [409, 'COLLECTION_SLUG_EXISTS'],
            413,
            415,
          ),
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send({ success: true as const, data: await collections.create(req.body) }),
  )

  // Before `/:id`, which would otherwise read `stats` as an id.
  app.get(
    `${BASE}/stats`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Collection statistics',
        description:
          'How many collections there are, active, inactive and empty (no item); `totalItems` counts ' +
          'memberships (an item in two collections counts twice) and `averageItems` is items per collection, ' +
          'two decimals.',
        response: { 200: CollectionStatsAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await collections.stats() }),
  )

  app.get(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a collection',
        description: 'The collection, active or not, with its item count. 404 when the id is unknown.',
        params: CollectionParams,
        response: { 200: CollectionAnswer, ...errors(401, 403, notFound) },
      },
    },
    async (req) => ({ success: true as const, data: await collections.get(req.params.id) }),
  )

  app.put(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change a collection',
        description:
          'Changes the fields sent (at least one): name, slug (409 `COLLECTION_SLUG_EXISTS` when taken), ' +
          'description (`null` removes it) and `isActive`. A new name keeps the slug. Its items are changed ' +
          'with PUT …/items.',
        params: CollectionParams,
        body: UpdateCollectionBody,
        response: {
          200: CollectionAnswer,
          ...errors(
            [400, invalidField('body', 'must have at least 1 field')],
            401,
            writeRefused,
            notFound,
            [409, 'COLLECTION_SLUG_EXISTS'],
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({ success: true as const, data: await collections.update(req.params.id, req.body) }),
  )

  app.delete(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a collection',
        description: 'Deletes the collection and its memberships for good; the items themselves stay.',
        params: CollectionParams,
        response: { 200: CollectionDeleted, ...errors(401, writeRefused, notFound) },
      },
    },
    async (req) => {
      await collections.delete(req.params.id)
      return { success: true as const, message: 'Collection deleted' }
    },
  )

  app.get(
    `${BASE}/:id/items`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'The items of a collection',
        description:
          `The collection’s items (at most ${COLLECTION_MAX_ITEMS}) in their order, whatever their status, each ` +
          'with its position (from 0) and when it was added.',
        params: CollectionParams,
        response: { 200: CollectionItemsAnswer, ...errors(401, 403, notFound) },
      },
    },
    async (req) => {
      const data = await collections.items(req.params.id)
      return { success: true as const, data, count: data.length }
    },
  )

  app.put(
    `${BASE}/:id/items`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Set the items of a collection',
        description:
          `\`itemIds\` (0 to ${COLLECTION_MAX_ITEMS}, each once) becomes the whole membership in that order, in ` +
          'one transaction: items left out leave the collection, items that stay keep their `addedAt`. 400 ' +
          'naming `body.itemIds` for a repeated id, and `UNKNOWN_ITEM_IDS` listing ids that name no item. ' +
          'Answers the new list.',
        params: CollectionParams,
        body: ReplaceCollectionItemsBody,
        response: {
          200: CollectionItemsAnswer,
          ...errors([400, repeatedItem, 'UNKNOWN_ITEM_IDS'], 401, writeRefused, notFound, 413, 415),
        },
      },
    },
    async (req) => {
      const data = await collections.replaceItems(req.params.id, req.body.itemIds)
      return { success: true as const, data, count: data.length }
    },
  )
}
