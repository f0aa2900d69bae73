import { once } from 'node:events'
import { type AddressInfo, createServer, type Socket } from 'node:net'

/** One message the stand-in took (or refused): its envelope, its bytes and what they say. */
export interface SmtpMessage {
  envelope: { from: string; to: string[] }
  /** The DATA as sent, dot-unstuffed, lines ending in CRLF. */
  raw: string
  /** Header names lower-cased; folded lines joined; RFC 2047 encoded words decoded. */
  headers: Record<string, string>
  /** The body decoded by its Content-Transfer-Encoding and charset, line ends as `\n`, no final one. */
  body: string
  /** The user who authenticated on the connection, or null. */
  user: string | null
}

export interface SmtpFakeOptions {
  /** Advertise AUTH PLAIN and LOGIN and require these credentials before MAIL FROM. */
  auth?: { user: string; pass: string }
}

const HOST = 'fake-smtp.test'

/** What one connection meets: its message refused with `code`, the connection closed, or no greeting. */
type Plan =
  | { kind: 'refuse'; code: number }
  | { kind: 'drop'; code?: undefined }
  | { kind: 'hold'; code?: undefined }

/** Decodes RFC 2047 encoded words (`=?UTF-8?Q?Caf=C3=A9?=`); adjacent words join without their space. */
function decodeWords(value: string): string {
  const word = /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(word, (_match, charset: string, encoding: string, text: string) => {
      const bytes =
        encoding.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : quotedPrintableBytes(text.replaceAll('_', ' '))
      return new TextDecoder(charset).decode(bytes)
    })
}

function quotedPrintableBytes(text: string): Buffer {
  const bytes: number[] = []
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3)
    if (text[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16))
      i += 2
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'))
    }
  }
  return Buffer.from(bytes)
}

