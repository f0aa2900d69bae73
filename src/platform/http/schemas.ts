import { Type } from 'typebox'

/** The platform's error body. */
export const PlatformError = Type.Object(
  {
    statusCode: Type.Integer({ examples: [401] }),
    error: Type.String({ examples: ['Unauthorized'] }),
    message: Type.String({ examples: ['Authentication required'] }),
    code: Type.Optional(Type.String({ examples: ['UNAUTHORIZED'] })),
    details: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
        description: 'the failing fields of a 400',
      }),
    ),
  },
  { $id: 'PlatformError', description: 'Every platform error has this shape.' },
)

/** Response entries for the error statuses a route can answer. */
export function errors(...statuses: number[]): Record<number, typeof PlatformError> {
  return Object.fromEntries(statuses.map((status) => [status, PlatformError]))
}
