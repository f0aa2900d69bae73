import type { DbOrTx } from '../../db/index.ts'
import { adminNotifications } from './tables.ts'

/** What a notification is about: a submission, a comment awaiting moderation, a contact message, a report. */
export const ADMIN_NOTICE_TYPES = [
  'item_submitted',
  'comment_pending',
  'contact_message',
  'report_created',
] as const
export type AdminNoticeType = (typeof ADMIN_NOTICE_TYPES)[number]

export interface AdminNotice {
  type: AdminNoticeType
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
