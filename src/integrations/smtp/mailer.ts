import type { Transporter } from 'nodemailer'
import { loadOnce } from '../../lib/load-once.ts'
import { clip } from '../../lib/values.ts'

/** One plain-text email; the sender is the mailer's (`SMTP_FROM`). */
export interface OutgoingMail {
  to: string
  /** Where replies go; without it, to the sender (`SMTP_FROM`). */
  replyTo?: { name: string; address: string }
  subject: string
  text: string
}

/**
 * How an attempt ended: sent, or failed with a reason safe to show an admin (our words and the server's
 * reply, never the credentials of `SMTP_URL`) and whether trying again may help.
 */
export type MailOutcome = { ok: true } | { ok: false; error: string; retry: boolean }

export interface Mailer {
  send(mail: OutgoingMail): Promise<MailOutcome>
  close(): void
}

export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  url: string
  from: string
  /** Each step of an attempt: connecting, the greeting, every reply. */
  timeoutMs: number
}

/** A server's reply as one short line: control characters out, cut to 300 characters. */
const replyText = (response: string) => {
  const line = response
    .replace(/^\d{3}[ -]?/, '')
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
  return clip(line, 300)
}

interface SmtpError {
  code?: string
  responseCode?: number
  response?: string
}

/** A nodemailer failure in our words: a 4xx reply, a lost connection or a timeout may pass; a 5xx will not. */
export function outcomeOf(error: unknown): MailOutcome & { ok: false } {
  const { code, responseCode, response } = (error ?? {}) as SmtpError
  if (code === 'EAUTH' || code === 'ENOAUTH') {
    // The server's words on a failed login may repeat what was sent: ours only.
    return {
      ok: false,
      error: `The SMTP server refused the credentials of SMTP_URL${responseCode ? ` (${responseCode})` : ''}`,
      retry: false,
    }
  }
  if (typeof responseCode === 'number' && responseCode >= 400) {
    const reply = response ? replyText(response) : ''
    return {
      ok: false,
      error: `The SMTP server answered ${responseCode}${reply ? `: ${reply}` : ''}`,
      retry: responseCode < 500,
    }
  }
  switch (code) {
    case 'ETIMEDOUT':
      return { ok: false, error: 'The SMTP server did not answer in time', retry: true }
    case 'ECONNECTION':
    case 'ESOCKET':
    case 'EDNS':
    case 'EPROXY':
      return { ok: false, error: `The SMTP server could not be reached (${code})`, retry: true }
    case 'ETLS':
      return { ok: false, error: 'TLS with the SMTP server failed (ETLS)', retry: true }
    case 'EENVELOPE':
      return { ok: false, error: 'The SMTP server refused the sender or the recipient', retry: false }
    default:
      return { ok: false, error: `Sending failed (${code ?? 'unknown error'})`, retry: true }
  }
}

const nodemailer = loadOnce(() => import('nodemailer'))

/**
 * Email through an SMTP server with nodemailer: one connection per message, each step time-limited.
 * nodemailer is loaded, and the transport made, at the first message.
 */
export function createSmtpMailer({ url, from, timeoutMs }: SmtpMailerOptions): Mailer {
  let made: Transporter | undefined
  const transport = loadOnce(async () => {
    const { createTransport } = await nodemailer()
    made = createTransport({
      url,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      // What is sent is text we compose; nothing in it may make nodemailer read a file or fetch a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
    })
    return made
  })
  return {
    async send(mail) {
      const sender = await transport()
      try {
        await sender.sendMail({ ...mail, from })
        return { ok: true }
      } catch (error) {
        return outcomeOf(error)
      }
    },
    close: () => made?.close(),
  }
}
