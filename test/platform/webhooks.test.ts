import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { sendMany } from '../../src/jobs/index.ts'
import { WEBHOOK_DELIVERY_JOB } from '../../src/platform/webhooks/fan-out.ts'
import { webhookDeliveries, webhookSubscriptions } from '../../src/platform/webhooks/tables.ts'
import { type Receiver, startReceiver } from '../fakes/receiver.ts'
import { type PlatformHarness, startPlatform } from '../helpers/apps.ts'
import { type Account, call, createWork, eventually, register, share } from '../helpers/platform.ts'

const MAX_FAILURES = 3
let h: PlatformHarness
const receivers: Receiver[] = []

before(async () => {
  h = await startPlatform({
    env: {
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_TIMEOUT_MS: '400',
      WEBHOOK_RETRY_BASE_MS: '10',
      WEBHOOK_RETRY_MAX_MS: '40',
      WEBHOOK_MAX_CONSECUTIVE_FAILURES: String(MAX_FAILURES),
    },
  })
})
after(async () => {
  await h.close()
  for (const receiver of receivers) await receiver.close()
})

async function receiver(): Promise<Receiver> {
  const started = await startReceiver()
  receivers.push(started)
  return started
}

interface Created {
  id: string
  url: string
  workId: string | null
  status: string
  signingSecret: string
}

async function subscribe(account: Account, url: string, workId?: string): Promise<Created> {
  const res = await call(h, account, 'POST', '/api/webhooks', { url, ...(workId ? { workId } : {}) })
  assert.equal(res.statusCode, 200, res.body)
  return res.json()
}

