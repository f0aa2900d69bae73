import { randomBytes } from 'node:crypto'
import { and, count, desc, eq } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { createInvalidatedCache } from '../../db/invalidated-cache.ts'
import type { Clock } from '../../lib/clock.ts'
import { constantTimeEqual, sha256Hex } from '../../lib/crypto.ts'
import { badRequest, invalidInput, notFound, unauthorized } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { MINUTE_MS } from '../../lib/time.ts'
import { users } from '../auth/tables.ts'
import { API_KEY_PREFIX } from '../http/guard.ts'
import type { ApiKeyCreated, ApiKeyListItem } from './schemas.ts'
import { apiKeys } from './tables.ts'
import type { ApiKeyUsage } from './usage.ts'

export const MAX_API_KEYS_PER_USER = 10
const DISPLAY_PREFIX_LENGTH = 12
const API_KEY_FORMAT = /^svc_live_[0-9a-f]{64}$/
// Anything longer is refused before hashing, so a huge header costs nothing.
const API_KEY_MAX_LENGTH = 200

/**
 * A trigger on `api_keys` notifies this channel with the key's hash whenever a key row is deleted, by any
 * statement (revoke, account deletion, cascade), when the deletion commits (migration 0002).
 */
export const API_KEY_REMOVED_CHANNEL = 'curio_api_key_revoked'
// Removal reaches every instance through the channel, and the cache is off while it cannot be heard; the
// time limit only bounds what a lost message could cost.
const CACHE_TTL_MS = MINUTE_MS
const CACHE_MAX_ENTRIES = 10_000

/** The key a request authenticated with. */
export interface AuthenticatedApiKey {
  id: string
  userId: string
}

interface VerifiedKey extends AuthenticatedApiKey {
  keyHash: string
  expiresAt: Date | null
}

export interface ApiKeyServiceDeps {
  db: Db
  clock: Clock
  usage: Pick<ApiKeyUsage, 'touch' | 'pending'>
}

const later = (a: Date | null, b: Date | undefined) => (b && (!a || b > a) ? b : a)

export function createApiKeyService({ db, clock, usage }: ApiKeyServiceDeps) {
  /** Keys proven valid, by hash; a removed key is dropped on every instance by its notification. */
  const verified = createInvalidatedCache<VerifiedKey | null>({
    name: 'api-keys',
    channel: API_KEY_REMOVED_CHANNEL,
    invalidates: (keyHash) => ({ key: keyHash }),
    ttlMs: CACHE_TTL_MS,
    keep: (key) => key !== null,
    maxEntries: CACHE_MAX_ENTRIES,
    clock,
  })

  async function lookUp(hash: string): Promise<VerifiedKey | null> {
    const [row] = await db
      .select({
        id: apiKeys.id,
        userId: apiKeys.userId,
        keyHash: apiKeys.keyHash,
        expiresAt: apiKeys.expiresAt,
      })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .where(eq(apiKeys.keyHash, hash))
    return row && constantTimeEqual(row.keyHash, hash) ? row : null
  }

  return {
    /** The cache of verified keys, for the module to listen with. */
    cache: verified,

    /**
     * Issues a key and answers it once; only its SHA-256 and display prefix are kept. Every key of the user
     * counts toward the limit, expired ones too, until it is revoked.
     */
    async create(
      userId: string,
      input: { name: string; expiresAt?: string | undefined },
    ): Promise<ApiKeyCreated> {
      const name = input.name.trim()
      if (!name) throw invalidInput('name', 'must not be blank')
      const now = clock.now()
      let expiresAt: Date | null = null
      if (input.expiresAt !== undefined) {
        expiresAt = new Date(input.expiresAt)
        if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime()) {
          throw invalidInput('expiresAt', 'must be in the future')
        }
      }
      const key = API_KEY_PREFIX + randomBytes(32).toString('hex')

      const row = await db.transaction(async (tx) => {
        // Locking the user's row serialises concurrent creates, so they cannot pass the limit together.
        const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update')
        if (!user) throw unauthorized('This account no longer exists', 'ACCOUNT_GONE')
        const [existing] = await tx.select({ total: count() }).from(apiKeys).where(eq(apiKeys.userId, userId))
        if ((existing?.total ?? 0) >= MAX_API_KEYS_PER_USER) {
          throw badRequest(`At most ${MAX_API_KEYS_PER_USER} API keys per user`, 'API_KEY_LIMIT')
        }
        const [inserted] = await tx
          .insert(apiKeys)
          .values({
            userId,
            name,
            prefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
            keyHash: sha256Hex(key),
            expiresAt,
            createdAt: now,
          })
          .returning()
        return inserted!
      })
      const { id, prefix, createdAt } = row
      return { id, name: row.name, key, prefix, expiresAt: row.expiresAt, createdAt }
    },

    /** The user's keys, newest first; a use not yet written to the database already shows here. */
    async list(userId: string): Promise<ApiKeyListItem[]> {
      const rows = await db
        .select({
          id: apiKeys.id,
          name: apiKeys.name,
          prefix: apiKeys.prefix,
          expiresAt: apiKeys.expiresAt,
          lastUsedAt: apiKeys.lastUsedAt,
          createdAt: apiKeys.createdAt,
        })
        .from(apiKeys)
        .where(eq(apiKeys.userId, userId))
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
      return rows.map((row) => ({ ...row, lastUsedAt: later(row.lastUsedAt, usage.pending(row.id)) }))
    },

    /** Deletes the key for good (the table's trigger tells every instance); another user's key is 404. */
    async revoke(userId: string, keyId: string): Promise<void> {
      if (!isUuid(keyId)) throw notFound('API key not found', 'API_KEY_NOT_FOUND')
      const [deleted] = await db
        .delete(apiKeys)
        .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId)))
        .returning({ keyHash: apiKeys.keyHash })
      if (!deleted) throw notFound('API key not found', 'API_KEY_NOT_FOUND')
      // The notification reaches this instance a moment later; its next request must already fail.
      verified.delete(deleted.keyHash)
    },

    /** The key and its user for a valid, unexpired key of an existing user; null for anything else. */
    async authenticate(presented: string): Promise<AuthenticatedApiKey | null> {
      if (presented.length > API_KEY_MAX_LENGTH || !API_KEY_FORMAT.test(presented)) return null
      const hash = sha256Hex(presented)
      const key = await verified.get(hash, () => lookUp(hash))
      const now = clock.now()
      if (!key || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) return null
      usage.touch(key.id, now)
      return { id: key.id, userId: key.userId }
    },
  }
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>
