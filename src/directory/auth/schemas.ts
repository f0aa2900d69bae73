import { type Static, Type } from 'typebox'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../lib/passwords.ts'
import { EmailAddress } from '../accounts/rules.ts'

export const RegisterBody = Type.Object({
  email: EmailAddress,
  password: Type.String({
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_LENGTH,
    examples: ['a long passphrase'],
  }),
  name: Type.String({ minLength: 2, maxLength: 100, examples: ['Grace Hopper'] }),
})

export const SigninBody = Type.Object({
  // Not format-checked: an admin may be admin@localhost.
  email: Type.String({ minLength: 1, maxLength: 254, examples: ['grace@example.com'] }),
  password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, examples: ['a long passphrase'] }),
})

export const AccountUser = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String({ examples: ['grace@example.com'] }),
  name: Type.Union([Type.String(), Type.Null()], { examples: ['Grace Hopper'] }),
})
export type AccountUser = Static<typeof AccountUser>

export const AccountAnswer = Type.Object({ success: Type.Literal(true), user: AccountUser })

export const SignoutAnswer = Type.Object({ success: Type.Literal(true) })

/** SPEC.md "Directory: current user (safe profile)". */
export const SafeProfile = Type.Object(
  {
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    image: Type.Union([Type.String(), Type.Null()]),
    provider: Type.Union([Type.String(), Type.Null()], { examples: ['credentials'] }),
    isAdmin: Type.Boolean(),
  },
  { description: 'The signed-in user' },
)

/** The safe profile, or null when not signed in: one nullable object, which serializes without trial matching. */
export const CurrentUserAnswer = Type.Unsafe<Static<typeof SafeProfile> | null>({
  ...SafeProfile,
  type: ['object', 'null'],
  description: 'The signed-in user, or null when not signed in',
})
