/**
 * Notifications: what the admins are asked to look at, newest first, with the unread ones and one kind
 * kept in the query string, paging on the server, `Mark read` per row and `Mark all read`. Each one
 * links to what it is about; opening that link also marks it read. Every change tells the top bar's bell
 * to count again.
 */
import { unwrap } from '../../shared/api.ts'
import { useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, Checkbox, formatDate, Select, useToast } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import './settings.css'

type Notification = Answer<'/api/admin/notifications'>['data'][number]
type NotificationType = Notification['type']

const PAGE_SIZE = 20

const TYPE_LABELS: Record<NotificationType, string> = {
  item_submitted: 'Submission',
  comment_pending: 'Comment to moderate',
  contact_message: 'Contact message',
  report_created: 'Report',
  links_broken: 'Broken links',
}

const isType = (value: string | null): value is NotificationType =>
  value !== null && Object.hasOwn(TYPE_LABELS, value)

/** Tells the bell in the top bar that the unread count changed. */
const countChanged = () => window.dispatchEvent(new Event('curio:notifications'))

/** A string the notification's `data` holds under `key`, if it does. */
function dataText(notification: Notification, key: string): string | undefined {
  const value = notification.data[key]
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** Where a notification's subject is in the console, with what the link says. */
function targetOf(notification: Notification): { href: string; label: string } | undefined {
  const itemId = dataText(notification, 'itemId')
  switch (notification.type) {
    case 'item_submitted':
      return itemId ? { href: `/items/${itemId}`, label: 'Review the item' } : undefined
    case 'comment_pending':
      return { href: '/comments', label: 'Moderate comments' }
    case 'report_created':
      return { href: '/reports', label: 'Open the reports' }
    case 'links_broken':
      return { href: '/items?linkStatus=broken', label: 'Items with broken links' }
    case 'contact_message': {
      const messageId = dataText(notification, 'messageId')
      return messageId
        ? { href: `/messages?message=${encodeURIComponent(messageId)}`, label: 'Open the message' }
        : undefined
    }
  }
}

export default function Notifications() {
  const { query, setQuery, page, setFilter, setPage } = useList()
  const toast = useToast()
  const unreadOnly = query.get('unread') === 'true'
  const asked = query.get('type')
  const type = isType(asked) ? asked : undefined

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/notifications', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              ...(unreadOnly ? { unread: 'true' as const } : {}),
              ...(type ? { type } : {}),
            },
          },
        }),
      ),
    [page, unreadOnly, type],
  )
  const unread = list.data?.unreadCount ?? 0

  const markRead = async (notification: Notification, quiet = false) => {
    try {
      await unwrap(
        api.POST('/api/admin/notifications/{id}/read', { params: { path: { id: notification.id } } }),
      )
      countChanged()
      if (quiet) return
      toast('success', `“${notification.title}” marked read`)
      await list.reload()
    } catch (error) {
      if (!quiet) toast.failed(error)
    }
  }

  const markAllRead = async () => {
    try {
      const answer = await unwrap(api.POST('/api/admin/notifications/mark-all-read'))
      countChanged()
      toast(
        'success',
        answer.updated === 0
          ? 'Nothing was unread'
          : `${answer.updated} ${answer.updated === 1 ? 'notification' : 'notifications'} marked read`,
      )
      await list.reload()
    } catch (error) {
      toast.failed(error)
    }
  }

  const columns: Column<Notification>[] = [
    {
      header: 'Notification',
      cell: (notification) => {
        const target = targetOf(notification)
        const email = notification.type === 'contact_message' ? dataText(notification, 'email') : undefined
        return (
          <div class={notification.readAt ? 'notification' : 'notification notification-unread'}>
            <div class="notification-title">
              {!notification.readAt && <span class="visually-hidden">Unread: </span>}
              {notification.title}
            </div>
            <p class="notification-message">{notification.message}</p>
            {target && (
              <Link
                href={target.href}
                onClick={() => {
                  // Opening what it is about reads it; the list is left, so no message is needed.
                  if (!notification.readAt) void markRead(notification, true)
                }}
              >
                {target.label}
              </Link>
            )}
            {email && <a href={`mailto:${email}`}>Reply to {email}</a>}
          </div>
        )
      },
    },
    { header: 'Type', secondary: true, cell: (notification) => TYPE_LABELS[notification.type] },
    {
      header: 'Received',
      secondary: true,
      cell: (notification) => formatDate(notification.createdAt, true),
    },
    {
      header: 'Status',
      cell: (notification) =>
        notification.readAt ? (
          <span class="status" title={`Read ${formatDate(notification.readAt, true)}`}>
            Read
          </span>
        ) : (
          <span class="status status-pending">Unread</span>
        ),
    },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (notification) =>
        notification.readAt ? null : (
          <Button onClick={() => markRead(notification)} aria-label={`Mark read ${notification.title}`}>
            Mark read
          </Button>
        ),
    },
  ]

  return (
    <Page
      title="Notifications"
      actions={
        <Button kind="primary" onClick={markAllRead} disabled={!list.data || unread === 0}>
          Mark all read
        </Button>
      }
    >
      <p class="muted" role="status">
        {list.data ? (unread === 0 ? 'Everything is read.' : `${unread} unread in all.`) : ''}
      </p>
      <div class="toolbar notifications-toolbar">
        <Select
          label="Type"
          value={type ?? ''}
          onValue={(value) => setFilter('type', value)}
          options={[
            { value: '', label: 'Any type' },
            ...(Object.keys(TYPE_LABELS) as NotificationType[]).map((key) => ({
              value: key,
              label: TYPE_LABELS[key],
            })),
          ]}
        />
        <Checkbox
          label="Unread only"
          checked={unreadOnly}
          onValue={(checked) => setQuery({ unread: checked ? 'true' : undefined, page: undefined })}
        />
      </div>
      <PagedTable
        caption="Notifications"
        columns={columns}
        rows={list.data?.data}
        rowKey={(notification) => notification.id}
        busy={list.loading}
        empty={
          unreadOnly || type
            ? 'No notification matches these filters.'
            : 'No notifications yet: submissions, comments to moderate, contact messages, reports and broken links show here.'
        }
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={setPage}
      />
    </Page>
  )
}
