import type { DbOrTx } from '../../db/index.ts'
import { adminNotifications } from './tables.ts'

export interface AdminNotice {
  type: 'item_submitted'
  title: string
  message: string
  data: Record<string, unknown>
}

/**
 * Raises a notification for the site's admins, in the transaction of what it is about: a submission and
 * its notice are written together or not at all.
 */
export async function notifyAdmins(tx: DbOrTx, at: Date, notice: AdminNotice): Promise<void> {
  await tx.insert(adminNotifications).values({ ...notice, createdAt: at })
}
