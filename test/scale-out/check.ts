import assert from 'node:assert/strict'
import { createHmac, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { isDeepStrictEqual } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type GitHubFake, startGitHubFake } from '../fakes/github.ts'
import { startVercelFake, type VercelFake } from '../fakes/vercel.ts'
import { type Instance, type ScaleOut, startScaleOut } from './cluster.ts'

/**
 * The scale-out check (`npm run test:scale-out`): a black-box suite through HAProxy in front of several
 * Curio processes on one Postgres and one Redis, for what can go wrong with more than one process.
 * `SCALE_OUT_INSTANCES` sets how many (default 3).
 */

const COUNT = Number(process.env.SCALE_OUT_INSTANCES ?? 3)
const STRIPE_SECRET = `whsec_${randomBytes(16).toString('hex')}`
const ORIGIN = 'http://localhost:3001'

let s: ScaleOut

/** What the webhook receiver got: each request, and whether its answer reached the instance. */
interface Received {
  event: string
  workId?: string
  delivery: string
  path: string
  /** The client and server ports of the connection it came on: which instance sent it (`ownerOf`). */
  port: number
  serverPort: number
  answered: boolean
  /** The connection closed before the answer: the sender died mid-attempt. */
  aborted: boolean
  answer: () => void
}

/** A webhook receiver on 127.0.0.1. Requests to `/held` wait for their answer while `holding` is set. */
const deliveries: Received[] = []
let holding = false
const receiver = createServer((req, res) => {
  let text = ''
  req.on('data', (chunk) => {
    text += chunk
  })
  req.on('end', () => {
    const body = JSON.parse(text) as { event: string; workId?: string }
    const entry: Received = {
      event: body.event,
      ...(body.workId ? { workId: body.workId } : {}),
      delivery: String(req.headers['x-service-delivery']),
      path: req.url ?? '/',
      port: req.socket.remotePort ?? 0,
      serverPort: req.socket.localPort ?? 0,
      answered: false,
      aborted: false,
      answer: () => {
        if (!res.destroyed && !res.writableEnded) res.writeHead(204).end()
      },
    }
    deliveries.push(entry)
    res.on('finish', () => {
      entry.answered = true
    })
    res.on('close', () => {
      if (!res.writableFinished) entry.aborted = true
    })
    if (!(holding && entry.path === '/held')) entry.answer()
  })
})

/** GitHub and Vercel stand-ins for deployments: a dispatched workflow creates the project's Vercel deployment. */
const GH_TOKEN = 'ghp_scale_out_token_0123456789'
const VERCEL_TOKEN = 'vercel_scale_out_token_0123456789'
const TEMPLATE = 'curio/website-template'
/** Each poll of a verification reads the deployment once and moves it one state on. */
const VERCEL_STATES = ['QUEUED', 'BUILDING', 'BUILDING', 'BUILDING', 'READY'] as const
let github: GitHubFake
let vercel: VercelFake

before(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  github = await startGitHubFake({ token: GH_TOKEN, login: 'ada' })
  github.addTemplate(TEMPLATE, {
    '.github/workflows/deploy_vercel.yaml': 'name: Deploy to Vercel\non:\n  workflow_dispatch:\njobs: {}\n',
    'package.json': '{"name":"website"}\n',
  })
  vercel = await startVercelFake({ token: VERCEL_TOKEN })
  github.onDispatch(({ repo }) => {
    vercel.createDeployment(repo.split('/')[1] as string, { states: [...VERCEL_STATES], advanceOnRead: true })
  })
  s = await startScaleOut(COUNT, {
    STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    // Every minute, on every instance's scheduler: each must still run once a minute.
    SPONSOR_EXPIRY_CRON: '* * * * *',
    SESSION_CLEANUP_CRON: '* * * * *',
    GITHUB_API_URL: github.url,
    VERCEL_API_URL: vercel.url,
    WEBSITE_TEMPLATE_REPOSITORY: TEMPLATE,
    DEPLOY_POLL_INTERVAL_MS: '200',
  })
})
// Bounded, as every test is (--test-timeout): a stop that hangs fails the file instead of holding CI, and
// --test-force-exit ends the process once everything has run, whatever handle is left open.
after(
  async () => {
    await s?.close()
    receiver.close()
    await github?.close()
    await vercel?.close()
  },
  { timeout: 120_000 },
)

