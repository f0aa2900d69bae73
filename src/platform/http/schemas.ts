import { STATUS_CODES } from 'node:http'
import { Type } from 'typebox'
import { errorResponses, FieldIssues } from '../../http/schemas.ts'

/** The platform's error body. */
export const PlatformError = Type.Object(
  {
    statusCode: Type.Integer({ examples: [401] }),
    error: Type.String({ description: 'the status’s reason phrase', examples: ['Unauthorized'] }),
    message: Type.String({ description: 'for people; may change', examples: ['Authentication required'] }),
    code: Type.String({
      examples: ['UNAUTHORIZED'],
      description: 'stable, for programs: see docs/errors.md',
    }),
    details: Type.Optional(FieldIssues),
  },
  { $id: 'PlatformError', description: 'Every platform error has this shape.' },
)

/** `errors(400, 401, [404, 'WORK_NOT_FOUND'])`: see `errorResponses`. */
export const errors = errorResponses(
  PlatformError,
  ({ status, code, message, details }) => ({
    statusCode: status,
    error: STATUS_CODES[status] ?? 'Error',
    message,
    code,
    ...(details === undefined ? {} : { details }),
  }),
  {
    UNAUTHORIZED: { message: 'Authentication required: send Authorization: Bearer <access token>' },
  },
)