/** Splits a message into decoded headers and body. */
export function parseMessage(raw: string): Pick<SmtpMessage, 'headers' | 'body'> {
  const split = raw.indexOf('\r\n\r\n')
  const head = split === -1 ? raw : raw.slice(0, split)
  const rawBody = split === -1 ? '' : raw.slice(split + 4)
  const headers: Record<string, string> = {}
  for (const line of head.replace(/\r\n(?=[ \t])/g, '').split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim())
  }
  const charset = /charset="?([^";\s]+)"?/i.exec(headers['content-type'] ?? '')?.[1] ?? 'utf-8'
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase()
  const bytes =
    encoding === 'base64'
      ? Buffer.from(rawBody.replace(/\s+/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? quotedPrintableBytes(rawBody.replace(/=\r\n/g, ''))
        : Buffer.from(rawBody, 'utf8')
  // The line end before the terminating `.` belongs to the DATA, not the text: `x` and `x\n` arrive alike.
  const body = new TextDecoder(charset).decode(bytes).replace(/\r\n/g, '\n').replace(/\n$/, '')
  return { headers, body }
}

const fromBase64 = (text: string) => Buffer.from(text, 'base64').toString('utf8')

/**
 * An SMTP server on 127.0.0.1 that speaks enough ESMTP for nodemailer (EHLO/HELO, optional AUTH PLAIN and
 * LOGIN, MAIL FROM, RCPT TO, DATA with dot-unstuffing, RSET, NOOP, QUIT) and keeps every message. Switches
 * stand for an outage, planned connection by connection in the order they are called: `refuse` answers a
 * message's DATA with a 4xx or 5xx, `drop` closes the connection at once, `hold` keeps it open without a
 * greeting until `release`.
 */
export async function startSmtpFake(options: SmtpFakeOptions = {}) {
  const messages: SmtpMessage[] = []
  const refused: SmtpMessage[] = []
  /** Every command's verb as received, in order (credentials never). */
  const commands: string[] = []
  const sockets = new Set<Socket>()
  const held = new Set<Socket>()
  /** What the next connections meet, in order; past the list, a server that takes every message. */
  const plans: Plan[] = []
  let connections = 0
  const waiters: { count: () => number; target: number; resolve: () => void }[] = []

  const settle = () => {
    for (const waiter of [...waiters]) {
      if (waiter.count() >= waiter.target) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    }
  }
  /** Resolves once `count()` reaches `target`; rejects after `timeoutMs`, so a test never hangs on it. */
  const waitUntil = (count: () => number, target: number, what: string, timeoutMs = 10_000) => {
    if (count() >= target) return Promise.resolve()
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1)
        reject(new Error(`SMTP stand-in: timed out waiting for ${target} ${what} (got ${count()})`))
      }, timeoutMs)
      const waiter = {
        count,
        target,
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
      }
      waiters.push(waiter)
    })
  }

  /** Speaks SMTP on `socket`; with `refusal`, the connection's first message is answered that code. */
  function converse(socket: Socket, refusal: number | undefined) {
    socket.setEncoding('utf8')
    const reply = (...lines: string[]) => socket.write(lines.map((line) => `${line}\r\n`).join(''))
    let buffered = ''
    let greeted = false
    let user: string | null = null
    let from: string | null = null
    let to: string[] = []
    let data: string[] | null = null
    /** What the next line answers, while an AUTH exchange is under way. */
    let awaiting: 'plain' | 'login-user' | 'login-pass' | null = null
    let loginUser = ''

    const reset = () => {
      from = null
      to = []
      data = null
    }
    const authenticate = (name: string, pass: string) => {
      if (options.auth && name === options.auth.user && pass === options.auth.pass) {
        user = name
        reply('235 2.7.0 Authentication successful')
      } else {
        reply('535 5.7.8 Authentication credentials invalid')
      }
    }
    const plain = (encoded: string) => {
      const [, name = '', pass = ''] = fromBase64(encoded).split('\0')
      authenticate(name, pass)
    }

    const endOfData = (lines: string[]) => {
      const raw = lines.map((line) => `${line}\r\n`).join('')
      const message: SmtpMessage = {
        envelope: { from: from ?? '', to },
        raw,
        ...parseMessage(raw),
        user,
      }
      reset()
      if (refusal !== undefined) {
        const code = refusal
        refusal = undefined
        refused.push(message)
        settle()
        reply(
          code < 500
            ? `${code} 4.3.0 Mailbox temporarily unavailable, try again later`
            : `${code} 5.7.1 Message rejected`,
        )
        return
      }
      messages.push(message)
      settle()
      reply(`250 2.0.0 Ok: queued as ${messages.length}`)
    }

    const command = (line: string) => {
      if (data) {
        if (line === '.') {
          endOfData(data)
          return
        }
        data.push(line.startsWith('.') ? line.slice(1) : line)
        return
      }
      if (awaiting) {
        const step = awaiting
        awaiting = null
        if (line === '*') return reply('501 5.0.0 Authentication cancelled')
        if (step === 'plain') return plain(line)
        if (step === 'login-user') {
          loginUser = fromBase64(line)
          awaiting = 'login-pass'
          return reply(`334 ${Buffer.from('Password:').toString('base64')}`)
        }
        return authenticate(loginUser, fromBase64(line))
      }
      const [verb = '', ...rest] = line.split(' ')
      const upper = verb.toUpperCase()
      const argument = rest.join(' ')
      commands.push(upper)
      switch (upper) {
        case 'EHLO':
          greeted = true
          reset()
          return reply(
            `250-${HOST} greets ${argument || 'you'}`,
            '250-8BITMIME',
            '250-SIZE 10485760',
            ...(options.auth ? ['250-AUTH PLAIN LOGIN'] : []),
            '250 ENHANCEDSTATUSCODES',
          )
        case 'HELO':
          greeted = true
          reset()
          return reply(`250 ${HOST}`)
        case 'AUTH': {
          if (!options.auth) return reply('502 5.5.1 AUTH not available')
          if (!greeted) return reply('503 5.5.1 Say EHLO first')
          const [mechanism = '', initial] = argument.split(' ')
          if (mechanism.toUpperCase() === 'PLAIN') {
            if (initial) return plain(initial)
            awaiting = 'plain'
            return reply('334 ')
          }
          if (mechanism.toUpperCase() === 'LOGIN') {
            if (initial) {
              loginUser = fromBase64(initial)
              awaiting = 'login-pass'
              return reply(`334 ${Buffer.from('Password:').toString('base64')}`)
            }
            awaiting = 'login-user'
            return reply(`334 ${Buffer.from('Username:').toString('base64')}`)
          }
          return reply('504 5.5.4 Unrecognized authentication type')
        }
        case 'MAIL': {
          if (!greeted) return reply('503 5.5.1 Say EHLO first')
          if (options.auth && !user) return reply('530 5.7.0 Authentication required')
          const address = /^FROM:\s*<([^>]*)>/i.exec(argument)
          if (!address) return reply('501 5.5.4 Syntax: MAIL FROM:<address>')
          reset()
          from = address[1]!
          return reply('250 2.1.0 Ok')
        }
        case 'RCPT': {
          if (from === null) return reply('503 5.5.1 Need MAIL first')
          const address = /^TO:\s*<([^>]+)>/i.exec(argument)
          if (!address) return reply('501 5.5.4 Syntax: RCPT TO:<address>')
          to.push(address[1]!)
          return reply('250 2.1.5 Ok')
        }
        case 'DATA':
          if (to.length === 0) return reply('503 5.5.1 Need RCPT first')
          data = []
          return reply('354 End data with <CR><LF>.<CR><LF>')
        case 'RSET':
          reset()
          return reply('250 2.0.0 Ok')
        case 'NOOP':
          return reply('250 2.0.0 Ok')
        case 'QUIT':
          reply('221 2.0.0 Bye')
          socket.end()
          return
        default:
          return reply('502 5.5.2 Command not recognized')
      }
    }

    socket.on('data', (chunk: string) => {
      buffered += chunk
      let end = buffered.indexOf('\r\n')
      while (end !== -1) {
        const line = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        command(line)
        end = buffered.indexOf('\r\n')
      }
    })
    reply(`220 ${HOST} ESMTP ready`)
  }

  const server = createServer((socket) => {
    connections++
    sockets.add(socket)
    socket.on('close', () => {
      sockets.delete(socket)
      held.delete(socket)
    })
    socket.on('error', () => {})
    settle()
    const plan = plans.shift()
    if (plan?.kind === 'drop') {
      socket.destroy()
      return
    }
    if (plan?.kind === 'hold') {
      held.add(socket)
      return
    }
    converse(socket, plan?.code)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const credentials = options.auth
    ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@`
    : ''

  return {
    port,
    /** `smtp://[user:pass@]127.0.0.1:port`, for SMTP_URL. */
    url: `smtp://${credentials}127.0.0.1:${port}`,
    messages,
    refused,
    commands,
    /** Connections accepted so far, dropped and held ones included. */
    get connections() {
      return connections
    },
    /** Connections being held open without a greeting. */
    get held() {
      return held.size
    },
    /**
     * The next `count` connections (after those already planned) answer their message `code` at the end of
     * its DATA and do not keep it: nodemailer sends one message per connection.
     */
    refuse(count: number, code = 451) {
      for (let i = 0; i < count; i++) plans.push({ kind: 'refuse', code })
    },
    /** The next `count` connections (after those already planned) are closed as soon as they are accepted. */
    drop(count = 1) {
      for (let i = 0; i < count; i++) plans.push({ kind: 'drop' })
    },
    /** The next `count` connections (after those already planned) are never greeted, until `release`. */
    hold(count = 1) {
      for (let i = 0; i < count; i++) plans.push({ kind: 'hold' })
    },
    /** Closes the held connections. */
    release() {
      for (const socket of held) socket.destroy()
    },
    /** Resolves once `count` messages in all have been kept. */
    waitFor(count: number, timeoutMs?: number): Promise<void> {
      return waitUntil(() => messages.length, count, 'messages', timeoutMs)
    },
    /** Resolves once `count` connections in all have been accepted. */
    waitForConnections(count: number, timeoutMs?: number): Promise<void> {
      return waitUntil(() => connections, count, 'connections', timeoutMs)
    },
    /** Forgets the messages and commands kept and the switches set. */
    reset() {
      messages.length = 0
      refused.length = 0
      commands.length = 0
      plans.length = 0
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      server.close()
      await once(server, 'close')
    },
  }
}

export type SmtpFake = Awaited<ReturnType<typeof startSmtpFake>>
