import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createTransport } from 'nodemailer'
import { type SmtpFake, startSmtpFake } from './smtp.ts'

/** nodemailer as the app uses it, against the stand-in; short timeouts so a held connection ends soon. */
const transportTo = (url: string, options: Record<string, unknown> = {}) =>
  createTransport({ url, connectionTimeout: 2000, greetingTimeout: 2000, socketTimeout: 2000, ...options })

const mail = (overrides: Record<string, unknown> = {}) => ({
  from: 'Curio <no-reply@curio.test>',
  to: 'team@example.com',
  subject: 'Hello',
  text: 'Hi there',
  ...overrides,
})

/** The error a promise rejects with; fails when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<{ code?: string; responseCode?: number }> {
  try {
    await promise
  } catch (error) {
    return error as { code?: string; responseCode?: number }
  }
  assert.fail('expected the send to fail')
}

describe('the SMTP stand-in, with nodemailer', () => {
  let fake: SmtpFake
  before(async () => {
    fake = await startSmtpFake()
  })
  after(() => fake.close())

  it('keeps the envelope, the raw data and the decoded headers and body', async () => {
    fake.reset()
    const text = 'Première ligne\n.a line that starts with a dot\n..and two\n.\nlast <b>line</b>'
    await transportTo(fake.url).sendMail(
      mail({
        replyTo: { name: 'Ada "Countess" Lovelace', address: 'ada@example.com' },
        subject: '[Café Atlas] Grüße',
        text,
      }),
    )
    assert.equal(fake.messages.length, 1)
    const [message] = fake.messages
    assert.deepEqual(message!.envelope, { from: 'no-reply@curio.test', to: ['team@example.com'] })
    assert.equal(message!.headers.from, 'Curio <no-reply@curio.test>')
    assert.equal(message!.headers.to, 'team@example.com')
    assert.equal(message!.headers['reply-to'], '"Ada \\"Countess\\" Lovelace" <ada@example.com>')
    assert.equal(message!.headers.subject, '[Café Atlas] Grüße')
    assert.match(message!.headers['content-type']!, /^text\/plain/)
    assert.equal(message!.body, text)
    assert.ok(message!.raw.endsWith('\r\n'))
    assert.equal(message!.user, null)
    // QUIT follows once the message is taken, after sendMail has resolved.
    assert.deepEqual(fake.commands.slice(0, 4), ['EHLO', 'MAIL', 'RCPT', 'DATA'])
  })

  it('keeps one envelope per message with every recipient', async () => {
    fake.reset()
    await transportTo(fake.url).sendMail(
      mail({ to: ['a@example.com', 'b@example.com'], cc: 'c@example.com' }),
    )
    assert.deepEqual(fake.messages[0]!.envelope.to, ['a@example.com', 'b@example.com', 'c@example.com'])
  })

  it('refuses the next messages with the code asked, then takes the others', async () => {
    fake.reset()
    const transport = transportTo(fake.url)
    fake.refuse(1, 451)
    fake.refuse(1, 554)
    const temporary = await rejection(transport.sendMail(mail({ subject: 'first' })))
    assert.equal(temporary.responseCode, 451)
    const permanent = await rejection(transport.sendMail(mail({ subject: 'second' })))
    assert.equal(permanent.responseCode, 554)
    await transport.sendMail(mail({ subject: 'third' }))
    assert.deepEqual(
      fake.refused.map((message) => message.headers.subject),
      ['first', 'second'],
    )
    assert.deepEqual(
      fake.messages.map((message) => message.headers.subject),
      ['third'],
    )
  })

  it('drops the next connections, then answers again', async () => {
    fake.reset()
    const transport = transportTo(fake.url)
    const before = fake.connections
    fake.drop(1)
    const dropped = await rejection(transport.sendMail(mail()))
    assert.equal(dropped.code, 'ECONNECTION')
    await transport.sendMail(mail())
    assert.equal(fake.connections, before + 2)
    assert.equal(fake.messages.length, 1)
  })

  it('plays the switches in the order they were set, one connection each', async () => {
    fake.reset()
    const transport = transportTo(fake.url)
    fake.drop(1)
    fake.refuse(1, 452)
    const dropped = await rejection(transport.sendMail(mail({ subject: 'first' })))
    assert.equal(dropped.code, 'ECONNECTION')
    const refused = await rejection(transport.sendMail(mail({ subject: 'second' })))
    assert.equal(refused.responseCode, 452)
    await transport.sendMail(mail({ subject: 'third' }))
    assert.deepEqual(
      fake.messages.map((message) => message.headers.subject),
      ['third'],
    )
  })

  it('holds a connection without a greeting until released', async () => {
    fake.reset()
    const before = fake.connections
    fake.hold(1)
    const sending = rejection(transportTo(fake.url, { greetingTimeout: 60_000 }).sendMail(mail()))
    await fake.waitForConnections(before + 1)
    assert.equal(fake.held, 1)
    fake.release()
    const error = await sending
    assert.equal(error.code, 'ECONNECTION')
    assert.equal(fake.held, 0)
    assert.equal(fake.messages.length, 0)
  })

  it('lets a held connection time out on the client’s greeting timeout', async () => {
    fake.reset()
    fake.hold(1)
    const error = await rejection(transportTo(fake.url, { greetingTimeout: 50 }).sendMail(mail()))
    assert.equal(error.code, 'ETIMEDOUT')
    fake.release()
  })
})

describe('the SMTP stand-in with credentials', () => {
  let fake: SmtpFake
  before(async () => {
    fake = await startSmtpFake({ auth: { user: 'mailer@curio.test', pass: 's3cret:pass' } })
  })
  after(() => fake.close())

  for (const method of ['PLAIN', 'LOGIN']) {
    it(`takes AUTH ${method} with the credentials of the URL`, async () => {
      fake.reset()
      await transportTo(fake.url, { authMethod: method }).sendMail(mail())
      assert.equal(fake.messages.length, 1)
      assert.equal(fake.messages[0]!.user, 'mailer@curio.test')
      assert.ok(fake.commands.includes('AUTH'))
    })
  }

  it('refuses a wrong password with 535 and a missing login with 530', async () => {
    fake.reset()
    const wrong = fake.url.replace('s3cret', 'wrong')
    const refused = await rejection(transportTo(wrong).sendMail(mail()))
    assert.equal(refused.code, 'EAUTH')
    assert.equal(refused.responseCode, 535)
    const anonymous = await rejection(transportTo(`smtp://127.0.0.1:${fake.port}`).sendMail(mail()))
    assert.equal(anonymous.responseCode, 530)
    assert.equal(fake.messages.length, 0)
  })
})

describe('the SMTP stand-in, command by command', () => {
  let fake: SmtpFake
  before(async () => {
    fake = await startSmtpFake()
  })
  after(() => fake.close())

  /** A raw client: sends each line and collects the replies, one per line sent (after the greeting). */
  async function converse(lines: string[]): Promise<string[]> {
    const socket = connect(fake.port, '127.0.0.1')
    socket.setEncoding('utf8')
    let received = ''
    socket.on('data', (chunk: string) => {
      received += chunk
    })
    const replies = async (count: number) => {
      while ((received.match(/^\d{3} .*\r\n/gm) ?? []).length < count) await once(socket, 'data')
    }
    await replies(1)
    for (const [index, line] of lines.entries()) {
      socket.write(`${line}\r\n`)
      await replies(index + 2)
    }
    socket.destroy()
    return (received.match(/^\d{3} .*(?=\r\n)/gm) ?? []).slice(1)
  }

  it('answers NOOP and RSET, refuses commands out of order and unknown ones, and says goodbye', async () => {
    const replies = await converse([
      'MAIL FROM:<a@example.com>',
      'EHLO client.test',
      'NOOP',
      'DATA',
      'MAIL FROM:<a@example.com>',
      'RCPT TO:<b@example.com>',
      'RSET',
      'DATA',
      'VRFY someone',
      'QUIT',
    ])
    assert.deepEqual(
      replies.map((reply) => reply.slice(0, 3)),
      ['503', '250', '250', '503', '250', '250', '250', '503', '502', '221'],
    )
    assert.equal(fake.messages.length, 0)
  })
})
