import assert from 'node:assert/strict'
import { describe, type TestContext, test } from 'node:test'
import {
  AiProviderError,
  type AiProviderFailureKind,
  type AiProviderOptions,
  createAiProviderClient,
} from '../../src/integrations/openai/client.ts'
import { type FakeModel, type OpenAiFake, startOpenAiFake } from '../fakes/openai.ts'

const API_KEY = 'sk-test-curio-4f9a2c7e1b3d5f60'
const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'description', 'url', 'category', 'tags'],
        properties: {
          name: { type: 'string' },
          description: { type: 'string' },
          url: { type: 'string' },
          category: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
}

async function setup(
  t: TestContext,
  options: { models?: FakeModel[]; client?: Partial<AiProviderOptions> } = {},
): Promise<{ fake: OpenAiFake; ai: ReturnType<typeof createAiProviderClient> }> {
  const fake = await startOpenAiFake({ apiKey: API_KEY, models: options.models })
  t.after(() => fake.close())
  const ai = createAiProviderClient({
    baseUrl: fake.url,
    apiKey: API_KEY,
    timeoutMs: 5_000,
    maxRetries: 0,
    ...options.client,
  })
  return { fake, ai }
}

const request = (
  user = 'Best coffee roasters in Berlin',
  extra: { maxTokens?: number; signal?: AbortSignal } = {},
) => ({
  model: 'gpt-4o-mini',
  system: 'You list directory items as JSON.',
  user,
  schemaName: 'directory_items',
  schema: SCHEMA,
  ...extra,
})

async function failure(promise: Promise<unknown>): Promise<AiProviderError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof AiProviderError, `expected an AiProviderError, got ${String(error)}`)
    return error
  }
  assert.fail('expected the call to fail')
}

function assertFailure(error: AiProviderError, kind: AiProviderFailureKind, status: number | null) {
  assert.equal(error.kind, kind, error.message)
  assert.equal(error.status, status, error.message)
  assert.ok(error.message.length <= 300, 'the reason fits in 300 characters')
  assert.ok(!error.message.includes('\n'), 'the reason is one line')
  assert.ok(!error.message.includes(API_KEY), 'the reason never carries the key')
}

describe('listModels', () => {
  test('lists the provider models sorted by id, with known context windows', async (t) => {
    const { ai } = await setup(t, {
      models: [{ id: 'gpt-4o' }, { id: 'gpt-4.1-mini' }, { id: 'custom-model' }, { id: 'gpt-4o-mini' }],
    })
    assert.deepEqual(await ai.listModels(), [
      { id: 'custom-model', name: 'custom-model', contextLength: 0 },
      { id: 'gpt-4.1-mini', name: 'gpt-4.1-mini', contextLength: 1_047_576 },
      { id: 'gpt-4o', name: 'gpt-4o', contextLength: 128_000 },
      { id: 'gpt-4o-mini', name: 'gpt-4o-mini', contextLength: 128_000 },
    ])
  })

  test('maps OpenRouter-style names, context lengths and capabilities', async (t) => {
    const { ai, fake } = await setup(t)
    fake.models([
      {
        id: 'anthropic/claude-sonnet-4',
        name: 'Anthropic: Claude Sonnet 4',
        context_length: 200_000,
        architecture: { input_modalities: ['text', 'image'], output_modalities: ['text'] },
        supported_parameters: ['tools', 'tool_choice', 'response_format'],
      },
      {
        id: 'meta-llama/llama-3-8b',
        name: 'Meta: Llama 3 8B',
        context_length: null,
        top_provider: { context_length: 8_192 },
        architecture: { input_modalities: ['text'], output_modalities: ['text'] },
        supported_parameters: ['max_tokens'],
      },
      { id: 'local-model', context_window: 32_768 },
    ])
    assert.deepEqual(await ai.listModels(), [
      {
        id: 'anthropic/claude-sonnet-4',
        name: 'Anthropic: Claude Sonnet 4',
        contextLength: 200_000,
        capabilities: { supportsStreaming: true, supportsToolCalling: true, supportsVision: true },
      },
      { id: 'local-model', name: 'local-model', contextLength: 32_768 },
      {
        id: 'meta-llama/llama-3-8b',
        name: 'Meta: Llama 3 8B',
        contextLength: 8_192,
        capabilities: { supportsStreaming: true, supportsToolCalling: false, supportsVision: false },
      },
    ])
  })

  test('sends the bearer key to GET /v1/models', async (t) => {
    const { ai, fake } = await setup(t)
    await ai.listModels()
    const [sent] = fake.requests
    assert.equal(sent?.method, 'GET')
    assert.equal(sent?.path, '/v1/models')
    assert.equal(sent?.headers.authorization, `Bearer ${API_KEY}`)
  })

  test('a failing model list is unavailable with the provider status and message', async (t) => {
    const { ai, fake } = await setup(t)
    fake.nextModels({ status: 503 })
    const error = await failure(ai.listModels())
    assertFailure(error, 'unavailable', 503)
    assert.match(error.message, /\(503\): The engine is currently overloaded/)
  })

  test('an HTML model list is a bad response', async (t) => {
    const { ai, fake } = await setup(t)
    fake.nextModels({
      raw: { status: 200, contentType: 'text/html', body: '<html><body>Login</body></html>' },
    })
    assertFailure(await failure(ai.listModels()), 'bad_response', 200)
  })
})

