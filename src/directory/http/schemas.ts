import { Type } from 'typebox'
import { errorResponses, FieldIssues } from '../../http/schemas.ts'
import type { PageMeta, PageOf } from '../../lib/pagination.ts'

/** The directory's error body. */
export const DirectoryError = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'for people; may change', examples: ['Authentication required'] }),
    code: Type.String({
      examples: ['UNAUTHORIZED'],
      description: 'stable, for programs: see docs/errors.md',
    }),
    details: Type.Optional(FieldIssues),
  },
  { $id: 'DirectoryError', description: 'Every directory error has this shape.' },
)

/** `errors(400, 401, [404, 'ROLE_NOT_FOUND'])`: see `errorResponses`. */
export const errors = errorResponses(
  DirectoryError,
  ({ code, message, details }) => ({
    success: false,
    error: message,
    code,
    ...(details === undefined ? {} : { details }),
  }),
  {
    FORBIDDEN: { message: 'Admin access required' },
  },
)

/** The figures of a page as SPEC.md's lists answer them. */
export const metaOf = ({ page, limit, total, totalPages }: PageMeta) => ({ page, limit, total, totalPages })

/** A page of a list as the directory answers it: `{success, data, meta:{page, limit, total, totalPages}}`. */
export const pageAnswer = <T>({ items, meta }: PageOf<T>) => ({
  success: true as const,
  data: items,
  meta: metaOf(meta),
})
