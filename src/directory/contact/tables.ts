import { sql } from 'drizzle-orm'
import { check, index, integer, text, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { directorySchema } from '../schema.ts'

/**
 * Where a message's email stands: `not_configured` (no SMTP server or no contact address when it came:
 * stored only), `pending` (queued or being retried), `sent`, or `failed` after its last attempt.
 */
export const MAIL_STATUSES = ['not_configured', 'pending', 'sent', 'failed'] as const
export type MailStatus = (typeof MAIL_STATUSES)[number]

/** What visitors send through the site's contact form, kept whether or not it could be emailed. */
export const contactMessages = directorySchema.table(
  'contact_messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: varchar('name', { length: 100 }).notNull(),
    email: varchar('email', { length: 254 }).notNull(),
    subject: varchar('subject', { length: 200 }),
    /** Plain text as sent (trimmed); markup stays text. */
    message: text('message').notNull(),
    /** The signed-in sender's account; null for a visitor, and once the account is gone. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** The client address as TRUST_PROXY decides it (a forwarded one is any text a proxy passed on). */
    clientIp: varchar('client_ip', { length: 64 }),
    mailStatus: varchar('mail_status', { length: 20 }).$type<MailStatus>().notNull(),
    mailAttempts: integer('mail_attempts').notNull().default(0),
    /** Why the last attempt failed, in our words and the server's reply; never credentials. */
    mailError: text('mail_error'),
    mailedAt: timestamptz('mailed_at'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    check(
      'contact_messages_mail_status_check',
      sql`${table.mailStatus} in ('not_configured', 'pending', 'sent', 'failed')`,
    ),
    // The admin list, newest first.
    index('contact_messages_created_idx').on(
      table.createdAt.desc().nullsFirst(),
      table.id.desc().nullsFirst(),
    ),
    // The `set null` of an account's deletion.
    index('contact_messages_user_idx').on(table.userId),
  ],
)
