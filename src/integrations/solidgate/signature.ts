import { type SignatureVerifier, verifyHexHmac } from '../payments/contract/signature.ts'

export const SOLIDGATE_SIGNATURE_HEADERS = ['x-signature', 'solidgate-signature'] as const

/** Solidgate (CONTRACT.md): `x-signature` or `solidgate-signature` is the hex HMAC-SHA512 of the raw body. */
export const verifySolidgateSignature: SignatureVerifier = (rawBody, headers, secret) =>
  verifyHexHmac('sha512', SOLIDGATE_SIGNATURE_HEADERS, rawBody, headers, secret)
