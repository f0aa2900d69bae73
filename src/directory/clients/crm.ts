import type { Logger } from 'pino'
import type { Client } from './schemas.ts'

/** Pushes client changes to the CRM. The real client arrives with the content work; until then nothing is sent. */
export interface CrmSync {
  clientChanged(client: Client): Promise<void>
}

export const noCrmSync: CrmSync = {
  async clientChanged() {},
}

/** A CRM failure is logged and never fails the admin call that triggered it. */
export async function syncClient(crm: CrmSync, log: Pick<Logger, 'warn'>, client: Client): Promise<void> {
  try {
    await crm.clientChanged(client)
  } catch (error) {
    log.warn({ err: error, clientId: client.id }, 'CRM sync of a client failed')
  }
}
