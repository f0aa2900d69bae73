import { type Static, Type } from 'typebox'
import { EmailAddress } from '../../http/schemas.ts'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../lib/passwords.ts'
import { ACCESS_TOKEN_TTL_SECONDS } from './jwt.ts'

const EXAMPLE_USER = {
  id: '5f0c2a8e-7d3b-4e21-8a4c-9b1e6d2f7c30',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
}
const EXAMPLE_ACCESS_TOKEN =
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI1ZjBjMmE4ZS03ZDNiLTRlMjEtOGE0Yy05YjFlNmQyZjdjMzAifQ.3q2-7wxY0L8cK1zJmQ5bGk4nVr9sTfPaHdE6uWiXo0A'
const EXAMPLE_REFRESH_TOKEN = 'Jx4mG0s9bT2vK7qN1wE5rY8uI3oP6aSdF0gH2jK4lZc'

const Password = Type.String({
  minLength: PASSWORD_MIN_LENGTH,
  maxLength: PASSWORD_MAX_LENGTH,
  examples: ['correct horse battery staple'],
})

export const RegisterBody = Type.Object(
  {
    email: EmailAddress,
    password: Password,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, examples: ['Ada Lovelace'] })),
  },
  {
    examples: [{ email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada Lovelace' }],
  },
)

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254, examples: ['ada@example.com'] }),
    password: Type.String({
      minLength: 1,
      maxLength: PASSWORD_MAX_LENGTH,
      examples: ['correct horse battery staple'],
    }),
  },
  { examples: [{ email: 'ada@example.com', password: 'correct horse battery staple' }] },
)

export const RefreshBody = Type.Object(
  {
    refreshToken: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'the refresh token of the last answer',
      examples: [EXAMPLE_REFRESH_TOKEN],
    }),
  },
  { examples: [{ refreshToken: EXAMPLE_REFRESH_TOKEN }] },
)

export const PlatformUser = Type.Object(
  {
    id: Type.String({ format: 'uuid', examples: [EXAMPLE_USER.id] }),
    email: Type.String({ examples: ['ada@example.com'] }),
    name: Type.Union([Type.String(), Type.Null()], { examples: ['Ada Lovelace'] }),
  },
  { description: 'The account', examples: [EXAMPLE_USER] },
)
export type PlatformUser = Static<typeof PlatformUser>

export const TokenPair = Type.Object(
  {
    user: PlatformUser,
    accessToken: Type.String({
      description: 'JWT; send as `Authorization: Bearer …`',
      examples: [EXAMPLE_ACCESS_TOKEN],
    }),
    refreshToken: Type.String({
      description: 'works once; exchange it at /api/auth/refresh for a new pair',
      examples: [EXAMPLE_REFRESH_TOKEN],
    }),
    expiresIn: Type.Integer({
      description: 'seconds until the access token expires',
      examples: [ACCESS_TOKEN_TTL_SECONDS],
    }),
  },
  {
    description: 'The account with a new access token and refresh token',
    examples: [
      {
        user: EXAMPLE_USER,
        accessToken: EXAMPLE_ACCESS_TOKEN,
        refreshToken: EXAMPLE_REFRESH_TOKEN,
        expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      },
    ],
  },
)
export type TokenPair = Static<typeof TokenPair>

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({
      minLength: 1,
      maxLength: PASSWORD_MAX_LENGTH,
      examples: ['correct horse battery staple'],
    }),
    newPassword: Password,
  },
  {
    examples: [
      { currentPassword: 'correct horse battery staple', newPassword: 'a longer passphrase of mine' },
    ],
  },
)
