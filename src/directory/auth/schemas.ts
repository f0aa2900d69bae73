import { type Static, Type } from 'typebox'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../lib/passwords.ts'
import { EmailAddress } from '../accounts/rules.ts'

const EXAMPLE_USER = {
  id: '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d',
  email: 'grace@example.com',
  name: 'Grace Hopper',
}

export const RegisterBody = Type.Object(
  {
    email: EmailAddress,
    password: Type.String({
      minLength: PASSWORD_MIN_LENGTH,
      maxLength: PASSWORD_MAX_LENGTH,
      examples: ['a long passphrase'],
    }),
    name: Type.String({ minLength: 2, maxLength: 100, examples: ['Grace Hopper'] }),
  },
  { examples: [{ email: 'grace@example.com', password: 'a long passphrase', name: 'Grace Hopper' }] },
)

export const SigninBody = Type.Object(
  {
    // Not format-checked: an admin may be admin@localhost.
    email: Type.String({ minLength: 1, maxLength: 254, examples: ['grace@example.com'] }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, examples: ['a long passphrase'] }),
  },
  { examples: [{ email: 'grace@example.com', password: 'a long passphrase' }] },
)

export const AccountUser = Type.Object({
  id: Type.String({ format: 'uuid', examples: [EXAMPLE_USER.id] }),
  email: Type.String({ examples: ['grace@example.com'] }),
  name: Type.Union([Type.String(), Type.Null()], { examples: ['Grace Hopper'] }),
})
export type AccountUser = Static<typeof AccountUser>

export const AccountAnswer = Type.Object(
  { success: Type.Literal(true), user: AccountUser },
  {
    description: 'The signed-in user; the session cookie is set',
    examples: [{ success: true, user: EXAMPLE_USER }],
  },
)

export const SignoutAnswer = Type.Object(
  { success: Type.Literal(true) },
  { description: 'Signed out; the session cookie is cleared', examples: [{ success: true }] },
)

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
  {
    description: 'The signed-in user',
    examples: [
      {
        id: EXAMPLE_USER.id,
        name: 'Grace Hopper',
        email: 'grace@example.com',
        image: null,
        provider: 'credentials',
        isAdmin: false,
      },
    ],
  },
)

/** The safe profile, or null when not signed in: one nullable object, which serializes without trial matching. */
export const CurrentUserAnswer = Type.Unsafe<Static<typeof SafeProfile> | null>({
  ...SafeProfile,
  type: ['object', 'null'],
  description: 'The signed-in user, or null when not signed in',
})