/** Reads until `done` holds, every 100 ms, for at most `timeoutMs`: the last value either way. */
async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  let value = await read()
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    value = await read()
  }
  return value
}

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

let accounts = 0
/**
 * A new platform account. Sign-ups are limited per client address, and through the balancer every request
 * comes from 127.0.0.1: each account is opened on an instance directly, from an address of its own.
 */
async function platformAccount() {
  const n = accounts++
  const res = await call(`${s.instances[n % COUNT]?.platform}/api/auth/register`, {
    method: 'POST',
    headers: { 'x-forwarded-for': `10.0.${Math.floor(n / 250)}.${1 + (n % 250)}` },
    json: { email: unique('user'), password: 'a good password' },
  })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body as unknown as { accessToken: string; refreshToken: string }
}

type Auth = { authorization: string }

/** A new account subscribed to every event at the receiver's `path`: its auth header and subscription id. */
async function subscriber(path: string) {
  const { accessToken } = await platformAccount()
  const auth: Auth = { authorization: `Bearer ${accessToken}` }
  const { port } = receiver.address() as AddressInfo
  const subscribed = await call(`${s.platform}/api/webhooks`, {
    method: 'POST',
    headers: auth,
    json: { url: `http://127.0.0.1:${port}${path}` },
  })
  assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body))
  return { auth, subscriptionId: (subscribed.body as { id: string }).id }
}

