import { Type } from 'typebox'
import { errorResponses, FieldIssues } from '../../http/schemas.ts'

/** The platform's error body. */
export const PlatformError = Type.Object(
  {
    statusCode: Type.Integer({ examples: [401] }),
    error: Type.String({ examples: ['Unauthorized'] }),
    message: Type.String({ examples: ['Authentication required'] }),
    code: Type.String({ examples: ['UNAUTHORIZED'], description: 'stable: see the README’s error codes' }),
    details: Type.Optional(FieldIssues),
  },
  { $id: 'PlatformError', description: 'Every platform error has this shape.' },
)

export const errors = errorResponses(PlatformError)
