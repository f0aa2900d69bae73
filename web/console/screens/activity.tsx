/**
 * Activity: everything the user did and everything that ran for them, across their works: how many
 * entries are in each status (each figure opens the log filtered to it), and the log with its filters,
 * details and CSV export.
 */
import { unwrap } from '../../shared/api.ts'
import { Figure, Figures } from '../../shared/figures.tsx'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { href } from '../../shared/router.tsx'
import { type ActivityStatus, STATUS_LABELS } from '../activity/labels.tsx'
import { ActivityLog } from '../activity/log.tsx'
import { api } from '../api.ts'

const STATUSES = Object.keys(STATUS_LABELS) as ActivityStatus[]

export default function Activity() {
  const summary = useResource((signal) => unwrap(api.GET('/api/activity-log/summary', { signal })), [])
  const counts = summary.data?.counts
  const total = counts && STATUSES.reduce((sum, status) => sum + counts[status], 0)
  return (
    <Page title="Activity">
      <Figures label="Activity by status">
        <Figure value={total ?? '—'} label="All entries" href="/activity" />
        {STATUSES.map((status) => (
          <Figure
            key={status}
            value={counts?.[status] ?? '—'}
            label={STATUS_LABELS[status]}
            href={href('/activity', { status })}
          />
        ))}
      </Figures>
      <ActivityLog fileName="activity-log.csv" onRefresh={summary.reload} />
    </Page>
  )
}
