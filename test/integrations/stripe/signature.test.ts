import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Stripe from 'stripe'
import { verifyStripeSignature } from '../../../src/integrations/stripe/signature.ts'
import { assertReason, BODY, NOW, NOW_SECONDS, TAMPERED } from '../payments/signature-cases.ts'

describe('Stripe signature', () => {
  const secret = 'whsec_test_secret'
  const sign = (body: Buffer, options: { secret?: string; timestamp?: number } = {}) =>
    Stripe.webhooks.generateTestHeaderString({
      payload: body.toString(),
      secret: options.secret ?? secret,
      timestamp: options.timestamp ?? NOW_SECONDS,
    })

  it('accepts a header made by the SDK', () => {
    assert.deepEqual(verifyStripeSignature(BODY, { 'stripe-signature': sign(BODY) }, secret, NOW), {
      ok: true,
    })
  })
  it('refuses a tampered body', () => {
    assertReason(verifyStripeSignature(TAMPERED, { 'stripe-signature': sign(BODY) }, secret, NOW), 'invalid')
  })
  it('refuses a signature made with another secret', () => {
    const header = sign(BODY, { secret: 'whsec_other' })
    assertReason(verifyStripeSignature(BODY, { 'stripe-signature': header }, secret, NOW), 'invalid')
  })
  it('answers missing without the header', () => {
    assertReason(verifyStripeSignature(BODY, { 'content-type': 'application/json' }, secret, NOW), 'missing')
    assertReason(verifyStripeSignature(BODY, { 'stripe-signature': '' }, secret, NOW), 'missing')
  })
  it('refuses truncated and non-hex signatures', () => {
    const header = sign(BODY)
    assertReason(
      verifyStripeSignature(BODY, { 'stripe-signature': header.slice(0, -4) }, secret, NOW),
      'invalid',
    )
    const nonHex = `t=${NOW_SECONDS},v1=${'zz'.repeat(32)}`
    assertReason(verifyStripeSignature(BODY, { 'stripe-signature': nonHex }, secret, NOW), 'invalid')
    assertReason(verifyStripeSignature(BODY, { 'stripe-signature': 'garbage' }, secret, NOW), 'invalid')
  })
  it('refuses a timestamp just outside the tolerance, either side, and accepts one just inside', () => {
    const old = sign(BODY, { timestamp: NOW_SECONDS - 301 })
    assertReason(verifyStripeSignature(BODY, { 'stripe-signature': old }, secret, NOW), 'expired')
    const future = sign(BODY, { timestamp: NOW_SECONDS + 301 })
    assertReason(verifyStripeSignature(BODY, { 'stripe-signature': future }, secret, NOW), 'expired')
    const recent = sign(BODY, { timestamp: NOW_SECONDS - 300 })
    assert.deepEqual(verifyStripeSignature(BODY, { 'stripe-signature': recent }, secret, NOW), { ok: true })
  })
  it('refuses a replay from long ago', () => {
    const header = sign(BODY, { timestamp: NOW_SECONDS - 30 * 86_400 })
    assertReason(verifyStripeSignature(BODY, { 'stripe-signature': header }, secret, NOW), 'expired')
  })
  it('accepts a header with several v1 signatures when one matches', () => {
    const good = sign(BODY)
    const other = sign(BODY, { secret: 'whsec_rotated' })
    const header = `${other},v1=${good.split('v1=')[1]}`
    assert.deepEqual(verifyStripeSignature(BODY, { 'stripe-signature': header }, secret, NOW), { ok: true })
  })
  it('reads the header in any case and as an array', () => {
    assert.deepEqual(verifyStripeSignature(BODY, { 'Stripe-Signature': sign(BODY) }, secret, NOW), {
      ok: true,
    })
    assert.deepEqual(verifyStripeSignature(BODY, { 'stripe-signature': [sign(BODY)] }, secret, NOW), {
      ok: true,
    })
  })
})
