import { and, count, desc, eq, type SQL } from 'drizzle-orm'
import type { Logger } from 'pino'
import { anyContaining } from '../../db/filters.ts'
import type { Db } from '../../db/index.ts'
import type { Mailer, MailOutcome, OutgoingMail } from '../../integrations/smtp/mailer.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { type FieldIssue, invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import { HOUR_MS } from '../../lib/time.ts'
import { clip } from '../../lib/values.ts'
import { notifyAdmins } from '../notifications/service.ts'
import type { SiteService } from '../site/service.ts'
import { CONTACT_LIMITS, type ContactBody, type ContactMessage, type ContactMessageQuery } from './schemas.ts'
import { contactMessages } from './tables.ts'

/** The durable job that emails one stored message to the site's contact address. */
export const CONTACT_MAIL_JOB = 'contact-mail'

/** However the retries are set, one waits at most this long. */
const MAIL_RETRY_MAX_MS = HOUR_MS

/** A notification shows this much of the message. */
const NOTICE_EXCERPT = 200

export interface ContactServiceDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  jobs: Pick<Jobs, 'send'>
  /** The site's name and contact address, read when a message comes and when it is emailed. */
  site: Pick<SiteService, 'settings'>
  /** Undefined without `SMTP_URL`: messages are stored only. */
  mailer: Mailer | undefined
  retry: { maxAttempts: number; baseMs: number }
}

export interface Sender {
  /** The signed-in sender's account, or null. */
  userId: string | null
  clientIp: string
}

type Row = typeof contactMessages.$inferSelect

const messageNotFound = () => notFound('Contact message not found', 'CONTACT_MESSAGE_NOT_FOUND')

/** Text bound for a header on one line: no control character can start another header. */
const oneLine = (text: string) => text.replace(/\p{Cc}+/gu, ' ').trim()

const contactMessageOf = (row: Row): ContactMessage => ({
  id: row.id,
  name: row.name,
  email: row.email,
  subject: row.subject,
  message: row.message,
  userId: row.userId,
  clientIp: row.clientIp,
  mail: { status: row.mailStatus, attempts: row.mailAttempts, error: row.mailError, mailedAt: row.mailedAt },
  createdAt: row.createdAt,
})

/** The email of a message: plain text only, so nothing a visitor typed is ever rendered as HTML. */
export function mailOf(row: Row, site: { name: string; contactEmail: string }): OutgoingMail {
  const name = oneLine(row.name)
  return {
    to: site.contactEmail,
    replyTo: { name, address: row.email },
    subject: `[${oneLine(site.name)}] ${oneLine(row.subject ?? '') || 'Contact form'}`,
    text: [
      `${name} <${row.email}> wrote through the contact form of ${site.name}:`,
      '',
      row.message,
      '',
      '-- ',
      `Reply to this email to answer ${name}.`,
      `Message ${row.id}, received ${row.createdAt.toISOString()}`,
    ].join('\n'),
  }
}

/** The trimmed fields, or one 400 naming each that is blank or too long once trimmed. */
function checkedBody(body: ContactBody) {
  const issues: FieldIssue[] = []
  const bounded = (field: string, raw: string, min: number, max: number) => {
    const value = raw.trim()
    if (value.length < min || value.length > max) {
      issues.push({ field, message: `must be ${min} to ${max} characters once trimmed` })
    }
    return value
  }
  const name = bounded('name', body.name, CONTACT_LIMITS.nameMin, CONTACT_LIMITS.nameMax)
  const message = bounded('message', body.message, CONTACT_LIMITS.messageMin, CONTACT_LIMITS.messageMax)
  if (issues.length > 0) throw invalidInput(issues)
  return { name, message, email: body.email.trim(), subject: body.subject?.trim() || null }
}

/**
 * Messages from the contact form: stored with a notice for the admins, and emailed to the site's contact
 * address by a durable job when SMTP and the address are set. The job is enqueued in the transaction
 * that stores the message, so a message is never lost and an SMTP outage never touches the request.
 */
