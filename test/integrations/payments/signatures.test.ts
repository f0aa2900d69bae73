import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { describe, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { verifyLemonSqueezySignature } from '../../../src/integrations/lemonsqueezy/signature.ts'
import type { SignatureVerification } from '../../../src/integrations/payments/contract/signature.ts'
import { verifyPolarSignature } from '../../../src/integrations/polar/signature.ts'
import { verifySolidgateSignature } from '../../../src/integrations/solidgate/signature.ts'
import { verifyStripeSignature } from '../../../src/integrations/stripe/signature.ts'

const NOW = new Date('2026-03-01T12:00:00Z')
const NOW_SECONDS = Math.floor(NOW.getTime() / 1000)
const BODY = Buffer.from(JSON.stringify({ id: 'evt_1', object: 'event', type: 'checkout.session.completed' }))
const TAMPERED = Buffer.from(BODY.toString().replace('evt_1', 'evt_2'))

function assertReason(result: SignatureVerification, reason: 'missing' | 'invalid' | 'expired') {
  assert.equal(result.ok, false)
  if (!result.ok) assert.equal(result.reason, reason)
}

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

function hexHmacSuite(
  name: string,
  algorithm: 'sha256' | 'sha512',
  headerNames: string[],
  verify: typeof verifyLemonSqueezySignature,
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

hexHmacSuite('LemonSqueezy', 'sha256', ['x-signature'], verifyLemonSqueezySignature)
hexHmacSuite('Solidgate', 'sha512', ['x-signature', 'solidgate-signature'], verifySolidgateSignature)

describe('Polar signature (Standard Webhooks)', () => {
  const secret = `whsec_${Buffer.from('polar-test-key-32-bytes-long!!!!').toString('base64')}`
  const msgId = 'msg_2abc'
  const headersFor = (body: Buffer, options: { key?: string; at?: Date } = {}) => {
    const at = options.at ?? NOW
    return {
      'webhook-id': msgId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(options.key ?? secret).sign(msgId, at, body),
    }
  }

  it('accepts a signature made by the standardwebhooks package', () => {
    assert.deepEqual(verifyPolarSignature(BODY, headersFor(BODY), secret, NOW), { ok: true })
  })
  it("accepts Polar's own secret form, used as UTF-8 bytes", () => {
    const polarSecret = 'polar_whs_abcdef0123456789'
    const key = Buffer.from(polarSecret).toString('base64')
    assert.deepEqual(verifyPolarSignature(BODY, headersFor(BODY, { key }), polarSecret, NOW), { ok: true })
  })
  it('refuses a tampered body', () => {
    assertReason(verifyPolarSignature(TAMPERED, headersFor(BODY), secret, NOW), 'invalid')
  })
  it('refuses a signature made with another secret', () => {
    const other = `whsec_${Buffer.from('another-key').toString('base64')}`
    assertReason(verifyPolarSignature(BODY, headersFor(BODY, { key: other }), secret, NOW), 'invalid')
  })
  it('refuses a changed webhook-id', () => {
    assertReason(
      verifyPolarSignature(BODY, { ...headersFor(BODY), 'webhook-id': 'msg_other' }, secret, NOW),
      'invalid',
    )
  })
  it('answers missing without webhook-signature', () => {
    const { 'webhook-signature': _, ...headers } = headersFor(BODY)
    assertReason(verifyPolarSignature(BODY, headers, secret, NOW), 'missing')
  })
  it('refuses a signature without webhook-id or webhook-timestamp', () => {
    const { 'webhook-id': _, ...withoutId } = headersFor(BODY)
    assertReason(verifyPolarSignature(BODY, withoutId, secret, NOW), 'invalid')
    assertReason(
      verifyPolarSignature(BODY, { ...headersFor(BODY), 'webhook-timestamp': 'soon' }, secret, NOW),
      'invalid',
    )
  })
  it('refuses truncated and non-base64 signatures', () => {
    const headers = headersFor(BODY)
    const truncated = headers['webhook-signature'].slice(0, -6)
    assertReason(
      verifyPolarSignature(BODY, { ...headers, 'webhook-signature': truncated }, secret, NOW),
      'invalid',
    )
    assertReason(
      verifyPolarSignature(BODY, { ...headers, 'webhook-signature': 'v1,%%%%' }, secret, NOW),
      'invalid',
    )
    assertReason(
      verifyPolarSignature(BODY, { ...headers, 'webhook-signature': 'v1' }, secret, NOW),
      'invalid',
    )
    const v2 = headers['webhook-signature'].replace('v1,', 'v2,')
    assertReason(verifyPolarSignature(BODY, { ...headers, 'webhook-signature': v2 }, secret, NOW), 'invalid')
  })
  it('refuses a timestamp just outside five minutes, either side', () => {
    const old = headersFor(BODY, { at: new Date(NOW.getTime() - 301_000) })
    assertReason(verifyPolarSignature(BODY, old, secret, NOW), 'expired')
    const future = headersFor(BODY, { at: new Date(NOW.getTime() + 301_000) })
    assertReason(verifyPolarSignature(BODY, future, secret, NOW), 'expired')
    const recent = headersFor(BODY, { at: new Date(NOW.getTime() - 299_000) })
    assert.deepEqual(verifyPolarSignature(BODY, recent, secret, NOW), { ok: true })
  })
  it('refuses a replay from long ago', () => {
    const old = headersFor(BODY, { at: new Date(NOW.getTime() - 90 * 86_400_000) })
    assertReason(verifyPolarSignature(BODY, old, secret, NOW), 'expired')
  })
  it('accepts several signatures when one matches', () => {
    const other = `whsec_${Buffer.from('rotated-key').toString('base64')}`
    const headers = headersFor(BODY)
    const stale = headersFor(BODY, { key: other })['webhook-signature']
    const header = `${stale} ${headers['webhook-signature']}`
    assert.deepEqual(verifyPolarSignature(BODY, { ...headers, 'webhook-signature': header }, secret, NOW), {
      ok: true,
    })
  })
  it('reads the headers in any case and as arrays', () => {
    const headers = headersFor(BODY)
    const mixed = {
      'Webhook-Id': [headers['webhook-id']],
      'WEBHOOK-TIMESTAMP': [headers['webhook-timestamp']],
      'Webhook-Signature': [headers['webhook-signature']],
    }
    assert.deepEqual(verifyPolarSignature(BODY, mixed, secret, NOW), { ok: true })
  })
})
