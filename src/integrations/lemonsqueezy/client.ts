import { AsyncLocalStorage } from 'node:async_hooks'
import { loadOnce } from '../../lib/load-once.ts'
import type { ProviderClient, ProviderFailure, ProviderOutcome } from '../payments/contract/checkout.ts'

export interface LemonSqueezyClientOptions {
  apiKey: string
  /** A number, as LemonSqueezy's ids are. */
  storeId: string
  /** `LEMONSQUEEZY_API_URL`; a path is kept as a prefix. */
  apiUrl: string
  timeoutMs: number
}

/** The origin the SDK always calls; it has no setting for another one, nor for a time limit. */
export const LEMONSQUEEZY_SDK_ORIGIN = 'https://api.lemonsqueezy.com'

const REASON_MAX_LENGTH = 300
const DONE: ProviderOutcome<void> = { ok: true, value: undefined }

const lemonSqueezySdk = loadOnce(() => import('@lemonsqueezy/lemonsqueezy.js'))
type LemonSqueezySdk = Awaited<ReturnType<typeof lemonSqueezySdk>>

/** One SDK call: where its requests go, its time limit, and the status its answer came with. */
interface Exchange {
  apiUrl: string
  timeoutMs: number
  deadline: AbortSignal
  status: number | null
}

const exchanges = new AsyncLocalStorage<Exchange>()
const ROUTING = Symbol.for('curio.lemonsqueezy.fetch-routing')
type RoutingFetch = typeof fetch & { [ROUTING]?: true }

/**
 * Sends the SDK's requests to LEMONSQUEEZY_API_URL, time-limited. The SDK calls the global `fetch` with its
 * own origin, so the global `fetch` is wrapped: a request is rerouted only when it is made inside one of this
 * module's SDK calls (an AsyncLocalStorage context, so concurrent calls with other settings keep theirs) AND
 * goes to the SDK's origin. Every other call is handed to the previous `fetch` with its arguments untouched,
 * so no other fetch in the process changes behaviour, concurrent ones included. Checked before every call,
 * because a later replacement of `fetch` (a test's mock) would otherwise let the SDK reach the real API.
 */
function ensureRouting(): void {
  const previous = globalThis.fetch as RoutingFetch
  if (previous[ROUTING]) return
  const routing = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const exchange = exchanges.getStore()
    // The SDK passes its URL as a string; a Request object is never the SDK's.
    const url = exchange && !(input instanceof Request) ? URL.parse(String(input)) : null
    if (!exchange || url?.origin !== LEMONSQUEEZY_SDK_ORIGIN) return previous(input, init)
    return send(previous, exchange, url, init)
  }
  globalThis.fetch = Object.assign(routing, { [ROUTING]: true as const })
}

async function send(
  fetchFn: typeof fetch,
  exchange: Exchange,
  url: URL,
  init: RequestInit | undefined,
): Promise<Response> {
  const target = `${exchange.apiUrl.replace(/\/+$/, '')}${url.pathname}${url.search}`
  const signal = init?.signal ? AbortSignal.any([init.signal, exchange.deadline]) : exchange.deadline
  const response = await fetchFn(target, { ...init, signal })
  exchange.status = response.status
  return response
}

/**
 * The SDK rewrites every key of a plain object it sends to snake_case, `custom` included
 * (lmsqueezy/lemonsqueezy.js#54): `sponsorAdId` would arrive as `sponsor_ad_id`, not as CONTRACT.md names it.
 * It only descends into objects tagged `[object Object]`, so the custom data goes with a tag of its own;
 * JSON.stringify writes it unchanged.
 */
function verbatim<T extends object>(value: T): T {
  return Object.defineProperty({ ...value }, Symbol.toStringTag, { value: 'LemonSqueezyCustomData' })
}

