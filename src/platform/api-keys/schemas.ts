import { type Static, Type } from 'typebox'
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts'

/** The `name` column's length. */
export const API_KEY_NAME_MAX_LENGTH = 100

const EXAMPLE_ID = '5b0c8a52-8a4e-4f8e-9d7e-3f1f3c2a9b10'
const EXAMPLE_KEY = 'svc_live_3f9a1c0e5b7d2a4f6e8c0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a'

const Id = Type.String({ format: 'uuid', description: 'key id', examples: [EXAMPLE_ID] })
const Name = Type.String({
  minLength: 1,
  maxLength: API_KEY_NAME_MAX_LENGTH,
  pattern: '\\S',
  description: 'a label for the key; surrounding spaces are trimmed',
  examples: ['CI deploys'],
})
const Prefix = Type.String({
  description: 'the first 12 characters of the key, to recognise it',
  examples: [EXAMPLE_KEY.slice(0, 12)],
})
const ExpiresAt = Type.Unsafe<Date | string | null>({
  ...NullableTimestamp,
  description: 'when the key stops working; null when it never expires',
  examples: ['2030-01-01T00:00:00.000Z'],
})
const CreatedAt = Timestamp

export const CreateApiKeyBody = Type.Object(
  {
    name: Name,
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'ISO 8601 date-time with a time zone, in the future; omit for a key that never expires',
        examples: ['2030-01-01T00:00:00Z'],
      }),
    ),
  },
  { examples: [{ name: 'CI deploys', expiresAt: '2030-01-01T00:00:00Z' }] },
)

export const ApiKeyCreated = Type.Object(
  {
    id: Id,
    name: Type.String({ examples: ['CI deploys'] }),
    key: Type.String({
      description: 'the full key, shown only in this answer: store it now',
      examples: [EXAMPLE_KEY],
    }),
    prefix: Prefix,
    expiresAt: ExpiresAt,
    createdAt: CreatedAt,
  },
  {
    description: 'The new key: store `key` now, it is never shown again',
    examples: [
      {
        id: EXAMPLE_ID,
        name: 'CI deploys',
        key: EXAMPLE_KEY,
        prefix: EXAMPLE_KEY.slice(0, 12),
        expiresAt: '2030-01-01T00:00:00.000Z',
        createdAt: '2026-01-15T09:30:00.000Z',
      },
    ],
  },
)

export const ApiKeyListItem = Type.Object({
  id: Id,
  name: Type.String({ examples: ['CI deploys'] }),
  prefix: Prefix,
  expiresAt: ExpiresAt,
  lastUsedAt: Type.Unsafe<Date | string | null>({
    ...NullableTimestamp,
    description: 'the latest successful use; null before the first',
    examples: ['2026-01-16T12:00:00.000Z'],
  }),
  createdAt: CreatedAt,
})

export type ApiKeyCreated = Static<typeof ApiKeyCreated>
export type ApiKeyListItem = Static<typeof ApiKeyListItem>

export const ApiKeyList = Type.Array(ApiKeyListItem, {
  description: 'the caller’s keys, newest first',
  examples: [
    [
      {
        id: EXAMPLE_ID,
        name: 'CI deploys',
        prefix: EXAMPLE_KEY.slice(0, 12),
        expiresAt: null,
        lastUsedAt: '2026-01-16T12:00:00.000Z',
        createdAt: '2026-01-15T09:30:00.000Z',
      },
    ],
  ],
})

export const ApiKeyParams = Type.Object({
  // Not format: uuid, so a malformed id is as unknown as a missing one (404), not a 400.
  id: Type.String({ description: 'key id', examples: [EXAMPLE_ID] }),
})

export const ApiKeyRevoked = Type.Object(
  { success: Type.Literal(true) },
  { description: 'Revoked: the key no longer works', examples: [{ success: true }] },
)
