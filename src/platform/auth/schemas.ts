import { type Static, Type } from 'typebox'
import { EmailAddress } from '../../http/schemas.ts'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../lib/passwords.ts'
import { ACCESS_TOKEN_TTL_SECONDS } from './jwt.ts'

const Password = Type.String({
  minLength: PASSWORD_MIN_LENGTH,
  maxLength: PASSWORD_MAX_LENGTH,
  examples: ['correct horse battery staple'],
})

export const RegisterBody = Type.Object({
  email: EmailAddress,
  password: Password,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, examples: ['Ada Lovelace'] })),
})

export const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254, examples: ['ada@example.com'] }),
  password: Type.String({
    minLength: 1,
    maxLength: PASSWORD_MAX_LENGTH,
    examples: ['correct horse battery staple'],
  }),
})

export const RefreshBody = Type.Object({
  refreshToken: Type.String({
    minLength: 1,
    maxLength: 512,
    description: 'the refresh token of the last answer',
  }),
})

export const PlatformUser = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String({ examples: ['ada@example.com'] }),
  name: Type.Union([Type.String(), Type.Null()], { examples: ['Ada Lovelace'] }),
})
export type PlatformUser = Static<typeof PlatformUser>

export const TokenPair = Type.Object({
  user: PlatformUser,
  accessToken: Type.String({ description: 'JWT; send as `Authorization: Bearer …`' }),
  refreshToken: Type.String({ description: 'works once; exchange it at /api/auth/refresh for a new pair' }),
  expiresIn: Type.Integer({
    description: 'seconds until the access token expires',
    examples: [ACCESS_TOKEN_TTL_SECONDS],
  }),
})
export type TokenPair = Static<typeof TokenPair>

export const ChangePasswordBody = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
  newPassword: Password,
})
