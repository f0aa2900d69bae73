import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { eq } from 'drizzle-orm'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { CONTACT_MAIL_JOB } from '../../src/directory/contact/service.ts'
import { adminNotifications } from '../../src/directory/notifications/tables.ts'
import { outcomeOf } from '../../src/integrations/smtp/mailer.ts'
import { HOUR_MS } from '../../src/lib/time.ts'
import { type SmtpFake, startSmtpFake } from '../fakes/smtp.ts'
import {
  type DirectoryHarness,
  randomAddress,
  sessionCookie,
  startDirectory,
  uniqueEmail,
} from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

const MAX_ATTEMPTS = 4
const CONTACT_ADDRESS = 'team@coffee-atlas.test'

let smtp: SmtpFake
/** An instance with SMTP_URL set to the stand-in. */
let h: DirectoryHarness
let admin: string
/** Requests as the web app sends them, with no cookie unless they name one. */
let api: Requests

before(async () => {
  smtp = await startSmtpFake()
  h = await startDirectory({
    env: {
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Coffee Atlas <no-reply@coffee-atlas.test>',
      SMTP_RETRY_BASE_MS: '10',
      SMTP_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      // Far above what answering a POST takes: a POST that waited for a silent server would show it.
      SMTP_TIMEOUT_MS: '5000',
    },
  })
  admin = await h.adminCookie()
  api = siteRequests(h)
})
after(async () => {
  await h?.close()
  await smtp?.close()
})

async function setContactEmail(app: DirectoryHarness, cookie: string, contactEmail: string | null) {
  const res = await api
    .on(app)
    .put('/api/admin/settings', { site: { name: 'Coffee Atlas', contactEmail } }, { cookie })
  assert.equal(res.statusCode, 200, res.body)
}

const message = (overrides: Record<string, unknown> = {}) => ({
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  subject: 'A roaster you are missing',
  message: `Have you seen Analytical Roasters? ${Math.random().toString(36).slice(2)}`,
  ...overrides,
})

async function send(app: DirectoryHarness, payload: Record<string, unknown>, cookie: string | null = null) {
  const res = await api.on(app).post('/api/contact', payload, { cookie })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data.id as string
}

async function read(app: DirectoryHarness, cookie: string, id: string) {
  const res = await api.on(app).get(`/api/admin/contact-messages/${id}`, { cookie })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data
}

