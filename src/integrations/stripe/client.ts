import type Stripe from 'stripe'
import { loadOnce } from '../../lib/load-once.ts'
import type { ProviderClient, ProviderFailure, ProviderOutcome } from '../payments/contract/checkout.ts'

export interface StripeClientOptions {
  secretKey: string
  /** `STRIPE_API_URL`; only its scheme, host and port are used (the SDK takes no path). */
  apiUrl: string
  timeoutMs: number
  maxNetworkRetries: number
}

const REASON_MAX_LENGTH = 300
const DONE: ProviderOutcome<void> = { ok: true, value: undefined }

const stripeSdk = loadOnce(async () => (await import('stripe')).default)

type StripeErrorClass = typeof Stripe.errors.StripeError

/** A Stripe SDK error as a failure; anything else is not the SDK's and is thrown on. */
function failureOf(error: unknown, StripeError: StripeErrorClass, timeoutMs: number): ProviderFailure {
  if (!(error instanceof StripeError)) throw error
  if (error.type === 'StripeConnectionError') {
    const timedOut = (error.detail as { code?: unknown } | undefined)?.code === 'ETIMEDOUT'
    return {
      status: null,
      code: null,
      message: timedOut
        ? `Stripe did not answer within ${timeoutMs} ms`
        : `Stripe could not be reached: ${error.message.slice(0, REASON_MAX_LENGTH)}`,
    }
  }
  const status = error.statusCode ?? null
  const code = error.code ?? null
  return {
    status,
    code,
    message: `Stripe answered ${status ?? 'without a usable body'}${code ? ` (${code})` : ''}: ${error.message.slice(0, REASON_MAX_LENGTH)}`,
  }
}

/**
 * Stripe through its official SDK, pointed at STRIPE_API_URL. No idempotency key of ours: a sponsor ad may
 * rightly get a new session with other URLs within Stripe's 24-hour key window, which a key derived from the
 * ad would refuse; the SDK keys every POST itself, so its own retries cannot create a second session.
 */
export function createStripeClient({
  secretKey,
  apiUrl,
  timeoutMs,
  maxNetworkRetries,
}: StripeClientOptions): ProviderClient {
  const base = new URL(apiUrl)
  const protocol = base.protocol === 'http:' ? 'http' : 'https'
  const client = loadOnce(async () => {
    const Stripe = await stripeSdk()
    const stripe = new Stripe(secretKey, {
      host: base.hostname,
      port: base.port || (protocol === 'http' ? 80 : 443),
      protocol,
      timeout: timeoutMs,
      maxNetworkRetries,
      telemetry: false,
    })
    return { stripe, StripeError: Stripe.errors.StripeError }
  })

  return {
    async createCheckout({ priceId, metadata, request }) {
      const { stripe, StripeError } = await client()
      try {
        const session = await stripe.checkout.sessions.create({
          mode: 'subscription',
          line_items: [{ price: priceId, quantity: 1 }],
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
          customer_email: request.customerEmail,
          client_reference_id: request.sponsorAdId,
          metadata: { ...metadata },
          subscription_data: { metadata: { ...metadata } },
        })
        if (!session.url) {
          return {
            ok: false,
            failure: {
              status: 200,
              code: null,
              message: `Stripe's checkout session ${session.id} has no URL`,
            },
          }
        }
        return { ok: true, value: { checkoutId: session.id, checkoutUrl: session.url } }
      } catch (error) {
        return { ok: false, failure: failureOf(error, StripeError, timeoutMs) }
      }
    },

    async cancelSubscription(subscriptionId) {
      const { stripe, StripeError } = await client()
      try {
        await stripe.subscriptions.cancel(subscriptionId)
        return DONE
      } catch (error) {
        // Stripe answers a cancelled subscription's cancel as it does an unknown one: 404 resource_missing.
        if (error instanceof StripeError && error.statusCode === 404 && error.code === 'resource_missing') {
          return DONE
        }
        return { ok: false, failure: failureOf(error, StripeError, timeoutMs) }
      }
    },
  }
}
