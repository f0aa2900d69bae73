/**
 * One notification as its row shows it: whether it is unread, its kind, title and message, and the link to
 * where it is acted on (following it reads it). A persistent one says it stays as a banner until its issue is resolved.
 */
import { Link } from '../../shared/router.tsx'
import { type Notification, TYPE_LABELS } from './labels.ts'

export function NotificationText({
  notification,
  onFollow,
}: {
  notification: Notification
  /** The user followed its link. */
  onFollow: () => void
}) {
  const { actionUrl, type } = notification
  const label = notification.actionLabel ?? 'Open'
  return (
    <div class={notification.isRead ? 'notification' : 'notification notification-unread'}>
      <div class="notification-title">
        {!notification.isRead && <span class="status status-unread">Unread</span>}
        <span class={`status notification-type-${type.toLowerCase()}`}>{TYPE_LABELS[type]}</span>
        {notification.title}
      </div>
      <p class="notification-message">{notification.message}</p>
      {actionUrl &&
        (actionUrl.startsWith('/') ? (
          <Link href={actionUrl} onClick={onFollow}>
            {label}
          </Link>
        ) : (
          <a href={actionUrl} target="_blank" rel="noopener noreferrer" onClick={onFollow}>
            {label}
          </a>
        ))}
      {notification.isPersistent && (
        <p class="muted small">Shown as a banner until the issue is resolved; it cannot be dismissed.</p>
      )}
    </div>
  )
}
