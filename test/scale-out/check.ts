import assert from 'node:assert/strict'
import { createHmac, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { type ScaleOut, startScaleOut } from './cluster.ts'

/**
 * The scale-out check (`npm run test:scale-out`): a black-box suite through HAProxy in front of several
 * Curio processes on one Postgres and one Redis, for what can go wrong with more than one process.
 * `SCALE_OUT_INSTANCES` sets how many (default 3).
 */

const COUNT = Number(process.env.SCALE_OUT_INSTANCES ?? 3)
const STRIPE_SECRET = `whsec_${randomBytes(16).toString('hex')}`
const ORIGIN = 'http://localhost:3001'

let s: ScaleOut

/** A webhook receiver on 127.0.0.1: every delivery it got, by event and work. */
const deliveries: { event: string; workId?: string; delivery: string }[] = []
const receiver = createServer((req, res) => {
  let text = ''
  req.on('data', (chunk) => {
    text += chunk
  })
  req.on('end', () => {
    const body = JSON.parse(text) as { event: string; workId?: string }
    deliveries.push({ ...body, delivery: String(req.headers['x-service-delivery']) })
    res.writeHead(204).end()
  })
})

before(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  s = await startScaleOut(COUNT, {
    STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    // Every minute, on every instance's scheduler: the job must still run once a minute.
    SPONSOR_EXPIRY_CRON: '* * * * *',
  })
})
after(async () => {
  await s?.close()
  receiver.close()
})

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}@scale-out.test`

async function call(url: string, init: RequestInit & { json?: unknown } = {}) {
  const { json, ...rest } = init
  const res = await fetch(url, {
    ...rest,
    headers: {
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      ...(rest.headers as Record<string, string> | undefined),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  const text = await res.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {}
  return {
    status: res.status,
    body: body as Record<string, unknown> & { [key: string]: unknown },
    headers: res.headers,
  }
}

async function platformAccount() {
  const res = await call(`${s.platform}/api/auth/register`, {
    method: 'POST',
    json: { email: unique('user'), password: 'a good password' },
  })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body as unknown as { accessToken: string; refreshToken: string }
}

async function adminCookie(base = s.directory) {
  const res = await fetch(`${base}/api/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    body: JSON.stringify({ email: 'admin@scale-out.test', password: 'scale-out-admin-password' }),
  })
  assert.equal(res.status, 200, await res.text())
  return (res.headers.getSetCookie()[0] ?? '').split(';')[0] as string
}