/** Reads until `accept` holds: bounded, for what the job queue brings about in its own time. */
async function eventually<T>(
  readValue: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await readValue()
    if (accept(value)) return value
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`)
    await delay(25)
  }
}

const mailOf = (id: string) =>
  eventually(
    () => read(h, admin, id),
    (data) => data.mail.status === 'sent' || data.mail.status === 'failed',
    `message ${id} sent or failed`,
  )

/** What the stand-in kept (or refused) of the message with this text. */
const keptWith = (text: string) => smtp.messages.filter((kept) => kept.body.includes(text))
const refusedWith = (text: string) => smtp.refused.filter((kept) => kept.body.includes(text))

const jobsOf = async (app: DirectoryHarness, messageId: string) =>
  app.jobs.boss.findJobs(CONTACT_MAIL_JOB, { data: { messageId } })

describe('sending a message', () => {
  it('stores it with a notice for the admins and answers only its id', async () => {
    await setContactEmail(h, admin, null)
    const text = `Hello! ${'A long message. '.repeat(20)}`
    const address = randomAddress()
    const res = await api.post(
      '/api/contact',
      { name: '  Ada Lovelace ', email: 'ada@example.com', message: `  ${text}  ` },
      { address },
    )
    assert.equal(res.statusCode, 201, res.body)
    const { data } = res.json()
    assert.deepEqual(res.json(), {
      success: true,
      message: 'Thanks! Your message has reached the site’s team.',
      data: { id: data.id },
    })

    assert.deepEqual(await read(h, admin, data.id), {
      id: data.id,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      subject: null,
      message: text.trim(),
      userId: null,
      clientIp: address,
      mail: { status: 'not_configured', attempts: 0, error: null, mailedAt: null },
      createdAt: h.clock.now().toISOString(),
    })
    const notices = await h.databases.directory.db
      .select()
      .from(adminNotifications)
      .where(eq(adminNotifications.type, 'contact_message'))
    const notice = notices.find((candidate) => candidate.data.messageId === data.id)
    assert.ok(notice, 'a contact_message notification')
    assert.equal(notice.title, 'Message from Ada Lovelace')
    assert.equal(notice.message.length, 200)
    assert.ok(text.trim().startsWith(notice.message.slice(0, -1)))
    assert.ok(notice.message.endsWith('…'))
    assert.deepEqual(notice.data, { messageId: data.id, email: 'ada@example.com' })
    assert.equal(notice.readAt, null)
    // The admins see it in their list.
    const list = await api.get('/api/admin/notifications?type=contact_message', { cookie: admin })
    assert.ok(
      list.json().data.some((listed: { data: { messageId: string } }) => listed.data.messageId === data.id),
    )
  })

  it('keeps the signed-in sender’s account', async () => {
    const email = uniqueEmail('contact')
    const registered = await api.post('/api/auth/register', {
      email,
      password: 'a good password',
      name: 'Grace Hopper',
    })
    assert.equal(registered.statusCode, 201, registered.body)
    const id = await send(h, message({ name: 'Grace Hopper', email }), sessionCookie(registered))
    assert.equal((await read(h, admin, id)).userId, registered.json().user.id)
  })

  it('stores markup as text, as sent', async () => {
    const markup = '<script>alert("hi")</script> <b>bold</b> &amp; "quotes"'
    const id = await send(h, message({ name: '<i>Ada</i>', subject: '<h1>Hi</h1>', message: markup }))
    const stored = await read(h, admin, id)
    assert.equal(stored.message, markup)
    assert.equal(stored.name, '<i>Ada</i>')
    assert.equal(stored.subject, '<h1>Hi</h1>')
  })

  it('answers 400 naming each field that is missing, empty, blank or too long', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [message({ name: '' }), ['body.name']],
      [message({ name: '   ', message: ' \n\t ' }), ['body.name', 'body.message']],
      [message({ name: 'x'.repeat(101) }), ['body.name']],
      [message({ message: '' }), ['body.message']],
      [message({ message: 'x'.repeat(5001) }), ['body.message']],
      [message({ subject: 'x'.repeat(201) }), ['body.subject']],
      [message({ email: 'not an address' }), ['body.email']],
      [{ name: 'Ada' }, ['body.email', 'body.message']],
    ]
    for (const [payload, fields] of cases) {
      const res = await api.post('/api/contact', payload)
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload).slice(0, 80)}: ${res.body}`)
      assert.equal(res.json().code, 'VALIDATION_ERROR')
      assert.deepEqual(
        res
          .json()
          .details.map((detail: { field: string }) => detail.field)
          .sort(),
        [...fields].sort(),
        JSON.stringify(payload).slice(0, 80),
      )
    }
    const longest = await send(h, message({ name: 'x'.repeat(100), message: 'y'.repeat(5000) }))
    assert.equal((await read(h, admin, longest)).message.length, 5000)
  })

  it('refuses a cookie-carrying post from another origin', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/contact',
      payload: message(),
      remoteAddress: randomAddress(),
      headers: { origin: 'https://elsewhere.example', cookie: admin },
    })
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().code, 'CROSS_ORIGIN')
  })
})

