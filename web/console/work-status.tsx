/** A work's generation state as a badge: `GENERATING` reads "Generating", and so on. */
import type { Work } from './api.ts'

const LABELS: Record<Work['generateStatus']['status'], string> = {
  IDLE: 'Not generated',
  PENDING: 'Queued',
  GENERATING: 'Generating',
  COMPLETED: 'Generated',
  ERROR: 'Failed',
  CANCELLED: 'Cancelled',
}

export function GenerationStatus({ status }: { status: Work['generateStatus'] }) {
  return <span class={`status status-${status.status.toLowerCase()}`}>{LABELS[status.status]}</span>
}
