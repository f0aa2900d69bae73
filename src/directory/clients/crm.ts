import type { Logger } from 'pino'
import type { DbOrTx } from '../../db/index.ts'
import type { Client } from './schemas.ts'

/** Pushes client changes to the CRM (src/directory/crm): nothing is sent until a CRM is configured. */
export interface CrmSync {
  /**
   * Called in the transaction of the change, so the CRM's job is queued exactly when the change commits
   * (an outbox); the CRM itself is called later by that job, never by the admin's request.
   */
  clientChanged(client: Client, tx: DbOrTx): Promise<void>
}

export const noCrmSync: CrmSync = {
  async clientChanged() {},
}

/**
 * A failing hook is rolled back to its savepoint and logged: it never fails the admin write that
 * triggered it.
 */
export async function syncClient(
  crm: CrmSync,
  log: Pick<Logger, 'warn'>,
  client: Client,
  tx: DbOrTx,
): Promise<void> {
  try {
    await tx.transaction((savepoint) => crm.clientChanged(client, savepoint))
  } catch (error) {
    log.warn({ err: error, clientId: client.id }, 'CRM sync of a client could not be queued')
  }
}