const sign = (secret: string, raw: Buffer) =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`

async function deliveries(account: Account) {
  const res = await call(h, account, 'GET', '/api/webhooks/deliveries')
  assert.equal(res.statusCode, 200, res.body)
  return res.json().deliveries as {
    id: string
    subscriptionId: string | null
    event: string
    body: string
    status: string
    attempts: number
    lastOutcome: string | null
    lastResponseStatus: number | null
    lastError: string | null
    triggerRunId: string | null
  }[]
}

/** A delivery written as the fan-out writes one (its job is the test's to send). */
async function pendingDelivery(
  owner: Account,
  subscriptionId: string,
  fields: { body?: string; attempts?: number } = {},
) {
  const now = new Date()
  const [row] = await h.databases.platform.db
    .insert(webhookDeliveries)
    .values({
      userId: owner.userId,
      subscriptionId,
      event: 'work.created',
      body: fields.body ?? '{"event":"work.created"}',
      status: 'pending',
      attempts: fields.attempts ?? 0,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
  return row!
}

const settled = (account: Account, count: number) =>
  eventually(
    () => deliveries(account),
    (list) => list.length >= count && list.every((d) => !['pending', 'delivering'].includes(d.status)),
  )

describe('webhooks: subscriptions', () => {
  it('create answers the subscription with its secret once; the list never shows it', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const created = await subscribe(owner, target.url)
    assert.match(created.signingSecret, /^whsec_[A-Za-z0-9_-]{43}$/)
    assert.equal(created.status, 'active')
    assert.equal(created.workId, null)
    const list = await call(h, owner, 'GET', '/api/webhooks')
    assert.equal(list.statusCode, 200)
    assert.deepEqual(
      list.json().webhooks.map((w: { id: string }) => w.id),
      [created.id],
    )
    assert.ok(!list.body.includes(created.signingSecret))
    assert.ok(!('signingSecret' in list.json().webhooks[0]))
    const [stored] = await h.databases.platform.db
      .select({ secret: webhookSubscriptions.signingSecret })
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.id, created.id))
    assert.match(stored!.secret, /^enc:v1:/)
    assert.ok(!stored!.secret.includes(created.signingSecret))
  })

  it('a workId the caller may not view is 404; one shared with them is accepted', async () => {
    const owner = await register(h, 'hooks')
    const other = await register(h, 'hooks')
    const target = await receiver()
    const work = await createWork(h, owner)
    const refused = await call(h, other, 'POST', '/api/webhooks', { url: target.url, workId: work.id })
    assert.equal(refused.statusCode, 404)
    assert.equal(refused.json().code, 'WORK_NOT_FOUND')
    await share(h, owner, work.id, other, 'viewer')
    assert.equal((await subscribe(other, target.url, work.id)).workId, work.id)
  })

  it('URLs with user:password, private addresses or other schemes are 400 WEBHOOK_URL_REFUSED', async () => {
    const owner = await register(h, 'hooks')
    for (const url of [
      'http://user:pass@127.0.0.1:9/hook',
      'http://10.0.0.5/hook',
      'http://167772165/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:10.0.0.1]/hook',
      'ftp://example.com/hook',
    ]) {
      const res = await call(h, owner, 'POST', '/api/webhooks', { url })
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
      assert.ok(['WEBHOOK_URL_REFUSED', 'VALIDATION_ERROR'].includes(res.json().code), res.body)
      assert.equal(res.json().details[0].field, 'body.url')
    }
  })

  it('at most 25 active per account, also when 30 creates race', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => call(h, owner, 'POST', '/api/webhooks', { url: target.url })),
    )
    const statuses = answers.map((res) => res.statusCode)
    assert.equal(statuses.filter((s) => s === 200).length, 25)
    const refused = answers.filter((res) => res.statusCode === 400)
    assert.equal(refused.length, 5)
    assert.ok(refused.every((res) => res.json().code === 'WEBHOOK_LIMIT'))
  })

  it('pause stops deliveries; active is 400; delete is 204 then 404', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const created = await subscribe(owner, target.url)
    const resume = await call(h, owner, 'PATCH', `/api/webhooks/${created.id}`, { status: 'active' })
    assert.equal(resume.statusCode, 400)
    assert.equal(resume.json().code, 'WEBHOOK_RESUME_UNSUPPORTED')
    const paused = await call(h, owner, 'PATCH', `/api/webhooks/${created.id}`, { status: 'paused' })
    assert.equal(paused.statusCode, 200, paused.body)
    assert.equal(paused.json().status, 'paused')
    await createWork(h, owner, 'Quiet')
    const test = await call(h, owner, 'POST', `/api/webhooks/${created.id}/test`)
    assert.equal(test.json().code, 'WEBHOOK_NOT_ACTIVE')
    assert.equal(target.received.length, 0)
    assert.equal((await call(h, owner, 'DELETE', `/api/webhooks/${created.id}`)).statusCode, 204)
    assert.equal((await call(h, owner, 'DELETE', `/api/webhooks/${created.id}`)).statusCode, 404)
    assert.deepEqual((await call(h, owner, 'GET', '/api/webhooks')).json().webhooks, [])
  })

  it('another account’s subscription or delivery is 404 on every route', async () => {
    const owner = await register(h, 'hooks')
    const stranger = await register(h, 'hooks')
    const target = await receiver()
    const created = await subscribe(owner, target.url)
    const test = await call(h, owner, 'POST', `/api/webhooks/${created.id}/test`)
    const { deliveryId } = test.json()
    for (const [method, url, body] of [
      ['PATCH', `/api/webhooks/${created.id}`, { status: 'paused' }],
      ['DELETE', `/api/webhooks/${created.id}`],
      ['POST', `/api/webhooks/${created.id}/test`],
      ['POST', `/api/webhooks/${created.id}/rotate-secret`],
      ['POST', `/api/webhooks/deliveries/${deliveryId}/redeliver`],
    ] as const) {
      const res = await call(h, stranger, method, url, body)
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`)
    }
    assert.deepEqual(await deliveries(stranger), [])
    assert.equal((await call(h, owner, 'GET', '/api/webhooks')).json().webhooks[0].status, 'active')
  })
})

