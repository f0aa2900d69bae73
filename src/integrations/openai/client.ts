import type OpenAI from 'openai'
import type { APIError } from 'openai'
import { loadOnce } from '../../lib/load-once.ts'
import { BlockedAddressError, requestFailure } from '../../lib/safe-http.ts'
import { clip, isRecord } from '../../lib/values.ts'

export interface AiProviderOptions {
  /** The OpenAI-compatible API's base URL including its version (`https://api.openai.com/v1`). */
  baseUrl: string
  apiKey: string
  /** Cap on each attempt, connection to last byte. */
  timeoutMs: number
  /** Retries the SDK makes on connection failures, 408, 409, 429 and 5xx answers. */
  maxRetries: number
  /** The fetch requests go through (the SSRF-safe one for a user's base URL); the global one by default. */
  fetch?: typeof globalThis.fetch
}

export interface ModelCapabilities {
  supportsStreaming: boolean
  supportsToolCalling: boolean
  supportsVision: boolean
}

export interface ModelEntry {
  id: string
  name: string
  /** Tokens the model accepts, 0 when neither the provider nor the known families tell. */
  contextLength: number
  /** Only when the provider describes them (OpenRouter-style `supported_parameters`, `architecture`). */
  capabilities?: ModelCapabilities
}

export interface CompleteJsonRequest {
  model: string
  system: string
  user: string
  /** The response format's schema name (letters, digits, `_` and `-`). */
  schemaName: string
  /** A JSON schema the provider enforces strictly on the answer. */
  schema: Record<string, unknown>
  maxTokens?: number
  signal?: AbortSignal
}

export interface CompleteJsonResult {
  /** The assistant message's text, unparsed: it may be cut short when `finishReason` is `length`. */
  content: string
  finishReason: string | null
}

export interface AiProviderClient {
  /** Every model the provider lists, sorted by id. */
  listModels(signal?: AbortSignal): Promise<ModelEntry[]>
  /** A chat completion with a strict JSON-schema response format; returns the assistant's raw text. */
  completeJson(request: CompleteJsonRequest): Promise<CompleteJsonResult>
}

export type AiProviderFailureKind =
  | 'auth'
  | 'credits'
  | 'rate_limited'
  | 'timeout'
  | 'unavailable'
  | 'bad_response'
  | 'rejected'
  | 'blocked'

/** Why a provider call failed: a kind to act on, the provider's status, and a one-line reason without secrets. */
export class AiProviderError extends Error {
  readonly kind: AiProviderFailureKind
  /** The provider's HTTP status, null when it never answered. */
  readonly status: number | null
  constructor(kind: AiProviderFailureKind, status: number | null, message: string) {
    super(message)
    this.name = 'AiProviderError'
    this.kind = kind
    this.status = status
  }
}

const REASON_MAX_LENGTH = 300
const CREDIT_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached'])

/** Context windows of OpenAI's own families, for providers whose model list does not carry them. */
const KNOWN_CONTEXT_LENGTHS: [RegExp, number][] = [
  [/^gpt-4o(-|$)/, 128_000],
  [/^gpt-4\.1(-|$)/, 1_047_576],
  [/^gpt-4-turbo(-|$)|^gpt-4-(1106|0125)-preview$/, 128_000],
  [/^gpt-4-32k/, 32_768],
  [/^gpt-4(-0314|-0613)?$/, 8_192],
  [/^gpt-3\.5-turbo-instruct/, 4_096],
  [/^gpt-3\.5-turbo(-|$)/, 16_385],
  [/^o1-(mini|preview)/, 128_000],
  [/^(o1|o3|o4-mini)(-|$)/, 200_000],
  [/^gpt-5/, 400_000],
]

const openaiSdk = loadOnce(() => import('openai'))

/** The SDK's error classes a failure is told apart by. */
type SdkErrors = Pick<
  typeof import('openai'),
  'APIConnectionError' | 'APIConnectionTimeoutError' | 'APIError'
>

/**
 * A client for an OpenAI-compatible provider (OpenAI, OpenRouter, a local server) through the official SDK.
 * Every failure comes out as an `AiProviderError`; a caller's own abort rethrows its signal's reason.
 */
