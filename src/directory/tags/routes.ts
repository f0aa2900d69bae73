import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { errors, pageAnswer } from '../http/schemas.ts'
import {
  AllTagsAnswer,
  CreateTagBody,
  TagAnswer,
  TagCreatedAnswer,
  TagDeleted,
  TagIdParams,
  TagListAnswer,
  TagListQuery,
  TagStatsAnswer,
  TagUpdatedAnswer,
  UpdateTagBody,
} from './schemas.ts'
import type { TagService } from './service.ts'

const tags = ['tags']
const BASE = '/api/admin/tags'
/** A write carrying the session cookie from another origin is refused too. */
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
const notFound = [404, 'TAG_NOT_FOUND'] as const
const badId = invalidField('params.id', 'must be at most 100 characters long')

export function tagRoutes(app: App, { tagService }: { tagService: TagService }) {
  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List tags',
        description:
          'A page of tags, each with `itemCount`: how many items carry it, whatever their status. `search` is a ' +
          'case-insensitive substring of the name or id; sorted by name unless `sortBy` says otherwise. `page` ' +
          'below 1 or `limit` outside 1 to 100 is 400.',
        querystring: TagListQuery,
        response: {
          200: TagListAnswer,
          ...errors([400, invalidField('query.page', 'must be at least 1')], 401, 403),
        },
      },
    },
    async (req) => pageAnswer(await tagService.list(req.query)),
  )

  app.post(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a tag',
        description:
          'The id is the slug of the name when omitted (diacritics stripped, at most 100 characters). The name ' +
          'is trimmed and stored as text. 409 `TAG_NAME_EXISTS` when another tag has the name whatever its ' +
          'case, `TAG_ID_EXISTS` when the id is taken; racing creates get one 201 and 409s.',
        body: CreateTagBody,
        response: {
          201: TagCreatedAnswer,
          ...errors(
            [400, invalidField('body.id', 'must match pattern "^[a-z0-9-]+$"')],
            401,
            WRITE_403,
            [409, 'TAG_NAME_EXISTS', 'TAG_ID_EXISTS'],
            413,
            415,
          ),
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send({ success: true as const, data: await tagService.create(req.body) }),
  )

  app.get(
    `${BASE}/all`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'All tags',
        description: 'Every tag as `{id, name}`, by name, for pickers: no paging.',
        response: { 200: AllTagsAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await tagService.all() }),
  )

  app.get(
    `${BASE}/stats`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Tag statistics',
        description:
          'How many tags there are, how many at least one item carries (`used`) and how many none does, and ' +
          'the 10 used most.',
        response: { 200: TagStatsAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await tagService.stats() }),
  )

  app.get(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a tag',
        description: 'The tag with its `itemCount`; 404 when unknown.',
        params: TagIdParams,
        response: { 200: TagAnswer, ...errors([400, badId], 401, 403, notFound) },
      },
    },
    async (req) => ({ success: true as const, data: await tagService.get(req.params.id) }),
  )

  app.put(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Rename a tag',
        description:
          'Changes the name; the id stays. 409 `TAG_NAME_EXISTS` when another tag has the name, whatever its ' +
          'case; 404 when unknown.',
        params: TagIdParams,
        body: UpdateTagBody,
        response: {
          200: TagUpdatedAnswer,
          ...errors(400, 401, WRITE_403, notFound, [409, 'TAG_NAME_EXISTS'], 413, 415),
        },
      },
    },
    async (req) => ({ success: true as const, data: await tagService.update(req.params.id, req.body) }),
  )

  app.delete(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a tag',
        description:
          'Deletes a tag no item carries, for good. A tag still in use is 409 `TAG_IN_USE`, saying how many ' +
          'items carry it: remove it from them first. 404 when unknown.',
        params: TagIdParams,
        response: {
          200: TagDeleted,
          ...errors([400, badId], 401, WRITE_403, notFound, [409, 'TAG_IN_USE']),
        },
      },
    },
    async (req) => {
      await tagService.delete(req.params.id)
      return { success: true as const, message: 'Tag deleted' }
    },
  )
}
