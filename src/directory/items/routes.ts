import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { viewerOf } from '../auth/guard.ts'
import { bulkAnswer } from '../bulk.ts'
import { errors, metaOf } from '../http/schemas.ts'
import {
  AdminItemQuery,
  BulkItemsAnswer,
  BulkItemsBody,
  CreateItemBody,
  HistoryAnswer,
  HistoryQuery,
  ITEM_LIMITS,
  ItemAnswer,
  ItemDeleted,
  ItemListAnswer,
  ItemParams,
  ItemStatsAnswer,
  ReviewBody,
  UpdateItemBody,
} from './schemas.ts'
import type { ItemService } from './service.ts'

const tags = ['items']
const BASE = '/api/admin/items'
/** A write carrying the session cookie from another origin is refused too. */
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
const notFound = [404, 'ITEM_NOT_FOUND'] as const
const unknownCategory = invalidField('body.categoryId', 'no category has the id "coffee"')

/** The admin's item routes: every one needs an admin session (401 without one, 403 for a non-admin). */
export function adminItemRoutes(app: App, { items }: { items: ItemService }) {
  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List items',
        description:
          'A page of items in any status. `search` matches words of the name and description (each word as a ' +
          'prefix: `cof bean`); `status`, `category`, `tag`, `company` and `featured` filter; `sortBy` ' +
          '(`createdAt`, `updatedAt`, `publishedAt`, `name`, `status`) and `sortOrder` order, newest first by ' +
          'default. `page` below 1 or `limit` outside 1 to 100 is 400.',
        querystring: AdminItemQuery,
        response: {
          200: ItemListAnswer,
          ...errors(
            [400, invalidField('query.status', 'must be one of draft, pending, published, rejected')],
            401,
            403,
          ),
        },
      },
    },
    async (req) => {
      const { items: data, meta } = await items.list(req.query)
      return { success: true as const, data, meta: metaOf(meta) }
    },
  )

  app.post(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create an item',
        description:
          'Creates an item, `draft` unless `status` says otherwise. The slug comes from the name unless given, ' +
          'with the first free of `-2`, `-3` … when taken (creates of one name at once each get their own); ' +
          'a slug given that is taken is 409 `ITEM_SLUG_EXISTS`. Unknown `categoryId`, `tagIds`, `companyId` ' +
          'or `collectionIds` are 400 naming the field. Text is stored as sent (markup stays text). The ' +
          'creation is the first entry of its history.',
        body: CreateItemBody,
        response: {
          201: ItemAnswer,
          ...errors([400, unknownCategory], 401, WRITE_403, [409, 'ITEM_SLUG_EXISTS'], 413, 415),
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send({
        success: true as const,
        data: await items.create(req.body, { id: viewerOf(req).user.id }),
      }),
  )

  app.post(
    `${BASE}/bulk`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Approve, reject or delete items in bulk',
        description:
          `Applies \`action\` to each of \`ids\` (1 to ${ITEM_LIMITS.bulkMax}) on its own, as review and ` +
          'delete do: a failure (an unknown id, an item already in that status) is reported at its index in ' +
          '`errors` and never stops the others.',
        body: BulkItemsBody,
        response: {
          200: BulkItemsAnswer,
          ...errors([400, invalidField('body.ids', 'must have at least 1 item')], 401, WRITE_403, 413, 415),
        },
      },
    },
    async (req) => {
      const { action, ids } = req.body
      const verb = action === 'approve' ? 'approved' : action === 'reject' ? 'rejected' : 'deleted'
      return bulkAnswer(await items.bulk(action, ids, { id: viewerOf(req).user.id }), 'items', verb)
    },
  )

  app.get(
    `${BASE}/stats`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Item statistics',
        description: 'How many items there are, and in each status.',
        response: { 200: ItemStatsAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await items.stats() }),
  )

  app.get(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read an item',
        description: 'The item in any status, with its submitter and review.',
        params: ItemParams,
        response: { 200: ItemAnswer, ...errors(401, 403, notFound) },
      },
    },
    async (req) => ({ success: true as const, data: await items.get(req.params.id) }),
  )

  app.put(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change an item',
        description:
          'Changes the fields sent (at least one). `tagIds` and `collectionIds` replace the item’s lists; ' +
          '`location` changes the location fields it names. Setting `status` to `published` publishes it. ' +
          'Every changed field is recorded in the history with its old and new value, in the same transaction.',
        params: ItemParams,
        body: UpdateItemBody,
        response: {
          200: ItemAnswer,
          ...errors([400, unknownCategory], 401, WRITE_403, notFound, [409, 'ITEM_SLUG_EXISTS'], 413, 415),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await items.update(req.params.id, req.body, { id: viewerOf(req).user.id }),
    }),
  )

  app.delete(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete an item',
        description:
          'Deletes the item for good, with its tags and collection places; featured entries and favorites that ' +
          'name its slug keep their own display fields. The deletion is recorded in its history.',
        params: ItemParams,
        response: { 200: ItemDeleted, ...errors(401, WRITE_403, notFound) },
      },
    },
    async (req) => {
      await items.remove(req.params.id, { id: viewerOf(req).user.id })
      return { success: true as const, message: 'Item deleted' }
    },
  )

  app.get(
    `${BASE}/:id/history`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'An item’s history',
        description:
          'Who changed which fields from what to what, and when, newest first: creation or submission, ' +
          'changes, reviews. Location fields are named `location.city` and so on; tags as `tagIds`.',
        params: ItemParams,
        querystring: HistoryQuery,
        response: { 200: HistoryAnswer, ...errors(400, 401, 403, notFound) },
      },
    },
    async (req) => {
      const { items: data, meta } = await items.history(req.params.id, req.query)
      return { success: true as const, data, meta: metaOf(meta) }
    },
  )

  app.post(
    `${BASE}/:id/review`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Approve or reject an item',
        description:
          '`approve` publishes the item, `reject` rejects it; the `note` is kept on the item (`reviewNote`) and ' +
          'in its history with the reviewing admin. Approving a published item or rejecting a rejected one is ' +
          '409; two admins reviewing at once are served one after the other.',
        params: ItemParams,
        body: ReviewBody,
        response: {
          200: ItemAnswer,
          ...errors(
            [400, invalidField('body.action', 'must be one of approve, reject')],
            401,
            WRITE_403,
            notFound,
            [409, 'ITEM_ALREADY_PUBLISHED', 'ITEM_ALREADY_REJECTED'],
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await items.review(req.params.id, req.body.action, req.body.note, { id: viewerOf(req).user.id }),
    }),
  )
}
