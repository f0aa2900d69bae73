import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { MCP_RATE_LIMIT } from '../../src/directory/mcp/routes.ts'
import { type DirectoryHarness, randomAddress, startDirectory } from '../helpers/apps.ts'
import { type Method, type Requests, siteRequests } from '../helpers/requests.ts'

let h: DirectoryHarness
let second: DirectoryHarness
let api: Requests
let url: string
let secondUrl: string

before(async () => {
  h = await startDirectory()
  second = await startDirectory({ databases: h.databases })
  api = siteRequests(h, { cookie: await h.adminCookie() })
  url = `${await h.app.listen({ port: 0, host: '127.0.0.1' })}/mcp`
  secondUrl = `${await second.app.listen({ port: 0, host: '127.0.0.1' })}/mcp`
})
after(async () => {
  await second?.close()
  await h?.close()
})

async function ok(method: Method, path: string, payload?: unknown, status = 200) {
  const res = await api.request(method, path, { body: payload })
  assert.equal(res.statusCode, status, `${method} ${path}: ${res.body}`)
  return res.json()
}

/** The public REST answer to the same read, as a visitor gets it. */
async function rest(path: string) {
  const res = await h.app.inject({ method: 'GET', url: path, remoteAddress: randomAddress() })
  return { status: res.statusCode, body: res.json() }
}

