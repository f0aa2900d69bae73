/**
 * A generation that ended in ERROR: the reason from its log, and the notification the failure raised for
 * the user (credits used up, a key refused, a provider unreachable) with its action link, so the user
 * sees what to fix and where without opening the notifications.
 */
import { unwrap } from '../../shared/api.ts'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { Notice } from '../../shared/ui.tsx'
import { type Answer, api, type Work } from '../api.ts'
import { failureReason } from './run-log.tsx'

type Notification = Answer<'/api/notifications'>['notifications'][number]

/** The categories a generation's failure notifies in. */
const CATEGORIES = ['generation', 'ai_credits'] as const
/** How far from the run's end its notification may be stamped (the two are written in one transaction). */
const SAME_RUN_MS = 60_000

/**
 * The notification this failure raised: one written as the run ended, else an alert about the work's
 * provider that is still up (a persistent one is not raised twice while it stands). Newest first.
 */
export function relatedNotification(
  notifications: readonly Notification[],
  work: Work,
  providerId: string | undefined,
): Notification | undefined {
  const ended = new Date(work.updatedAt).getTime()
  return [...notifications]
    .filter((notification) => !notification.isDismissed)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .find(
      (notification) =>
        Math.abs(new Date(notification.createdAt).getTime() - ended) <= SAME_RUN_MS ||
        (notification.isPersistent &&
          providerId !== undefined &&
          notification.deduplicationKey?.endsWith(`:${providerId}`)),
    )
}

export function GenerationFailure({ work, providerId }: { work: Work; providerId: string | undefined }) {
  const reason = failureReason(work.generateStatus.recentLogs)
  const related = useResource(
    async (signal) => {
      const pages = await Promise.all(
        CATEGORIES.map((category) =>
          unwrap(api.GET('/api/notifications', { signal, params: { query: { category, limit: 10 } } })),
        ),
      )
      return relatedNotification(
        pages.flatMap((page) => page.notifications),
        work,
        providerId,
      )
    },
    [work.id, work.updatedAt, providerId],
  )
  const notification = related.data
  return (
    <>
      <Notice kind="error">
        <strong>The last generation failed.</strong> {reason}
      </Notice>
      {notification && (
        <section
          class={`card related-notification related-${notification.type.toLowerCase()}`}
          aria-labelledby="related-notification-title"
        >
          <h3 id="related-notification-title">
            <span class="muted small">The notification it raised: </span>
            {notification.title}
          </h3>
          <p>{notification.message}</p>
          <p class="related-actions">
            {notification.actionUrl && (
              <Link href={notification.actionUrl} class="button button-primary">
                {notification.actionLabel ?? 'Open'}
              </Link>
            )}
            <Link href="/notifications">All notifications</Link>
          </p>
        </section>
      )}
    </>
  )
}
