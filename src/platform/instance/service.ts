import { eq } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { instanceSecrets } from './tables.ts'

/**
 * Returns the instance secret `name`, creating it with `generate()` the first time. Instances starting
 * together agree on one value: the first insert wins and everyone reads it back.
 */
export async function getOrCreateInstanceSecret(
  deps: { db: Db; clock: Clock },
  name: string,
  generate: () => string,
): Promise<string> {
  await deps.db
    .insert(instanceSecrets)
    .values({ name, value: generate(), createdAt: deps.clock.now() })
    .onConflictDoNothing({ target: instanceSecrets.name })
  const [row] = await deps.db.select().from(instanceSecrets).where(eq(instanceSecrets.name, name))
  if (!row) throw new Error(`Instance secret ${name} could not be created`)
  return row.value
}
