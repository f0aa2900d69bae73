/**
 * What the reports screens call things: a report's status, content type, reason and resolution as the
 * user reads them, the checks that a query-string value is one of them, who a person is, and the status
 * badge.
 */
import type { Answer } from '../api.ts'

export type Report = Answer<'/api/admin/reports'>['data']['reports'][number]
export type ReportDetail = Answer<'/api/admin/reports/{id}'>['data']
type Status = Report['status']
type ContentType = Report['contentType']
export type Reason = Report['reason']
export type Resolution = NonNullable<Report['resolution']>

export const STATUS_LABELS: Record<Status, string> = {
  pending: 'Pending',
  reviewed: 'Reviewed',
  resolved: 'Resolved',
  dismissed: 'Dismissed',
}
export const TYPE_LABELS: Record<ContentType, string> = { item: 'Item', comment: 'Comment' }
export const REASON_LABELS: Record<Reason, string> = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate',
  other: 'Other',
}
/** What a resolution did, as the report shows it. */
export const RESOLUTION_LABELS: Record<Resolution, string> = {
  content_removed: 'Content removed',
  user_warned: 'Owner warned',
  user_suspended: 'Owner suspended',
  user_banned: 'Owner banned',
  no_action: 'No action',
}

export const STATUSES = Object.keys(STATUS_LABELS) as Status[]
export const isStatus = (value: string | null): value is Status => STATUSES.includes(value as Status)
export const isType = (value: string): value is ContentType => value === 'item' || value === 'comment'
export const isReason = (value: string): value is Reason => value in REASON_LABELS
export const isResolution = (value: string): value is Resolution => value in RESOLUTION_LABELS

export const who = (person: { name: string | null; email: string } | null) =>
  person ? (person.name ? `${person.name} (${person.email})` : person.email) : 'a deleted account'

export function ReportStatusBadge({ status }: { status: Status }) {
  return <span class={`status status-${status}`}>{STATUS_LABELS[status]}</span>
}
