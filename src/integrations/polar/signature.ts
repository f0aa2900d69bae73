import { constantTimeEqual, hmac } from '../../lib/crypto.ts'
import {
  expiredSignature,
  headerValues,
  invalidSignature,
  MISSING_SIGNATURE,
  SIGNATURE_TOLERANCE_SECONDS,
  type SignatureVerification,
  singleHeader,
  type WebhookHeaders,
  withinTolerance,
} from '../payments/contract/signature.ts'

const SIGNATURE_HEADER = 'webhook-signature'
export const POLAR_SIGNATURE_HEADERS = [SIGNATURE_HEADER] as const

/**
 * Polar's signing key. A `whsec_` secret is Standard Webhooks' base64 key; any other secret (Polar's
 * own `polar_whs_…` form) is used as its UTF-8 bytes, as Polar's SDK `validateEvent` does.
 */
export function polarSigningKey(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8')
}

/**
 * Polar follows Standard Webhooks: HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`,
 * base64, sent as space-separated `v1,<signature>` entries of which any may match.
 */
export function verifyPolarSignature(
  rawBody: Buffer,
  headers: WebhookHeaders,
  secret: string,
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureVerification {
  const signatures = headerValues(headers, SIGNATURE_HEADER)
  if (signatures.length === 0) return MISSING_SIGNATURE
  const id = singleHeader(headers, ['webhook-id'])
  const timestampHeader = singleHeader(headers, ['webhook-timestamp'])
  if (!id || !timestampHeader) return invalidSignature('Missing webhook-id or webhook-timestamp header')
  if (!/^\d{1,15}$/.test(timestampHeader)) return invalidSignature('Malformed webhook-timestamp')
  const signed = Buffer.concat([Buffer.from(`${id}.${timestampHeader}.`), rawBody])
  const expected = hmac('sha256', polarSigningKey(secret), signed)
  let matched = false
  for (const entry of signatures.join(' ').split(' ')) {
    const [version, value] = entry.split(',', 2)
    if (version !== 'v1' || !value) continue
    // Every entry is compared, so the time taken does not reveal which one matched.
    if (constantTimeEqual(Buffer.from(value, 'base64'), expected)) matched = true
  }
  if (!matched) return invalidSignature('Signature mismatch')
  if (!withinTolerance(Number(timestampHeader), now, toleranceSeconds)) {
    return expiredSignature('Timestamp outside the tolerance zone')
  }
  return { ok: true }
}