describe('emailing a message', () => {
  before(() => setContactEmail(h, admin, CONTACT_ADDRESS))
  // Each test waits for its own email's end, so nothing of an earlier one is still on its way.
  beforeEach(() => smtp.reset())

  it('sends it to the contact address from SMTP_FROM, Reply-To the sender, as plain text', async () => {
    const payload = message({ message: 'Hello!\n<b>Analytical Roasters</b> in Lisbon.\n.\nThanks' })
    const id = await send(h, payload)
    const stored = await mailOf(id)
    assert.equal(stored.mail.status, 'sent')
    assert.equal(stored.mail.attempts, 1)
    assert.equal(stored.mail.error, null)
    assert.equal(stored.mail.mailedAt, h.clock.now().toISOString())

    const [mail, ...others] = keptWith(id)
    assert.ok(mail, 'the stand-in got the email')
    assert.equal(others.length, 0)
    assert.deepEqual(mail.envelope, { from: 'no-reply@coffee-atlas.test', to: [CONTACT_ADDRESS] })
    assert.equal(mail.headers.from, 'Coffee Atlas <no-reply@coffee-atlas.test>')
    assert.equal(mail.headers.to, CONTACT_ADDRESS)
    assert.equal(mail.headers['reply-to'], 'Ada Lovelace <ada@example.com>')
    assert.equal(mail.headers.subject, '[Coffee Atlas] A roaster you are missing')
    assert.match(mail.headers['content-type']!, /^text\/plain; charset=utf-8/)
    assert.equal(
      mail.body,
      [
        'Ada Lovelace <ada@example.com> wrote through the contact form of Coffee Atlas:',
        '',
        payload.message,
        '',
        '-- ',
        'Reply to this email to answer Ada Lovelace.',
        `Message ${id}, received ${stored.createdAt}`,
      ].join('\n'),
    )
  })

  it('says "Contact form" without a subject, and keeps header text on one line', async () => {
    const id = await send(h, message({ subject: undefined, name: 'Ada\r\nBcc: victim@example.com' }))
    assert.equal((await mailOf(id)).mail.status, 'sent')
    const [mail] = keptWith(id)
    assert.equal(mail!.headers.subject, '[Coffee Atlas] Contact form')
    assert.equal(mail!.headers.bcc, undefined)
    assert.deepEqual(mail!.envelope.to, [CONTACT_ADDRESS])
    assert.equal(mail!.headers['reply-to'], '"Ada Bcc: victim@example.com" <ada@example.com>')
  })

  it('answers at once while the mail server is silent, and sends once it is back', async () => {
    const connections = smtp.connections
    smtp.hold(1)
    const id = await send(h, message())
    await smtp.waitForConnections(connections + 1)
    const waiting = await read(h, admin, id)
    assert.equal(waiting.mail.status, 'pending')
    assert.equal(waiting.mail.attempts, 0)
    // The POST answered while its mail's first attempt was still held: a POST that waited for the silent
    // server would have answered only once SMTP_TIMEOUT_MS (5 s) closed that connection.
    assert.equal(smtp.held, 1)

    // The held connection breaks; the next attempt is refused for now; the one after goes through.
    smtp.refuse(1, 451)
    smtp.release()
    const stored = await mailOf(id)
    assert.equal(stored.mail.status, 'sent')
    assert.equal(stored.mail.attempts, 3)
    assert.equal(stored.mail.error, null)
    assert.equal(refusedWith(id).length, 1)
    assert.equal(keptWith(id).length, 1)
  })

  it('shows the last error while it retries', async () => {
    smtp.refuse(1, 451)
    smtp.hold(1)
    const connections = smtp.connections
    const id = await send(h, message())
    // The first attempt is refused; the second is held, so the record of the first can be read meanwhile.
    await smtp.waitForConnections(connections + 2)
    const retrying = await read(h, admin, id)
    assert.equal(retrying.mail.status, 'pending')
    assert.equal(retrying.mail.attempts, 1)
    assert.equal(
      retrying.mail.error,
      'The SMTP server answered 451: 4.3.0 Mailbox temporarily unavailable, try again later',
    )
    smtp.release()
    assert.equal((await mailOf(id)).mail.status, 'sent')
  })

  it('fails after the last attempt while the server keeps refusing', async () => {
    smtp.refuse(MAX_ATTEMPTS, 451)
    const id = await send(h, message())
    const stored = await mailOf(id)
    assert.equal(stored.mail.status, 'failed')
    assert.equal(stored.mail.attempts, MAX_ATTEMPTS)
    assert.equal(
      stored.mail.error,
      'The SMTP server answered 451: 4.3.0 Mailbox temporarily unavailable, try again later',
    )
    assert.equal(stored.mail.mailedAt, null)
    assert.equal(refusedWith(id).length, MAX_ATTEMPTS)
    assert.equal(keptWith(id).length, 0)
  })

  it('fails at once on a permanent refusal (5xx)', async () => {
    smtp.refuse(1, 554)
    const id = await send(h, message())
    const stored = await mailOf(id)
    assert.equal(stored.mail.status, 'failed')
    assert.equal(stored.mail.attempts, 1)
    assert.equal(stored.mail.error, 'The SMTP server answered 554: 5.7.1 Message rejected')
    assert.equal(refusedWith(id).length, 1)
  })

  it('retries a dropped connection', async () => {
    smtp.drop(1)
    const id = await send(h, message())
    const stored = await mailOf(id)
    assert.equal(stored.mail.status, 'sent')
    assert.equal(stored.mail.attempts, 2)
    assert.equal(keptWith(id).length, 1)
  })

  it('stores the message as not_configured, with no job, while the site has no contact address', async () => {
    await setContactEmail(h, admin, null)
    try {
      const connections = smtp.connections
      const id = await send(h, message())
      assert.equal((await read(h, admin, id)).mail.status, 'not_configured')
      assert.deepEqual(await jobsOf(h, id), [])
      assert.equal(smtp.connections, connections)
    } finally {
      await setContactEmail(h, admin, CONTACT_ADDRESS)
    }
  })
})

