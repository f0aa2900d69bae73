/**
 * A work's Activity tab: the activity log narrowed to this work (its creation, changes, generations,
 * deployments, members), with the same filters, details and CSV export as the Activity screen.
 */
import { ActivityLog } from '../../activity/log.tsx'
import type { WorkTabProps } from '../../work-tab.ts'

export default function Activity({ work }: WorkTabProps) {
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <ActivityLog key={work.id} workId={work.id} fileName={`activity-${work.slug}.csv`} />
    </section>
  )
}
