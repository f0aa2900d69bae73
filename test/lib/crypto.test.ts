import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { randomToken, safeEqual, sha256Hex } from '../../src/lib/crypto.ts'
import { hashPassword, verifyPassword } from '../../src/lib/passwords.ts'

const URL_SAFE = /^[A-Za-z0-9_-]+$/

describe('safeEqual', () => {
  it('equal strings compare equal', () => {
    assert.equal(safeEqual('svc_live_abc123', 'svc_live_abc123'), true)
    assert.equal(safeEqual('', ''), true)
  })

  it('different strings of the same length compare unequal', () => {
    assert.equal(safeEqual('svc_live_abc123', 'svc_live_abc124'), false)
  })

  it('strings of different lengths compare unequal without throwing', () => {
    assert.equal(safeEqual('short', 'much longer value'), false)
    assert.equal(safeEqual('abc', ''), false)
  })

  it('compares bytes, so look-alike characters of another width differ', () => {
    assert.equal(safeEqual('é', 'e\u0301'), false)
    assert.equal(safeEqual('café', 'café'), true)
  })
})

describe('randomToken', () => {
  it('32 bytes by default give 43 base64url characters', () => {
    assert.equal(randomToken().length, 43)
  })

  it('the length follows the number of bytes asked for', () => {
    assert.equal(randomToken(16).length, 22)
    assert.equal(randomToken(48).length, 64)
  })

  it('tokens are URL-safe, without padding', () => {
    for (let index = 0; index < 200; index++) assert.match(randomToken(), URL_SAFE)
  })

  it('tokens do not repeat', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => randomToken()))
    assert.equal(tokens.size, 1000)
  })
})

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vectors', () => {
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  })

  it('hashes the UTF-8 bytes of the string', () => {
    // SHA-256 of the bytes c3 a9.
    assert.equal(sha256Hex('é'), '4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c')
  })
})

describe('passwords', () => {
  it('hashPassword gives an argon2id hash that is salted per call', async () => {
    const first = await hashPassword('a good password')
    const second = await hashPassword('a good password')
    assert.match(first, /^\$argon2id\$/)
    assert.notEqual(first, second)
  })

  it('verifyPassword accepts the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('a good password')
    assert.equal(await verifyPassword(stored, 'a good password'), true)
    assert.equal(await verifyPassword(stored, 'a good passwore'), false)
    assert.equal(await verifyPassword(stored, ''), false)
  })

  it('verifyPassword answers false when there is no stored hash', async () => {
    assert.equal(await verifyPassword(null, 'a good password'), false)
    assert.equal(await verifyPassword(undefined, 'a good password'), false)
    assert.equal(await verifyPassword('', 'a good password'), false)
  })

  it('verifyPassword answers false for a malformed hash instead of throwing', async () => {
    assert.equal(await verifyPassword('not-a-hash', 'a good password'), false)
    assert.equal(await verifyPassword('$argon2id$v=19$m=garbage', 'a good password'), false)
    assert.equal(await verifyPassword('$2b$10$abcdefghijklmnopqrstuv', 'a good password'), false)
  })
})
