import Stripe from 'stripe'
import { checkHmacHex, constantTimeEqual, type HmacAlgorithm, hmac } from '../../lib/crypto.ts'

export type PaymentProvider = 'stripe' | 'lemonsqueezy' | 'polar' | 'solidgate'

export type SignatureVerification =
  | { ok: true }
  | { ok: false; reason: 'missing' | 'invalid' | 'expired'; message: string }

export type WebhookHeaders = Record<string, string | string[] | undefined>

export type SignatureVerifier = (
  rawBody: Buffer,
  headers: WebhookHeaders,
  secret: string,
  now: Date,
) => SignatureVerification

/** Stripe's and Standard Webhooks' default replay window. */
export const SIGNATURE_TOLERANCE_SECONDS = 300

/** The header each provider signs with; its absence is answered 400 `No signature provided`. */
export const SIGNATURE_HEADERS: Record<PaymentProvider, readonly string[]> = {
  stripe: ['stripe-signature'],
  lemonsqueezy: ['x-signature'],
  polar: ['webhook-signature'],
  solidgate: ['x-signature', 'solidgate-signature'],
}

const MISSING: SignatureVerification = { ok: false, reason: 'missing', message: 'No signature provided' }
const invalid = (message: string): SignatureVerification => ({ ok: false, reason: 'invalid', message })
const expired = (message: string): SignatureVerification => ({ ok: false, reason: 'expired', message })

/** Every value of a header, whatever the case of its name and whether it came as a string or an array. */
export function headerValues(headers: WebhookHeaders, name: string): string[] {
  const wanted = name.toLowerCase()
  const values: string[] = []
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) if (v.trim() !== '') values.push(v.trim())
  }
  return values
}

function singleHeader(headers: WebhookHeaders, names: readonly string[]): string | undefined | null {
  const values = names.flatMap((name) => headerValues(headers, name))
  if (values.length === 0) return undefined
  // Two different signature values for one body cannot both be right: refuse rather than pick one.
  return new Set(values).size === 1 ? (values[0] as string) : null
}

function verifyHexHmac(
  algorithm: HmacAlgorithm,
  headerNames: readonly string[],
  rawBody: Buffer,
  headers: WebhookHeaders,
  secret: string,
): SignatureVerification {
  const signature = singleHeader(headers, headerNames)
  if (signature === undefined) return MISSING
  if (signature === null) return invalid('Conflicting signature headers')
  return checkHmacHex(secret, rawBody, signature, algorithm)
    ? { ok: true }
    : invalid('Signature mismatch or malformed')
}

/** LemonSqueezy: `X-Signature` is the hex HMAC-SHA256 of the raw body under the signing secret. */
export const verifyLemonSqueezySignature: SignatureVerifier = (rawBody, headers, secret) =>
  verifyHexHmac('sha256', SIGNATURE_HEADERS.lemonsqueezy, rawBody, headers, secret)

/** Solidgate (CONTRACT.md): `x-signature` or `solidgate-signature` is the hex HMAC-SHA512 of the raw body. */
export const verifySolidgateSignature: SignatureVerifier = (rawBody, headers, secret) =>
  verifyHexHmac('sha512', SIGNATURE_HEADERS.solidgate, rawBody, headers, secret)

/**
 * Stripe: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`. The SDK checks the HMAC (any `v1` may
 * match, compared in constant time); the age is checked here against the injected clock, in both
 * directions, because the SDK only refuses timestamps in the past.
 */
export function verifyStripeSignature(
  rawBody: Buffer,
  headers: WebhookHeaders,
  secret: string,
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureVerification {
  const values = headerValues(headers, 'stripe-signature')
  if (values.length === 0) return MISSING
  const header = values.join(',')
  const signature = Stripe.webhooks.signature
  if (!signature) return invalid('Stripe signature verification unavailable')
  try {
    // Tolerance 0 makes the SDK check the signature only; the timestamp is checked below.
    signature.verifyHeader(rawBody, header, secret, 0)
  } catch (error) {
    return invalid(error instanceof Error ? error.message : 'Signature mismatch')
  }
  const timestamps = header
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('t='))
  if (timestamps.length !== 1) return invalid('Header must carry exactly one timestamp')
  const timestamp = Number((timestamps[0] as string).slice(2))
  if (!Number.isSafeInteger(timestamp)) return invalid('Malformed timestamp')
  if (Math.abs(Math.floor(now.getTime() / 1000) - timestamp) > toleranceSeconds) {
    return expired('Timestamp outside the tolerance zone')
  }
  return { ok: true }
}

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
  const signatures = headerValues(headers, 'webhook-signature')
  if (signatures.length === 0) return MISSING
  const id = singleHeader(headers, ['webhook-id'])
  const timestampHeader = singleHeader(headers, ['webhook-timestamp'])
  if (!id || !timestampHeader) return invalid('Missing webhook-id or webhook-timestamp header')
  if (!/^\d{1,15}$/.test(timestampHeader)) return invalid('Malformed webhook-timestamp')
  const signed = Buffer.concat([Buffer.from(`${id}.${timestampHeader}.`), rawBody])
  const expected = hmac('sha256', polarSigningKey(secret), signed)
  let matched = false
  for (const entry of signatures.join(' ').split(' ')) {
    const [version, value] = entry.split(',', 2)
    if (version !== 'v1' || !value) continue
    // Every entry is compared, so the time taken does not reveal which one matched.
    if (constantTimeEqual(Buffer.from(value, 'base64'), expected)) matched = true
  }
  if (!matched) return invalid('Signature mismatch')
  if (Math.abs(Math.floor(now.getTime() / 1000) - Number(timestampHeader)) > toleranceSeconds) {
    return expired('Timestamp outside the tolerance zone')
  }
  return { ok: true }
}

export const signatureVerifiers: Record<PaymentProvider, SignatureVerifier> = {
  stripe: verifyStripeSignature,
  lemonsqueezy: verifyLemonSqueezySignature,
  polar: verifyPolarSignature,
  solidgate: verifySolidgateSignature,
}
