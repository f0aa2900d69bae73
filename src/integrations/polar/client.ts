import type { PolarCore } from '@polar-sh/sdk/2026-10'
import { loadOnce } from '../../lib/load-once.ts'
import type { ProviderClient, ProviderFailure, ProviderOutcome } from '../payments/contract/checkout.ts'

export interface PolarClientOptions {
  accessToken: string
  /** `POLAR_API_URL`; the SDK adds `/v1/…`. */
  apiUrl: string
  timeoutMs: number
}

const REASON_MAX_LENGTH = 300
const DONE: ProviderOutcome<void> = { ok: true, value: undefined }

/** The SDK's core, the two functions used and the error classes a failure is told apart by. */
const polarSdk = loadOnce(async () => {
  const [errors, core, checkouts, subscriptions] = await Promise.all([
    import('@polar-sh/sdk'),
    import('@polar-sh/sdk/2026-10'),
    import('@polar-sh/sdk/2026-10/services/checkouts'),
    import('@polar-sh/sdk/2026-10/services/subscriptions'),
  ])
  return {
    PolarClientError: errors.PolarClientError,
    PolarError: errors.PolarError,
    PolarNetworkError: errors.PolarNetworkError,
    PolarServerError: errors.PolarServerError,
    createPolarCore: core.createPolarCore,
    createCheckouts: checkouts.createCheckouts,
    revokeSubscriptions: subscriptions.revokeSubscriptions,
  }
})

type PolarSdk = Awaited<ReturnType<typeof polarSdk>>

/** One call's HTTP exchange as the SDK does not report it: its status and its deadline. */
interface Exchange {
  client: PolarCore
  deadline: AbortSignal
  status: number | null
}

/**
 * A client for one call that notes the answer's status (the SDK's PolarServerError keeps it only in its
 * message text) and aborts at the call's deadline, which tells a timeout from a refused connection (the
 * SDK's PolarNetworkError says neither). The SDK's functions only call these three methods on it.
 */
function exchangeOn(core: PolarCore, timeoutMs: number): Exchange {
  const deadline = AbortSignal.timeout(timeoutMs)
  const exchange: Exchange = { client: core, deadline, status: null }
  exchange.client = Object.create(core, {
    sendRequest: {
      value: async (...[[url, init], options]: Parameters<PolarCore['sendRequest']>) => {
        const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline
        const response = await core.sendRequest([url, { ...init, signal }], options)
        exchange.status = response.status
        return response
      },
    },
  }) as PolarCore
  return exchange
}

/** What a Polar error body (`{error, detail}`, or a validation error's `{detail:[{msg}]}`) says. */
function said(answer: unknown): { code: string | null; detail: string | null } {
  // The SDK hands over the body parsed for the statuses an operation declares, as text for the others.
  let body = answer
  if (typeof answer === 'string') {
    try {
      body = JSON.parse(answer)
    } catch {
      return { code: null, detail: answer || null }
    }
  }
  if (typeof body !== 'object' || body === null) return { code: null, detail: null }
  const { error, detail } = body as { error?: unknown; detail?: unknown }
  const first: unknown = Array.isArray(detail) ? detail[0] : undefined
  const message =
    typeof detail === 'string'
      ? detail
      : typeof first === 'object' && first !== null
        ? JSON.stringify(first)
        : null
  return { code: typeof error === 'string' ? error : null, detail: message }
}

/** A Polar SDK error (or an answer it could not parse) as a failure; anything else is thrown on. */
function failureOf(
  error: unknown,
  { PolarClientError, PolarServerError, PolarNetworkError, PolarError }: PolarSdk,
  exchange: Exchange,
  timeoutMs: number,
): ProviderFailure {
  if (error instanceof PolarClientError) {
    const { code, detail } = said(error.error)
    return {
      status: error.statusCode,
      code,
      message: `Polar answered ${error.statusCode}${code ? ` (${code})` : ''}${detail ? `: ${detail.slice(0, REASON_MAX_LENGTH)}` : ''}`,
    }
  }
  if (error instanceof PolarServerError) {
    return {
      status: exchange.status,
      code: null,
      message: `Polar answered ${exchange.status ?? 'a server error'}`,
    }
  }
  // Past here no whole answer came: the deadline passed (while connecting, waiting or reading), the
  // connection failed, or the body was not JSON.
  if (exchange.deadline.aborted) {
    return { status: null, code: null, message: `Polar did not answer within ${timeoutMs} ms` }
  }
  if (error instanceof SyntaxError && exchange.status !== null) {
    return {
      status: exchange.status,
      code: null,
      message: `Polar answered ${exchange.status} with a body that is not JSON`,
    }
  }
  if (error instanceof PolarNetworkError || error instanceof PolarError) {
    return {
      status: null,
      code: null,
      message: `Polar could not be reached: ${error.message.slice(0, REASON_MAX_LENGTH)}`,
    }
  }
  throw error
}

/**
 * Polar through its official SDK (API version 2026-10), pointed at POLAR_API_URL: the core client and the two
 * functions used. What a checkout sells is a list of products; each interval is its own recurring product in
 * Polar, so POLAR_SPONSOR_WEEKLY_PRICE_ID and POLAR_SPONSOR_MONTHLY_PRICE_ID hold Polar product ids.
 */
export function createPolarClient({ accessToken, apiUrl, timeoutMs }: PolarClientOptions): ProviderClient {
  const client = loadOnce(async () => {
    const sdk = await polarSdk()
    const core = sdk.createPolarCore({
      accessToken,
      baseUrl: apiUrl.replace(/\/+$/, ''),
      // The SDK's own limit (in seconds) is a backstop behind each call's deadline.
      timeout: timeoutMs / 1000 + 1,
    })
    return { sdk, core }
  })

  return {
    async createCheckout({ priceId, metadata, request }) {
      const { sdk, core } = await client()
      const exchange = exchangeOn(core, timeoutMs)
      try {
        const checkout = await sdk.createCheckouts(exchange.client)({
          products: [priceId],
          success_url: request.successUrl,
          return_url: request.cancelUrl,
          customer_email: request.customerEmail,
          external_customer_id: request.userId,
          metadata: { ...metadata },
        })
        if (!checkout?.id || !checkout.url) {
          return {
            ok: false,
            failure: {
              status: exchange.status,
              code: null,
              message: 'Polar answered a checkout without a URL',
            },
          }
        }
        return { ok: true, value: { checkoutId: checkout.id, checkoutUrl: checkout.url } }
      } catch (error) {
        return { ok: false, failure: failureOf(error, sdk, exchange, timeoutMs) }
      }
    },

    async cancelSubscription(subscriptionId) {
      const { sdk, core } = await client()
      const exchange = exchangeOn(core, timeoutMs)
      try {
        await sdk.revokeSubscriptions(exchange.client)(subscriptionId)
        return DONE
      } catch (error) {
        // Polar's own answers, by their error code (a proxy's 404 is not Polar saying "not found").
        const code = error instanceof sdk.PolarClientError ? said(error.error).code : null
        if (code === 'AlreadyCanceledSubscription' || code === 'ResourceNotFound') return DONE
        return { ok: false, failure: failureOf(error, sdk, exchange, timeoutMs) }
      }
    },
  }
}
