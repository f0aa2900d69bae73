import { type Static, type TSchema, Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { MAIL_STATUSES } from './tables.ts'

/** The contact form's fields, once trimmed, and the admin search: each bounded. */
export const CONTACT_LIMITS = {
  nameMin: 1,
  nameMax: 100,
  subjectMax: 200,
  messageMin: 1,
  messageMax: 5000,
  searchMax: 100,
} as const

const EXAMPLE_ID = '5b7d9f1a-3c5e-4a7b-9d1f-2a4c6e8b0d13'
const EXAMPLE_MESSAGE = {
  id: EXAMPLE_ID,
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  subject: 'A roaster you are missing',
  message: 'Hello! Have you seen <b>Analytical Roasters</b> in Lisbon? They deserve a place in the atlas.',
  userId: null,
  clientIp: '203.0.113.7',
  mail: { status: 'sent', attempts: 1, error: null, mailedAt: '2026-11-21T08:15:02.000Z' },
  createdAt: '2026-11-21T08:15:00.000Z',
}

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const MailStatus = Type.Enum([...MAIL_STATUSES], {
  description:
    '`not_configured`: stored only (no SMTP_URL or no contact address when it came); `pending`: queued or ' +
    'being retried; `sent`; `failed` after the last attempt',
  examples: ['sent'],
})

export const ContactBody = Type.Object(
  {
    name: Type.String({
      minLength: CONTACT_LIMITS.nameMin,
      maxLength: CONTACT_LIMITS.nameMax,
      description: `${CONTACT_LIMITS.nameMin} to ${CONTACT_LIMITS.nameMax} characters once trimmed`,
      examples: [EXAMPLE_MESSAGE.name],
    }),
    email: Type.String({
      format: 'email',
      maxLength: 254,
      description: 'the sender’s address: the email’s Reply-To, where the team answers',
      examples: [EXAMPLE_MESSAGE.email],
    }),
    subject: Type.Optional(
      Type.String({
        maxLength: CONTACT_LIMITS.subjectMax,
        description: `at most ${CONTACT_LIMITS.subjectMax} characters`,
        examples: [EXAMPLE_MESSAGE.subject],
      }),
    ),
    message: Type.String({
      minLength: CONTACT_LIMITS.messageMin,
      maxLength: CONTACT_LIMITS.messageMax,
      description: `${CONTACT_LIMITS.messageMin} to ${CONTACT_LIMITS.messageMax} characters once trimmed; plain text, markup is kept as text`,
      examples: [EXAMPLE_MESSAGE.message],
    }),
  },
  {
    examples: [
      {
        name: EXAMPLE_MESSAGE.name,
        email: EXAMPLE_MESSAGE.email,
        subject: EXAMPLE_MESSAGE.subject,
        message: EXAMPLE_MESSAGE.message,
      },
      { name: 'Grace', email: 'grace@example.com', message: 'Is there an RSS feed?' },
    ],
  },
)
export type ContactBody = Static<typeof ContactBody>

export const ContactReceived = Type.Object(
  {
    success: Type.Literal(true),
    message: Type.String({ examples: ['Thanks! Your message has reached the site’s team.'] }),
    data: Type.Object({ id: Type.String({ examples: [EXAMPLE_ID] }) }),
  },
  {
    description: 'Stored; the team is told, and it is emailed to them when the site has email set up',
    examples: [
      {
        success: true,
        message: 'Thanks! Your message has reached the site’s team.',
        data: { id: EXAMPLE_ID },
      },
    ],
  },
)

/** A message as admins read it, with where its email stands. */
export const ContactMessage = Type.Object({
  id: Type.String({ examples: [EXAMPLE_ID] }),
  name: Type.String({ examples: [EXAMPLE_MESSAGE.name] }),
  email: Type.String({ examples: [EXAMPLE_MESSAGE.email] }),
  subject: Nullable(Type.String({ examples: [EXAMPLE_MESSAGE.subject] })),
  message: Type.String({ description: 'plain text; markup is text', examples: [EXAMPLE_MESSAGE.message] }),
  userId: Nullable(
    Type.String({ description: 'the sender’s account when they were signed in; null for a visitor' }),
  ),
  clientIp: Nullable(
    Type.String({ description: 'the client address it came from', examples: ['203.0.113.7'] }),
  ),
  mail: Type.Object({
    status: MailStatus,
    attempts: Type.Integer({ description: 'SMTP attempts made so far', examples: [1] }),
    error: Nullable(
      Type.String({
        description: 'why the last attempt failed (kept while retrying and once failed); null once sent',
        examples: ['The SMTP server answered 451: 4.3.0 Try again later'],
      }),
    ),
    mailedAt: NullableTimestamp,
  }),
  createdAt: Timestamp,
})
export type ContactMessage = Static<typeof ContactMessage>

export const ContactMessageParams = Type.Object({
  id: Type.String({ description: 'the message’s id (a UUID)', examples: [EXAMPLE_ID] }),
})

export const ContactMessageQuery = Query({
  ...PageQueryFields,
  search: Type.Optional(
    Type.String({
      maxLength: CONTACT_LIMITS.searchMax,
      description: 'text in the name, email, subject or message, whatever its case',
      examples: ['roaster'],
    }),
  ),
  mailStatus: Type.Optional(MailStatus),
})
export type ContactMessageQuery = Static<typeof ContactMessageQuery>

export const ContactMessageListAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(ContactMessage),
    meta: Type.Object(PageMetaFields),
  },
  {
    description: 'A page of contact messages, newest first',
    examples: [
      { success: true, data: [EXAMPLE_MESSAGE], meta: { page: 1, limit: 10, total: 1, totalPages: 1 } },
    ],
  },
)

export const ContactMessageAnswer = Type.Object(
  { success: Type.Literal(true), data: ContactMessage },
  { description: 'The message', examples: [{ success: true, data: EXAMPLE_MESSAGE }] },
)
