import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { createEnvelope, type Envelope, EnvelopeError } from '../../lib/crypto.ts'
import { badRequest } from '../../lib/errors.ts'
import { instanceSecrets } from './tables.ts'

const LOCAL_KEY_NAME = 'directory_encryption_key'

/**
 * The directory's envelope for the secrets it stores (the CRM API key): DIRECTORY_ENCRYPTION_KEY, or on a
 * local instance a key generated once and kept in its own database. A production instance keeps no key
 * next to the data it protects: without the setting it stores no secret (400 ENCRYPTION_KEY_MISSING).
 */
export async function createDirectoryEnvelope(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'warn'>
  config: Pick<Config, 'directoryEncryptionKey' | 'isProduction'>
}): Promise<Envelope> {
  const { db, clock, log, config } = deps
  if (config.directoryEncryptionKey) return createEnvelope(config.directoryEncryptionKey)
  if (config.isProduction) {
    log.warn(
      'DIRECTORY_ENCRYPTION_KEY is not set: the CRM API key cannot be saved (400 ENCRYPTION_KEY_MISSING) until it is',
    )
    return keylessEnvelope()
  }
  // Instances starting together agree on one key: the first insert wins and everyone reads it back.
  await db
    .insert(instanceSecrets)
    .values({ name: LOCAL_KEY_NAME, value: randomBytes(32).toString('hex'), createdAt: clock.now() })
    .onConflictDoNothing({ target: instanceSecrets.name })
  const [row] = await db.select().from(instanceSecrets).where(eq(instanceSecrets.name, LOCAL_KEY_NAME))
  if (!row) throw new Error('The directory encryption key could not be created')
  return createEnvelope(row.value)
}

function keylessEnvelope(): Envelope {
  return {
    seal() {
      throw badRequest(
        'DIRECTORY_ENCRYPTION_KEY is not set on this production instance, so it cannot store secrets: ' +
          'set it (64 hex characters) and restart',
        'ENCRYPTION_KEY_MISSING',
      )
    },
    open() {
      throw new EnvelopeError('DIRECTORY_ENCRYPTION_KEY is not set: sealed values cannot be opened')
    },
  }
}