describe('webhooks: a production instance', () => {
  const production = (env: Record<string, string> = {}) =>
    startPlatform({
      env: {
        NODE_ENV: 'production',
        JWT_SECRET: 'a-production-secret-of-at-least-32-characters',
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        ...env,
      },
    })

  it('plain http is 400 WEBHOOK_URL_REFUSED; https is accepted', async () => {
    const strict = await production({ PLATFORM_ENCRYPTION_KEY: 'cd'.repeat(32) })
    try {
      const owner = await register(strict, 'hooks')
      const plain = await call(strict, owner, 'POST', '/api/webhooks', { url: 'http://127.0.0.1:9/hook' })
      assert.equal(plain.statusCode, 400, plain.body)
      assert.equal(plain.json().code, 'WEBHOOK_URL_REFUSED')
      assert.match(plain.json().details[0].message, /https/i)
      const secure = await call(strict, owner, 'POST', '/api/webhooks', { url: 'https://127.0.0.1:9/hook' })
      assert.equal(secure.statusCode, 200, secure.body)
    } finally {
      await strict.close()
    }
  })

  it('without PLATFORM_ENCRYPTION_KEY it starts, stores no secret: 400 ENCRYPTION_KEY_MISSING', async () => {
    const keyless = await production()
    try {
      const owner = await register(keyless, 'hooks')
      const res = await call(keyless, owner, 'POST', '/api/webhooks', { url: 'https://127.0.0.1:9/hook' })
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().code, 'ENCRYPTION_KEY_MISSING')
      assert.match(res.json().message, /PLATFORM_ENCRYPTION_KEY is not set/)
      assert.equal(
        (await keyless.databases.platform.db.select().from(webhookSubscriptions)).length,
        0,
        'nothing is written',
      )
      // The same for a plugin's secret setting; settings without a secret are stored.
      const secret = await call(keyless, owner, 'POST', '/api/plugins/openai/enable', {
        secretSettings: { apiKey: 'sk-not-stored' },
      })
      assert.equal(secret.statusCode, 400, secret.body)
      assert.equal(secret.json().code, 'ENCRYPTION_KEY_MISSING')
      const plain = await call(keyless, owner, 'POST', '/api/plugins/openai/enable', {
        settings: { model: 'gpt-4o-mini' },
      })
      assert.equal(plain.statusCode, 200, plain.body)
    } finally {
      await keyless.close()
    }
  })
})

