import { randomBytes } from 'node:crypto'
import { and, count, desc, eq } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { notify } from '../../db/notifications.ts'
import type { Clock } from '../../lib/clock.ts'
import { safeEqual, sha256Hex } from '../../lib/crypto.ts'
import { badRequest, notFound, unauthorized } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { users } from '../auth/tables.ts'
import { apiKeys } from './tables.ts'
import type { ApiKeyUsage } from './usage.ts'

export const API_KEY_PREFIX = 'svc_live_'
export const MAX_API_KEYS_PER_USER = 10
export const API_KEY_NAME_MAX_LENGTH = 100
const DISPLAY_PREFIX_LENGTH = 12
const API_KEY_FORMAT = /^svc_live_[0-9a-f]{64}$/
// Anything longer is refused before hashing, so a huge header costs nothing.
const API_KEY_MAX_LENGTH = 200

export interface ApiKeyView {
  id: string
  name: string
  prefix: string
  expiresAt: string | null
  lastUsedAt: string | null
  createdAt: string
}

export interface ApiKeyCreatedView {
  id: string
  name: string
  key: string
  prefix: string
  expiresAt: string | null
  createdAt: string
}

/** The key a request authenticated with. */
export interface AuthenticatedApiKey {
  id: string
  userId: string
}

export interface ApiKeyServiceDeps {
  db: Db
  clock: Clock
  usage: Pick<ApiKeyUsage, 'touch' | 'pending'>
}

/** Instances tell each other on this channel that a key (its hash) is gone. */
export const API_KEY_REVOKED_CHANNEL = 'curio_api_key_revoked'
// A key proven valid is trusted this long without asking the database again. Revocation reaches every
// instance at once through API_KEY_REVOKED_CHANNEL; the limit only bounds a missed notification.
const CACHE_TTL_MS = 60_000
const CACHE_MAX_ENTRIES = 10_000

interface CachedKey {
  id: string
  userId: string
  expiresAt: Date | null
  cachedAt: number
}

const iso = (at: Date | null) => (at ? at.toISOString() : null)
const later = (a: Date | null, b: Date | undefined) => (b && (!a || b > a) ? b : a)

export function createApiKeyService({ db, clock, usage }: ApiKeyServiceDeps) {
  const verified = new Map<string, CachedKey>()
  // Off until revocations can be heard (the app turns it on once it listens), and while they cannot.
  let caching = false

  function remember(hash: string, key: CachedKey) {
    if (!caching) return
    // Oldest first out: a Map iterates in insertion order.
    if (verified.size >= CACHE_MAX_ENTRIES) verified.delete(verified.keys().next().value as string)
    verified.set(hash, key)
  }

  return {
    /** Drops one key (by hash) from this instance's cache, or every key when no hash is given. */
    forget(hash?: string) {
      if (hash === undefined) verified.clear()
      else verified.delete(hash)
    },

    /**
     * Turns the cache of verified keys on once revocations from every instance can be heard, and off
     * (emptied) while they cannot: a revocation must never be missed for longer than a database read.
     */
    useCache(on: boolean) {
      caching = on
      verified.clear()
    },

    /**
     * Issues a key and answers it once; only its SHA-256 and display prefix are kept. Every key of the user
     * counts toward the limit, expired ones too, until it is revoked.
     */
    async create(
      userId: string,
      input: { name: string; expiresAt?: string | undefined },
    ): Promise<ApiKeyCreatedView> {
      const name = input.name.trim()
      if (!name) {
        throw badRequest(
          'body.name must not be blank',
          [{ field: 'body.name', message: 'must not be blank' }],
          'VALIDATION_ERROR',
        )
      }
      const now = clock.now()
      let expiresAt: Date | null = null
      if (input.expiresAt !== undefined) {
        expiresAt = new Date(input.expiresAt)
        if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime()) {
          throw badRequest(
            'body.expiresAt must be in the future',
            [{ field: 'body.expiresAt', message: 'must be in the future' }],
            'VALIDATION_ERROR',
          )
        }
      }
      const key = API_KEY_PREFIX + randomBytes(32).toString('hex')

      const row = await db.transaction(async (tx) => {
        // Locking the user's row serialises concurrent creates, so they cannot pass the limit together.
        const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update')
        if (!user) throw unauthorized('This account no longer exists', 'ACCOUNT_GONE')
        const [existing] = await tx.select({ total: count() }).from(apiKeys).where(eq(apiKeys.userId, userId))
        if ((existing?.total ?? 0) >= MAX_API_KEYS_PER_USER) {
          throw badRequest(`At most ${MAX_API_KEYS_PER_USER} API keys per user`, undefined, 'API_KEY_LIMIT')
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

      return {
        id: row.id,
        name: row.name,
        key,
        prefix: row.prefix,
        expiresAt: iso(row.expiresAt),
        createdAt: row.createdAt.toISOString(),
      }
    },

    /** The user's keys, newest first; a use not yet written to the database already shows here. */
    async list(userId: string): Promise<ApiKeyView[]> {
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
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        prefix: row.prefix,
        expiresAt: iso(row.expiresAt),
        lastUsedAt: iso(later(row.lastUsedAt, usage.pending(row.id))),
        createdAt: row.createdAt.toISOString(),
      }))
    },

    /** Deletes the key for good; another user's key is as unknown as a missing one. */
    async revoke(userId: string, keyId: string): Promise<void> {
      if (!isUuid(keyId)) throw notFound('API key not found', 'API_KEY_NOT_FOUND')
      const deleted = await db.transaction(async (tx) => {
        const rows = await tx
          .delete(apiKeys)
          .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId)))
          .returning({ keyHash: apiKeys.keyHash })
        // Delivered to every instance when the delete commits, and only then.
        for (const row of rows) await notify(tx, API_KEY_REVOKED_CHANNEL, row.keyHash)
        return rows
      })
      if (deleted.length === 0) throw notFound('API key not found', 'API_KEY_NOT_FOUND')
      for (const row of deleted) verified.delete(row.keyHash)
    },

    /** The key and its user for a valid, unexpired key of an existing user; null for anything else. */
    async authenticate(presented: string): Promise<AuthenticatedApiKey | null> {
      if (presented.length > API_KEY_MAX_LENGTH || !API_KEY_FORMAT.test(presented)) return null
      const hash = sha256Hex(presented)
      const now = clock.now()
      const cached = caching ? verified.get(hash) : undefined
      if (cached && now.getTime() - cached.cachedAt < CACHE_TTL_MS) {
        if (cached.expiresAt && cached.expiresAt.getTime() <= now.getTime()) return null
        usage.touch(cached.id, now)
        return { id: cached.id, userId: cached.userId }
      }
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
      if (!row || !safeEqual(row.keyHash, hash)) {
        verified.delete(hash)
        return null
      }
      remember(hash, { id: row.id, userId: row.userId, expiresAt: row.expiresAt, cachedAt: now.getTime() })
      if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return null
      usage.touch(row.id, now)
      return { id: row.id, userId: row.userId }
    },
  }
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>
