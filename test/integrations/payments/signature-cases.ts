/** What the signature tests of every payment provider share: a clock, a body, and the hex HMAC schemes' suite. */
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { describe, it } from 'node:test'
import type {
  SignatureVerification,
  SignatureVerifier,
} from '../../../src/integrations/payments/contract/signature.ts'

export const NOW = new Date('2026-03-01T12:00:00Z')
export const NOW_SECONDS = Math.floor(NOW.getTime() / 1000)
export const BODY = Buffer.from(
  JSON.stringify({ id: 'evt_1', object: 'event', type: 'checkout.session.completed' }),
)
export const TAMPERED = Buffer.from(BODY.toString().replace('evt_1', 'evt_2'))

export function assertReason(result: SignatureVerification, reason: 'missing' | 'invalid' | 'expired') {
  assert.equal(result.ok, false)
  if (!result.ok) assert.equal(result.reason, reason)
}

/** The cases of a scheme whose one header is the hex HMAC of the raw body (LemonSqueezy, Solidgate). */
export function hexHmacSuite(
  name: string,
  algorithm: 'sha256' | 'sha512',
  headerNames: string[],
  verify: SignatureVerifier,
) {
  const secret = 'signing-secret'
  const sign = (body: Buffer, key = secret) => createHmac(algorithm, key).update(body).digest('hex')
  const header = headerNames[0] as string

  describe(`${name} signature`, () => {
    it('accepts the HMAC of the raw body under every header name', () => {
      for (const headerName of headerNames) {
        assert.deepEqual(verify(BODY, { [headerName]: sign(BODY) }, secret, NOW), { ok: true })
      }
    })
    it('is checked on the raw bytes, not re-serialised JSON', () => {
      const spaced = Buffer.from('{ "id" : "evt_1" }')
      assert.deepEqual(verify(spaced, { [header]: sign(spaced) }, secret, NOW), { ok: true })
      const compact = Buffer.from(JSON.stringify(JSON.parse(spaced.toString())))
      assertReason(verify(compact, { [header]: sign(spaced) }, secret, NOW), 'invalid')
    })
    it('refuses a tampered body', () => {
      assertReason(verify(TAMPERED, { [header]: sign(BODY) }, secret, NOW), 'invalid')
    })
    it('refuses a signature made with another secret', () => {
      assertReason(verify(BODY, { [header]: sign(BODY, 'another-secret') }, secret, NOW), 'invalid')
    })
    it('answers missing without the header', () => {
      assertReason(verify(BODY, {}, secret, NOW), 'missing')
      assertReason(verify(BODY, { [header]: undefined }, secret, NOW), 'missing')
    })
    it('refuses truncated, non-hex and empty-looking signatures without throwing', () => {
      const signature = sign(BODY)
      assertReason(verify(BODY, { [header]: signature.slice(0, -2) }, secret, NOW), 'invalid')
      assertReason(verify(BODY, { [header]: `${signature.slice(0, -2)}zz` }, secret, NOW), 'invalid')
      assertReason(verify(BODY, { [header]: `sha256=${signature}` }, secret, NOW), 'invalid')
      assertReason(verify(BODY, { [header]: 'x'.repeat(signature.length) }, secret, NOW), 'invalid')
    })
    it('accepts an uppercase hex signature', () => {
      assert.deepEqual(verify(BODY, { [header]: sign(BODY).toUpperCase() }, secret, NOW), { ok: true })
    })
    it('reads the header in any case and as an array', () => {
      assert.deepEqual(verify(BODY, { [header.toUpperCase()]: sign(BODY) }, secret, NOW), { ok: true })
      assert.deepEqual(verify(BODY, { [header]: [sign(BODY)] }, secret, NOW), { ok: true })
    })
    it('refuses two different signatures for one body', () => {
      assertReason(verify(BODY, { [header]: [sign(BODY), sign(BODY, 'other')] }, secret, NOW), 'invalid')
    })
  })
}