/** What a JSON:API error answer (`{errors:[{status, title, detail}]}`) says first. */
function firstError(body: unknown): { title?: string; detail?: string } | undefined {
  const errors = (body as { errors?: unknown } | null)?.errors
  const first: unknown = Array.isArray(errors) ? errors[0] : undefined
  if (typeof first !== 'object' || first === null) return undefined
  const { title, detail } = first as { title?: unknown; detail?: unknown }
  return {
    ...(typeof title === 'string' ? { title } : {}),
    ...(typeof detail === 'string' ? { detail } : {}),
  }
}

interface SdkResult {
  statusCode: number | null
  data: unknown
  error: Error | null
}

function failureOf(result: SdkResult, exchange: Exchange): ProviderFailure {
  // The SDK sets statusCode only once it has read a whole JSON answer.
  if (result.statusCode === null) {
    if (exchange.deadline.aborted) {
      return {
        status: null,
        code: null,
        message: `LemonSqueezy did not answer within ${exchange.timeoutMs} ms`,
      }
    }
    // A status seen on the wire without the SDK's statusCode: an answer the SDK could not read as JSON.
    if (exchange.status !== null) {
      return {
        status: exchange.status,
        code: null,
        message: `LemonSqueezy answered ${exchange.status} with a body that is not JSON`,
      }
    }
    const cause = (result.error?.cause as { code?: unknown } | undefined)?.code
    const reason = `${result.error?.message ?? 'unknown error'}${typeof cause === 'string' ? ` (${cause})` : ''}`
    return {
      status: null,
      code: null,
      message: `LemonSqueezy could not be reached: ${reason.slice(0, REASON_MAX_LENGTH)}`,
    }
  }
  const said = firstError(result.data)
  return {
    status: result.statusCode,
    code: said?.title ?? null,
    message: `LemonSqueezy answered ${result.statusCode}${said?.detail ? `: ${said.detail.slice(0, REASON_MAX_LENGTH)}` : ''}`,
  }
}

/**
 * LemonSqueezy through its official SDK, pointed at LEMONSQUEEZY_API_URL (see `ensureRouting`). The SDK keeps
 * one API key for the whole process, so each call sets it just before the SDK reads it, in the same tick.
 */
export function createLemonSqueezyClient({
  apiKey,
  storeId,
  apiUrl,
  timeoutMs,
}: LemonSqueezyClientOptions): ProviderClient {
  async function call<R extends SdkResult>(
    run: (sdk: LemonSqueezySdk) => Promise<R>,
  ): Promise<{ result: R; exchange: Exchange }> {
    const sdk = await lemonSqueezySdk()
    ensureRouting()
    const exchange: Exchange = { apiUrl, timeoutMs, deadline: AbortSignal.timeout(timeoutMs), status: null }
    const result = await exchanges.run(exchange, () => {
      sdk.lemonSqueezySetup({ apiKey })
      return run(sdk)
    })
    return { result, exchange }
  }

  return {
    async createCheckout({ priceId, metadata, request }) {
      const { result, exchange } = await call((sdk) =>
        sdk.createCheckout(storeId, priceId, {
          checkoutData: { email: request.customerEmail, custom: verbatim(metadata) },
          productOptions: { redirectUrl: request.successUrl },
        }),
      )
      if (result.error) return { ok: false, failure: failureOf(result, exchange) }
      const checkout = result.data.data
      if (!checkout?.id || !checkout.attributes?.url) {
        return {
          ok: false,
          failure: {
            status: result.statusCode,
            code: null,
            message: 'LemonSqueezy answered a checkout without a URL',
          },
        }
      }
      return { ok: true, value: { checkoutId: checkout.id, checkoutUrl: checkout.attributes.url } }
    },

    async cancelSubscription(subscriptionId) {
      // LemonSqueezy's ids are numbers, so another id names no subscription there; and the SDK would put it
      // into the path as it is.
      if (!/^\d+$/.test(subscriptionId)) return DONE
      const { result, exchange } = await call((sdk) => sdk.cancelSubscription(subscriptionId))
      if (!result.error) return DONE
      // An unknown subscription is 404 with LemonSqueezy's JSON:API error body (not some proxy's 404).
      if (result.statusCode === 404 && firstError(result.data)) return DONE
      return { ok: false, failure: failureOf(result, exchange) }
    },
  }
}
