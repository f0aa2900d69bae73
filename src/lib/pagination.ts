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

export interface Page {
  page: number
  limit: number
}

export const offsetOf = ({ page, limit }: Page): number => (page - 1) * limit

export function pageMeta(total: number, { page, limit }: Page) {
  const totalPages = Math.ceil(total / limit)
  return { page, limit, total, totalPages, hasNext: page < totalPages, hasPrev: page > 1 }
}