describe('completeJson', () => {
  test('returns the content and sends the model, the JSON-schema response format and the bearer key', async (t) => {
    const { ai, fake } = await setup(t)
    const result = await ai.completeJson(request('Best coffee roasters in Berlin', { maxTokens: 4_000 }))
    assert.equal(result.finishReason, 'stop')
    const { items } = JSON.parse(result.content) as { items: Record<string, unknown>[] }
    assert.equal(items.length, 5)
    assert.deepEqual(items[0], {
      name: 'Item 1 for Best coffee roasters in',
      description: 'A short description of item 1 for Best coffee roasters in.',
      url: 'https://example.com/item-1',
      category: 'Tools',
      tags: ['tag-1', 'best-coffee-roasters-in'],
    })

    const [sent] = fake.chatRequests
    assert.equal(sent?.method, 'POST')
    assert.equal(sent?.headers.authorization, `Bearer ${API_KEY}`)
    assert.deepEqual(sent?.body, {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You list directory items as JSON.' },
        { role: 'user', content: 'Best coffee roasters in Berlin' },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'directory_items', strict: true, schema: SCHEMA },
      },
      max_completion_tokens: 4_000,
    })
  })

  test('default answers differ by prompt', async (t) => {
    const { ai } = await setup(t)
    const first = JSON.parse((await ai.completeJson(request('Vegan bakeries'))).content)
    const second = JSON.parse((await ai.completeJson(request('Climbing gyms'))).content)
    assert.equal(first.items[0].name, 'Item 1 for Vegan bakeries')
    assert.equal(second.items[0].name, 'Item 1 for Climbing gyms')
  })

  test('scripted answers come in order, then the default again', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({ empty: true }, { itemsJson: { items: [{ name: 'Exact' }] } }, { items: 2 })
    assert.equal((await ai.completeJson(request())).content, '{"items":[]}')
    assert.equal((await ai.completeJson(request())).content, '{"items":[{"name":"Exact"}]}')
    assert.equal(JSON.parse((await ai.completeJson(request())).content).items.length, 2)
    assert.equal(JSON.parse((await ai.completeJson(request())).content).items.length, 5)
  })

  test('1,000 and 5,000 items come back as parseable JSON', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({ items: 1_000 }, { items: 5_000 })
    const thousand = JSON.parse((await ai.completeJson(request())).content).items
    assert.equal(thousand.length, 1_000)
    assert.equal(thousand[999].url, 'https://example.com/item-1000')
    assert.equal(JSON.parse((await ai.completeJson(request())).content).items.length, 5_000)
  })

  test('JSON cut short is returned as is with the length finish reason', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({ content: '{"items":[{"name":"Cut', finishReason: 'length' })
    assert.deepEqual(await ai.completeJson(request()), {
      content: '{"items":[{"name":"Cut',
      finishReason: 'length',
    })
  })
})