export function createAiProviderClient({
  baseUrl,
  apiKey,
  timeoutMs,
  maxRetries,
  fetch,
}: AiProviderOptions): AiProviderClient {
  const client = apiKey.trim()
    ? loadOnce(async () => {
        const sdk = await openaiSdk()
        // Everything the SDK would otherwise read from OPENAI_* variables is given, so settings alone decide.
        const openai = new sdk.default({
          apiKey,
          adminAPIKey: null,
          organization: null,
          project: null,
          webhookSecret: null,
          baseURL: baseUrl,
          timeout: timeoutMs,
          maxRetries,
          logLevel: 'off',
          ...(fetch ? { fetch } : {}),
        })
        return { openai, errors: sdk }
      })
    : undefined

  async function call<T>(signal: AbortSignal | undefined, work: (client: OpenAI) => Promise<T>): Promise<T> {
    if (!client) throw new AiProviderError('auth', null, 'No API key is configured for the provider')
    const { openai, errors } = await client()
    try {
      return await work(openai)
    } catch (error) {
      if (signal?.aborted) throw signal.reason
      throw toProviderError(error, errors, apiKey, timeoutMs)
    }
  }

  return {
    listModels: (signal) =>
      call(signal, async (client) => {
        const { data: first, response } = await client.models.list({ signal }).withResponse()
        if (!isJson(response)) throw notJson(response, 'a model list', apiKey)
        const models: ModelEntry[] = []
        for await (const page of first.iterPages()) {
          if (!Array.isArray(page.data)) {
            throw new AiProviderError(
              'bad_response',
              response.status,
              'The provider model list has no data array',
            )
          }
          for (const model of page.data) models.push(toModelEntry(model, response.status))
        }
        return models.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      }),

    completeJson: ({ model, system, user, schemaName, schema, maxTokens, signal }) =>
      call(signal, async (client) => {
        const { data, response } = await client.chat.completions
          .create(
            {
              model,
              messages: [
                { role: 'system', content: system },
                { role: 'user', content: user },
              ],
              response_format: {
                type: 'json_schema',
                json_schema: { name: schemaName, strict: true, schema },
              },
              ...(maxTokens === undefined ? {} : { max_completion_tokens: maxTokens }),
            },
            { signal },
          )
          .withResponse()
        if (!isJson(response) || typeof data !== 'object' || data === null) {
          throw notJson(response, 'a chat completion', apiKey)
        }
        return completionOf(data as unknown as Record<string, unknown>, response.status, apiKey)
      }),
  }
}

function completionOf(body: Record<string, unknown>, status: number, apiKey: string): CompleteJsonResult {
  const unusable = (reason: string) => new AiProviderError('bad_response', status, reason)
  const choice = Array.isArray(body.choices) ? asRecord(body.choices[0]) : undefined
  if (!choice) {
    const providerMessage = asRecord(body.error)?.message
    throw unusable(
      reason(
        'The provider answered without a completion choice',
        typeof providerMessage === 'string' ? providerMessage : undefined,
        apiKey,
      ),
    )
  }
  const message = asRecord(choice.message)
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null
  if (typeof message?.refusal === 'string' && message.refusal) {
    throw unusable(reason('The model refused to answer', message.refusal, apiKey))
  }
  if (typeof message?.content !== 'string' || !message.content.trim()) {
    throw unusable(`The provider answered an empty completion (finish reason: ${finishReason ?? 'none'})`)
  }
  return { content: message.content, finishReason }
}

function toModelEntry(model: unknown, status: number): ModelEntry {
  const fields = asRecord(model)
  const id = fields?.id
  if (!fields || typeof id !== 'string' || !id) {
    throw new AiProviderError('bad_response', status, 'The provider model list has an entry without an id')
  }
  const entry: ModelEntry = {
    id,
    name: typeof fields.name === 'string' && fields.name ? fields.name : id,
    contextLength: contextLengthOf(id, fields),
  }
  const capabilities = capabilitiesOf(fields)
  if (capabilities) entry.capabilities = capabilities
  return entry
}

