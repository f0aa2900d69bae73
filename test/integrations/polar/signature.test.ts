import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { verifyPolarSignature } from '../../../src/integrations/polar/signature.ts'
import { assertReason, BODY, NOW, TAMPERED } from '../payments/signature-cases.ts'

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
