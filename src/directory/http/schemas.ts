import { Type } from 'typebox'

/** The directory's error body. */
export const DirectoryError = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ examples: ['Authentication required'] }),
    details: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
        description: 'the failing fields of a 400',
      }),
    ),
  },
  { $id: 'DirectoryError', description: 'Every directory error has this shape.' },
)

/** Response entries for the error statuses a route can answer. */
export function errors(...statuses: number[]): Record<number, typeof DirectoryError> {
  return Object.fromEntries(statuses.map((status) => [status, DirectoryError]))
}
