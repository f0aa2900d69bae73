import { Type } from 'typebox'

/** SPEC.md "Admin list endpoints": `limit` 1 to 100, default 10; `page` min 1. */
export const ADMIN_PAGE_DEFAULT_LIMIT = 10
export const ADMIN_PAGE_MAX_LIMIT = 100

/** Query fields of an admin list: out-of-range values are 400 (CONTRACT.md). */
export const PageQueryFields = {
  page: Type.Integer({ minimum: 1, default: 1, examples: [1] }),
  limit: Type.Integer({
    minimum: 1,
    maximum: ADMIN_PAGE_MAX_LIMIT,
    default: ADMIN_PAGE_DEFAULT_LIMIT,
    examples: [ADMIN_PAGE_DEFAULT_LIMIT],
  }),
}

/** The figures every paged answer carries, in the field names SPEC.md's lists use. */
export const PageMetaFields = {
  page: Type.Integer({ examples: [1] }),
  limit: Type.Integer({ examples: [10] }),
  total: Type.Integer({ description: 'matches over all pages', examples: [42] }),
  totalPages: Type.Integer({ examples: [5] }),
}

export interface Page {
  page: number
  limit: number
}

export interface PageMeta {
  page: number
  limit: number
  total: number
  totalPages: number
  hasNext: boolean
  hasPrev: boolean
}

export interface PageOf<T> {
  items: T[]
  meta: PageMeta
}

export const offsetOf = ({ page, limit }: Page): number => (page - 1) * limit

export function pageMeta(total: number, { page, limit }: Page): PageMeta {
  const totalPages = Math.ceil(total / limit)
  return { page, limit, total, totalPages, hasNext: page < totalPages, hasPrev: page > 1 }
}

/** One page of a list and its total, read side by side. */
export async function fetchPage<T>(
  page: Page,
  read: { rows(limit: number, offset: number): Promise<T[]>; total(): Promise<number> },
): Promise<PageOf<T>> {
  const [items, total] = await Promise.all([read.rows(page.limit, offsetOf(page)), read.total()])
  return { items, meta: pageMeta(total, page) }
}