describe('completeJson failures', () => {
  test('a wrong key is an auth failure with the provider message and no key', async (t) => {
    const { fake } = await setup(t)
    const wrongKey = 'sk-wrong-9f8e7d6c5b4a3210'
    const ai = createAiProviderClient({
      baseUrl: fake.url,
      apiKey: wrongKey,
      timeoutMs: 5_000,
      maxRetries: 0,
    })
    const error = await failure(ai.completeJson(request()))
    assertFailure(error, 'auth', 401)
    assert.match(error.message, /^The provider rejected the API key \(401\): Incorrect API key provided/)
    assert.ok(!error.message.includes(wrongKey))
    assert.ok(!error.message.includes('sk-wrong'), 'even the masked key is redacted')
    assert.equal(fake.chatRequests[0]?.headers.authorization, `Bearer ${wrongKey}`)
  })

  test('a key the provider echoes back is redacted', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({
      status: 400,
      error: { message: `Header Authorization: Bearer ${API_KEY} is malformed`, code: 'invalid_value' },
    })
    const error = await failure(ai.completeJson(request()))
    assertFailure(error, 'rejected', 400)
    assert.match(error.message, /\[redacted\]/)
  })

  test('an empty key is an auth failure without a request', async (t) => {
    const { fake } = await setup(t)
    const ai = createAiProviderClient({ baseUrl: fake.url, apiKey: ' ', timeoutMs: 5_000, maxRetries: 0 })
    assertFailure(await failure(ai.completeJson(request())), 'auth', null)
    assert.equal(fake.requests.length, 0)
  })

  test('402 is out of credits', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({
      status: 402,
      error: { message: 'Insufficient credits. Add more using https://openrouter.ai/credits' },
    })
    const error = await failure(ai.completeJson(request()))
    assertFailure(error, 'credits', 402)
    assert.match(error.message, /Insufficient credits/)
  })

  test('429 insufficient_quota is out of credits', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({
      status: 429,
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    })
    assertFailure(await failure(ai.completeJson(request())), 'credits', 429)
  })

  test('a plain 429 is rate limited', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({
      status: 429,
      error: {
        message: 'Rate limit reached for gpt-4o-mini on requests per min (RPM)',
        code: 'rate_limit_exceeded',
      },
    })
    const error = await failure(ai.completeJson(request()))
    assertFailure(error, 'rate_limited', 429)
    assert.match(error.message, /^The provider is rate limiting requests \(429\): Rate limit reached/)
  })

  test('500 is unavailable with the provider message', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({ status: 500 })
    const error = await failure(ai.completeJson(request()))
    assertFailure(error, 'unavailable', 500)
    assert.match(error.message, /^The provider is unavailable \(500\): The server had an error/)
  })

  test("a gateway's HTML 502 is unavailable, its words kept on one line", async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({
      raw: {
        status: 502,
        contentType: 'text/html',
        body: '<html>\n<head><title>502 Bad Gateway</title></head>\n<body><h1>502 Bad Gateway</h1></body>\n</html>',
      },
    })
    const error = await failure(ai.completeJson(request()))
    assertFailure(error, 'unavailable', 502)
    assert.match(error.message, /\(502\): 502 Bad Gateway/)
    assert.ok(!error.message.includes('<'))
  })

  test('an unknown model is rejected with the provider message', async (t) => {
    const { ai } = await setup(t)
    const error = await failure(ai.completeJson({ ...request(), model: 'gpt-nonexistent' }))
    assertFailure(error, 'rejected', 404)
    assert.match(error.message, /The model `gpt-nonexistent` does not exist/)
  })

  test('an HTML page with 200 is a bad response', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({
      raw: { status: 200, contentType: 'text/html; charset=utf-8', body: '<!doctype html><p>Hi</p>' },
    })
    const error = await failure(ai.completeJson(request()))
    assertFailure(error, 'bad_response', 200)
    assert.match(error.message, /text\/html/)
  })

  test('malformed JSON with 200 is a bad response', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({ raw: { status: 200, contentType: 'application/json', body: '{"id":"chatcmpl-1","choi' } })
    assertFailure(await failure(ai.completeJson(request())), 'bad_response', null)
  })

  test('a completion without choices is a bad response', async (t) => {
    const { ai, fake } = await setup(t)
    const body = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'x',
      choices: [],
    })
    fake.next({ raw: { status: 200, contentType: 'application/json', body } })
    assertFailure(await failure(ai.completeJson(request())), 'bad_response', 200)
  })

  test('an empty message is a bad response', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({ content: '   ' })
    assertFailure(await failure(ai.completeJson(request())), 'bad_response', 200)
  })

  test('a refusal is a bad response that quotes it', async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({ refusal: "I'm sorry, I can't help with that." })
    const error = await failure(ai.completeJson(request()))
    assertFailure(error, 'bad_response', 200)
    assert.match(error.message, /refused to answer: I'm sorry/)
  })

  test('a request held past the timeout is a timeout', async (t) => {
    const { fake } = await setup(t)
    const ai = createAiProviderClient({ baseUrl: fake.url, apiKey: API_KEY, timeoutMs: 200, maxRetries: 0 })
    fake.next({ hang: true })
    const arrived = fake.waitForRequest()
    const pending = failure(ai.completeJson(request()))
    await arrived
    assert.equal(fake.held, 1)
    const error = await pending
    fake.release()
    assertFailure(error, 'timeout', null)
    assert.match(error.message, /200 ms/)
  })

  test("the caller's abort rethrows its reason", async (t) => {
    const { ai, fake } = await setup(t)
    fake.next({ hang: true })
    const controller = new AbortController()
    const arrived = fake.waitForRequest()
    const pending = ai.completeJson(request('Anything', { signal: controller.signal }))
    await arrived
    const reason = new Error('shutting down')
    controller.abort(reason)
    await assert.rejects(pending, (error) => error === reason)
    fake.release()
  })

  test('a refused connection is unavailable', async (t) => {
    const { fake } = await setup(t)
    await fake.close()
    const ai = createAiProviderClient({ baseUrl: fake.url, apiKey: API_KEY, timeoutMs: 5_000, maxRetries: 0 })
    const error = await failure(ai.completeJson(request()))
    assertFailure(error, 'unavailable', null)
    assert.match(error.message, /ECONNREFUSED/)
  })

  test('maxRetries 1 retries a 500 once', async (t) => {
    const { ai, fake } = await setup(t, { client: { maxRetries: 1 } })
    const retryNow = { 'retry-after-ms': '0' }
    fake.next({ status: 500, headers: retryNow })
    const result = await ai.completeJson(request())
    assert.equal(JSON.parse(result.content).items.length, 5)
    assert.equal(fake.chatRequests.length, 2)
  })

  test('maxRetries 1 gives up after the second 500', async (t) => {
    const { ai, fake } = await setup(t, { client: { maxRetries: 1 } })
    const retryNow = { 'retry-after-ms': '0' }
    fake.next({ status: 500, headers: retryNow }, { status: 500, headers: retryNow })
    assertFailure(await failure(ai.completeJson(request())), 'unavailable', 500)
    assert.equal(fake.chatRequests.length, 2)
  })
})