/** A metric's value in an instance's own /metrics (each instance serves its own on its ports). */
async function metricOf(base: string, name: string, labels: Record<string, string>) {
  const text = await (await fetch(`${base}/metrics`)).text()
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`)
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && wanted.every((label) => line.includes(label)))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)
}

describe(`the scale-out check: ${COUNT} instances behind HAProxy`, () => {
  it('the balancer spreads requests over every instance (round robin, no stickiness)', async () => {
    const labels = { route: '/healthz', status_code: '200', service: 'platform' }
    const before = await Promise.all(
      s.instances.map((instance) =>
        metricOf(instance.platform, 'curio_http_request_duration_seconds_count', labels),
      ),
    )
    for (let n = 0; n < COUNT * 10; n++) assert.equal((await call(`${s.platform}/healthz`)).status, 200)
    const afterCounts = await Promise.all(
      s.instances.map((instance) =>
        metricOf(instance.platform, 'curio_http_request_duration_seconds_count', labels),
      ),
    )
    const served = afterCounts.map((count, n) => count - (before[n] ?? 0))
    assert.ok(
      served.every((count) => count >= 5),
      `requests per instance: ${served.join(', ')}`,
    )
  })

  it('an API key revoked through one instance is refused by every instance at once', async () => {
    const { accessToken } = await platformAccount()
    const created = await call(`${s.platform}/api/auth/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}` },
      json: { name: 'scale-out' },
    })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    const { id, key } = created.body as { id: string; key: string }
    // Every instance has seen (and cached) the key as valid.
    for (const instance of s.instances) {
      assert.equal(
        (await call(`${instance.platform}/api/auth/me`, { headers: { 'x-api-key': key } })).status,
        200,
      )
    }
    const revoked = await call(`${s.instances[0]?.platform}/api/auth/api-keys/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${accessToken}` },
    })
    assert.ok(revoked.status < 300, JSON.stringify(revoked.body))
    for (const instance of s.instances) {
      const res = await call(`${instance.platform}/api/auth/me`, { headers: { 'x-api-key': key } })
      assert.equal(res.status, 401, `${instance.name} still took the revoked key`)
    }
  })

  it('a refresh token sent to two instances at once is used once', async () => {
    const { refreshToken } = await platformAccount()
    const [a, b] = s.instances
    const answers = await Promise.all(
      [a, b].map((instance) =>
        call(`${instance?.platform}/api/auth/refresh`, { method: 'POST', json: { refreshToken } }),
      ),
    )
    assert.deepEqual(answers.map((res) => res.status).sort(), [200, 401])
  })

  it('rate limits are shared: the sign-in limit counts attempts on every instance together', async () => {
    // Each instance trusts one proxy hop, so the address sent here is the client's for all of them.
    const client = `203.0.113.${1 + Math.floor(Math.random() * 250)}`
    const statuses: number[] = []
    for (let n = 0; n < 7; n++) {
      const instance = s.instances[n % COUNT]
      const res = await call(`${instance?.directory}/api/auth/signin`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'x-forwarded-for': client },
        json: { email: 'nobody@scale-out.test', password: 'wrong password' },
      })
      statuses.push(res.status)
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429])
  })

  it('a published item’s deletion clears the public caches of every instance', async () => {
    const cookie = await adminCookie()
    const slug = `scale-out-${randomBytes(4).toString('hex')}`
    const created = await call(`${s.directory}/api/admin/items`, {
      method: 'POST',
      headers: { cookie, origin: ORIGIN },
      json: { name: slug, slug, status: 'published' },
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    for (const instance of s.instances) {
      assert.equal((await call(`${instance.directory}/api/items/${slug}`)).status, 200, instance.name)
    }
    const id = (created.body.data as { id: string }).id
    assert.equal(
      (
        await call(`${s.directory}/api/admin/items/${id}`, {
          method: 'DELETE',
          headers: { cookie, origin: ORIGIN },
        })
      ).status,
      200,
    )
    const deadline = Date.now() + 2000
    for (const instance of s.instances) {
      let status = 0
      do status = (await call(`${instance.directory}/api/items/${slug}`)).status
      while (status !== 404 && Date.now() < deadline)
      assert.equal(status, 404, `${instance.name} still serves the deleted item`)
    }
  })

  it('one Stripe event reaching two instances at once is stored and applied once', async () => {
    const body = JSON.stringify({
      id: `evt_${randomBytes(8).toString('hex')}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: `pi_${randomBytes(8).toString('hex')}`,
          object: 'payment_intent',
          amount: 2900,
          currency: 'usd',
          metadata: { type: 'sponsor_ad', sponsorAdId: '00000000-0000-4000-8000-000000000000' },
        },
      },
    })
    const timestamp = Math.floor(Date.now() / 1000)
    const signature = createHmac('sha256', STRIPE_SECRET).update(`${timestamp}.${body}`).digest('hex')
    const answers = await Promise.all(
      s.instances.slice(0, 2).map((instance) =>
        fetch(`${instance.directory}/api/stripe/webhook`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'stripe-signature': `t=${timestamp},v1=${signature}`,
          },
          body,
        }),
      ),
    )
    assert.deepEqual(
      answers.map((res) => res.status),
      [200, 200],
    )
    const eventId = (JSON.parse(body) as { id: string }).id
    const rows = await s.query<{ n: string }>(
      'select count(*) as n from directory.payment_webhook_events where provider = $1 and event_id = $2',
      ['stripe', eventId],
    )
    assert.equal(Number(rows[0]?.n), 1)
  })

  it('each outbound webhook delivery is made once, whichever instance queued it and however many run jobs', async () => {
    const { accessToken } = await platformAccount()
    const auth = { authorization: `Bearer ${accessToken}` }
    const { port } = receiver.address() as AddressInfo
    const subscribed = await call(`${s.platform}/api/webhooks`, {
      method: 'POST',
      headers: auth,
      json: { url: `http://127.0.0.1:${port}/hook` },
    })
    assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body))
    const works: string[] = []
    for (let n = 0; n < COUNT * 8; n++) {
      const res = await call(`${s.platform}/api/works`, {
        method: 'POST',
        headers: auth,
        json: { name: `Scale ${n}` },
      })
      assert.ok(res.status < 300, JSON.stringify(res.body))
      works.push((res.body as { id: string }).id ?? (res.body.work as { id: string }).id)
    }
    const deadline = Date.now() + 30_000
    const mine = () =>
      deliveries.filter((entry) => entry.event === 'work.created' && works.includes(entry.workId ?? ''))
    while (mine().length < works.length && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(mine().length, works.length, 'one delivery per work.created')
    // Each delivery was attempted once: no instance sent one that another had already sent.
    const subscriptionId = (subscribed.body as { id: string }).id
    const attempts = await s.query<{ attempts: number; n: string }>(
      `select attempts, count(*) as n from platform.webhook_deliveries
        where subscription_id = $1 and event = 'work.created' group by attempts`,
      [subscriptionId],
    )
    assert.deepEqual(
      attempts.map((row) => [row.attempts, Number(row.n)]),
      [[1, works.length]],
    )
    assert.equal(new Set(mine().map((entry) => entry.workId)).size, works.length)
    assert.equal(new Set(mine().map((entry) => entry.delivery)).size, works.length)
  })

  it('a scheduled job runs once per schedule, not once per instance', async () => {
    const countJobs = () =>
      s.query<{ minute: string; n: string }>(
        `select to_char(created_on, 'YYYY-MM-DD HH24:MI') as minute, count(*) as n
           from directory_jobs.job where name = 'sponsor-ads-expire' group by 1 order by 1`,
      )
    const deadline = Date.now() + 90_000
    let minutes = await countJobs()
    while (minutes.length < 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      minutes = await countJobs()
    }
    assert.ok(minutes.length >= 1, 'the every-minute schedule ran')
    assert.ok(
      minutes.every((minute) => Number(minute.n) === 1),
      JSON.stringify(minutes),
    )
  })

  it('an instance killed with SIGKILL mid-run loses nothing that was acknowledged, and comes back', async () => {
    const cookie = await adminCookie()
    const victim = s.instances[1]?.name as string
    const acknowledged: string[] = []
    const refused: number[] = []
    let sent = 0
    const writer = async () => {
      while (sent < 90) {
        const slug = `survivor-${sent++}-${randomBytes(3).toString('hex')}`
        const res = await call(`${s.directory}/api/admin/items`, {
          method: 'POST',
          headers: { cookie, origin: ORIGIN },
          json: { name: slug, slug, status: 'draft' },
        }).catch(() => ({ status: 0, body: {} as Record<string, unknown> }))
        if (res.status === 201) acknowledged.push((res.body.data as { id: string }).id)
        else refused.push(res.status)
      }
    }
    const writers = Promise.all([writer(), writer(), writer()])
    while (sent < 30) await new Promise((resolve) => setTimeout(resolve, 10))
    await s.kill(victim)
    await writers
    assert.ok(
      acknowledged.length >= 80,
      `${acknowledged.length} of 90 acknowledged; refused: ${refused.join(', ')}`,
    )
    assert.ok(
      refused.every((status) => status === 502 || status === 503 || status === 0),
      refused.join(', '),
    )
    const stored = await s.query<{ id: string }>(
      'select id from directory.items where id = any($1::uuid[])',
      [acknowledged],
    )
    assert.equal(stored.length, acknowledged.length, 'every acknowledged write is stored')
    const restarted = await s.restart(victim)
    assert.equal((await call(`${restarted.directory}/readyz`)).status, 200)
  })
})
