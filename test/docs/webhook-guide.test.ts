/**
 * docs/webhooks.md's promises, checked against the platform: its Node example receives real deliveries
 * (as a server in this process, and run as the guide runs it), its Python example and
 * `@octokit/webhooks-methods` verify real captured deliveries, and all of them refuse altered ones.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { sign, verify, verifyWithFallback } from '@octokit/webhooks-methods'
import { type Received, type Receiver, startReceiver } from '../fakes/receiver.ts'
import { type PlatformHarness, startPlatform } from '../helpers/apps.ts'
import { type Account, call, createWork, eventually, register } from '../helpers/platform.ts'

type Handler = (event: Record<string, unknown>, deliveryId: string) => void
/** What docs/examples/webhook-receiver.mjs exports. */
interface NodeExample {
  verifySignature(secret: string, rawBody: Buffer | string, header: string | undefined): boolean
  createReceiver(options: { secrets: string[]; onEvent?: Handler; log?: (line: string) => void }): Server
}

const GUIDE = fileURLToPath(new URL('../../docs/webhooks.md', import.meta.url))
const NODE_EXAMPLE = fileURLToPath(new URL('../../docs/examples/webhook-receiver.mjs', import.meta.url))
const PYTHON_EXAMPLE = fileURLToPath(new URL('../../docs/examples/webhook_receiver.py', import.meta.url))
const example = (await import(pathToFileURL(NODE_EXAMPLE).href)) as NodeExample
const LINE_TIMEOUT_MS = 15_000

const pythonVersion = spawnSync('python3', ['--version'], { encoding: 'utf8' })
const noPython =
  pythonVersion.error || pythonVersion.status !== 0
    ? 'python3 is not installed on this machine: the Python example cannot be run'
    : false

let h: PlatformHarness
const closing: (() => Promise<unknown> | undefined)[] = []

before(async () => {
  h = await startPlatform({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } })
})
after(async () => {
  for (const close of closing.reverse()) await close()
  await h.close()
})

async function subscribe(account: Account, url: string): Promise<{ id: string; signingSecret: string }> {
  const res = await call(h, account, 'POST', '/api/webhooks', { url })
  assert.equal(res.statusCode, 200, res.body)
  return res.json()
}

async function deliveries(account: Account) {
  const res = await call(h, account, 'GET', '/api/webhooks/deliveries')
  assert.equal(res.statusCode, 200, res.body)
  return res.json().deliveries as {
    id: string
    event: string
    status: string
    lastOutcome: string | null
    lastResponseStatus: number | null
  }[]
}

const hmac = (secret: string, raw: Buffer | string) =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`

/** The headers a delivery came with, as a receiver needs them to be sent again. */
const headersOf = (request: Received, changes: Record<string, string | undefined> = {}) => {
  const headers: Record<string, string> = {}
  for (const name of [
    'content-type',
    'user-agent',
    'x-service-event',
    'x-service-delivery',
    'x-service-signature-256',
    'x-hub-signature-256',
  ]) {
    const value = name in changes ? changes[name] : request.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  return headers
}

/** The same bytes with one character of the signed content changed. */
const tampered = (raw: Buffer) => Buffer.from(raw.toString('utf8').replace('"accountId":"', '"accountId":"x'))

describe('the guide’s text', () => {
  const guide = readFileSync(GUIDE, 'utf8')

  it('its worked example is a genuine signature: the secret, the body and the header it shows agree', async () => {
    const secret = /under the secret\s+`(whsec_[A-Za-z0-9_-]{43})`/.exec(guide)?.[1]
    const body = /\n\n(\{"event":"work\.created".*\})\n```/.exec(guide)?.[1]
    const header = /\nX-Service-Signature-256: (sha256=[0-9a-f]{64})\n/.exec(guide)?.[1]
    assert.ok(secret && body && header, 'the worked example is in docs/webhooks.md')
    assert.equal(hmac(secret, body), header)
    assert.ok(guide.includes(`X-Hub-Signature-256: ${header}\n`))
    assert.equal(example.verifySignature(secret, Buffer.from(body), header), true)
    assert.equal(await verify(secret, body, header), true)
  })

  it('its inline verification code is the examples’ own', () => {
    /** Code without its comment and docstring lines, which the guide leaves out. */
    const code = (text: string) =>
      text
        .split('\n')
        .filter((line) => !/^\s*(\/\/|#|""")/.test(line))
        .join('\n')
    const shown = (start: string) => {
      const from = guide.indexOf(start)
      assert.ok(from >= 0, `the guide shows ${start}`)
      return guide.slice(from, guide.indexOf('\n```', from))
    }
    assert.ok(code(readFileSync(NODE_EXAMPLE, 'utf8')).includes(shown('export function verifySignature(')))
    assert.ok(code(readFileSync(PYTHON_EXAMPLE, 'utf8')).includes(shown('def verify_signature(')))
  })
})

