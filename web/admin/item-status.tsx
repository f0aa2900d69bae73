/** An item's review status: its label (`published` reads `Approved`) and its badge. */
import type { ItemStatus } from './api.ts'

export const STATUS_LABELS: Record<ItemStatus, string> = {
  draft: 'Draft',
  pending: 'Pending',
  published: 'Approved',
  rejected: 'Rejected',
}

/** The status badge of an item. */
export function ItemStatusBadge({ status }: { status: ItemStatus }) {
  return <span class={`status status-${status}`}>{STATUS_LABELS[status]}</span>
}