describe('webhooks: deliveries', () => {
  it('a new work is delivered once, signed over the raw bytes, with SPEC.md’s headers and fields', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const created = await subscribe(owner, target.url)
    const work = await createWork(h, owner, 'Signed')
    await target.waitFor(1)
    const [request] = target.received
    assert.equal(request!.method, 'POST')
    assert.equal(request!.headers['x-service-event'], 'work.created')
    assert.equal(request!.headers['x-service-signature-256'], sign(created.signingSecret, request!.raw))
    assert.equal(request!.headers['x-hub-signature-256'], request!.headers['x-service-signature-256'])
    assert.equal(request!.headers['content-type'], 'application/json')
    const body = request!.json
    assert.equal(body.event, 'work.created')
    assert.equal(body.accountId, owner.userId)
    assert.equal(body.workId, work.id)
    assert.equal(body.workName, 'Signed')
    assert.ok(!Number.isNaN(Date.parse(String(body.sentAt))))
    const [delivery] = await settled(owner, 1)
    assert.equal(request!.headers['x-service-delivery'], delivery!.id)
    assert.equal(delivery!.status, 'succeeded')
    assert.equal(delivery!.lastOutcome, 'success')
    assert.equal(delivery!.attempts, 1)
    assert.ok(delivery!.triggerRunId)
    // The log shows the bytes the endpoint got, the ones the signature covers.
    assert.equal(delivery!.body, request!.raw.toString())
  })

  it('a work-scoped subscription gets its work’s events only; an account-wide one gets all', async () => {
    const owner = await register(h, 'hooks')
    const scoped = await receiver()
    const wide = await receiver()
    const first = await createWork(h, owner, 'First')
    await subscribe(owner, scoped.url, first.id)
    await subscribe(owner, wide.url)
    await createWork(h, owner, 'Second')
    await h.emit({
      type: 'WorkGenerationCompleted',
      userId: owner.userId,
      workId: first.id,
      workName: 'First',
      generateStatus: 'COMPLETED',
      itemsCount: 7,
    })
    await settled(owner, 3)
    assert.deepEqual(
      scoped.received.map((r) => r.json.event),
      ['work.generation.completed'],
    )
    assert.deepEqual(wide.received.map((r) => r.json.event).sort(), [
      'work.created',
      'work.generation.completed',
    ])
    const generation = scoped.received[0]!.json
    assert.equal(generation.itemsCount, 7)
    assert.equal(generation.generateStatus, 'COMPLETED')
  })

  it('a member’s work-scoped subscription gets the shared work’s events as theirs, until they are removed', async () => {
    const owner = await register(h, 'hooks')
    const member = await register(h, 'hooks')
    const memberScoped = await receiver()
    const memberWide = await receiver()
    const ownerWide = await receiver()
    const work = await createWork(h, owner, 'Shared')
    await share(h, owner, work.id, member, 'viewer')
    await subscribe(member, memberScoped.url, work.id)
    // Account-wide is every work the account owns: not the works shared with it.
    await subscribe(member, memberWide.url)
    await subscribe(owner, ownerWide.url)
    const generated = () =>
      h.emit({
        type: 'WorkGenerationCompleted',
        userId: owner.userId,
        workId: work.id,
        workName: 'Shared',
        generateStatus: 'COMPLETED',
        itemsCount: 3,
      })
    await generated()
    await settled(member, 1)
    await settled(owner, 1)
    assert.equal(memberScoped.received.length, 1)
    const [request] = memberScoped.received
    assert.equal(request!.json.event, 'work.generation.completed')
    assert.equal(request!.json.workId, work.id)
    assert.equal(request!.json.accountId, member.userId, 'the body names the subscriber’s account')
    assert.equal(ownerWide.received[0]!.json.accountId, owner.userId)
    assert.equal(memberWide.received.length, 0)
    // Each account sees its own delivery only.
    assert.deepEqual(
      (await deliveries(member)).map((d) => d.id),
      [request!.headers['x-service-delivery']],
    )

    const removed = await call(h, owner, 'DELETE', `/api/works/${work.id}/members/${member.userId}`)
    assert.equal(removed.statusCode, 204)
    await generated()
    await settled(owner, 2)
    assert.equal(ownerWide.received.length, 2)
    assert.equal(memberScoped.received.length, 1, 'a removed member gets nothing more')
    assert.equal((await deliveries(member)).length, 1)
  })

  it('a 500 is retried with backoff until a 2xx; the failure count resets', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    target.next({ status: 500 }, { status: 503 })
    const created = await subscribe(owner, target.url)
    await createWork(h, owner)
    const [delivery] = await settled(owner, 1)
    assert.equal(delivery!.status, 'succeeded')
    assert.equal(delivery!.attempts, 3)
    assert.equal(target.received.length, 3)
    assert.equal(
      new Set(target.received.map((r) => r.raw.toString())).size,
      1,
      'every attempt sends the same bytes',
    )
    const list = (await call(h, owner, 'GET', '/api/webhooks')).json().webhooks
    assert.equal(list.find((w: { id: string }) => w.id === created.id).consecutiveFailures, 0)
  })

  it('4xx is not retried (client_error); 3xx is refused and never followed (redirect_refused)', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const elsewhere = await receiver()
    target.next({ status: 410, body: 'gone' }, { status: 302, headers: { location: elsewhere.url } })
    await subscribe(owner, target.url)
    await createWork(h, owner, 'One')
    await settled(owner, 1)
    await createWork(h, owner, 'Two')
    const list = await settled(owner, 2)
    const byOutcome = Object.fromEntries(list.map((d) => [d.lastOutcome, d]))
    assert.equal(byOutcome.client_error?.status, 'failed')
    assert.equal(byOutcome.client_error?.lastResponseStatus, 410)
    assert.equal(byOutcome.client_error?.attempts, 1)
    assert.equal(byOutcome.redirect_refused?.status, 'failed')
    assert.equal(byOutcome.redirect_refused?.attempts, 1)
    assert.equal(elsewhere.received.length, 0)
  })

  it(`${MAX_FAILURES} failures in a row fail the subscription: no more deliveries, gone from the list`, async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    target.next({ hang: true }, { status: 500 }, { destroy: true })
    const created = await subscribe(owner, target.url)
    await createWork(h, owner)
    const [delivery] = await settled(owner, 1)
    assert.equal(delivery!.status, 'failed')
    assert.equal(delivery!.attempts, MAX_FAILURES)
    assert.equal((await call(h, owner, 'GET', '/api/webhooks')).json().webhooks.length, 0)
    const [row] = await h.databases.platform.db
      .select()
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.id, created.id))
    assert.equal(row!.status, 'failed')
    assert.equal(row!.consecutiveFailures, MAX_FAILURES)
    const before = target.received.length
    await createWork(h, owner, 'After')
    assert.equal(target.received.length, before)
    const pause = await call(h, owner, 'PATCH', `/api/webhooks/${created.id}`, { status: 'paused' })
    assert.equal(pause.json().code, 'WEBHOOK_FAILED')
  })

  it('a timeout is recorded as such and retried', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    target.next({ hang: true })
    await subscribe(owner, target.url)
    await createWork(h, owner)
    const [delivery] = await settled(owner, 1)
    assert.equal(delivery!.status, 'succeeded')
    assert.equal(delivery!.attempts, 2)
  })

  it('a paused subscription’s pending retry stops', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const created = await subscribe(owner, target.url)
    // A retry far in the future: the pause must cancel it rather than let it fire.
    await h.databases.platform.db
      .update(webhookSubscriptions)
      .set({ consecutiveFailures: 0 })
      .where(eq(webhookSubscriptions.id, created.id))
    const pending = await pendingDelivery(owner, created.id, { attempts: 1 })
    await call(h, owner, 'PATCH', `/api/webhooks/${created.id}`, { status: 'paused' })
    await h.jobs.send(WEBHOOK_DELIVERY_JOB, { deliveryId: pending.id })
    const [delivery] = await eventually(
      () => deliveries(owner),
      (list) => list[0]?.status === 'cancelled',
    )
    assert.match(delivery!.lastError ?? '', /paused/)
    assert.equal(target.received.length, 0)
  })

  it('a huge answer is not downloaded: the attempt succeeds at once', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    target.next({ status: 200, body: 'x'.repeat(8 * 1024 * 1024) })
    await subscribe(owner, target.url)
    await createWork(h, owner)
    const [delivery] = await settled(owner, 1)
    assert.equal(delivery!.lastOutcome, 'success')
    assert.equal(delivery!.attempts, 1)
  })

  it('an address refused at attempt time is ssrf_blocked, not retried, and nothing is sent', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const created = await subscribe(owner, target.url)
    // As if the URL's host now resolved to a private address: the attempt checks again.
    await h.databases.platform.db
      .update(webhookSubscriptions)
      .set({ url: 'http://10.0.0.7/hooks' })
      .where(eq(webhookSubscriptions.id, created.id))
    await createWork(h, owner)
    const [delivery] = await settled(owner, 1)
    assert.equal(delivery!.lastOutcome, 'ssrf_blocked')
    assert.equal(delivery!.status, 'failed')
    assert.equal(delivery!.attempts, 1)
    assert.match(delivery!.lastError ?? '', /10\.0\.0\.7 is a private/)
    assert.equal(target.received.length, 0)
  })

  it('a body above 1 MiB is refused before signing (payload_too_large), not retried', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const created = await subscribe(owner, target.url)
    const big = await pendingDelivery(owner, created.id, {
      body: JSON.stringify({ event: 'work.created', padding: 'x'.repeat(1024 * 1024) }),
    })
    await h.jobs.send(WEBHOOK_DELIVERY_JOB, { deliveryId: big.id })
    const [delivery] = await settled(owner, 1)
    assert.equal(delivery!.lastOutcome, 'payload_too_large')
    assert.equal(delivery!.status, 'failed')
    assert.equal(target.received.length, 0)
  })
})

