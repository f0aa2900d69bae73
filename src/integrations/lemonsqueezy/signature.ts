import { type SignatureVerifier, verifyHexHmac } from '../payments/contract/signature.ts'

export const LEMONSQUEEZY_SIGNATURE_HEADERS = ['x-signature'] as const

/** LemonSqueezy: `X-Signature` is the hex HMAC-SHA256 of the raw body under the signing secret. */
export const verifyLemonSqueezySignature: SignatureVerifier = (rawBody, headers, secret) =>
  verifyHexHmac('sha256', LEMONSQUEEZY_SIGNATURE_HEADERS, rawBody, headers, secret)
