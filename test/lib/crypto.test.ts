import assert from 'node:assert/strict'
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto'
import { describe, it } from 'node:test'
import {
  checkHmacHex,
  constantTimeEqual,
  createEnvelope,
  ENVELOPE_PREFIX,
  EnvelopeError,
  hmac,
  hmacHex,
  isSealed,
  randomToken,
  sha256Hex,
} from '../../src/lib/crypto.ts'
import { hashPassword, verifyPassword } from '../../src/lib/passwords.ts'

const URL_SAFE = /^[A-Za-z0-9_-]+$/

describe('constantTimeEqual', () => {
  it('equal strings compare equal', () => {
    assert.equal(constantTimeEqual('svc_live_abc123', 'svc_live_abc123'), true)
    assert.equal(constantTimeEqual('', ''), true)
  })

  it('different strings of the same length compare unequal', () => {
    assert.equal(constantTimeEqual('svc_live_abc123', 'svc_live_abc124'), false)
  })

  it('strings of different lengths compare unequal without throwing', () => {
    assert.equal(constantTimeEqual('short', 'much longer value'), false)
    assert.equal(constantTimeEqual('abc', ''), false)
  })

  it('compares bytes, so look-alike characters of another width differ', () => {
    assert.equal(constantTimeEqual('é', 'e\u0301'), false)
    assert.equal(constantTimeEqual('café', 'café'), true)
  })

  it('compares buffers of any lengths, and a string with the buffer of its UTF-8 bytes', () => {
    assert.equal(constantTimeEqual(Buffer.from([1, 2, 3]), Buffer.from([1, 2, 3])), true)
    assert.equal(constantTimeEqual(Buffer.from([1, 2, 3]), Buffer.from([1, 2, 4])), false)
    assert.equal(constantTimeEqual(Buffer.from([1, 2, 3]), Buffer.from([1, 2])), false)
    assert.equal(constantTimeEqual(Buffer.alloc(0), Buffer.from([0])), false)
    assert.equal(constantTimeEqual('café', Buffer.from('café', 'utf8')), true)
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

const KEY_HEX = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'
const OTHER_KEY_HEX = 'f0e1d2c3b4a5968778695a4b3c2d1e0f00112233445566778899aabbccddeeff'
const SECRET = 'whsec_a-plaintext-that-must-never-leak'

function envelopeBytes(sealed: string): Buffer {
  return Buffer.from(sealed.slice(ENVELOPE_PREFIX.length), 'base64')
}

function rethrown(action: () => unknown): EnvelopeError {
  try {
    action()
  } catch (error) {
    assert.ok(error instanceof EnvelopeError, `expected an EnvelopeError, got ${String(error)}`)
    assert.equal(error.name, 'EnvelopeError')
    return error
  }
  assert.fail('expected open to throw')
}

describe('encryption envelope', () => {
  it('seal then open gives back the plaintext, including empty and multi-byte UTF-8 text', () => {
    const envelope = createEnvelope(KEY_HEX)
    for (const plaintext of ['', SECRET, '🔐 secret 👩‍💻', 'سر الاشتراك', 'a'.repeat(10_000)]) {
      assert.equal(envelope.open(envelope.seal(plaintext)), plaintext)
      assert.equal(envelope.open(envelope.seal(plaintext, 'subscription:a'), 'subscription:a'), plaintext)
    }
  })

  it('sealing the same text twice gives different envelopes that both open', () => {
    const envelope = createEnvelope(KEY_HEX)
    const first = envelope.seal(SECRET)
    const second = envelope.seal(SECRET)
    assert.notEqual(first, second)
    assert.notDeepEqual(envelopeBytes(first).subarray(0, 12), envelopeBytes(second).subarray(0, 12))
    assert.equal(envelope.open(first), SECRET)
    assert.equal(envelope.open(second), SECRET)
  })

  it('an envelope is enc:v1: and base64 of a 12-byte iv, a 16-byte tag and the ciphertext', () => {
    const envelope = createEnvelope(KEY_HEX)
    assert.equal(ENVELOPE_PREFIX, 'enc:v1:')
    for (const plaintext of ['', 'abc', '🔐 سر']) {
      const sealed = envelope.seal(plaintext)
      assert.ok(sealed.startsWith('enc:v1:'))
      assert.match(sealed.slice(7), /^[A-Za-z0-9+/]+={0,2}$/)
      assert.equal(envelopeBytes(sealed).length, 12 + 16 + Buffer.byteLength(plaintext, 'utf8'))
    }
  })

  it("a hex key and the same 32 bytes as a Buffer open each other's envelopes, in either hex case", () => {
    const fromHex = createEnvelope(KEY_HEX)
    const fromBytes = createEnvelope(Buffer.from(KEY_HEX, 'hex'))
    const fromUpperHex = createEnvelope(KEY_HEX.toUpperCase())
    assert.equal(fromBytes.open(fromHex.seal(SECRET)), SECRET)
    assert.equal(fromUpperHex.open(fromBytes.seal(SECRET)), SECRET)
  })

  it('isSealed tells envelopes from other text', () => {
    assert.equal(isSealed(createEnvelope(KEY_HEX).seal(SECRET)), true)
    assert.equal(isSealed('enc:v1:'), true)
    assert.equal(isSealed(SECRET), false)
    assert.equal(isSealed('enc:v2:AAAA'), false)
    assert.equal(isSealed(''), false)
  })

  it('another key cannot open an envelope', () => {
    const sealed = createEnvelope(KEY_HEX).seal(SECRET)
    const error = rethrown(() => createEnvelope(OTHER_KEY_HEX).open(sealed))
    assert.match(error.message, /cannot be decrypted/)
  })

  it('a flipped bit anywhere in the iv, tag or ciphertext makes open fail', () => {
    const envelope = createEnvelope(KEY_HEX)
    const bytes = envelopeBytes(envelope.seal('short secret'))
    for (let index = 0; index < bytes.length; index++) {
      for (const bit of [0x01, 0x80]) {
        const tampered = Buffer.from(bytes)
        tampered[index] = (tampered[index] ?? 0) ^ bit
        const error = rethrown(() => envelope.open(ENVELOPE_PREFIX + tampered.toString('base64')))
        assert.match(error.message, /cannot be decrypted \(wrong key, wrong context or tampered\)/)
      }
    }
  })

  it('a truncated envelope fails to open', () => {
    const envelope = createEnvelope(KEY_HEX)
    const sealed = envelope.seal(SECRET)
    const bytes = envelopeBytes(sealed)
    for (const length of [0, 1, 12, 27, 28, bytes.length - 1]) {
      rethrown(() => envelope.open(ENVELOPE_PREFIX + bytes.subarray(0, length).toString('base64')))
    }
    for (const cut of [1, 2, 3, 10]) rethrown(() => envelope.open(sealed.slice(0, -cut)))
    assert.match(rethrown(() => envelope.open(ENVELOPE_PREFIX)).message, /truncated/)
    assert.match(
      rethrown(() => envelope.open(ENVELOPE_PREFIX + bytes.subarray(0, 27).toString('base64'))).message,
      /truncated/,
    )
  })

  it('a value without the enc:v1: prefix, or of another version, is not an envelope', () => {
    const envelope = createEnvelope(KEY_HEX)
    const body = envelope.seal(SECRET).slice(ENVELOPE_PREFIX.length)
    for (const value of [
      body,
      `enc:v2:${body}`,
      `ENC:v1:${body}`,
      `enc:v1${body}`,
      `enc:${body}`,
      SECRET,
      '',
    ]) {
      assert.match(
        rethrown(() => envelope.open(value)).message,
        /not an encrypted envelope|unsupported envelope version/,
      )
    }
    assert.match(rethrown(() => envelope.open(`enc:v2:${body}`)).message, /unsupported envelope version/)
    assert.match(
      rethrown(() => envelope.open(`enc:v1:${body.replace(/.$/, '!')}`)).message,
      /not valid base64/,
    )
  })

  it('an envelope sealed for one context does not open for another context or for none', () => {
    const envelope = createEnvelope(KEY_HEX)
    const sealed = envelope.seal(SECRET, 'subscription:a')
    assert.equal(envelope.open(sealed, 'subscription:a'), SECRET)
    for (const context of ['subscription:b', 'subscription:A', 'subscription:a ', undefined]) {
      assert.match(rethrown(() => envelope.open(sealed, context)).message, /cannot be decrypted/)
    }
    rethrown(() => envelope.open(envelope.seal(SECRET), 'subscription:a'))
  })

  it('open errors never contain the plaintext, the sealed value or the key', () => {
    const envelope = createEnvelope(KEY_HEX)
    const sealed = envelope.seal(SECRET, 'row:1')
    const bytes = envelopeBytes(sealed)
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1
    const errors = [
      rethrown(() => createEnvelope(OTHER_KEY_HEX).open(sealed, 'row:1')),
      rethrown(() => envelope.open(sealed, 'row:2')),
      rethrown(() => envelope.open(sealed)),
      rethrown(() => envelope.open(ENVELOPE_PREFIX + bytes.toString('base64'), 'row:1')),
      rethrown(() => envelope.open(sealed.slice(0, 20))),
      rethrown(() => envelope.open(SECRET)),
      rethrown(() => envelope.open(`enc:v9:${SECRET}`)),
    ]
    const body = sealed.slice(ENVELOPE_PREFIX.length)
    const keyBase64 = Buffer.from(KEY_HEX, 'hex').toString('base64')
    for (const error of errors) {
      const shown = `${error.message} ${String(error)} ${error.stack ?? ''}`
      for (const secret of [
        SECRET,
        'plaintext-that-must',
        body.slice(0, 16),
        KEY_HEX,
        KEY_HEX.toUpperCase(),
        keyBase64,
      ]) {
        assert.ok(!shown.includes(secret), `error "${error.message}" reveals ${secret}`)
      }
    }
  })

  it('a key that is not 64 hex characters or 32 bytes is refused without echoing it', () => {
    const badKeys: Array<string | Buffer> = [
      KEY_HEX.slice(0, 63),
      `${KEY_HEX}0`,
      `${KEY_HEX.slice(0, 62)}zz`,
      'zz'.repeat(32),
      ` ${KEY_HEX.slice(1)}`,
      '',
      Buffer.alloc(31),
      Buffer.alloc(33),
      Buffer.alloc(0),
    ]
    for (const key of badKeys) {
      assert.throws(
        () => createEnvelope(key),
        (error: Error) => {
          assert.match(error.message, /64 hexadecimal characters or a 32-byte Buffer/)
          if (typeof key === 'string' && key.length > 0) assert.ok(!error.message.includes(key))
          return true
        },
      )
    }
  })

  it('what seal produces decrypts with node:crypto AES-256-GCM directly', () => {
    const sealed = createEnvelope(KEY_HEX).seal('🔐 سر', 'plugin:42')
    const bytes = envelopeBytes(sealed)
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(KEY_HEX, 'hex'), bytes.subarray(0, 12))
    decipher.setAuthTag(bytes.subarray(12, 28))
    decipher.setAAD(Buffer.from('plugin:42', 'utf8'))
    const plaintext = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()])
    assert.equal(plaintext.toString('utf8'), '🔐 سر')
  })

  it('an envelope built by hand with node:crypto AES-256-GCM opens', () => {
    const iv = Buffer.from('00112233445566778899aabb', 'hex')
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(KEY_HEX, 'hex'), iv)
    cipher.setAAD(Buffer.from('plugin:42', 'utf8'))
    const ciphertext = Buffer.concat([cipher.update('سر 🔐', 'utf8'), cipher.final()])
    const sealed = `enc:v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`
    assert.equal(createEnvelope(KEY_HEX).open(sealed, 'plugin:42'), 'سر 🔐')
  })

  it('opens the AES-256-GCM test vectors of McGrew and Viega (test cases 13 and 14)', () => {
    const envelope = createEnvelope('00'.repeat(32))
    const iv = Buffer.alloc(12)
    const emptyTag = Buffer.from('530f8afbc74536b9a963b4f1c4cb738b', 'hex')
    assert.equal(envelope.open(`enc:v1:${Buffer.concat([iv, emptyTag]).toString('base64')}`), '')
    const tag = Buffer.from('d0d1c8a799996bf0265b98b5d48ab919', 'hex')
    const ciphertext = Buffer.from('cea7403d4d606b6e074ec5d3baf39d18', 'hex')
    const sealed = `enc:v1:${Buffer.concat([iv, tag, ciphertext]).toString('base64')}`
    assert.equal(envelope.open(sealed), '\0'.repeat(16))
  })
})

