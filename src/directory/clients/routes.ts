import type { App } from '../../http/app.ts'
import { described, invalidField } from '../../http/schemas.ts'
import { bulkAnswer } from '../bulk.ts'
import { errors } from '../http/schemas.ts'
import {
  AdvancedSearchAnswer,
  AdvancedSearchQuery,
  BulkAnswer,
  BulkDeleteBody,
  BulkUpdateBody,
  ClientAnswer,
  ClientCreatedAnswer,
  ClientIdParams,
  ClientListAnswer,
  ClientListQuery,
  ClientStatsAnswer,
  CreateClientBody,
  DashboardAnswer,
  DashboardQuery,
  DeletedAnswer,
  UpdateClientBody,
} from './schemas.ts'
import type { ClientService } from './service.ts'

const tags = ['clients']
/** A write carrying the session cookie from another origin is refused too. */
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
const badPlan = invalidField('query.plan', 'must be one of "free", "standard", "premium"')
const badDate = invalidField('query.createdAfter', 'must look like 2026-11-01 or 2026-11-22T10:00:00Z')
const BASE = '/api/admin/clients'

export interface AdminClientRouteDeps {
  clients: ClientService
}

/** SPEC.md "Directory: admin clients": every route needs an admin session (401 without, 403 for non-admins). */
export function adminClientRoutes(app: App, { clients }: AdminClientRouteDeps) {
  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List clients',
        description:
          'Pages through client profiles, newest first, filtered by a case-insensitive substring of the display ' +
          'name or email and by status, plan, account type and provider.',
        querystring: ClientListQuery,
        response: { 200: ClientListAnswer, ...errors([400, badPlan], 401, 403) },
      },
    },
    async (req) => {
      const { items, meta } = await clients.list(req.query)
      return { success: true as const, data: { clients: items }, meta }
    },
  )

  app.post(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a client',
        description:
          'Creates a client profile; `displayName` defaults to the part of the email before @. An existing ' +
          'account without a profile gets one; an email without an account gets a new user with a random ' +
          'temporary password that is never returned. 409 when the email already has a client profile or the ' +
          'username is taken.',
        body: CreateClientBody,
        response: {
          200: ClientCreatedAnswer,
          ...errors([400, invalidField('body.email', 'must be an email address')], 401, WRITE_403, [
            409,
            'CLIENT_EXISTS',
            'USERNAME_TAKEN',
          ]),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await clients.create(req.body),
      message: 'Client created',
    }),
  )

  app.get(
    `${BASE}/stats`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Client statistics',
        description:
          'Counts by status, plan, account type and provider; new clients today, this week (from Monday) and ' +
          'this month (UTC) with the change against last month; submissions and activity; the five most ' +
          'frequent countries, companies and industries.',
        response: { 200: ClientStatsAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await clients.stats() }),
  )

  app.get(
    `${BASE}/dashboard`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Client dashboard',
        description:
          'The client list (list filters plus `createdAfter` / `createdBefore`, ISO date-time or `YYYY-MM-DD`), ' +
          'the statistics of all clients and the list metadata in one call.',
        querystring: DashboardQuery,
        response: { 200: DashboardAnswer, ...errors([400, badDate], 401, 403) },
      },
    },
    async (req) => {
      const { items, meta, stats } = await clients.dashboard(req.query)
      return { success: true as const, data: { clients: items, stats, meta } }
    },
  )

  app.get(
    `${BASE}/advanced-search`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Search clients',
        description:
          'The list filters plus date range, email domain, company, location and industry substrings, ' +
          'submission bounds and presence flags, sorted by `sortBy` / `sortOrder` (default newest first). ' +
          '`searchMetadata` echoes the filters used and the time the search took in milliseconds.',
        querystring: AdvancedSearchQuery,
        response: {
          200: AdvancedSearchAnswer,
          ...errors(
            [400, badDate, invalidField('query.minSubmissions', 'cannot exceed maxSubmissions')],
            401,
            403,
          ),
        },
      },
    },
    async (req) => {
      const { items, meta, appliedFilters, searchTime } = await clients.advancedSearch(req.query)
      return {
        success: true as const,
        data: { clients: items, pagination: meta, searchMetadata: { appliedFilters, searchTime } },
      }
    },
  )

  app.put(
    `${BASE}/bulk`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Update clients in bulk',
        description:
          'Applies each `{id, ...fields}` of `clients` (1 to 100) on its own; a failure is reported at its index ' +
          'in `errors` and never stops the others.',
        body: BulkUpdateBody,
        response: {
          200: BulkAnswer,
          ...errors([400, invalidField('body.clients', 'must have at least 1 item')], 401, WRITE_403),
        },
      },
    },
    async (req) => bulkAnswer(await clients.bulkUpdate(req.body.clients), 'clients', 'updated'),
  )

  app.delete(
    `${BASE}/bulk`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete clients in bulk',
        description:
          'Permanently deletes each `{id}` of `clients` (1 to 100); an unknown id is reported at its index in ' +
          '`errors` and never stops the others.',
        body: BulkDeleteBody,
        response: {
          200: described(BulkAnswer, 'What happened to each item, by its index in `clients`', {
            success: true,
            message: '1 of 1 clients deleted',
            results: [{ index: 0, id: '4e6a8c0d-2f1b-4d3e-8a5c-7b9d1f3e5a70', success: true }],
            errors: [],
            summary: { total: 1, successful: 1, failed: 0 },
          }),
          ...errors([400, invalidField('body.clients', 'must have at least 1 item')], 401, WRITE_403),
        },
      },
    },
    async (req) => bulkAnswer(await clients.bulkDelete(req.body.clients), 'clients', 'deleted'),
  )

  app.get(
    `${BASE}/:clientId`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a client',
        description: 'The complete client profile; 404 for an unknown id.',
        params: ClientIdParams,
        response: { 200: ClientAnswer, ...errors(401, 403, [404, 'CLIENT_NOT_FOUND']) },
      },
    },
    async (req) => ({ success: true as const, data: await clients.get(req.params.clientId) }),
  )

  app.put(
    `${BASE}/:clientId`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Update a client',
        description:
          'Changes the given fields only and answers the updated profile. 404 for an unknown id; 409 when the ' +
          'username is taken.',
        params: ClientIdParams,
        body: UpdateClientBody,
        response: {
          200: described(ClientAnswer, 'The updated client profile'),
          ...errors(
            [400, invalidField('body.plan', 'must be one of "free", "standard", "premium"')],
            401,
            WRITE_403,
            [404, 'CLIENT_NOT_FOUND'],
            [409, 'USERNAME_TAKEN'],
          ),
        },
      },
    },
    async (req) => ({ success: true as const, data: await clients.update(req.params.clientId, req.body) }),
  )

  app.delete(
    `${BASE}/:clientId`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a client',
        description:
          'Permanently deletes the client profile; the sign-in account stays. 404 for an unknown id.',
        params: ClientIdParams,
        response: { 200: DeletedAnswer, ...errors(401, WRITE_403, [404, 'CLIENT_NOT_FOUND']) },
      },
    },
    async (req) => {
      await clients.remove(req.params.clientId)
      return { success: true as const, message: 'Client deleted' }
    },
  )
}