describe('the guide’s Node example as a subscribed server', () => {
  it('receives every genuine delivery, answers 204, handles each once; a redelivery is a new one', async () => {
    const owner = await register(h, 'guide')
    const secrets: string[] = []
    const handled: { event: Record<string, unknown>; deliveryId: string }[] = []
    const lines: string[] = []
    const server = example.createReceiver({
      secrets,
      onEvent: (event, deliveryId) => handled.push({ event, deliveryId }),
      log: (line) => lines.push(line),
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    closing.push(() => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(resolve))
    })
    const created = await subscribe(owner, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`)
    secrets.push(created.signingSecret)

    const work = await createWork(h, owner, 'Guide')
    const test = await call(h, owner, 'POST', `/api/webhooks/${created.id}/test`)
    assert.equal(test.statusCode, 200, test.body)
    assert.deepEqual(
      { ...(test.json() as object), deliveryId: undefined },
      {
        deliveryId: undefined,
        outcome: 'success',
        status: 204,
        ok: true,
      },
    )
    await eventually(
      async () => handled,
      (list) => list.length === 2,
    )
    const byEvent = Object.fromEntries(handled.map((entry) => [entry.event.event, entry]))
    assert.equal(byEvent['webhook.test']?.deliveryId, test.json().deliveryId)
    const createdEvent = byEvent['work.created']!
    assert.equal(createdEvent.event.workId, work.id)
    assert.equal(createdEvent.event.workName, 'Guide')
    assert.equal(createdEvent.event.accountId, owner.userId)

    const log = await eventually(
      () => deliveries(owner),
      (list) => list.length === 2 && list.every((d) => d.status === 'succeeded'),
    )
    assert.deepEqual(
      log.map((d) => [d.lastOutcome, d.lastResponseStatus]),
      [
        ['success', 204],
        ['success', 204],
      ],
    )
    assert.deepEqual(new Set(log.map((d) => d.id)), new Set(handled.map((entry) => entry.deliveryId)))

    // A redelivery: a new delivery id, the same body (its sentAt included), so it is handled again.
    const redelivered = await call(
      h,
      owner,
      'POST',
      `/api/webhooks/deliveries/${createdEvent.deliveryId}/redeliver`,
    )
    assert.equal(redelivered.statusCode, 202, redelivered.body)
    const again = await eventually(
      async () => handled,
      (list) => list.length === 3,
    )
    assert.equal(again[2]!.deliveryId, redelivered.json().deliveryId)
    assert.deepEqual(again[2]!.event, createdEvent.event)
    assert.ok(!lines.some((line) => line.startsWith('refused')), lines.join('\n'))
  })

  it('rotation: the new secret signs at once; a delivery refused meanwhile is redelivered once it is known', async () => {
    const owner = await register(h, 'guide')
    const secrets: string[] = []
    const handled: string[] = []
    const lines: string[] = []
    const server = example.createReceiver({
      secrets,
      onEvent: (_event, deliveryId) => handled.push(deliveryId),
      log: (line) => lines.push(line),
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    closing.push(() => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(resolve))
    })
    const created = await subscribe(owner, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`)
    secrets.push(created.signingSecret)

    const rotated = await call(h, owner, 'POST', `/api/webhooks/${created.id}/rotate-secret`)
    assert.equal(rotated.statusCode, 200, rotated.body)
    const { signingSecret } = rotated.json()
    // The receiver does not know the new secret yet: 401, a client error Curio does not retry.
    const refused = await call(h, owner, 'POST', `/api/webhooks/${created.id}/test`)
    assert.deepEqual(
      { ...(refused.json() as object), deliveryId: undefined },
      {
        deliveryId: undefined,
        outcome: 'client_error',
        status: 401,
        ok: false,
      },
    )
    assert.ok(lines.includes('refused 401 bad signature'), lines.join('\n'))
    const [logged] = await deliveries(owner)
    assert.equal(logged!.lastResponseStatus, 401)

    // Both secrets for a moment, then redeliver what was refused: it is signed with the new one.
    secrets.unshift(signingSecret)
    const redelivered = await call(h, owner, 'POST', `/api/webhooks/deliveries/${logged!.id}/redeliver`)
    assert.equal(redelivered.statusCode, 202, redelivered.body)
    await eventually(
      async () => handled,
      (list) => list.includes(redelivered.json().deliveryId),
    )
    secrets.pop()
    const test = await call(h, owner, 'POST', `/api/webhooks/${created.id}/test`)
    assert.equal(test.json().status, 204, test.body)
  })
})

