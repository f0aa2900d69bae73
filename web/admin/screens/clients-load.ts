/**
 * Loads a page of the clients list from the cheapest route that takes the filters in use:
 * `GET /api/admin/clients` for the plain filters, `/dashboard` when a creation date range is set, and
 * `/advanced-search` as soon as an advanced criterion or a sort other than newest first is.
 */
import { unwrap } from '../../shared/api.ts'
import { sortParams } from '../../shared/list.ts'
import { api } from '../api.ts'
import { advancedParams } from './clients-advanced-search.tsx'
import type { ClientFilters, ClientSort } from './clients-filters.tsx'
import { defined } from './clients-params.ts'

const PAGE_SIZE = 25

export async function loadClients(
  { page, search, sort }: { page: number; search: string; sort: ClientSort },
  {
    status,
    plan,
    accountType,
    provider,
    createdAfter,
    createdBefore,
    advanced,
    advancedInUse,
  }: ClientFilters,
  signal: AbortSignal,
) {
  const filters = defined({
    page,
    limit: PAGE_SIZE,
    search: search || undefined,
    status,
    plan,
    accountType,
    provider: provider || undefined,
  })
  const range = defined({
    createdAfter: createdAfter || undefined,
    createdBefore: createdBefore || undefined,
  })
  if (advancedInUse || sort) {
    const [sortBy, sortOrder] = sortParams(sort || 'createdAt:desc')
    const answer = await unwrap(
      api.GET('/api/admin/clients/advanced-search', {
        signal,
        params: { query: { ...filters, ...range, sortBy, sortOrder, ...advancedParams(advanced) } },
      }),
    )
    return { clients: answer.data.clients, meta: answer.data.pagination }
  }
  if (createdAfter || createdBefore) {
    const answer = await unwrap(
      api.GET('/api/admin/clients/dashboard', { signal, params: { query: { ...filters, ...range } } }),
    )
    return { clients: answer.data.clients, meta: answer.data.meta }
  }
  const answer = await unwrap(api.GET('/api/admin/clients', { signal, params: { query: filters } }))
  return { clients: answer.data.clients, meta: answer.meta }
}
