/**
 * Persistent notifications as banners above every screen: an alert the user must act on (credits used up,
 * a Git account to reconnect) stays until the issue is resolved, whatever screen is open. Each links to
 * where it is resolved; it cannot be dismissed, only marked read.
 */
import { useEffect, useState } from 'preact/hooks'
import { unwrap } from '../shared/api.ts'
import { NOTIFICATIONS_CHANGED, usePolling } from '../shared/poll.ts'
import { Link } from '../shared/router.tsx'
import { Button } from '../shared/ui.tsx'
import { type Answer, api } from './api.ts'

type Banner = Answer<'/api/notifications/persistent'>['notifications'][number]

const changed = () => window.dispatchEvent(new Event(NOTIFICATIONS_CHANGED))

export function Banners() {
  const [banners, setBanners] = useState<readonly Banner[]>([])
  const read = () =>
    unwrap(api.GET('/api/notifications/persistent')).then(
      (answer) => setBanners(answer.notifications),
      () => {},
    )
  useEffect(() => {
    read()
    window.addEventListener(NOTIFICATIONS_CHANGED, read)
    return () => window.removeEventListener(NOTIFICATIONS_CHANGED, read)
  }, [])
  usePolling(read, 30_000)
  if (banners.length === 0) return null
  return (
    <section class="banners" aria-label="Alerts">
      {banners.map((banner) => (
        <div key={banner.id} class={`banner banner-${banner.type.toLowerCase()}`} role="status">
          <strong>{banner.title}</strong> <span>{banner.message}</span>
          <span class="banner-actions">
            {banner.actionUrl && <Link href={banner.actionUrl}>{banner.actionLabel ?? 'Open'}</Link>}
            {!banner.isRead && (
              <Button
                kind="link"
                onClick={async () => {
                  await unwrap(
                    api.POST('/api/notifications/{id}/read', { params: { path: { id: banner.id } } }),
                  )
                  changed()
                }}
              >
                Mark read
              </Button>
            )}
          </span>
        </div>
      ))}
    </section>
  )
}
