import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { MCP_RATE_LIMIT } from '../../src/platform/mcp/routes.ts'
import { platformTools } from '../../src/platform/mcp/tools.ts'
import { startOpenAiFake } from '../fakes/openai.ts'
import { type PlatformHarness, randomAddress, startPlatform, uniqueEmail } from '../helpers/apps.ts'
import { type Account, call, createWork, enablePlugin, eventually, register } from '../helpers/platform.ts'

let fake: Awaited<ReturnType<typeof startOpenAiFake>>
let h: PlatformHarness
let second: PlatformHarness
let url: string
let secondUrl: string

before(async () => {
  fake = await startOpenAiFake()
  const env = { OPENAI_API_URL: fake.url, AI_PROVIDER_MAX_RETRIES: '0', AI_PROVIDER_TIMEOUT_MS: '30000' }
  h = await startPlatform({ env })
  // A second instance on the same database, as behind a load balancer.
  second = await startPlatform({ env, databases: h.databases })
  url = `${await h.app.listen({ port: 0, host: '127.0.0.1' })}/mcp`
  secondUrl = `${await second.app.listen({ port: 0, host: '127.0.0.1' })}/mcp`
})
after(async () => {
  await second?.close()
  await h?.close()
  await fake?.close()
})

interface KeyedAccount extends Account {
  key: string
  keyId: string
}

async function keyed(prefix = 'mcp'): Promise<KeyedAccount> {
  const account = await register(h, prefix)
  const res = await call(h, account, 'POST', '/api/auth/api-keys', { name: 'assistant' })
  assert.equal(res.statusCode, 200, res.body)
  return { ...account, key: res.json().key, keyId: res.json().id }
}

/** An MCP client of the SDK, connected over HTTP with `headers`; `fetch` may route its requests. */
async function connect(headers: Record<string, string>, fetch?: typeof globalThis.fetch) {
  const client = new Client({ name: 'curio-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    ...(fetch ? { fetch } : {}),
  })
  await client.connect(transport)
  return client
}

const withKey = (account: KeyedAccount) => ({ 'x-api-key': account.key })

/** The REST answer to the same request, with the same key. */
async function rest(account: KeyedAccount, method: string, path: string, payload?: unknown) {
  const res = await h.app.inject({
    method: method as 'GET',
    url: path,
    headers: withKey(account),
    ...(payload === undefined ? {} : { payload: payload as object }),
  })
  return { status: res.statusCode, body: res.json() }
}

type ToolResult = {
  isError?: boolean
  content: { type: string; text: string }[]
  structuredContent?: Record<string, unknown>
}

async function tool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as ToolResult
}

/** A tool error's body: the REST error's status, code and message. */
function errorOf(result: ToolResult) {
  assert.equal(result.isError, true, JSON.stringify(result))
  return JSON.parse(result.content[0]!.text) as { status: number; code: string; message: string }
}