/** `count` new works of the account, through the balancer: their ids. */
async function createWorks(auth: Auth, count: number, name: string) {
  const works: string[] = []
  for (let n = 0; n < count; n++) {
    const res = await call(`${s.platform}/api/works`, {
      method: 'POST',
      headers: auth,
      json: { name: `${name} ${n} ${randomBytes(3).toString('hex')}` },
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    works.push((res.body as { id: string }).id)
  }
  return works
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

/**
 * Each occurrence of a schedule that pg-boss's scheduler forwarded (in both job schemas) and the jobs it made.
 * Every instance's scheduler sees every schedule; pg-boss files an occurrence as a job of its queue
 * `__pgboss__send-it`, one per schedule and minute (`singleton_on` is the occurrence's minute), and the
 * instance that takes that forward makes the scheduled job. A forward may be taken in the minute after its
 * occurrence (a deployment's first passes forward an occurrence up to a minute old), so a job's own minute is
 * not its occurrence's: each job counts for the last forward of its queue taken before it was made. A job made
 * before any forward of its queue has no occurrence (`occurrence` null).
 */
async function scheduledOccurrences() {
  const of = (schema: string) => `
    select f.queue, to_char(f.singleton_on, 'YYYY-MM-DD HH24:MI') as occurrence, f.state::text as state,
           (select count(*)::int from ${schema}.job j
             where j.name = f.queue and j.created_on >= f.started_on
               and (f.next_started_on is null or j.created_on < f.next_started_on)) as jobs
      from (select data->>'name' as queue, singleton_on, state, started_on,
                   lead(started_on) over (partition by data->>'name' order by started_on) as next_started_on
              from ${schema}.job
             where name = '__pgboss__send-it' and started_on is not null) f
    union all
    select j.name, null, null, count(*)::int
      from ${schema}.job j
     where j.name in (select name from ${schema}.schedule)
       and not exists (select 1 from ${schema}.job f
                        where f.name = '__pgboss__send-it' and f.data->>'name' = j.name
                          and f.started_on <= j.created_on)
     group by j.name`
  return s.query<{ queue: string; occurrence: string | null; state: string | null; jobs: number }>(
    `${of('directory_jobs')} union all ${of('platform_jobs')} order by 1, 2`,
  )
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

  it('an MCP client through the balancer: its calls are answered by every instance, as one conversation', async () => {
    const { accessToken } = await platformAccount()
    const created = await call(`${s.platform}/api/auth/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}` },
      json: { name: 'mcp through the balancer' },
    })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    const { key } = created.body as { key: string }
    const served = async (service: 'platform' | 'directory') =>
      Promise.all(
        s.instances.map((instance) =>
          metricOf(instance[service], 'curio_http_request_duration_seconds_count', {
            route: '/mcp',
            status_code: '200',
            service,
          }),
        ),
      )

    const before = await served('platform')
    const platform = new Client({ name: 'scale-out', version: '1.0.0' })
    await platform.connect(
      new StreamableHTTPClientTransport(new URL(`${s.platform}/mcp`), {
        requestInit: { headers: { 'x-api-key': key } },
      }),
    )
    const tools = await platform.listTools()
    assert.ok(tools.tools.some((tool) => tool.name === 'create_work'))
    const names: string[] = []
    for (let n = 0; n < COUNT * 2; n++) {
      const name = `Through the balancer ${n}`
      const work = await platform.callTool({ name: 'create_work', arguments: { name } })
      assert.ok(!work.isError, JSON.stringify(work.content))
      names.push(name)
      // Whichever instance answers, the works made through the others are there.
      const listed = await platform.callTool({ name: 'list_works', arguments: {} })
      const works = (listed.structuredContent as { works: { name: string }[] }).works
      assert.deepEqual(works.map((entry) => entry.name).sort(), [...names].sort())
    }
    await platform.close()
    const after = await served('platform')
    const perInstance = after.map((count, n) => count - (before[n] ?? 0))
    assert.ok(
      perInstance.every((count) => count >= 2),
      `MCP messages answered per instance: ${perInstance.join(', ')}`,
    )

    const directoryBefore = await served('directory')
    const directory = new Client({ name: 'scale-out', version: '1.0.0' })
    await directory.connect(new StreamableHTTPClientTransport(new URL(`${s.directory}/mcp`)))
    for (let n = 0; n < COUNT; n++) {
      const categories = await directory.callTool({ name: 'list_categories', arguments: {} })
      assert.ok(!categories.isError, JSON.stringify(categories.content))
    }
    await directory.close()
    const directoryAfter = await served('directory')
    assert.ok(
      directoryAfter.every((count, n) => count - (directoryBefore[n] ?? 0) >= 1),
      `directory MCP messages per instance: ${directoryAfter.map((count, n) => count - (directoryBefore[n] ?? 0)).join(', ')}`,
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

  /** `count` requests spread round the instances directly, `parallel` at once: their statuses, tallied. */
  async function spread(count: number, parallel: number, send: (instance: Instance) => Promise<number>) {
    const tally: Record<number, number> = {}
    let next = 0
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < count) {
          const status = await send(s.instances[next++ % COUNT] as Instance)
          tally[status] = (tally[status] ?? 0) + 1
        }
      }),
    )
    return tally
  }

  it('rate limits are shared: the payment webhook limit (1,000 a minute per client) counts every instance’s requests', async () => {
    const client = `198.51.100.${1 + Math.floor(Math.random() * 250)}`
    const post = async (instance: Instance) => {
      const res = await fetch(`${instance.directory}/api/stripe/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
        body: '{}',
      })
      await res.arrayBuffer()
      return res.status
    }
    // Unsigned, so each is refused (400) after it is counted.
    assert.deepEqual(await spread(1000, 20, post), { 400: 1000 })
    assert.deepEqual(
      await Promise.all(s.instances.map(post)),
      s.instances.map(() => 429),
    )
  })

  it('rate limits are shared: the public item list (100 a minute per client) counts every instance’s reads', async () => {
    const client = `192.0.2.${1 + Math.floor(Math.random() * 250)}`
    const read = async (instance: Instance) => {
      const res = await fetch(`${instance.directory}/api/items?limit=5`, {
        headers: { 'x-forwarded-for': client },
      })
      await res.arrayBuffer()
      return res.status
    }
    assert.deepEqual(await spread(100, 10, read), { 200: 100 })
    const over = await call(`${s.instances[0]?.directory}/api/items`, {
      headers: { 'x-forwarded-for': client },
    })
    assert.equal(over.status, 429)
    assert.equal(over.headers.get('x-ratelimit-remaining'), '0')
    assert.deepEqual(
      await Promise.all(s.instances.slice(1).map(read)),
      s.instances.slice(1).map(() => 429),
    )
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

  it('a category write and an item write reach the category list and the item counts of every instance', async () => {
    const headers = { cookie: await adminCookie(), origin: ORIGIN }
    const id = `scale-${randomBytes(3).toString('hex')}`
    const created = await call(`${s.directory}/api/admin/categories`, {
      method: 'POST',
      headers,
      json: { id, name: 'Scale out' },
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const view = async (instance: Instance) => {
      const all = await call(`${instance.directory}/api/admin/categories/all`, { headers })
      const list = await call(`${instance.directory}/api/admin/items?category=${id}`, { headers })
      const category = (all.body.data as { id: string; name: string; itemCount: number }[]).find(
        (entry) => entry.id === id,
      )
      return {
        name: category?.name,
        itemCount: category?.itemCount,
        total: (list.body.meta as { total: number }).total,
      }
    }
    // Every instance has read (and cached) the category and the count.
    for (const instance of s.instances) {
      assert.deepEqual(await view(instance), { name: 'Scale out', itemCount: 0, total: 0 }, instance.name)
    }
    const [first, second] = s.instances as [Instance, Instance]
    const renamed = await call(`${first.directory}/api/admin/categories/${id}`, {
      method: 'PUT',
      headers,
      json: { name: 'Scale out, renamed' },
    })
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
    const slug = `scale-out-${randomBytes(4).toString('hex')}`
    const item = await call(`${second.directory}/api/admin/items`, {
      method: 'POST',
      headers,
      json: { name: slug, slug, status: 'published', categoryId: id },
    })
    assert.equal(item.status, 201, JSON.stringify(item.body))
    const expected = { name: 'Scale out, renamed', itemCount: 1, total: 1 }
    for (const instance of s.instances) {
      const seen = await until(
        () => view(instance),
        (value) => isDeepStrictEqual(value, expected),
        2000,
      )
      assert.deepEqual(seen, expected, `${instance.name} still serves the old category or count`)
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
    const { auth, subscriptionId } = await subscriber('/hook')
    const works = await createWorks(auth, COUNT * 8, 'Scale')
    const mine = () =>
      deliveries.filter((entry) => entry.event === 'work.created' && works.includes(entry.workId ?? ''))
    await until(mine, (list) => list.length >= works.length, 30_000)
    assert.equal(mine().length, works.length, 'one delivery per work.created')
    // Each delivery was attempted once: no instance sent one that another had already sent.
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

  it('each deployment verification poll is made once, not once per instance', async () => {
    const { accessToken } = await platformAccount()
    const auth = { authorization: `Bearer ${accessToken}` }
    for (const [plugin, token] of [
      ['vercel', VERCEL_TOKEN],
      ['github', GH_TOKEN],
    ]) {
      const res = await call(`${s.platform}/api/plugins/${plugin}/enable`, {
        method: 'POST',
        headers: auth,
        json: { secretSettings: { token } },
      })
      assert.equal(res.status, 200, JSON.stringify(res.body))
    }
    const started: { workId: string; project: string }[] = []
    for (const workId of await createWorks(auth, COUNT * 2, 'Deployed')) {
      const deploy = await call(`${s.platform}/api/deploy/works/${workId}`, {
        method: 'POST',
        headers: auth,
        json: {},
      })
      assert.equal(deploy.status, 200, JSON.stringify(deploy.body))
      started.push({ workId, project: (deploy.body.repository as string).split('/')[1] as string })
    }
    type Seen = { state: string; polls: number; providerDeploymentId: string | null } | null
    const lookup = async (workId: string) =>
      (await call(`${s.platform}/api/deploy/works/${workId}/lookup`, { method: 'POST', headers: auth })).body
        .deployment as Seen
    const final = await until(
      () => Promise.all(started.map(({ workId }) => lookup(workId))),
      (list) =>
        list.every((deployment) =>
          ['READY', 'ERROR', 'CANCELED', 'TIMEOUT'].includes(deployment?.state ?? ''),
        ),
      60_000,
    )
    started.forEach(({ project }, n) => {
      const deployment = final[n]
      assert.equal(deployment?.state, 'READY', JSON.stringify(deployment))
      // Every poll asked Vercel once: a poll run by two instances would have read the deployment twice.
      const reads = vercel.requests.filter(
        (request) =>
          request.method === 'GET' &&
          ((/^\/v[67]\/deployments$/.test(request.path) && request.query.projectId === project) ||
            request.path === `/v13/deployments/${deployment?.providerDeploymentId}`),
      )
      assert.equal(
        reads.length,
        deployment?.polls,
        `${project}: ${reads.length} reads for ${deployment?.polls} polls`,
      )
      assert.ok((deployment?.polls ?? 0) >= VERCEL_STATES.length, `${project}: ${deployment?.polls} polls`)
    })
  })

  it('an instance killed with SIGKILL mid-run loses nothing: acknowledged writes are stored, its deliveries in flight are made again', async () => {
    // Deliveries in flight: the receiver holds its answers, so attempts are open on the instances when one dies.
    const { auth, subscriptionId } = await subscriber('/held')

    // Writes in flight: admin item creations through the balancer, until 30 more after the kill.
    const cookie = await adminCookie()
    const acknowledged: string[] = []
    const refused: number[] = []
    let sent = 0
    let stopAt = Number.POSITIVE_INFINITY
    const writer = async () => {
      while (sent < stopAt) {
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
    holding = true
    const writers = Promise.all([writer(), writer(), writer()])

    const works = await createWorks(auth, COUNT * 5, 'Held')
    const held = () =>
      deliveries.filter((entry) => entry.path === '/held' && works.includes(entry.workId ?? ''))
    // Every delivery open on some instance, or as many as the instances took within 4 s.
    await until(held, (list) => list.length === works.length, 4000)
    const byInstance = new Map<string, number>()
    for (const entry of held()) {
      const owner = s.ownerOf(entry.port, entry.serverPort)?.name
      if (owner) byInstance.set(owner, (byInstance.get(owner) ?? 0) + 1)
    }
    const [victim, open] = [...byInstance].sort((a, b) => b[1] - a[1])[0] ?? ['', 0]
    assert.ok(open > 0, `no instance holds a delivery: ${JSON.stringify([...byInstance])}`)

    await s.kill(victim)
    stopAt = sent + 30
    holding = false
    for (const entry of held()) entry.answer()
    await writers

    assert.ok(
      acknowledged.length >= 30,
      `${acknowledged.length} acknowledged; refused: ${refused.join(', ')}`,
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

    // The victim's attempts died with it (their connections closed unanswered); another instance makes them
    // again once their lease is over, with the same delivery id.
    const cut = held().filter((entry) => entry.aborted)
    assert.equal(cut.length, open, 'every attempt open on the killed instance was cut')
    const answeredFor = (workId: string) => held().some((entry) => entry.workId === workId && entry.answered)
    await until(
      () => works.every(answeredFor),
      (done) => done,
      150_000,
    )
    assert.deepEqual(
      works.filter((workId) => !answeredFor(workId)),
      [],
      'every work.created was delivered',
    )
    for (const entry of cut) {
      assert.ok(
        held().some((again) => again.delivery === entry.delivery && again.answered),
        `delivery ${entry.delivery} was made again`,
      )
    }
    // An instance records an outcome once the answer has reached it, a moment after the receiver sent it.
    const outcomes = async () =>
      (
        await s.query<{ status: string; n: string }>(
          `select status, count(*) as n from platform.webhook_deliveries
            where subscription_id = $1 and event = 'work.created' group by status`,
          [subscriptionId],
        )
      ).map((row) => [row.status, Number(row.n)])
    const recorded = await until(
      outcomes,
      (list) => isDeepStrictEqual(list, [['succeeded', works.length]]),
      10_000,
    )
    assert.deepEqual(recorded, [['succeeded', works.length]])

    const restarted = await s.restart(victim)
    assert.equal((await call(`${restarted.directory}/readyz`)).status, 200)
    assert.equal((await call(`${restarted.platform}/readyz`)).status, 200)
  })

  it('an instance whose database link is cut answers 503 and leaves the balancer while the others serve; nothing acknowledged is lost; it rejoins', async (t) => {
    const victim = s.instances[1]!
    const link = s.databaseLink(victim.name)
    const cookie = await adminCookie()
    const write = async (base: string) => {
      const started = performance.now()
      const slug = `partition-${randomBytes(5).toString('hex')}`
      const res = await call(`${base}/api/admin/items`, {
        method: 'POST',
        headers: { cookie, origin: ORIGIN },
        json: { name: slug, slug, status: 'draft' },
        signal: AbortSignal.timeout(15_000),
      }).catch(() => ({ status: 0, body: {} as Record<string, unknown>, headers: new Headers() }))
      return { started, ms: performance.now() - started, res }
    }
    const answers: Awaited<ReturnType<typeof write>>[] = []
    let writing = true
    const writer = async () => {
      while (writing) answers.push(await write(s.directory))
    }
    const writers = Promise.all([writer(), writer(), writer()])
    await new Promise((resolve) => setTimeout(resolve, 500))

    // The link holds its packets: the hardest case, where nothing is refused and only timeouts tell.
    link.blackhole()
    const cutAt = performance.now()
    const readyStarted = performance.now()
    const victimReady = await call(`${victim.directory}/readyz`)
    const readyMs = performance.now() - readyStarted
    const direct = await write(victim.directory)
    await new Promise((resolve) => setTimeout(resolve, 7000))
    await link.restore()
    const restoredAt = performance.now()
    writing = false
    await writers

    const during = answers.filter(({ started }) => started >= cutAt && started < restoredAt)
    const refusedDuring = during.filter(({ res }) => res.status !== 201)
    t.diagnostic(
      `link cut ${Math.round(restoredAt - cutAt)} ms: through the balancer ${during.length - refusedDuring.length} × 201, ` +
        `${refusedDuring.length} × 503, the last 503 begun ${Math.round(Math.max(0, ...refusedDuring.map(({ started }) => started - cutAt)))} ms into the cut; ` +
        `the cut instance: /readyz 503 in ${Math.round(readyMs)} ms, a write 503 in ${Math.round(direct.ms)} ms`,
    )
    assert.equal(victimReady.status, 503)
    assert.ok(readyMs < 2000, `the cut instance's /readyz answered in ${Math.round(readyMs)} ms`)
    assert.equal(direct.res.status, 503)
    assert.equal(direct.res.body.code, 'DATABASE_UNAVAILABLE')
    assert.equal(direct.res.headers.get('retry-after'), '5')
    assert.ok(direct.ms < 5000, `the cut instance answered a write in ${Math.round(direct.ms)} ms`)
    // Through the balancer: 201, or 503 from the cut instance until the health checks take it out, never
    // a 500 or a hang; once out, every write is served by the others.
    for (const { res, ms } of answers) {
      assert.ok(
        res.status === 201 || (res.status === 503 && res.body.code === 'DATABASE_UNAVAILABLE'),
        `${res.status} ${JSON.stringify(res.body)}`,
      )
      assert.ok(ms < 5000, `a write answered in ${Math.round(ms)} ms`)
    }
    const settledOut = answers.filter(({ started }) => started > cutAt + 6000 && started < restoredAt)
    assert.ok(settledOut.length > 0, 'writes were made once the balancer had taken the instance out')
    assert.deepEqual(
      settledOut.filter(({ res }) => res.status !== 201).map(({ res }) => res.status),
      [],
      'the balancer sends nothing to the cut instance once its /readyz fails',
    )
    const acknowledged = answers
      .filter(({ res }) => res.status === 201)
      .map(({ res }) => (res.body.data as { id: string }).id)
    const stored = await s.query<{ id: string }>(
      'select id from directory.items where id = any($1::uuid[])',
      [acknowledged],
    )
    assert.equal(stored.length, acknowledged.length, 'every acknowledged write is stored')

    // Back by itself: ready within seconds, and the balancer sends it requests again.
    const back = await until(
      async () => (await call(`${victim.directory}/readyz`)).status,
      (status) => status === 200,
      10_000,
    )
    assert.equal(back, 200, 'the instance is ready again once its link is back')
    assert.equal(victim.child.exitCode, null, 'the cut instance never exited')
    const servedBefore = await metricOf(victim.directory, 'curio_http_request_duration_seconds_count', {
      route: '/api/admin/items',
      method: 'POST',
    })
    const served = await until(
      async () => {
        await write(s.directory)
        return metricOf(victim.directory, 'curio_http_request_duration_seconds_count', {
          route: '/api/admin/items',
          method: 'POST',
        })
      },
      (count) => count > servedBefore,
      15_000,
    )
    assert.ok(served > servedBefore, 'the balancer sends the instance writes again')
    assert.ok(performance.now() - restoredAt < 25_000)
  })

  it('scheduled jobs run once per schedule, not once per instance: a cleanup, the sponsor-ad expiry, the recovery passes', async () => {
    const everyMinute = [
      'session-cleanup',
      'sponsor-ads-expire',
      'webhook-delivery-recovery',
      'deploy-verification-recovery',
    ]
    const ran = await until(
      scheduledOccurrences,
      (rows) =>
        everyMinute.every((queue) =>
          rows.some((row) => row.queue === queue && row.state === 'completed' && row.jobs === 1),
        ),
      90_000,
    )
    assert.deepEqual(
      everyMinute.filter(
        (queue) => !ran.some((row) => row.queue === queue && row.state === 'completed' && row.jobs === 1),
      ),
      [],
      'every every-minute schedule made a job',
    )
    assert.deepEqual(
      ran.filter((row) => row.occurrence === null),
      [],
      'every job of a scheduled queue was made for an occurrence of its schedule',
    )
    const forwards = new Map<string, number>()
    for (const { queue, occurrence } of ran) {
      const key = `${queue} ${occurrence}`
      if (occurrence !== null) forwards.set(key, (forwards.get(key) ?? 0) + 1)
    }
    assert.deepEqual(
      [...forwards].filter(([, count]) => count !== 1),
      [],
      'each occurrence of a schedule was forwarded once',
    )
    // A forward still running (or cut by the SIGKILL) has made its job or not yet.
    assert.deepEqual(
      ran.filter(
        (row) => row.occurrence !== null && (row.state === 'completed' ? row.jobs !== 1 : row.jobs > 1),
      ),
      [],
      'each occurrence of a schedule made one job',
    )
  })
})