describe('webhooks: test, rotate, redeliver', () => {
  it('test sends a signed webhook.test at once and answers its outcome; it is logged', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const created = await subscribe(owner, target.url)
    const res = await call(h, owner, 'POST', `/api/webhooks/${created.id}/test`)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(
      { ...(res.json() as object), deliveryId: undefined },
      {
        deliveryId: undefined,
        outcome: 'success',
        status: 200,
        ok: true,
      },
    )
    assert.equal(target.received[0]!.json.event, 'webhook.test')
    assert.equal(typeof target.received[0]!.json.note, 'string')
    const [logged] = await deliveries(owner)
    assert.equal(logged!.id, res.json().deliveryId)
    assert.equal(logged!.event, 'webhook.test')

    target.next({ status: 503 })
    const failed = await call(h, owner, 'POST', `/api/webhooks/${created.id}/test`)
    assert.deepEqual(
      { ...(failed.json() as object), deliveryId: undefined },
      {
        deliveryId: undefined,
        outcome: 'server_error',
        status: 503,
        ok: false,
      },
    )
  })

  it('rotate returns a new secret once; deliveries are signed with it, never the old one', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const created = await subscribe(owner, target.url)
    const res = await call(h, owner, 'POST', `/api/webhooks/${created.id}/rotate-secret`)
    assert.equal(res.statusCode, 200, res.body)
    const { signingSecret } = res.json()
    assert.notEqual(signingSecret, created.signingSecret)
    await call(h, owner, 'POST', `/api/webhooks/${created.id}/test`)
    const [request] = target.received
    assert.equal(request!.headers['x-service-signature-256'], sign(signingSecret, request!.raw))
    assert.notEqual(request!.headers['x-service-signature-256'], sign(created.signingSecret, request!.raw))
  })

  it('redeliver answers 202 and sends the original bytes again as a new delivery', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    await subscribe(owner, target.url)
    await createWork(h, owner)
    const [original] = await settled(owner, 1)
    h.clock.advance(1000)
    const res = await call(h, owner, 'POST', `/api/webhooks/deliveries/${original!.id}/redeliver`)
    assert.equal(res.statusCode, 202, res.body)
    assert.notEqual(res.json().deliveryId, original!.id)
    assert.ok(res.json().runId)
    await target.waitFor(2)
    assert.deepEqual(target.received[1]!.raw, target.received[0]!.raw)
    assert.equal(target.received[1]!.headers['x-service-delivery'], res.json().deliveryId)
    const list = await settled(owner, 2)
    assert.equal(list[0]!.id, res.json().deliveryId)
  })
})