describe('an instance without SMTP_URL', () => {
  let bare: DirectoryHarness
  let bareAdmin: string
  let connectionsBefore: number
  before(async () => {
    connectionsBefore = smtp.connections
    bare = await startDirectory()
    bareAdmin = await bare.adminCookie()
    await setContactEmail(bare, bareAdmin, CONTACT_ADDRESS)
  })
  after(() => bare?.close())

  it('stores the message as not_configured and queues no email', async () => {
    const res = await api.on(bare).post('/api/contact', message())
    assert.equal(res.statusCode, 201, res.body)
    const id = res.json().data.id
    const stored = await read(bare, bareAdmin, id)
    assert.deepEqual(stored.mail, { status: 'not_configured', attempts: 0, error: null, mailedAt: null })
    assert.deepEqual(await jobsOf(bare, id), [])
    assert.equal(smtp.connections, connectionsBefore)
  })

  it('takes 3 messages an hour from one client: the 4th is 429 with SPEC.md’s headers', async () => {
    const address = randomAddress()
    for (let i = 0; i < 3; i++) {
      const res = await api.on(bare).post('/api/contact', message(), { address })
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.headers['x-ratelimit-limit'], '3')
      assert.equal(res.headers['x-ratelimit-remaining'], String(2 - i))
    }
    const denied = await api.on(bare).post('/api/contact', message(), { address })
    assert.equal(denied.statusCode, 429)
    assert.equal(denied.json().code, 'RATE_LIMITED')
    assert.equal(denied.headers['x-ratelimit-limit'], '3')
    assert.equal(denied.headers['x-ratelimit-remaining'], '0')
    assert.ok(Number(denied.headers['x-ratelimit-reset']) > 0)
    const retryAfter = Number(denied.headers['retry-after'])
    assert.ok(retryAfter > 0 && retryAfter <= 3600, `Retry-After ${retryAfter}`)

    // Another client is not held back, a signed-in admin from the same address neither bypasses nor
    // escapes the limit, and an hour later the first one may write again.
    assert.equal((await api.on(bare).post('/api/contact', message())).statusCode, 201)
    assert.equal(
      (await api.on(bare).post('/api/contact', message(), { address, cookie: bareAdmin })).statusCode,
      429,
    )
    bare.clock.advance(HOUR_MS)
    try {
      assert.equal((await api.on(bare).post('/api/contact', message(), { address })).statusCode, 201)
    } finally {
      bare.clock.advance(-HOUR_MS)
    }
  })
})

