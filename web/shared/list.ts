/**
 * A list screen's page, search and sort, kept in the query string: the sort is one of the screen's
 * options (its default when the address names none or another), and a new search, filter or sort goes
 * back to page 1. The default sort is left out of the address.
 */
import { useQuery } from './router.tsx'

/** One entry of a list's Sort select: `field:order`, as the API's `sortBy` and `sortOrder`. */
export interface SortOption<S extends string = string> {
  readonly value: S
  readonly label: string
}

/** The query string's list state and its setters; `query`/`setQuery` for the screen's own filters. */
export interface ListState<S extends string> {
  query: URLSearchParams
  setQuery: ReturnType<typeof useQuery>[1]
  page: number
  search: string
  sort: S
  setSearch: (search: string) => void
  setFilter: (key: string, value: string) => void
  setSort: (value: string) => void
  setPage: (next: number) => void
}

/** A list with these sort options and default; without them, a list that is not sorted. */
export function useList<S extends string>(sorts: readonly SortOption<S>[], defaultSort: S): ListState<S>
export function useList(): ListState<''>
export function useList(sorts: readonly SortOption[] = [], defaultSort = ''): ListState<string> {
  const [query, setQuery] = useQuery()
  const sort = sorts.find((s) => s.value === query.get('sort'))?.value ?? defaultSort
  return {
    query,
    setQuery,
    page: Math.max(1, Number(query.get('page')) || 1),
    search: query.get('search') ?? '',
    sort,
    /** A new search, from page 1. */
    setSearch: (search: string) => setQuery({ search, page: undefined }),
    /** Another filter's value, from page 1. */
    setFilter: (key: string, value: string) => setQuery({ [key]: value, page: undefined }),
    /** Another sort, from page 1; the default is left out of the address. */
    setSort: (value: string) =>
      setQuery({ sort: value === defaultSort ? undefined : value, page: undefined }),
    /** Another page, as a new history entry. */
    setPage: (next: number) => setQuery({ page: next === 1 ? undefined : next }, { push: true }),
  }
}

/** `'name:asc'` as the API's `[sortBy, sortOrder]`. */
export function sortParams<By extends string, Order extends 'asc' | 'desc'>(
  sort: `${By}:${Order}`,
): [By, Order] {
  return sort.split(':') as [By, Order]
}

/** A list's page, sort and search as the API's query: `page`, `limit`, `sortBy`, `sortOrder`, `search` when given. */
export function listParams<By extends string, Order extends 'asc' | 'desc'>(
  { page, search, sort }: { page: number; search: string; sort: `${By}:${Order}` },
  limit: number,
): { page: number; limit: number; sortBy: By; sortOrder: Order; search?: string } {
  const [sortBy, sortOrder] = sortParams(sort)
  return { page, limit, sortBy, sortOrder, ...(search ? { search } : {}) }
}