describe('platform MCP: tools', () => {
  let owner: KeyedAccount
  let client: Client

  before(async () => {
    owner = await keyed()
    await enablePlugin(h, owner, 'openai', { secretSettings: { apiKey: fake.apiKey } })
    client = await connect(withKey(owner))
  })
  after(async () => {
    await client?.close()
  })

  it('initializes and lists every tool with an object input schema and a description', async () => {
    assert.equal(client.getServerVersion()?.name, 'curio-platform')
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'create_work',
      'deploy_work',
      'get_deployment_status',
      'get_generation',
      'get_work',
      'list_activity',
      'list_notifications',
      'list_work_items',
      'list_works',
      'start_generation',
    ])
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name)
      assert.ok((t.description ?? '').length > 80, `${t.name} is described`)
    }
    const create = tools.find((t) => t.name === 'create_work')!
    assert.deepEqual(create.inputSchema.required, ['name'])
    const start = tools.find((t) => t.name === 'start_generation')!
    assert.ok(start.inputSchema.properties && 'id' in start.inputSchema.properties)
    assert.ok('prompt' in start.inputSchema.properties)
  })

  it('each tool names a REST route the app has, whose access level gives the key its rights', () => {
    const catalog = new Map(h.app.routeCatalog.map((route) => [`${route.method} ${route.url}`, route.access]))
    const levels = Object.fromEntries(
      platformTools({} as Parameters<typeof platformTools>[0]).map((tool) => [
        tool.name,
        catalog.get(tool.route),
      ]),
    )
    assert.deepEqual(levels, {
      list_works: 'jwt-or-api-key',
      get_work: 'jwt-or-api-key',
      create_work: 'jwt-or-api-key',
      start_generation: 'jwt-or-api-key',
      get_generation: 'jwt-or-api-key',
      list_work_items: 'jwt-or-api-key',
      deploy_work: 'jwt',
      get_deployment_status: 'jwt',
      list_activity: 'jwt-or-api-key',
      list_notifications: 'jwt',
    })
  })

  it('create_work, list_works, get_work and list_activity answer what REST answers', async () => {
    const created = await tool(client, 'create_work', { name: 'Lisbon cafés', description: 'Coffee' })
    assert.equal(created.isError, undefined)
    const work = created.structuredContent as { id: string; name: string; role: string }
    assert.equal(work.name, 'Lisbon cafés')
    assert.equal(work.role, 'owner')
    assert.deepEqual(JSON.parse(created.content[0]!.text), work)

    const listed = await tool(client, 'list_works')
    assert.deepEqual(listed.structuredContent, (await rest(owner, 'GET', '/api/works')).body)
    const got = await tool(client, 'get_work', { id: work.id })
    assert.deepEqual(got.structuredContent, (await rest(owner, 'GET', `/api/works/${work.id}`)).body)
    const activity = await tool(client, 'list_activity', { limit: 5 })
    const restActivity = await rest(owner, 'GET', '/api/activity-log?limit=5')
    assert.deepEqual(activity.structuredContent, restActivity.body)
    const entries = (activity.structuredContent as { activities: { summary: string }[] }).activities
    assert.ok(entries.some((entry) => entry.summary.includes('Lisbon cafés')))
  })

  it('start_generation runs the generation; get_generation and list_work_items follow it', async () => {
    const work = await createWork(h, owner, 'Coffee roasters')
    const started = await tool(client, 'start_generation', { id: work.id, prompt: 'Roasters in Porto' })
    assert.deepEqual(started.structuredContent, { status: 'GENERATING' })
    const done = await eventually(
      async () => (await tool(client, 'get_generation', { id: work.id })).structuredContent,
      (status) =>
        ['COMPLETED', 'ERROR'].includes(
          (status as { generateStatus: { status: string } }).generateStatus.status,
        ),
    )
    const restWork = (await rest(owner, 'GET', `/api/works/${work.id}`)).body
    assert.deepEqual(done, { workId: work.id, generateStatus: restWork.generateStatus })
    assert.equal(restWork.generateStatus.status, 'COMPLETED')
    const items = await tool(client, 'list_work_items', { id: work.id })
    const restItems = (await rest(owner, 'GET', `/api/works/${work.id}/items`)).body
    assert.deepEqual(items.structuredContent, restItems)
    assert.ok(restItems.items.length > 0)
  })

  it('a service’s refusal is a tool error with REST’s status, code and message', async () => {
    const plain = await keyed('no-provider')
    const work = await createWork(h, plain, 'No provider')
    const restAnswer = await rest(plain, 'POST', `/api/works/${work.id}/generate`, {})
    const other = await connect(withKey(plain))
    const error = errorOf(await tool(other, 'start_generation', { id: work.id }))
    await other.close()
    assert.deepEqual(error, {
      status: restAnswer.status,
      code: restAnswer.body.code,
      message: restAnswer.body.message,
    })
    assert.equal(error.code, 'NO_AI_PROVIDER')
  })

  it('deployments and notifications answer API_KEY_NOT_ALLOWED, as REST answers the key', async () => {
    const work = await createWork(h, owner, 'Deployable')
    const restDeploy = await rest(owner, 'POST', `/api/deploy/works/${work.id}`, {})
    const restNotifications = await rest(owner, 'GET', '/api/notifications')
    for (const [name, args, answer] of [
      ['deploy_work', { id: work.id }, restDeploy],
      ['get_deployment_status', { id: work.id }, restDeploy],
      ['list_notifications', {}, restNotifications],
    ] as const) {
      const error = errorOf(await tool(client, name, args))
      assert.equal(answer.status, 403)
      assert.deepEqual(
        { status: error.status, code: error.code, message: error.message },
        { status: 403, code: answer.body.code, message: answer.body.message },
        name,
      )
    }
  })

  it('another account’s work is WORK_NOT_FOUND with REST’s message, and nothing of it shows', async () => {
    const stranger = await keyed('stranger')
    const theirs = await createWork(h, stranger, 'Secret plans')
    const restAnswer = await rest(owner, 'GET', `/api/works/${theirs.id}`)
    assert.equal(restAnswer.status, 404)
    for (const name of ['get_work', 'get_generation', 'list_work_items', 'start_generation']) {
      const result = await tool(client, name, { id: theirs.id })
      const error = errorOf(result)
      assert.deepEqual(error, { status: 404, code: 'WORK_NOT_FOUND', message: restAnswer.body.message }, name)
      assert.ok(!result.content[0]!.text.includes('Secret plans'))
    }
    const listed = await tool(client, 'list_works')
    assert.ok(!JSON.stringify(listed.structuredContent).includes('Secret plans'))
  })

  it('bad arguments are a tool error naming each field; an unknown tool is a protocol error', async () => {
    const error = errorOf(await tool(client, 'create_work', { name: 42 }))
    assert.equal(error.status, 400)
    assert.equal(error.code, 'VALIDATION_ERROR')
    assert.match(error.message, /arguments\.name/)
    const missing = errorOf(await tool(client, 'get_work', {}))
    assert.match(missing.message, /arguments\.id/)
    await assert.rejects(tool(client, 'drop_tables'), /Unknown tool: drop_tables/)
  })
})

