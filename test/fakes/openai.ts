import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A model as `GET /v1/models` lists it; extra fields (OpenRouter's `context_length`, `architecture`…) pass through. */
export interface FakeModel {
  id: string
  [field: string]: unknown
}

/** An answer in OpenAI's error shape `{error:{message, type, param, code}}`; `headers` e.g. `retry-after-ms`. */
export interface FakeErrorBehaviour {
  status: number
  error?: { message: string; type?: string; code?: string | number | null; param?: string | null }
  headers?: Record<string, string>
}

/** Any status, content type and body, e.g. a gateway's HTML page. */
export interface FakeRawBehaviour {
  raw: { status: number; contentType: string; body: string }
}

/** Holds the request open until `release()`, `close()` or the client going away. */
export interface FakeHangBehaviour {
  hang: true
}

export type FakeModelsBehaviour = FakeErrorBehaviour | FakeRawBehaviour | FakeHangBehaviour

export type FakeChatBehaviour =
  | FakeModelsBehaviour
  /** That many generated items. */
  | { items: number }
  /** This value, serialized, as the message content. */
  | { itemsJson: unknown }
  /** This exact message content (e.g. JSON cut short, with `finishReason: 'length'`). */
  | { content: string; finishReason?: string }
  /** `{"items":[]}`. */
  | { empty: true }
  /** A refusal message instead of content. */
  | { refusal: string }

export interface FakeRequest {
  method: string
  /** The path without the query, e.g. `/v1/chat/completions`. */
  path: string
  headers: IncomingHttpHeaders
  /** The JSON body parsed, the raw text when it is not JSON, undefined when empty. */
  body: unknown
}

export interface OpenAiFakeOptions {
  /** The key every request must present as `Authorization: Bearer <apiKey>`. */
  apiKey?: string
  models?: FakeModel[]
}

export const DEFAULT_FAKE_API_KEY = 'sk-test-fake-0123456789abcdef'
export const DEFAULT_FAKE_ITEM_COUNT = 5

const DEFAULT_MODELS: FakeModel[] = [{ id: 'gpt-4o-mini' }, { id: 'gpt-4o' }, { id: 'gpt-4.1-mini' }]
const CREATED = 1_767_225_600
const CATEGORIES = ['Tools', 'Services', 'Resources']

const DEFAULT_ERROR_MESSAGES: Record<number, { message: string; type: string }> = {
  400: { message: 'Invalid request.', type: 'invalid_request_error' },
  401: { message: 'Invalid authentication.', type: 'invalid_request_error' },
  402: { message: 'Insufficient credits.', type: 'insufficient_quota' },
  403: { message: 'You are not allowed to sample from this model.', type: 'invalid_request_error' },
  404: { message: 'Not found.', type: 'invalid_request_error' },
  429: { message: 'Rate limit reached for requests. Please try again shortly.', type: 'requests' },
  500: {
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
  },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error' },
}

/** The items a default answer lists: deterministic, named after the prompt's first words. */
export function fakeItems(count: number, prompt: string) {
  const topic = prompt.trim().split(/\s+/).slice(0, 4).join(' ') || 'the prompt'
  const topicTag =
    topic
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'topic'
  return Array.from({ length: count }, (_, index) => {
    const number = index + 1
    return {
      name: `Item ${number} for ${topic}`,
      description: `A short description of item ${number} for ${topic}.`,
      url: `https://example.com/item-${number}`,
      category: CATEGORIES[index % CATEGORIES.length],
      tags: [`tag-${(index % 4) + 1}`, topicTag],
    }
  })
}

/** `sk-test-…cdef` → `sk-test-************cdef`, as OpenAI echoes a wrong key. */
const maskKey = (key: string) =>
  `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined

/**
 * A stand-in for an OpenAI-compatible API on 127.0.0.1, with the real paths and shapes the SDK speaks:
 * `GET /v1/models`, `GET /v1/models/{id}`, `POST /v1/chat/completions` (non-streaming). Every request needs
 * `Authorization: Bearer <apiKey>` (401 `invalid_api_key` otherwise); a chat request names a listed model
 * (404 `model_not_found` otherwise) and has messages. By default a chat answer is JSON listing
 * DEFAULT_FAKE_ITEM_COUNT items under the schema's array property (`items`); `next(...)` scripts the next
 * answers, `nextModels(...)` the next model lists. No timers: a held request waits for `release()`.
 */
export async function startOpenAiFake({ apiKey = DEFAULT_FAKE_API_KEY, models }: OpenAiFakeOptions = {}) {
  let modelList = (models ?? DEFAULT_MODELS).map(toListedModel)
  const chatScript: FakeChatBehaviour[] = []
  const modelsScript: FakeModelsBehaviour[] = []
  const requests: FakeRequest[] = []
  const held = new Map<ServerResponse, () => void>()
  let arrivalWaiters: ((request: FakeRequest) => void)[] = []
  let counter = 0

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed || res.headersSent) return
    res
      .writeHead(status, {
        'content-type': 'application/json',
        'x-request-id': `req_fake${++counter}`,
        ...headers,
      })
      .end(JSON.stringify(body))
  }
  const sendError = (res: ServerResponse, behaviour: FakeErrorBehaviour) => {
    const fallback = DEFAULT_ERROR_MESSAGES[behaviour.status] ??
      (behaviour.status >= 500 ? DEFAULT_ERROR_MESSAGES[500] : DEFAULT_ERROR_MESSAGES[400]) ?? {
        message: 'Error.',
        type: 'invalid_request_error',
      }
    const error = behaviour.error
    send(
      res,
      behaviour.status,
      {
        error: {
          message: error?.message ?? fallback.message,
          type: error?.type ?? fallback.type,
          param: error?.param ?? null,
          code: error?.code ?? null,
        },
      },
      behaviour.headers,
    )
  }
  const invalid = (res: ServerResponse, status: number, message: string, code: string | null = null) =>
    sendError(res, { status, error: { message, type: 'invalid_request_error', code } })

  /** Answers a scripted failure; false when `behaviour` is not one. */
  const failWith = (res: ServerResponse, behaviour: FakeChatBehaviour, answer: () => void): boolean => {
    if ('raw' in behaviour) {
      if (!res.destroyed) {
        res
          .writeHead(behaviour.raw.status, { 'content-type': behaviour.raw.contentType })
          .end(behaviour.raw.body)
      }
      return true
    }
    if ('hang' in behaviour) {
      held.set(res, answer)
      res.on('close', () => held.delete(res))
      return true
    }
    if ('status' in behaviour) {
      sendError(res, behaviour)
      return true
    }
    return false
  }

  const answerModels = (res: ServerResponse) => send(res, 200, { object: 'list', data: modelList })

  function answerChat(res: ServerResponse, body: Record<string, unknown>) {
    const model = body.model
    if (typeof model !== 'string' || !model) return invalid(res, 400, 'you must provide a model parameter')
    if (!modelList.some((entry) => entry.id === model)) {
      return invalid(
        res,
        404,
        `The model \`${model}\` does not exist or you do not have access to it.`,
        'model_not_found',
      )
    }
    const messages = body.messages
    if (!Array.isArray(messages) || messages.length === 0) {
      return invalid(res, 400, "Missing required parameter: 'messages'.", 'missing_required_parameter')
    }
    if (body.stream === true) return invalid(res, 400, 'The OpenAI fake does not stream.')
    const format = asRecord(body.response_format)
    const jsonSchema = asRecord(format?.json_schema)
    if (format?.type === 'json_schema' && typeof jsonSchema?.name !== 'string') {
      return invalid(
        res,
        400,
        "Missing required parameter: 'response_format.json_schema.name'.",
        'missing_required_parameter',
      )
    }

    const prompt = promptOf(messages)
    const listKey = listKeyOf(asRecord(jsonSchema?.schema))
    const itemsContent = (count: number) => JSON.stringify({ [listKey]: fakeItems(count, prompt) })
    const reply = (message: { content: string | null; refusal: string | null }, finishReason = 'stop') => {
      const completionTokens = Math.ceil((message.content ?? message.refusal ?? '').length / 4)
      const promptTokens = Math.ceil(JSON.stringify(messages).length / 4)
      send(res, 200, {
        id: `chatcmpl-fake${counter + 1}`,
        object: 'chat.completion',
        created: CREATED + counter,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', ...message, annotations: [] },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        },
        service_tier: 'default',
        system_fingerprint: 'fp_fake',
      })
    }
    const answerDefault = () => reply({ content: itemsContent(DEFAULT_FAKE_ITEM_COUNT), refusal: null })

    const behaviour = chatScript.shift()
    if (!behaviour) return answerDefault()
    if (failWith(res, behaviour, answerDefault)) return
    if ('items' in behaviour) return reply({ content: itemsContent(behaviour.items), refusal: null })
    if ('itemsJson' in behaviour)
      return reply({ content: JSON.stringify(behaviour.itemsJson), refusal: null })
    if ('content' in behaviour) {
      return reply({ content: behaviour.content, refusal: null }, behaviour.finishReason)
    }
    if ('empty' in behaviour) return reply({ content: JSON.stringify({ [listKey]: [] }), refusal: null })
    if ('refusal' in behaviour) return reply({ content: null, refusal: behaviour.refusal })
  }

  const server = createServer(async (req, res) => {
    const text = await readBody(req)
    const path = new URL(req.url ?? '/', 'http://fake').pathname
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body: parseBody(text),
    }
    requests.push(request)
    const isChat = req.method === 'POST' && path === '/v1/chat/completions'
    try {
      handle(req, res, request)
    } finally {
      if (isChat) {
        const waiters = arrivalWaiters
        arrivalWaiters = []
        for (const resolve of waiters) resolve(request)
      }
    }
  })

  function handle(req: IncomingMessage, res: ServerResponse, request: FakeRequest) {
    const authorization = req.headers.authorization
    if (!authorization?.startsWith('Bearer ')) {
      return invalid(
        res,
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        'invalid_api_key',
      )
    }
    const presented = authorization.slice('Bearer '.length)
    if (presented !== apiKey) {
      return invalid(
        res,
        401,
        `Incorrect API key provided: ${maskKey(presented)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_api_key',
      )
    }
    if (req.method === 'GET' && request.path === '/v1/models') {
      const behaviour = modelsScript.shift()
      if (!behaviour) return answerModels(res)
      failWith(res, behaviour, () => answerModels(res))
      return
    }
    const single = /^\/v1\/models\/(.+)$/.exec(request.path)
    if (req.method === 'GET' && single) {
      const id = decodeURIComponent(single[1] ?? '')
      const found = modelList.find((entry) => entry.id === id)
      if (found) return send(res, 200, found)
      return invalid(res, 404, `The model '${id}' does not exist`, 'model_not_found')
    }
    if (req.method === 'POST' && request.path === '/v1/chat/completions') {
      const body = asRecord(request.body)
      if (!body) {
        return invalid(
          res,
          400,
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
        )
      }
      return answerChat(res, body)
    }
    return invalid(res, 404, `Invalid URL (${req.method} ${request.path})`)
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    /** The base URL to give the SDK (ends in `/v1`). */
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    /** Every request received, in order. */
    requests,
    /** The chat requests received, in order. */
    get chatRequests(): FakeRequest[] {
      return requests.filter((request) => request.path === '/v1/chat/completions')
    },
    /** How many requests are held open by `{ hang: true }` right now. */
    get held(): number {
      return held.size
    },
    /** Queues answers for the next chat requests, first in first out; then the default answer again. */
    next(...behaviours: FakeChatBehaviour[]) {
      chatScript.push(...behaviours)
    },
    /** Queues answers for the next `GET /v1/models`. */
    nextModels(...behaviours: FakeModelsBehaviour[]) {
      modelsScript.push(...behaviours)
    },
    /** Replaces the listed models (chat requests must name one of them). */
    models(list: FakeModel[]) {
      modelList = list.map(toListedModel)
    },
    /** Resolves when the next chat request arrives, once it is answered or held: call it before sending. */
    waitForRequest(): Promise<FakeRequest> {
      return new Promise((resolve) => arrivalWaiters.push(resolve))
    },
    /** Answers every held request with its default answer. */
    release() {
      const answers = [...held.values()]
      held.clear()
      for (const answer of answers) answer()
    },
    close: () =>
      new Promise<void>((resolve) => {
        held.clear()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export type OpenAiFake = Awaited<ReturnType<typeof startOpenAiFake>>

function toListedModel(model: FakeModel) {
  return { object: 'model', created: CREATED, owned_by: 'openai', ...model }
}

/** The text of the last user message (a string, or text parts). */
function promptOf(messages: unknown[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = asRecord(messages[index])
    if (message?.role !== 'user') continue
    if (typeof message.content === 'string') return message.content
    if (Array.isArray(message.content)) {
      return message.content
        .map((part) => asRecord(part)?.text)
        .filter((part) => typeof part === 'string')
        .join(' ')
    }
  }
  return ''
}

/** The schema's first array property names the list in the answer; `items` without one. */
function listKeyOf(schema: Record<string, unknown> | undefined): string {
  const properties = asRecord(schema?.properties) ?? {}
  return Object.keys(properties).find((key) => asRecord(properties[key])?.type === 'array') ?? 'items'
}

function parseBody(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