describe('webhooks: rate limits', () => {
  it('the 11th create of a minute is 429 with Retry-After, per account', async () => {
    const limited = await startPlatform({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } })
    try {
      const owner = await register(limited, 'hooks')
      const other = await register(limited, 'hooks')
      const target = await receiver()
      const create = (account: Account) =>
        limited.app.inject({
          method: 'POST',
          url: '/api/webhooks',
          remoteAddress: '203.0.113.9',
          headers: { authorization: `Bearer ${account.token}` },
          payload: { url: target.url },
        })
      for (let n = 0; n < 10; n++) assert.equal((await create(owner)).statusCode, 200)
      const refused = await create(owner)
      assert.equal(refused.statusCode, 429)
      assert.ok(Number(refused.headers['retry-after']) > 0)
      assert.equal(refused.headers['x-ratelimit-limit'], '10')
      assert.equal((await create(other)).statusCode, 200)
    } finally {
      await limited.close()
    }
  })
})

describe('webhooks: two instances on one database', () => {
  it('every delivery is sent once, whichever instance takes it', async () => {
    // A pair of its own, with the default timeout: this file's harness gives up on an answer after 400 ms
    // and fails a subscription after 3 misses, which a busy machine can reach without any fault of ours.
    const env = { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_CONCURRENCY: '4', WEBHOOK_RETRY_BASE_MS: '10' }
    const first = await startPlatform({ env })
    // Instances share the time of day: a claim's lease is read against the same clock.
    const second = await startPlatform({ databases: first.databases, clockStart: first.clock.nowMs(), env })
    try {
      const owner = await register(first, 'hooks')
      const target = await receiver()
      const subscribeOn = async () => {
        const res = await call(first, owner, 'POST', '/api/webhooks', { url: target.url })
        assert.equal(res.statusCode, 200, res.body)
      }
      await subscribeOn()
      await subscribeOn()
      const count = 15
      for (let n = 0; n < count; n++) await createWork(n % 2 ? second : first, owner, `Work ${n}`)
      await target.waitFor(count * 2)
      const list = await eventually(
        async () => {
          const res = await call(first, owner, 'GET', '/api/webhooks/deliveries')
          return res.json().deliveries as {
            id: string
            status: string
            attempts: number
            triggerRunId: string
          }[]
        },
        (list) =>
          list.length >= count * 2 && list.every((d) => !['pending', 'delivering'].includes(d.status)),
      )
      assert.equal(list.length, count * 2)
      assert.ok(list.every((delivery) => delivery.status === 'succeeded'))
      // Each attempt is one request, made by one instance: never more requests than attempts.
      const sent = new Map<string, number>()
      for (const request of target.received) {
        const id = String(request.headers['x-service-delivery'])
        sent.set(id, (sent.get(id) ?? 0) + 1)
      }
      for (const delivery of list) {
        const requests = sent.get(delivery.id) ?? 0
        assert.ok(
          requests >= 1 && requests <= delivery.attempts,
          `delivery ${delivery.id} was sent ${requests} times in ${delivery.attempts} attempts`,
        )
      }
      assert.equal(sent.size, count * 2, 'no request for a delivery that is not in the list')
      const runs = new Set(list.map((delivery) => delivery.triggerRunId))
      assert.equal(runs.size, count * 2)
    } finally {
      await second.close()
      await first.close()
    }
  })

  it('jobs of one delivery fetched together (a retry and a recovery racing) make one attempt', async () => {
    const owner = await register(h, 'hooks')
    const target = await receiver()
    const created = await subscribe(owner, target.url)
    const pending = await pendingDelivery(owner, created.id)
    // Three jobs in one statement: the worker takes them in one fetch and claims them in one statement.
    await sendMany(h.jobs, WEBHOOK_DELIVERY_JOB, [
      { deliveryId: pending.id },
      { deliveryId: pending.id },
      { deliveryId: 'not-a-delivery' },
      { deliveryId: pending.id },
    ])
    const [delivery] = await settled(owner, 1)
    assert.equal(delivery!.status, 'succeeded')
    assert.equal(delivery!.attempts, 1)
    await eventually(
      () => h.jobs.boss.findJobs(WEBHOOK_DELIVERY_JOB, { data: { deliveryId: pending.id } }),
      (jobs) => jobs.length === 3 && jobs.every((job) => job.state === 'completed'),
    )
    assert.equal(target.received.length, 1)
  })
})