async function connect(fetch?: typeof globalThis.fetch) {
  const client = new Client({ name: 'curio-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}))
  return client
}

type ToolResult = {
  isError?: boolean
  content: { type: string; text: string }[]
  structuredContent?: Record<string, unknown>
}

const tool = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as ToolResult

describe('directory MCP', () => {
  let client: Client
  let categoryId: string

  before(async () => {
    categoryId = (await ok('POST', '/api/admin/categories', { name: 'Roasters' }, 201)).category.id
    await ok('POST', '/api/admin/categories', { name: 'Cafés' }, 201)
    for (const [name, status] of [
      ['Blue Bottle', 'published'],
      ['Bean Counter', 'published'],
      ['Hidden Draft', 'draft'],
    ] as const) {
      await ok(
        'POST',
        '/api/admin/items',
        { name, status, categoryId, description: `${name} roasts coffee` },
        201,
      )
    }
    await ok('POST', '/api/admin/featured-items', { itemSlug: 'blue-bottle' }, 201)
    client = await connect()
  })
  after(async () => {
    await client?.close()
  })

  it('initializes anonymously and lists its four read-only tools', async () => {
    assert.equal(client.getServerVersion()?.name, 'curio-directory')
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'get_item',
      'list_categories',
      'list_featured_items',
      'search_items',
    ])
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name)
      assert.equal(t.annotations?.readOnlyHint, true, t.name)
      assert.ok((t.description ?? '').length > 80, `${t.name} is described`)
    }
    const search = tools.find((t) => t.name === 'search_items')!
    assert.ok(search.inputSchema.properties && 'search' in search.inputSchema.properties)
  })

  it('search_items answers what GET /api/items answers, published items only', async () => {
    const all = await tool(client, 'search_items')
    assert.deepEqual(all.structuredContent, (await rest('/api/items')).body)
    const names = (all.structuredContent as { data: { name: string }[] }).data.map((item) => item.name)
    assert.deepEqual(names.sort(), ['Bean Counter', 'Blue Bottle'])
    const found = await tool(client, 'search_items', { search: 'blue', category: categoryId, limit: 5 })
    assert.deepEqual(
      found.structuredContent,
      (await rest(`/api/items?search=blue&category=${categoryId}&limit=5`)).body,
    )
    assert.equal((found.structuredContent as { data: unknown[] }).data.length, 1)
    assert.deepEqual(JSON.parse(all.content[0]!.text), all.structuredContent)
  })

  it('get_item answers GET /api/items/:slug; a draft or unknown slug is ITEM_NOT_FOUND', async () => {
    const got = await tool(client, 'get_item', { slug: 'blue-bottle' })
    assert.deepEqual(got.structuredContent, (await rest('/api/items/blue-bottle')).body)
    const restMissing = await rest('/api/items/hidden-draft')
    for (const slug of ['hidden-draft', 'no-such-item']) {
      const missing = await tool(client, 'get_item', { slug })
      assert.equal(missing.isError, true)
      assert.deepEqual(JSON.parse(missing.content[0]!.text), {
        status: 404,
        code: 'ITEM_NOT_FOUND',
        message: restMissing.body.error,
      })
    }
  })

  it('list_categories lists the active categories with their published counts', async () => {
    const listed = await tool(client, 'list_categories')
    const data = (listed.structuredContent as { data: { id: string; name: string; itemCount: number }[] })
      .data
    const admin = (await ok('GET', '/api/admin/categories/all')).data as { id: string; itemCount: number }[]
    assert.deepEqual(
      data.map((category) => category.id),
      admin.map((category) => category.id),
    )
    assert.deepEqual(
      data.find((category) => category.id === categoryId),
      { id: categoryId, name: 'Roasters', itemCount: 2 },
    )
    assert.ok(!JSON.stringify(data).includes('createdAt'), 'only the public fields')
  })

  it('list_featured_items answers what GET /api/featured-items answers', async () => {
    const shelf = await tool(client, 'list_featured_items', { limit: 3 })
    assert.deepEqual(shelf.structuredContent, (await rest('/api/featured-items?limit=3')).body)
    assert.equal((shelf.structuredContent as { count: number }).count, 1)
  })

  it('bad arguments are a tool error naming the field', async () => {
    const result = await tool(client, 'search_items', { limit: 1000 })
    assert.equal(result.isError, true)
    const error = JSON.parse(result.content[0]!.text)
    assert.equal(error.code, 'VALIDATION_ERROR')
    assert.match(error.message, /arguments\.limit/)
  })

  it('a write on one instance shows in the other’s answers; one client’s calls alternate between them', async () => {
    const urls = [url, secondUrl]
    const seen = new Set<string>()
    let turn = 0
    const alternate: typeof fetch = (input, init) => {
      const target = urls[turn++ % 2]!
      seen.add(target)
      const path = new URL(input instanceof Request ? input.url : String(input))
      return fetch(new URL(path.pathname, target), init)
    }
    const both = await connect(alternate)
    const before = await tool(both, 'search_items', { search: 'fresh' })
    assert.equal((before.structuredContent as { data: unknown[] }).data.length, 0)
    await ok('POST', '/api/admin/items', { name: 'Fresh Roast', status: 'published', categoryId }, 201)
    for (let i = 0; i < 2; i++) {
      const after = await tool(both, 'search_items', { search: 'fresh' })
      assert.equal((after.structuredContent as { data: unknown[] }).data.length, 1, `call ${i}`)
    }
    assert.equal(seen.size, 2, 'both instances answered')
    await both.close()
  })

  it('GET /mcp is 405 with Allow: POST, in the directory’s error shape', async () => {
    const res = await fetch(url, { headers: { accept: 'text/event-stream' } })
    assert.equal(res.status, 405)
    assert.equal(res.headers.get('allow'), 'POST')
    const body = (await res.json()) as { success: boolean; code: string }
    assert.deepEqual([body.success, body.code], [false, 'METHOD_NOT_ALLOWED'])
  })

  it('a message that is not JSON-RPC is 400 in the directory’s error shape', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '1.0', method: 'tools/list', id: 1 }),
    })
    assert.equal(res.status, 400)
    const body = (await res.json()) as { success: boolean; code: string; error: string }
    assert.deepEqual(
      [body.success, body.code, body.error],
      [false, 'VALIDATION_ERROR', 'body.jsonrpc must be "2.0"'],
    )
  })

  it('a tools/call without a tool name or with arguments that are not an object is invalid params', async () => {
    for (const [params, message] of [
      [{ arguments: {} }, 'Invalid params: params.name must be the name of a tool (a string)'],
      [{ name: 'get_item', arguments: 'blue-bottle' }, 'Invalid params: params.arguments must be an object'],
    ] as const) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
      })
      assert.equal(res.status, 200)
      assert.deepEqual(await res.json(), { jsonrpc: '2.0', id: 7, error: { code: -32602, message } })
    }
  })

  it('an unsupported protocol version is the transport’s 400, in the directory’s error shape', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': '1999-01-01' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'ping', id: 1 }),
    })
    assert.equal(res.status, 400)
    const body = (await res.json()) as { success: boolean; code: string; error: string }
    assert.deepEqual([body.success, body.code], [false, 'BAD_REQUEST'])
    assert.match(body.error, /Unsupported protocol version: 1999-01-01/)
  })

  it('answers a client that accepts only JSON, and a notification with an empty 202', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'tools/list', id: 'a' }),
    })
    assert.equal(res.status, 200)
    const answer = (await res.json()) as { id: string; result: { tools: unknown[] } }
    assert.deepEqual([answer.id, answer.result.tools.length], ['a', 4])
    const notified = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
    assert.equal(notified.status, 202)
    assert.equal(await notified.text(), '')
  })
})

describe('directory MCP: rate limit', () => {
  it(`allows ${MCP_RATE_LIMIT.limit} messages a minute per client, then 429`, async () => {
    const limited = await startDirectory({ env: { RATE_LIMIT_BYPASS_LOCALHOST: 'false' } })
    try {
      const address = randomAddress()
      const ping = () =>
        limited.app.inject({
          method: 'POST',
          url: '/mcp',
          remoteAddress: address,
          payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
        })
      for (let i = 0; i < MCP_RATE_LIMIT.limit; i++) {
        const res = await ping()
        assert.equal(res.statusCode, 200, res.body)
        assert.deepEqual(res.json(), { jsonrpc: '2.0', id: 1, result: {} })
      }
      const refused = await ping()
      assert.equal(refused.statusCode, 429)
      assert.equal(refused.json().code, 'RATE_LIMITED')
      // Another client is not limited by the first.
      const other = await limited.app.inject({
        method: 'POST',
        url: '/mcp',
        remoteAddress: randomAddress(),
        payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
      })
      assert.equal(other.statusCode, 200)
    } finally {
      await limited.close()
    }
  })
})
