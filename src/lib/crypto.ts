import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  type KeyObject,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto'
import { badRequest } from './errors.ts'

/** A random secret token, URL-safe, of `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}

/** Marks a value stored encrypted; the version lets the format change without guessing. */
export const ENVELOPE_PREFIX = 'enc:v1:'

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
const HEX_KEY = /^[0-9a-fA-F]{64}$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Why a sealed value could not be opened; the message never carries the value, plaintext or key. */
export class EnvelopeError extends Error {
  override name = 'EnvelopeError'
}

export type Envelope = {
  /** AES-256-GCM with a fresh IV; `context` is bound as additional data, so it must match on open. */
  seal(plaintext: string, context?: string): string
  open(sealed: string, context?: string): string
}

/**
 * The envelope of a production instance started without PLATFORM_ENCRYPTION_KEY: it seals nothing (SPEC.md:
 * storing a secret there is a 400 naming the missing key) and opens nothing.
 */
export function createKeylessEnvelope(): Envelope {
  return {
    seal() {
      throw badRequest(
        'PLATFORM_ENCRYPTION_KEY is not set on this production instance, so it cannot store secrets: ' +
          'set it (64 hex characters) and restart',
        'ENCRYPTION_KEY_MISSING',
      )
    },
    open() {
      throw new EnvelopeError('PLATFORM_ENCRYPTION_KEY is not set: sealed values cannot be opened')
    },
  }
}

/** `key` is PLATFORM_ENCRYPTION_KEY (64 hex characters) or 32 raw bytes. */
export function createEnvelope(key: string | Buffer): Envelope {
  const secretKey = parseEnvelopeKey(key)

  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', secretKey, iv, { authTagLength: TAG_BYTES })
      if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'))
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return ENVELOPE_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')
    },

    open(sealed, context) {
      if (typeof sealed !== 'string' || !sealed.startsWith(ENVELOPE_PREFIX)) {
        throw new EnvelopeError(
          typeof sealed === 'string' && sealed.startsWith('enc:')
            ? `Sealed value has an unsupported envelope version (expected ${ENVELOPE_PREFIX})`
            : `Value is not an encrypted envelope (expected the ${ENVELOPE_PREFIX} prefix)`,
        )
      }
      const body = sealed.slice(ENVELOPE_PREFIX.length)
      if (body.length % 4 !== 0) throw new EnvelopeError('Sealed value is truncated')
      if (!BASE64.test(body)) throw new EnvelopeError('Sealed value is not valid base64')
      const bytes = Buffer.from(body, 'base64')
      if (bytes.length < IV_BYTES + TAG_BYTES) throw new EnvelopeError('Sealed value is truncated')

      const decipher = createDecipheriv('aes-256-gcm', secretKey, bytes.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      })
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
      if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'))
      try {
        const plaintext = Buffer.concat([
          decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ])
        return plaintext.toString('utf8')
      } catch {
        throw new EnvelopeError('Sealed value cannot be decrypted (wrong key, wrong context or tampered)')
      }
    },
  }
}

/** Whether a stored value is already an envelope, e.g. to tell legacy plaintext from sealed rows. */
export function isSealed(value: string): boolean {
  return typeof value === 'string' && value.startsWith(ENVELOPE_PREFIX)
}

function parseEnvelopeKey(key: string | Buffer): KeyObject {
  if (typeof key === 'string' && HEX_KEY.test(key)) return createSecretKey(Buffer.from(key, 'hex'))
  if (Buffer.isBuffer(key) && key.length === KEY_BYTES) return createSecretKey(Buffer.from(key))
  throw new Error(
    `Encryption key must be ${KEY_BYTES * 2} hexadecimal characters or a ${KEY_BYTES}-byte Buffer`,
  )
}

/**
 * The one HMAC and constant-time comparison of the code base: inbound webhook signatures (payment
 * providers) and outbound webhook signing both go through these, so the algorithm allow-list, the raw-byte
 * rule and the flat-time comparison are written once.
 */
export type HmacAlgorithm = 'sha256' | 'sha512'

/** What is signed or compared: a string is taken as its UTF-8 bytes, a Buffer as exactly its bytes. */
export type Bytes = string | Buffer

const HMAC_BYTES: Record<HmacAlgorithm, number> = { sha256: 32, sha512: 64 }
const HEX = /^[0-9a-fA-F]*$/

/** The raw HMAC; pass the request's raw bytes as a Buffer so the signature covers exactly what was sent. */
export function hmac(algorithm: HmacAlgorithm, key: Bytes, data: Bytes): Buffer {
  // A typo'd or attacker-chosen algorithm name must not silently select a weaker hash.
  if (!Object.hasOwn(HMAC_BYTES, algorithm)) throw new Error('HMAC algorithm must be sha256 or sha512')
  return createHmac(algorithm, key).update(data).digest()
}

/** Lowercase hex HMAC. */
export function hmacHex(key: Bytes, data: Bytes, algorithm: HmacAlgorithm = 'sha256'): string {
  return hmac(algorithm, key, data).toString('hex')
}

/**
 * Constant-time check of a presented hex HMAC (either case); a malformed or wrong-length signature answers
 * false, never throws.
 */
export function checkHmacHex(
  key: Bytes,
  data: Bytes,
  givenHex: string,
  algorithm: HmacAlgorithm = 'sha256',
): boolean {
  const expected = hmac(algorithm, key, data)
  const wellFormed =
    typeof givenHex === 'string' && givenHex.length === expected.length * 2 && HEX.test(givenHex)
  return constantTimeEqual(expected, wellFormed ? Buffer.from(givenHex, 'hex') : Buffer.alloc(0))
}

/**
 * Constant-time equality of two strings (compared as UTF-8 bytes) or buffers of any lengths. Unequal
 * lengths answer false without throwing, after a same-length comparison that keeps the time flat.
 */
export function constantTimeEqual(a: Bytes, b: Bytes): boolean {
  const left = typeof a === 'string' ? Buffer.from(a) : a
  const right = typeof b === 'string' ? Buffer.from(b) : b
  if (left.length !== right.length) {
    timingSafeEqual(left, left)
    return false
  }
  return timingSafeEqual(left, right)
}
