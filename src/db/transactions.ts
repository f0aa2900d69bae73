import { databaseUnavailable } from './errors.ts'
import type { DbOrTx, Tx } from './index.ts'

/**
 * Runs `work` in a savepoint of `executor`'s transaction (or in a transaction of its own): when it fails,
 * only its writes are rolled back, `onError` hears why, and the caller's transaction carries on. For
 * consequences that must never break the change that caused them (audit rows, follow-up jobs). A lost
 * database is not such a failure: the caller's transaction is lost with it, so the error goes on to fail
 * the request (a 503).
 */
export async function inSavepoint<T>(
  executor: DbOrTx,
  work: (savepoint: Tx) => Promise<T>,
  onError: (error: unknown) => void,
): Promise<T | undefined> {
  try {
    return await executor.transaction(work)
  } catch (error) {
    if (databaseUnavailable(error) !== undefined) throw error
    onError(error)
    return undefined
  }
}