describe('platform MCP: who may call it', () => {
  it('no key, an access token, a forged key and a revoked key are 401: the client cannot connect', async () => {
    const account = await keyed()
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Bearer ${account.token}` },
      { 'x-api-key': `svc_live_${'0'.repeat(64)}` },
    ]) {
      await assert.rejects(connect(headers), /401/)
    }
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    })
    assert.equal(res.status, 401)
    const body = (await res.json()) as { code: string; statusCode: number }
    assert.equal(body.statusCode, 401)
    assert.equal(body.code, 'UNAUTHORIZED')
  })

  it('takes the key as Authorization: Bearer too', async () => {
    const account = await keyed()
    const client = await connect({ authorization: `Bearer ${account.key}` })
    const listed = await tool(client, 'list_works')
    assert.deepEqual(listed.structuredContent, { works: [] })
    await client.close()
  })

  it('a key revoked mid-way is refused on its next call', async () => {
    const account = await keyed()
    const client = await connect(withKey(account))
    assert.equal((await tool(client, 'list_works')).isError, undefined)
    const revoked = await call(h, account, 'DELETE', `/api/auth/api-keys/${account.keyId}`)
    assert.ok(revoked.statusCode < 300, revoked.body)
    await assert.rejects(tool(client, 'list_works'), /401/)
    await client.close()
  })

  it('GET and DELETE /mcp are 405 with Allow: POST, in the platform’s error shape', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(url, { method, headers: { accept: 'text/event-stream' } })
      assert.equal(res.status, 405)
      assert.equal(res.headers.get('allow'), 'POST')
      const body = (await res.json()) as { code: string; statusCode: number }
      assert.equal(body.code, 'METHOD_NOT_ALLOWED')
      assert.equal(body.statusCode, 405)
    }
  })

  it(`is limited to ${MCP_RATE_LIMIT.limit} messages a minute per key`, async () => {
    const limited = await startPlatform({ env: { RATE_LIMIT_BYPASS_LOCALHOST: 'false' } })
    try {
      const address = randomAddress()
      const inject = (payload: object, headers: Record<string, string>) =>
        limited.app.inject({ method: 'POST', url: '/mcp', remoteAddress: address, headers, payload })
      const registered = await limited.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        remoteAddress: randomAddress(),
        payload: { email: uniqueEmail('limit'), password: 'a good password' },
      })
      const token = registered.json().accessToken
      const key = await limited.app.inject({
        method: 'POST',
        url: '/api/auth/api-keys',
        remoteAddress: randomAddress(),
        headers: { authorization: `Bearer ${token}` },
        payload: { name: 'limit' },
      })
      const headers = { 'x-api-key': key.json().key }
      const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }
      for (let i = 0; i < MCP_RATE_LIMIT.limit; i++) {
        const res = await inject(ping, headers)
        assert.equal(res.statusCode, 200, res.body)
      }
      const refused = await inject(ping, headers)
      assert.equal(refused.statusCode, 429)
      assert.equal(refused.json().code, 'RATE_LIMITED')
      assert.ok(refused.headers['retry-after'])
    } finally {
      await limited.close()
    }
  })
})

describe('platform MCP: two instances', () => {
  it('answer one client’s calls in turn, with no session between them', async () => {
    const account = await keyed()
    const urls = [url, secondUrl]
    const seen: string[] = []
    let turn = 0
    const alternate: typeof fetch = (input, init) => {
      const target = urls[turn++ % 2]!
      seen.push(target)
      const path = new URL(input instanceof Request ? input.url : String(input))
      return fetch(new URL(path.pathname, target), init)
    }
    const client = await connect(withKey(account), alternate)
    const created = await tool(client, 'create_work', { name: 'Shared state' })
    const id = (created.structuredContent as { id: string }).id
    const got = await tool(client, 'get_work', { id })
    assert.equal((got.structuredContent as { name: string }).name, 'Shared state')
    const listed = await tool(client, 'list_works')
    assert.equal((listed.structuredContent as { works: unknown[] }).works.length, 1)
    assert.ok(seen.includes(url) && seen.includes(secondUrl), 'both instances answered')
    await client.close()
  })
})