describe('HMAC signatures', () => {
  // RFC 4231, test case 2.
  const JEFE = 'Jefe'
  const WHAT = 'what do ya want for nothing?'
  const SHA256 = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'
  const SHA512 =
    '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737'

  it('hmacHex matches RFC 4231 test case 2 for SHA-256 and SHA-512', () => {
    assert.equal(hmacHex(JEFE, WHAT, 'sha256'), SHA256)
    assert.equal(hmacHex(JEFE, WHAT, 'sha512'), SHA512)
    assert.equal(hmacHex(Buffer.from(JEFE), Buffer.from(WHAT), 'sha256'), SHA256)
  })

  it('hmacHex and checkHmacHex default to SHA-256', () => {
    assert.equal(hmacHex(JEFE, WHAT), SHA256)
    assert.equal(checkHmacHex(JEFE, WHAT, SHA256), true)
    assert.equal(checkHmacHex(JEFE, WHAT, SHA512), false)
  })

  it('hmac answers the raw bytes of the same digest', () => {
    assert.deepEqual(hmac('sha256', JEFE, WHAT), Buffer.from(SHA256, 'hex'))
    assert.deepEqual(hmac('sha512', JEFE, WHAT), Buffer.from(SHA512, 'hex'))
  })

  it('refuses an algorithm outside the allow-list instead of silently using it', () => {
    for (const algorithm of ['md5', 'sha1', 'SHA256', 'constructor', '']) {
      assert.throws(() => hmac(algorithm as 'sha256', JEFE, WHAT), /sha256 or sha512/)
      assert.throws(() => hmacHex(JEFE, WHAT, algorithm as 'sha256'), /sha256 or sha512/)
    }
  })

  it('hmacHex matches RFC 4231 test case 1 with a binary key', () => {
    assert.equal(
      hmacHex(Buffer.alloc(20, 0x0b), 'Hi There'),
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    )
  })

  it('verifyHmacHex accepts the right signature in lower or upper case', () => {
    assert.equal(checkHmacHex(JEFE, WHAT, SHA256, 'sha256'), true)
    assert.equal(checkHmacHex(JEFE, WHAT, SHA256.toUpperCase(), 'sha256'), true)
    assert.equal(checkHmacHex(JEFE, WHAT, SHA512, 'sha512'), true)
    assert.equal(checkHmacHex(JEFE, WHAT, SHA512.toUpperCase(), 'sha512'), true)
  })

  it('verifyHmacHex refuses a changed, truncated, empty or non-hex signature without throwing', () => {
    const changed = `${SHA256.slice(0, 10)}${SHA256[10] === '0' ? '1' : '0'}${SHA256.slice(11)}`
    for (const signature of [
      changed,
      SHA256.slice(0, -1),
      SHA256.slice(0, -2),
      `${SHA256}00`,
      '',
      'z'.repeat(64),
      `${SHA256.slice(0, 62)}g0`,
      ` ${SHA256.slice(1)}`,
      'not a signature',
    ]) {
      assert.equal(checkHmacHex(JEFE, WHAT, signature, 'sha256'), false, signature)
    }
  })

  it('verifyHmacHex refuses a signature made with the other algorithm', () => {
    assert.equal(checkHmacHex(JEFE, WHAT, SHA512, 'sha256'), false)
    assert.equal(checkHmacHex(JEFE, WHAT, SHA256, 'sha512'), false)
    assert.equal(checkHmacHex(JEFE, WHAT, SHA512.slice(0, 64), 'sha256'), false)
  })

  it('verifyHmacHex refuses the right signature under another secret or payload', () => {
    assert.equal(checkHmacHex('jefe', WHAT, SHA256, 'sha256'), false)
    assert.equal(checkHmacHex(JEFE, `${WHAT} `, SHA256, 'sha256'), false)
  })

  it('Buffer payloads with non-UTF-8 bytes sign exactly those bytes', () => {
    const rawBody = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x7b, 0x7d])
    const expected = createHmac('sha256', 'whsec_test')
      .update(rawBody.toString('latin1'), 'latin1')
      .digest('hex')
    assert.equal(hmacHex('whsec_test', rawBody, 'sha256'), expected)
    assert.equal(hmacHex('whsec_test', Buffer.from(rawBody), 'sha256'), expected)
    assert.notEqual(hmacHex('whsec_test', rawBody.toString('utf8'), 'sha256'), expected)
    assert.equal(checkHmacHex('whsec_test', rawBody, expected, 'sha256'), true)
    assert.equal(checkHmacHex('whsec_test', rawBody.toString('utf8'), expected, 'sha256'), false)
  })
})
