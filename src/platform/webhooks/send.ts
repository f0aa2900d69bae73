import { type Envelope, hmacHex } from '../../lib/crypto.ts'
import { webhookDeliveryOutcomes } from '../../lib/metrics.ts'
import { type AddressPolicy, safeRequest } from '../../lib/safe-http.ts'
import type { DeliveryOutcome, webhookDeliveries, webhookSubscriptions } from './tables.ts'

/** SPEC.md: a body above 1 MiB is refused before signing. */
export const MAX_BODY_BYTES = 1024 * 1024
/** What is read of a receiver's answer; the rest is never downloaded. */
const MAX_RESPONSE_BYTES = 64 * 1024
const LAST_ERROR_MAX_LENGTH = 500
export const USER_AGENT = 'Curio-Webhooks/1.0'

/** What one attempt came to. */
export interface AttemptResult {
  outcome: DeliveryOutcome
  status: number | null
  error: string | null
  durationMs: number
}

export interface SenderDeps {
  envelope: Envelope
  policy: AddressPolicy
  requireHttps: boolean
  timeoutMs: number
}

export const secretContext = (subscriptionId: string) => `webhook-secret:${subscriptionId}`

/** `sha256=<hex>`: HMAC-SHA256 of the exact bytes sent, under the subscription's signing secret. */
export const signatureOf = (secret: string, body: string) => `sha256=${hmacHex(secret, body)}`

const cut = (text: string) => text.slice(0, LAST_ERROR_MAX_LENGTH)

/**
 * One signed POST of a delivery's body to its subscription's URL through the SSRF-safe client, classified
 * as SPEC.md's retry table says. Never throws for anything the receiver or the network does.
 */
export function createSender({ envelope, policy, requireHttps, timeoutMs }: SenderDeps) {
  async function attempt(
    subscription: Pick<typeof webhookSubscriptions.$inferSelect, 'id' | 'url' | 'signingSecret'>,
    delivery: Pick<typeof webhookDeliveries.$inferSelect, 'id' | 'event' | 'body'>,
  ): Promise<AttemptResult> {
    const bytes = Buffer.byteLength(delivery.body)
    if (bytes > MAX_BODY_BYTES) {
      return {
        outcome: 'payload_too_large',
        status: null,
        error: `The body is ${bytes} bytes, above the 1 MiB limit: it was not sent`,
        durationMs: 0,
      }
    }
    const secret = envelope.open(subscription.signingSecret, secretContext(subscription.id))
    const signature = signatureOf(secret, delivery.body)
    const result = await safeRequest({
      url: subscription.url,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'x-service-event': delivery.event,
        'x-service-delivery': delivery.id,
        'x-service-signature-256': signature,
        'x-hub-signature-256': signature,
      },
      body: delivery.body,
      timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      policy,
      requireHttps,
    })
    const { durationMs } = result
    switch (result.kind) {
      case 'blocked':
        return { outcome: 'ssrf_blocked', status: null, error: cut(result.reason), durationMs }
      case 'timeout':
        return {
          outcome: 'timeout',
          status: null,
          error: `No complete answer within ${timeoutMs} ms`,
          durationMs,
        }
      case 'failed':
        return { outcome: 'server_error', status: null, error: cut(result.reason), durationMs }
      case 'response': {
        const { status } = result
        if (status >= 200 && status < 300) return { outcome: 'success', status, error: null, durationMs }
        const outcome: DeliveryOutcome =
          status >= 300 && status < 400 ? 'redirect_refused' : status < 500 ? 'client_error' : 'server_error'
        const said = result.body.replace(/\s+/g, ' ').trim()
        const why = outcome === 'redirect_refused' ? ' (redirects are never followed)' : ''
        return {
          outcome,
          status,
          error: cut(`The endpoint answered ${status}${why}${said ? `: ${said}` : ''}`),
          durationMs,
        }
      }
    }
  }

  return async function send(
    subscription: Pick<typeof webhookSubscriptions.$inferSelect, 'id' | 'url' | 'signingSecret'>,
    delivery: Pick<typeof webhookDeliveries.$inferSelect, 'id' | 'event' | 'body'>,
  ): Promise<AttemptResult> {
    const result = await attempt(subscription, delivery)
    webhookDeliveryOutcomes.inc({ outcome: result.outcome })
    return result
  }
}

export type Send = ReturnType<typeof createSender>
