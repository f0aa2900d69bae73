import { type Algorithm, hash, verify } from '@node-rs/argon2'

export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 128

// OWASP's argon2id baseline: 19 MiB, 2 iterations, 1 lane.
const ARGON2ID = 2 as Algorithm // Algorithm.Argon2id: a const enum, which type stripping cannot read
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 }

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS)
}

let dummyHash: Promise<string> | undefined

/**
 * Checks a password against a stored hash. With no stored hash (unknown account) it still spends the time
 * of one verification, so the answer time does not tell whether an account exists.
 */
export async function verifyPassword(
  storedHash: string | null | undefined,
  password: string,
): Promise<boolean> {
  if (!storedHash) {
    dummyHash ??= hashPassword('curio-timing-equaliser')
    await verify(await dummyHash, password).catch(() => false)
    return false
  }
  try {
    return await verify(storedHash, password)
  } catch {
    return false
  }
}