describe('the admin reads', () => {
  let ids: string[]
  const tag = `t${Math.random().toString(36).slice(2, 8)}`
  before(async () => {
    ids = []
    for (const [index, fields] of [
      { name: `Zelda ${tag}`, email: 'zelda@example.com', subject: 'Opening hours', message: 'When?' },
      { name: 'Mario', email: `mario-${tag}@example.com`, message: 'Pipes and espresso' },
      { name: 'Luigi', email: 'luigi@example.com', subject: `About ${tag.toUpperCase()}`, message: 'Hi' },
      { name: 'Peach', email: 'peach@example.com', message: `The ${tag} roastery closed` },
    ].entries()) {
      h.clock.advance(1000 * (index + 1))
      ids.push(await send(h, fields))
    }
  })

  it('lists messages newest first, paged, with their mail status', async () => {
    const res = await api.get('/api/admin/contact-messages?limit=2', { cookie: admin })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.deepEqual(
      body.data.map((listed: { id: string }) => listed.id),
      [ids[3], ids[2]],
    )
    assert.equal(body.meta.limit, 2)
    assert.equal(body.meta.page, 1)
    assert.ok(body.meta.total >= 4)
    assert.equal(body.meta.totalPages, Math.ceil(body.meta.total / 2))
    assert.ok(['pending', 'sent'].includes(body.data[0].mail.status))
    const second = await api.get('/api/admin/contact-messages?limit=2&page=2', { cookie: admin })
    assert.deepEqual(
      second.json().data.map((listed: { id: string }) => listed.id),
      [ids[1], ids[0]],
    )
  })

  it('searches the name, email, subject and message, whatever the case', async () => {
    const res = await api.get(`/api/admin/contact-messages?search=${tag.toUpperCase()}`, { cookie: admin })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(
      res.json().data.map((listed: { id: string }) => listed.id),
      [...ids].reverse(),
    )
    assert.equal(res.json().meta.total, 4)
    const literal = await api.get('/api/admin/contact-messages?search=%25', { cookie: admin })
    assert.equal(literal.json().meta.total, 0)
  })

  it('filters by mail status', async () => {
    const failed = await api.get('/api/admin/contact-messages?mailStatus=failed&limit=100', { cookie: admin })
    assert.equal(failed.statusCode, 200, failed.body)
    assert.ok(failed.json().data.length >= 2)
    assert.ok(
      failed.json().data.every((listed: { mail: { status: string } }) => listed.mail.status === 'failed'),
    )
    const wrong = await api.get('/api/admin/contact-messages?mailStatus=lost', { cookie: admin })
    assert.equal(wrong.statusCode, 400)
  })

  it('answers 404 CONTACT_MESSAGE_NOT_FOUND for an unknown or malformed id', async () => {
    for (const id of ['6f1c2b3a-0000-4000-8000-000000000000', 'not-an-id']) {
      const res = await api.get(`/api/admin/contact-messages/${id}`, { cookie: admin })
      assert.equal(res.statusCode, 404)
      assert.equal(res.json().code, 'CONTACT_MESSAGE_NOT_FOUND')
    }
  })

  it('is for admins: 401 without a session, 403 for a member', async () => {
    const registered = await api.post('/api/auth/register', {
      email: uniqueEmail('contact'),
      password: 'a good password',
      name: 'Member',
    })
    const member = sessionCookie(registered)
    for (const url of ['/api/admin/contact-messages', `/api/admin/contact-messages/${ids[0]}`]) {
      assert.equal((await api.get(url)).statusCode, 401)
      const forbidden = await api.get(url, { cookie: member })
      assert.equal(forbidden.statusCode, 403)
      assert.equal(forbidden.json().code, 'FORBIDDEN')
    }
  })
})

describe('the SMTP settings', () => {
  it('default to no SMTP server and Curio’s own sender', () => {
    const config = loadConfig({})
    assert.equal(config.smtpUrl, undefined)
    assert.equal(config.smtpFrom, 'Curio <no-reply@localhost>')
    assert.equal(config.smtpMaxAttempts, 8)
  })

  it('take smtp:// and smtps:// URLs and refuse others without echoing the password', () => {
    assert.equal(
      loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.com:465' }).smtpUrl,
      'smtps://u:p@mail.example.com:465',
    )
    assert.throws(
      () => loadConfig({ SMTP_URL: 'https://user:hunter2@mail.example.com' }),
      (error: unknown) =>
        error instanceof ConfigError && error.setting === 'SMTP_URL' && !error.message.includes('hunter2'),
    )
  })

  it('refuse a sender that is not an address', () => {
    assert.throws(
      () => loadConfig({ SMTP_FROM: 'Curio' }),
      (error: unknown) => error instanceof ConfigError && error.setting === 'SMTP_FROM',
    )
    assert.equal(loadConfig({ SMTP_FROM: 'hello@example.com' }).smtpFrom, 'hello@example.com')
  })
})

describe('how a failed attempt reads', () => {
  it('retries what may pass and names it without the credentials', () => {
    assert.deepEqual(outcomeOf({ code: 'ETIMEDOUT' }), {
      ok: false,
      error: 'The SMTP server did not answer in time',
      retry: true,
    })
    assert.deepEqual(outcomeOf({ code: 'ECONNECTION', message: 'connect ECONNREFUSED' }), {
      ok: false,
      error: 'The SMTP server could not be reached (ECONNECTION)',
      retry: true,
    })
    assert.deepEqual(
      outcomeOf({ code: 'EENVELOPE', responseCode: 421, response: '421 4.7.0 Try later\r\n' }),
      {
        ok: false,
        error: 'The SMTP server answered 421: 4.7.0 Try later',
        retry: true,
      },
    )
    const login = outcomeOf({
      code: 'EAUTH',
      responseCode: 535,
      response: '535 5.7.8 user mailer pass hunter2 rejected',
    })
    assert.equal(login.retry, false)
    assert.equal(login.error, 'The SMTP server refused the credentials of SMTP_URL (535)')
    assert.equal(outcomeOf(new Error('boom')).error, 'Sending failed (unknown error)')
  })
})
