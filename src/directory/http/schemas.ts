import { Type } from 'typebox'
import { errorResponses, FieldIssues } from '../../http/schemas.ts'

/** The directory's error body. */
export const DirectoryError = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ examples: ['Authentication required'] }),
    code: Type.String({ examples: ['UNAUTHORIZED'], description: 'stable: see the README’s error codes' }),
    details: Type.Optional(FieldIssues),
  },
  { $id: 'DirectoryError', description: 'Every directory error has this shape.' },
)

export const errors = errorResponses(DirectoryError)