function contextLengthOf(id: string, fields: Record<string, unknown>): number {
  const stated = [
    fields.context_length,
    fields.context_window,
    fields.max_context_length,
    asRecord(fields.top_provider)?.context_length,
  ].find((value) => typeof value === 'number' && Number.isInteger(value) && value > 0)
  if (typeof stated === 'number') return stated
  const family = id.replace(/^openai\//, '')
  return KNOWN_CONTEXT_LENGTHS.find(([pattern]) => pattern.test(family))?.[1] ?? 0
}

function capabilitiesOf(fields: Record<string, unknown>): ModelCapabilities | undefined {
  const parameters = fields.supported_parameters
  const architecture = asRecord(fields.architecture)
  const inputs = architecture?.input_modalities
  const outputs = architecture?.output_modalities
  if (!Array.isArray(parameters) && !Array.isArray(inputs)) return undefined
  return {
    supportsStreaming: !Array.isArray(outputs) || outputs.includes('text'),
    supportsToolCalling: Array.isArray(parameters) && parameters.includes('tools'),
    supportsVision: Array.isArray(inputs) && inputs.includes('image'),
  }
}

function toProviderError(
  error: unknown,
  { APIConnectionError, APIConnectionTimeoutError, APIError }: SdkErrors,
  apiKey: string,
  timeoutMs: number,
): AiProviderError {
  if (error instanceof AiProviderError) return error
  if (error instanceof APIConnectionTimeoutError) {
    return new AiProviderError('timeout', null, `The provider did not answer within ${timeoutMs} ms`)
  }
  if (error instanceof APIConnectionError) {
    const blocked = blockedCause(error)
    if (blocked) {
      return new AiProviderError('blocked', null, `The provider's address is not allowed: ${blocked.message}`)
    }
    return new AiProviderError(
      'unavailable',
      null,
      reason('Could not reach the provider', requestFailure(error), apiKey),
    )
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    return statusFailure(error, error.status, apiKey)
  }
  if (error instanceof SyntaxError) {
    return new AiProviderError('bad_response', null, 'The provider answered malformed JSON')
  }
  const message = error instanceof Error ? error.message : String(error)
  return new AiProviderError(
    'bad_response',
    null,
    reason('The provider answer could not be used', message, apiKey),
  )
}

function statusFailure(error: APIError, status: number, apiKey: string): AiProviderError {
  const providerMessage = providerMessageOf(error, status)
  const code = typeof error.code === 'string' ? error.code : undefined
  const mentionsCredits = status >= 400 && status < 500 && /\b(quota|credits?)\b/i.test(providerMessage)
  const failure = (kind: AiProviderFailureKind, summary: string) =>
    new AiProviderError(kind, status, reason(`${summary} (${status})`, providerMessage, apiKey))

  if (CREDIT_CODES.has(code ?? '') || CREDIT_CODES.has(error.type ?? '')) {
    return failure('credits', 'The provider account is out of credits or quota')
  }
  if (status === 401 || status === 403) return failure('auth', 'The provider rejected the API key')
  if (status === 402 || mentionsCredits) {
    return failure('credits', 'The provider account is out of credits or quota')
  }
  if (status === 429) return failure('rate_limited', 'The provider is rate limiting requests')
  if (status >= 500) return failure('unavailable', 'The provider is unavailable')
  if (status >= 400) return failure('rejected', 'The provider rejected the request')
  return failure('bad_response', 'The provider answered an unexpected status')
}

/** The provider's own words: its error object's message, else the body text the SDK kept. */
function providerMessageOf(error: APIError, status: number): string {
  const body = asRecord(error.error)
  if (typeof body?.message === 'string') return body.message
  const text = error.message.startsWith(`${status} `)
    ? error.message.slice(`${status} `.length)
    : error.message
  // A gateway's error page is HTML: keep its words.
  return text.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ')
}

function notJson(response: Response, expected: string, apiKey: string): AiProviderError {
  const contentType = response.headers.get('content-type') || 'no content type'
  return new AiProviderError(
    'bad_response',
    response.status,
    reason(
      `The provider answered ${response.status} with ${contentType} instead of ${expected}`,
      undefined,
      apiKey,
    ),
  )
}

function isJson(response: Response): boolean {
  const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? ''
  return mediaType.includes('application/json') || mediaType.endsWith('+json')
}

function blockedCause(error: Error): BlockedAddressError | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (current instanceof BlockedAddressError) return current
    current = current.cause
  }
  return undefined
}

/** One line of at most REASON_MAX_LENGTH characters, with anything that looks like a credential removed. */
function reason(summary: string, providerMessage: string | undefined, apiKey: string): string {
  const line = providerMessage?.trim() ? `${summary}: ${providerMessage}` : summary
  const oneLine = redact(line, apiKey).replace(/\s+/g, ' ').trim()
  return clip(oneLine, REASON_MAX_LENGTH)
}

function redact(text: string, apiKey: string): string {
  const key = apiKey.trim()
  const withoutKey = key.length >= 4 ? text.split(key).join('[redacted]') : text
  return withoutKey
    .replace(/\bBearer\s+[^\s"',]+/gi, 'Bearer [redacted]')
    .replace(/\b(?:sk|rk|pk)-[\w*-]{4,}/g, '[redacted]')
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined
}
