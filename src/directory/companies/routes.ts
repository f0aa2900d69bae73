import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { errors, pageAnswer } from '../http/schemas.ts'
import {
  CompanyAnswer,
  CompanyCreatedAnswer,
  CompanyDeleted,
  CompanyListAnswer,
  CompanyListQuery,
  CompanyParams,
  CompanyStatsAnswer,
  CompanyUpdatedAnswer,
  CreateCompanyBody,
  UpdateCompanyBody,
} from './schemas.ts'
import type { CompanyService } from './service.ts'

const tags = ['companies']
const BASE = '/api/admin/companies'
/** A write carrying the session cookie from another origin is refused too. */
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
const notFound = [404, 'COMPANY_NOT_FOUND'] as const
const badUrl = invalidField('body.website', 'must match pattern "^https?://"')

export function companyRoutes(app: App, { companyService }: { companyService: CompanyService }) {
  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List companies',
        description:
          'A page of companies, each with `itemCount`: how many items name it, whatever their status. `search` ' +
          'is a case-insensitive substring of the name or slug; `isActive` filters; sorted by name unless ' +
          '`sortBy` says otherwise. `page` below 1 or `limit` outside 1 to 100 is 400.',
        querystring: CompanyListQuery,
        response: {
          200: CompanyListAnswer,
          ...errors([400, invalidField('query.page', 'must be at least 1')], 401, 403),
        },
      },
    },
    async (req) => pageAnswer(await companyService.list(req.query)),
  )

  app.post(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a company',
        description:
          'The slug is the slug of the name when omitted. The name is trimmed; text is stored as sent. ' +
          '`website` and `logoUrl` are http(s) URLs. 409 `COMPANY_NAME_EXISTS` when another company has the ' +
          'name whatever its case, `COMPANY_SLUG_EXISTS` when the slug is taken; racing creates get one 201 ' +
          'and 409s.',
        body: CreateCompanyBody,
        response: {
          201: CompanyCreatedAnswer,
          ...errors(
            [400, badUrl],
            401,
            WRITE_403,
            [409, 'COMPANY_NAME_EXISTS', 'COMPANY_SLUG_EXISTS'],
            413,
            415,
          ),
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send({ success: true as const, data: await companyService.create(req.body) }),
  )

  app.get(
    `${BASE}/stats`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Company statistics',
        description:
          'How many companies there are, active and not, with and without items, and the 10 with the most items.',
        response: { 200: CompanyStatsAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await companyService.stats() }),
  )

  app.get(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a company',
        description:
          'The company, active or not, with its `itemCount`; 404 when unknown (an id that is not a UUID too).',
        params: CompanyParams,
        response: { 200: CompanyAnswer, ...errors(401, 403, notFound) },
      },
    },
    async (req) => ({ success: true as const, data: await companyService.get(req.params.id) }),
  )

  app.put(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change a company',
        description:
          'Changes the fields sent (at least one); `null` clears `description`, `website` or `logoUrl`. ' +
          '`isActive: false` deactivates a company, which is how to retire one that items still name. 409 ' +
          'as on create when the name or slug is another company’s; 404 when unknown.',
        params: CompanyParams,
        body: UpdateCompanyBody,
        response: {
          200: CompanyUpdatedAnswer,
          ...errors(
            [400, badUrl],
            401,
            WRITE_403,
            notFound,
            [409, 'COMPANY_NAME_EXISTS', 'COMPANY_SLUG_EXISTS'],
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await companyService.update(req.params.id, req.body),
    }),
  )

  app.delete(
    `${BASE}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a company',
        description:
          'Deletes a company no item names, for good. One that items still name is 409 `COMPANY_IN_USE`, ' +
          'saying how many: move them to another company first, or deactivate it with PUT `isActive: false`. ' +
          '404 when unknown.',
        params: CompanyParams,
        response: {
          200: CompanyDeleted,
          ...errors(401, WRITE_403, notFound, [409, 'COMPANY_IN_USE']),
        },
      },
    },
    async (req) => {
      await companyService.delete(req.params.id)
      return { success: true as const, message: 'Company deleted' }
    },
  )
}