export function createContactService({ db, clock, log, jobs, site, mailer, retry }: ContactServiceDeps) {
  /** Exponential: the base, then twice it, and so on, capped. */
  const backoffMs = (attempts: number) =>
    Math.min(MAIL_RETRY_MAX_MS, retry.baseMs * 2 ** Math.min(attempts - 1, 30))

  const pending = (id: string) => and(eq(contactMessages.id, id), eq(contactMessages.mailStatus, 'pending'))

  /** Records one attempt: sent; failed for good; or failed for now, with the next attempt's job. */
  async function record(row: Row, outcome: MailOutcome): Promise<void> {
    const attempts = row.mailAttempts + 1
    const now = clock.now()
    if (outcome.ok) {
      await db
        .update(contactMessages)
        .set({ mailStatus: 'sent', mailAttempts: attempts, mailError: null, mailedAt: now })
        .where(pending(row.id))
      log.info({ messageId: row.id, attempts }, 'contact message emailed')
      return
    }
    const again = outcome.retry && attempts < retry.maxAttempts
    await db.transaction(async (tx) => {
      const updated = await tx
        .update(contactMessages)
        .set({ mailStatus: again ? 'pending' : 'failed', mailAttempts: attempts, mailError: outcome.error })
        .where(pending(row.id))
        .returning({ id: contactMessages.id })
      if (again && updated.length > 0) {
        const startAfter = new Date(now.getTime() + backoffMs(attempts))
        await jobs.send(CONTACT_MAIL_JOB, { messageId: row.id }, { tx, startAfter })
      }
    })
    log.warn(
      { messageId: row.id, attempts, error: outcome.error, next: again ? 'retry' : 'failed' },
      'contact message not emailed',
    )
  }

  function listWhere(query: ContactMessageQuery): SQL | undefined {
    return and(
      query.mailStatus === undefined ? undefined : eq(contactMessages.mailStatus, query.mailStatus),
      query.search === undefined
        ? undefined
        : anyContaining(
            [contactMessages.name, contactMessages.email, contactMessages.subject, contactMessages.message],
            query.search,
          ),
    )
  }

  return {
    /**
     * Stores a message (`pending` with its email's job when SMTP and a contact address are set, else
     * `not_configured`) and tells the admins, in one transaction.
     */
    async submit(body: ContactBody, sender: Sender): Promise<{ id: string }> {
      const fields = checkedBody(body)
      const { data: settings } = await site.settings()
      const emailed = mailer !== undefined && settings.site.contactEmail !== null
      return db.transaction(async (tx) => {
        const now = clock.now()
        const [row] = await tx
          .insert(contactMessages)
          .values({
            ...fields,
            userId: sender.userId,
            clientIp: sender.clientIp.slice(0, 64),
            mailStatus: emailed ? 'pending' : 'not_configured',
            createdAt: now,
          })
          .returning({ id: contactMessages.id })
        if (!row) throw new Error('contact message insert returned no row')
        await notifyAdmins(tx, now, {
          type: 'contact_message',
          title: `Message from ${oneLine(fields.name)}`,
          message: clip(fields.message, NOTICE_EXCERPT),
          data: { messageId: row.id, email: fields.email },
        })
        if (emailed) await jobs.send(CONTACT_MAIL_JOB, { messageId: row.id }, { tx })
        return { id: row.id }
      })
    },

    /**
     * The job: one attempt at emailing a `pending` message (any other is done with). The contact address
     * and site name are read now, so a changed address applies to messages still waiting.
     */
    async deliver(messageId: string): Promise<void> {
      if (!isUuid(messageId)) {
        log.warn({ messageId }, 'contact mail job without a message id')
        return
      }
      const [row] = await db.select().from(contactMessages).where(pending(messageId))
      if (!row) return
      const { data: settings } = await site.settings()
      const to = settings.site.contactEmail
      if (!mailer || to === null) {
        await db
          .update(contactMessages)
          .set({
            mailStatus: 'not_configured',
            mailError: mailer ? 'The site has no contact address' : 'SMTP_URL is not set',
          })
          .where(pending(messageId))
        return
      }
      await record(row, await mailer.send(mailOf(row, { name: settings.site.name, contactEmail: to })))
    },

    async list(query: ContactMessageQuery): Promise<PageOf<ContactMessage>> {
      const where = listWhere(query)
      return fetchPage(query, {
        rows: async (limit, offset) => {
          const rows = await db
            .select()
            .from(contactMessages)
            .where(where)
            .orderBy(desc(contactMessages.createdAt), desc(contactMessages.id))
            .limit(limit)
            .offset(offset)
          return rows.map(contactMessageOf)
        },
        total: async () => {
          const [row] = await db.select({ total: count() }).from(contactMessages).where(where)
          return row?.total ?? 0
        },
      })
    },

    async get(id: string): Promise<ContactMessage> {
      if (!isUuid(id)) throw messageNotFound()
      const [row] = await db.select().from(contactMessages).where(eq(contactMessages.id, id))
      if (!row) throw messageNotFound()
      return contactMessageOf(row)
    },
  }
}

export type ContactService = ReturnType<typeof createContactService>
