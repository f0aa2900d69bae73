import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app.ts'
import { described, invalidField } from '../../http/schemas.ts'
import { invalidInput } from '../../lib/errors.ts'
import { errors } from '../http/schemas.ts'
import {
  AllCategoriesAnswer,
  AllCategoriesQuery,
  CategoryAnswer,
  CategoryCreatedAnswer,
  CategoryIdParams,
  CategoryListAnswer,
  CategoryListQuery,
  CategoryMessageAnswer,
  CategoryUpdatedAnswer,
  CreateCategoryBody,
  DeleteCategoryQuery,
  ReorderCategoriesBody,
  UpdateCategoryBody,
} from './schemas.ts'
import type { CategoryService } from './service.ts'

const tags = ['categories']
const BASE = '/api/admin/categories'
const badId = invalidField('params.id', 'must be at most 100 characters long')

export interface CategoryRouteDeps {
  categories: CategoryService
}

/** SPEC.md wants 400 for anything but an array, with one message whatever else is wrong with the body. */
async function requireCategoryIdsArray(req: FastifyRequest) {
  const body = req.body as { categoryIds?: unknown } | null | undefined
  if (!Array.isArray(body?.categoryIds)) {
    throw invalidInput('categoryIds', 'must be a non-empty array of category ids')
  }
}

export function categoryRoutes(app: App, { categories }: CategoryRouteDeps) {
  app.get(
    BASE,
    {
      config: { access: 'admin-401' },
      schema: {
        tags,
        summary: 'List categories',
        description:
          'A page of categories, active only unless `includeInactive=true`. Sorted by the reorder order ' +
          '(then name) unless `sortBy` says otherwise. `page` below 1 or `limit` outside 1 to 100 is 400.',
        querystring: CategoryListQuery,
        response: {
          200: CategoryListAnswer,
          ...errors([400, invalidField('query.page', 'must be at least 1')], 401),
        },
      },
    },
    async (req) => {
      const { items, meta } = await categories.list(req.query)
      return { success: true as const, categories: items, ...meta }
    },
  )

  app.post(
    BASE,
    {
      config: { access: 'admin-401' },
      schema: {
        tags,
        summary: 'Create a category',
        description:
          'Creates an active category at the end of the order. The id is a slug generated from the name ' +
          'when omitted. 409 when the name exists whatever its case, or when the id exists.',
        body: CreateCategoryBody,
        response: {
          201: CategoryCreatedAnswer,
          ...errors(400, 401, [403, 'CROSS_ORIGIN'], [409, 'CATEGORY_NAME_EXISTS', 'CATEGORY_ID_EXISTS']),
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send({
        success: true as const,
        category: await categories.create(req.body),
        message: 'Category created',
      }),
  )

  app.get(
    `${BASE}/all`,
    {
      config: { access: 'admin-401' },
      schema: {
        tags,
        summary: 'All active categories',
        description:
          'Every active category in order, from the content cache; any category write on any instance ' +
          'invalidates it.',
        querystring: AllCategoriesQuery,
        response: {
          200: AllCategoriesAnswer,
          ...errors([400, invalidField('query.locale', 'must look like en')], 401),
        },
      },
    },
    async (req) => ({ success: true as const, data: await categories.all(req.query.locale) }),
  )

  app.put(
    `${BASE}/reorder`,
    {
      // After the access guard, so a caller without a session learns nothing about the body.
      config: { access: 'admin-401' },
      preValidation: requireCategoryIdsArray,
      schema: {
        tags,
        summary: 'Reorder categories',
        description:
          'Array position becomes each category’s order, in one transaction; categories not listed follow in ' +
          'their previous order. 400 when `categoryIds` is not a non-empty array or names unknown ids (listed).',
        body: ReorderCategoriesBody,
        response: {
          200: described(CategoryMessageAnswer, 'Reordered', {
            success: true,
            message: 'Categories reordered',
          }),
          ...errors(
            [
              400,
              invalidField('body.categoryIds', 'must be a non-empty array of category ids'),
              'UNKNOWN_CATEGORY_IDS',
            ],
            401,
            [403, 'CROSS_ORIGIN'],
          ),
        },
      },
    },
    async (req) => {
      await categories.reorder(req.body.categoryIds)
      return { success: true as const, message: 'Categories reordered' }
    },
  )

  app.get(
    `${BASE}/:id`,
    {
      config: { access: 'admin-401' },
      schema: {
        tags,
        summary: 'Read a category',
        description: 'One category, active or not; 404 when unknown.',
        params: CategoryIdParams,
        response: { 200: CategoryAnswer, ...errors([400, badId], 401, [404, 'CATEGORY_NOT_FOUND']) },
      },
    },
    async (req) => ({ success: true as const, data: await categories.get(req.params.id) }),
  )

  app.put(
    `${BASE}/:id`,
    {
      config: { access: 'admin-401' },
      schema: {
        tags,
        summary: 'Rename a category',
        description: '409 when another category has the name, whatever its case; 404 when unknown.',
        params: CategoryIdParams,
        body: UpdateCategoryBody,
        response: {
          200: CategoryUpdatedAnswer,
          ...errors(
            400,
            401,
            [403, 'CROSS_ORIGIN'],
            [404, 'CATEGORY_NOT_FOUND'],
            [409, 'CATEGORY_NAME_EXISTS'],
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await categories.update(req.params.id, req.body),
      message: 'Category updated',
    }),
  )

  app.delete(
    `${BASE}/:id`,
    {
      config: { access: 'admin-401' },
      schema: {
        tags,
        summary: 'Delete a category',
        description:
          'Deactivates the category (its items keep it; it leaves the public listing); `hard=true` deletes it ' +
          'permanently, which is 409 `CATEGORY_IN_USE` while any item is in it. 404 when unknown.',
        params: CategoryIdParams,
        querystring: DeleteCategoryQuery,
        response: {
          200: described(CategoryMessageAnswer, 'Deactivated, or deleted with `hard=true`'),
          ...errors(
            [400, invalidField('query.hard', 'must be one of "true", "false"')],
            401,
            [403, 'CROSS_ORIGIN'],
            [404, 'CATEGORY_NOT_FOUND'],
            [409, 'CATEGORY_IN_USE'],
          ),
        },
      },
    },
    async (req) => {
      const hard = req.query.hard === 'true'
      await categories.remove(req.params.id, hard)
      return {
        success: true as const,
        message: hard ? 'Category deleted permanently' : 'Category deactivated',
      }
    },
  )
}
