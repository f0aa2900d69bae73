/**
 * What a provider's signature check is and the pieces every scheme shares: reading the signature headers,
 * the verdicts, the replay window, and the hex HMAC of the raw body. The HMAC and the constant-time
 * comparison are lib/crypto.ts's. Provider folders import this file; it knows no provider.
 */
import { checkHmacHex, type HmacAlgorithm } from '../../../lib/crypto.ts'

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

export const MISSING_SIGNATURE: SignatureVerification = {
  ok: false,
  reason: 'missing',
  message: 'No signature provided',
}
export const invalidSignature = (message: string): SignatureVerification => ({
  ok: false,
  reason: 'invalid',
  message,
})
export const expiredSignature = (message: string): SignatureVerification => ({
  ok: false,
  reason: 'expired',
  message,
})

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

/** The one value of the headers named; undefined when none is sent, null when they disagree. */
export function singleHeader(headers: WebhookHeaders, names: readonly string[]): string | undefined | null {
  const values = names.flatMap((name) => headerValues(headers, name))
  if (values.length === 0) return undefined
  // Two different signature values for one body cannot both be right: refuse rather than pick one.
  return new Set(values).size === 1 ? (values[0] as string) : null
}

/** Whether `timestamp` (unix seconds) is within `toleranceSeconds` of `now`, either side. */
export function withinTolerance(timestamp: number, now: Date, toleranceSeconds: number): boolean {
  return Math.abs(Math.floor(now.getTime() / 1000) - timestamp) <= toleranceSeconds
}

/** A scheme whose one signature header is the hex HMAC of the raw body under the signing secret. */
export function verifyHexHmac(
  algorithm: HmacAlgorithm,
  headerNames: readonly string[],
  rawBody: Buffer,
  headers: WebhookHeaders,
  secret: string,
): SignatureVerification {
  const signature = singleHeader(headers, headerNames)
  if (signature === undefined) return MISSING_SIGNATURE
  if (signature === null) return invalidSignature('Conflicting signature headers')
  return checkHmacHex(secret, rawBody, signature, algorithm)
    ? { ok: true }
    : invalidSignature('Signature mismatch or malformed')
}