describe('captured deliveries, verified as the guide says', () => {
  let secret: string
  let genuine: Received[]

  before(async () => {
    const owner = await register(h, 'guide')
    const target: Receiver = await startReceiver()
    closing.push(() => target.close())
    const created = await subscribe(owner, target.url)
    secret = created.signingSecret
    await createWork(h, owner, 'Captured — “quotes” & ünïcode')
    await target.waitFor(1)
    const test = await call(h, owner, 'POST', `/api/webhooks/${created.id}/test`)
    assert.equal(test.json().ok, true, test.body)
    genuine = [...target.received]
    assert.deepEqual(
      genuine.map((request) => request.json.event),
      ['work.created', 'webhook.test'],
    )
  })

  it('the headers are the guide’s, and both signature headers carry the HMAC of the raw bytes', () => {
    for (const request of genuine) {
      assert.equal(request.headers['content-type'], 'application/json')
      assert.equal(request.headers['user-agent'], 'Curio-Webhooks/1.0')
      assert.equal(request.headers['x-service-event'], request.json.event)
      assert.match(String(request.headers['x-service-delivery']), /^[0-9a-f-]{36}$/)
      assert.equal(request.headers['x-service-signature-256'], hmac(secret, request.raw))
      assert.equal(request.headers['x-hub-signature-256'], request.headers['x-service-signature-256'])
      assert.ok(!Number.isNaN(Date.parse(String(request.json.sentAt))))
      assert.equal(typeof request.json.accountId, 'string')
    }
  })

  it('@octokit/webhooks-methods verify(secret, rawBody, header) is true for a genuine delivery only', async () => {
    for (const request of genuine) {
      const header = String(request.headers['x-hub-signature-256'])
      const raw = request.raw.toString('utf8')
      assert.equal(await verify(secret, raw, header), true)
      assert.equal(await verify(secret, tampered(request.raw).toString('utf8'), header), false)
      assert.equal(await verify('whsec_not-the-secret', raw, header), false)
      assert.equal(await verify(secret, JSON.stringify(JSON.parse(raw), null, 2), header), false)
      assert.equal(await verifyWithFallback('whsec_the-new-one', raw, header, [secret]), true)
      assert.equal(await sign(secret, raw), header)
    }
  })

  it('the Node example’s verifySignature agrees', () => {
    for (const request of genuine) {
      const header = String(request.headers['x-service-signature-256'])
      assert.equal(example.verifySignature(secret, request.raw, header), true)
      assert.equal(example.verifySignature(secret, request.raw.toString('utf8'), header), true)
      assert.equal(example.verifySignature(secret, tampered(request.raw), header), false)
      assert.equal(example.verifySignature('whsec_not-the-secret', request.raw, header), false)
      assert.equal(example.verifySignature(secret, request.raw, undefined), false)
      assert.equal(example.verifySignature(secret, request.raw, header.slice(0, -1)), false)
      assert.equal(example.verifySignature(secret, request.raw, header.replace('sha256=', '')), false)
    }
  })

  /** Sends the captured deliveries, then altered ones, to an example running as its own process. */
  async function exercise(receiver: ExampleProcess) {
    const post = (body: Buffer | string, headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${receiver.port}/hooks`, { method: 'POST', body, headers }).then(
        async (res) => {
          await res.arrayBuffer()
          return res.status
        },
      )
    for (const request of genuine) {
      assert.equal(await post(request.raw, headersOf(request)), 204)
      await receiver.line(`accepted ${request.headers['x-service-delivery']} ${request.json.event}`)
    }
    const [first] = genuine
    // A retry: the same delivery id again is acknowledged and not handled twice.
    assert.equal(await post(first!.raw, headersOf(first!)), 204)
    await receiver.line(`duplicate ${first!.headers['x-service-delivery']}`)
    // Altered bytes under the genuine header, even with a known delivery id: refused before de-duplication.
    assert.equal(await post(tampered(first!.raw), headersOf(first!)), 401)
    await receiver.line('refused 401 bad signature')
    const reserialised = JSON.stringify(first!.json, null, 2)
    assert.equal(await post(reserialised, headersOf(first!)), 401)
    const fresh = { 'x-service-delivery': crypto.randomUUID() }
    const wrong = hmac('whsec_not-the-secret', first!.raw)
    assert.equal(
      await post(first!.raw, headersOf(first!, { ...fresh, 'x-service-signature-256': wrong })),
      401,
    )
    assert.equal(
      await post(first!.raw, headersOf(first!, { ...fresh, 'x-service-signature-256': undefined })),
      401,
    )
    await receiver.line('refused 401 no signature')
    // Bytes signed the way GitHub-compatible libraries sign are accepted too.
    const own = JSON.stringify({
      event: 'webhook.test',
      note: 'signed here',
      sentAt: new Date().toISOString(),
    })
    assert.equal(
      await post(own, headersOf(first!, { ...fresh, 'x-service-signature-256': await sign(secret, own) })),
      204,
    )
    await receiver.line(`accepted ${fresh['x-service-delivery']} webhook.test`)
    assert.equal(receiver.count('accepted'), genuine.length + 1, receiver.output())
  }

  it('the Node example, run as the guide runs it, accepts them and refuses altered ones', async () => {
    await exercise(await startExample(process.execPath, [NODE_EXAMPLE], secret))
  })

  it('the Python example accepts them and refuses altered ones', { skip: noPython }, async () => {
    await exercise(await startExample('python3', [PYTHON_EXAMPLE], secret))
  })
})

interface ExampleProcess {
  port: number
  /** Resolves once the process has printed `text` as a line; fails if it exits or stays silent. */
  line(text: string): Promise<void>
  count(prefix: string): number
  output(): string
}

/** Runs an example as its README says (WEBHOOK_SECRET, PORT=0) and waits for its "listening" line. */
async function startExample(command: string, args: string[], secret: string): Promise<ExampleProcess> {
  const child: ChildProcess = spawn(command, args, {
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: '0', PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = once(child, 'exit')
  closing.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill()
    return exited
  })
  const lines: string[] = []
  let stderr = ''
  let ended = false
  const waiters = new Set<() => void>()
  const wake = () => {
    for (const waiter of waiters) waiter()
  }
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  createInterface({ input: child.stdout!, crlfDelay: Infinity }).on('line', (line) => {
    lines.push(line)
    wake()
  })
  child.on('exit', () => {
    ended = true
    wake()
  })
  const output = () => `${lines.join('\n')}\n${stderr}`

  const waitFor = (test: (line: string) => boolean, what: string) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`${command} printed no ${what} within ${LINE_TIMEOUT_MS} ms:\n${output()}`))
      }, LINE_TIMEOUT_MS)
      function check() {
        const found = lines.find(test)
        if (found === undefined && !ended) return
        clearTimeout(timer)
        waiters.delete(check)
        if (found === undefined) reject(new Error(`${command} exited before printing ${what}:\n${output()}`))
        else resolve(found)
      }
      waiters.add(check)
      check()
    })

  const listening = await waitFor((line) => line.startsWith('listening on '), '"listening" line')
  const port = Number(/:(\d+)\/$/.exec(listening)?.[1])
  assert.ok(port > 0, listening)
  return {
    port,
    line: async (text) => {
      await waitFor((line) => line === text, `line "${text}"`)
    },
    count: (prefix) => lines.filter((line) => line.startsWith(`${prefix} `)).length,
    output,
  }
}
