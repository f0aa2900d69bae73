import { checkHmacHex } from '../../lib/crypto.ts'
import {
  expiredSignature,
  headerValues,
  invalidSignature,
  MISSING_SIGNATURE,
  SIGNATURE_TOLERANCE_SECONDS,
  type SignatureVerification,
  type WebhookHeaders,
  withinTolerance,
} from '../payments/contract/signature.ts'

const SIGNATURE_HEADER = 'stripe-signature'
export const STRIPE_SIGNATURE_HEADERS = [SIGNATURE_HEADER] as const

/**
 * Stripe: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`, each `v1` the hex HMAC-SHA256 of
 * `<t>.<raw body>`; any may match, and every one is compared, in constant time. The age is checked against
 * the injected clock, in both directions.
 */
export function verifyStripeSignature(
  rawBody: Buffer,
  headers: WebhookHeaders,
  secret: string,
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureVerification {
  const values = headerValues(headers, SIGNATURE_HEADER)
  if (values.length === 0) return MISSING_SIGNATURE
  const entries = values
    .join(',')
    .split(',')
    .map((part) => part.trim())
  const timestamps = entries.filter((part) => part.startsWith('t='))
  if (timestamps.length !== 1) return invalidSignature('Header must carry exactly one timestamp')
  const timestamp = (timestamps[0] as string).slice(2)
  if (!/^-?\d+$/.test(timestamp) || !Number.isSafeInteger(Number(timestamp))) {
    return invalidSignature('Malformed timestamp')
  }
  const signatures = entries.filter((part) => part.startsWith('v1=')).map((part) => part.slice(3))
  if (signatures.length === 0) return invalidSignature('No v1 signature')
  const signed = Buffer.concat([Buffer.from(`${timestamp}.`), rawBody])
  let matched = false
  for (const signature of signatures) {
    // Every signature is compared, so the time taken does not reveal which one matched.
    if (checkHmacHex(secret, signed, signature)) matched = true
  }
  if (!matched) return invalidSignature('Signature mismatch')
  if (!withinTolerance(Number(timestamp), now, toleranceSeconds)) {
    return expiredSignature('Timestamp outside the tolerance zone')
  }
  return { ok: true }
}
