/**
 * Notifications: what the platform told the user (a generation that failed, credits used up, an expired
 * Git account), newest first, filtered to the unread ones or one category, a page at a time (all in the
 * query string). Each links to where it is acted on; the user marks one or all read and dismisses those
 * that are not banners. New ones appear while the screen is open; every change updates the bell and the
 * banners at once.
 */
import { useEffect, useRef } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { NOTIFICATIONS_CHANGED, usePolling } from '../../shared/poll.ts'
import { useResource } from '../../shared/resource.ts'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, Checkbox, formatDate, Select, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import {
  announceChange,
  CATEGORY_LABELS,
  FROM_SCREEN,
  isCategory,
  type Notification,
} from '../notifications/labels.ts'
import { NotificationText } from '../notifications/notification.tsx'
import '../notifications/notifications.css'

const PAGE_SIZE = 20
/** How often the open screen asks for new notifications. */
const LIVE_MS = 10_000

const CATEGORY_OPTIONS = [
  { value: '', label: 'Any category' },
  ...Object.entries(CATEGORY_LABELS).map(([value, label]) => ({ value, label })),
]

export default function Notifications() {
  const { query, setQuery, page, setFilter, setPage } = useList()
  const act = useRowAction()
  const toast = useToast()
  const unreadOnly = query.get('unreadOnly') === 'true'
  const asked = query.get('category')
  const category = isCategory(asked) ? asked : undefined

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/notifications', {
          signal,
          params: {
            query: {
              limit: PAGE_SIZE,
              offset: (page - 1) * PAGE_SIZE,
              ...(unreadOnly ? { unreadOnly } : {}),
              ...(category ? { category } : {}),
            },
          },
        }),
      ),
    [page, unreadOnly, category],
  )
  const unread = useResource((signal) => unwrap(api.GET('/api/notifications/unread-count', { signal })), [])
  const refresh = () => Promise.all([list.reload(), unread.reload()])
  // A reload the poll makes does not dim the table: only what the user asked for shows as loading.
  const polling = useRef(false)
  usePolling(async () => {
    polling.current = true
    try {
      await refresh()
    } finally {
      polling.current = false
    }
  }, LIVE_MS)
  // A change made elsewhere (a banner marked read) shows here at once; this screen's own is already shown.
  useEffect(() => {
    const changed = (event: Event) => {
      if ((event as CustomEvent).detail !== FROM_SCREEN) refresh()
    }
    window.addEventListener(NOTIFICATIONS_CHANGED, changed)
    return () => window.removeEventListener(NOTIFICATIONS_CHANGED, changed)
  }, [list.reload, unread.reload])

  // The last one of a later page was dismissed: go to the last page there is.
  const total = list.data?.total ?? 0
  const lastPage = Math.max(1, Math.ceil(total / PAGE_SIZE))
  const pastTheEnd = list.data !== undefined && list.data.notifications.length === 0 && page > lastPage
  useEffect(() => {
    if (pastTheEnd) setQuery({ page: lastPage === 1 ? undefined : lastPage })
  }, [pastTheEnd, lastPage])

  const changed = async () => {
    await refresh()
    announceChange()
  }
  const markRead = (notification: Notification) =>
    act({
      run: () =>
        unwrap(api.POST('/api/notifications/{id}/read', { params: { path: { id: notification.id } } })),
      done: `“${notification.title}” marked read`,
      reload: changed,
    })
  const dismiss = (notification: Notification) =>
    act({
      run: () =>
        unwrap(api.POST('/api/notifications/{id}/dismiss', { params: { path: { id: notification.id } } })),
      done: `“${notification.title}” dismissed`,
      reload: changed,
      reloadOnFailure: true,
    })
  // Following a notification's link reads it; the screen is left, so nothing needs saying.
  const follow = (notification: Notification) => {
    if (notification.isRead) return
    unwrap(api.POST('/api/notifications/{id}/read', { params: { path: { id: notification.id } } })).then(
      announceChange,
      () => {},
    )
  }
  const markAllRead = async () => {
    try {
      const { count } = await unwrap(api.POST('/api/notifications/read-all'))
      toast('success', count === 0 ? 'Nothing was unread' : `${count} marked read`)
      await changed()
    } catch (error) {
      toast.failed(error)
    }
  }

  const columns: Column<Notification>[] = [
    {
      header: 'Notification',
      cell: (notification) => (
        <NotificationText notification={notification} onFollow={() => follow(notification)} />
      ),
    },
    { header: 'Category', secondary: true, cell: (notification) => CATEGORY_LABELS[notification.category] },
    { header: 'Received', secondary: true, cell: (notification) => formatDate(notification.createdAt, true) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (notification) => (
        <>
          {!notification.isRead && (
            <RowButton action="Mark read" name={notification.title} onClick={() => markRead(notification)} />
          )}
          {!notification.isPersistent && (
            <RowButton action="Dismiss" name={notification.title} onClick={() => dismiss(notification)} />
          )}
        </>
      ),
    },
  ]

  const unreadCount = unread.data?.count
  return (
    <Page
      title="Notifications"
      actions={
        <Button kind="primary" onClick={markAllRead} disabled={!unreadCount}>
          Mark all read
        </Button>
      }
    >
      <p class="muted" role="status">
        {unreadCount === undefined
          ? ''
          : unreadCount === 0
            ? 'Everything is read.'
            : `${unreadCount} unread.`}
      </p>
      <div class="toolbar notifications-toolbar">
        <Select
          label="Category"
          value={category ?? ''}
          options={CATEGORY_OPTIONS}
          onValue={(value) => setFilter('category', value)}
        />
        <Checkbox
          label="Unread only"
          checked={unreadOnly}
          onValue={(checked) => setQuery({ unreadOnly: checked ? 'true' : undefined, page: undefined })}
        />
      </div>
      <div class="notifications-list">
        <PagedTable
          caption="Your notifications"
          columns={columns}
          rows={list.data?.notifications}
          rowKey={(notification) => notification.id}
          busy={list.loading && !polling.current}
          empty={
            unreadOnly || category
              ? 'No notification matches these filters.'
              : 'No notifications. Problems that need you (a failed generation, credits used up, an expired Git account) show here.'
          }
          error={list.error}
          meta={list.data && { total, totalPages: lastPage }}
          page={page}
          onPage={setPage}
        />
      </div>
    </Page>
  )
}
