/**
 * Comments: the status tabs with their counts, search and the item filter in the query string, paging
 * on the server, and moderation per row: approve, reject with a note, delete.
 */
import { useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { ReasonDialog } from '../../shared/reason-dialog.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, formatDate, SearchBox, Tabs, useToast } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import './moderation.css'

const PAGE_SIZE = 25

type Comment = Answer<'/api/admin/comments'>['data'][number]
type Status = Comment['status']

const STATUS_LABELS: Record<Status, string> = {
  pending: 'Pending',
  approved: 'Approved',
  rejected: 'Rejected',
}
const isStatus = (value: string | null): value is Status =>
  value === 'pending' || value === 'approved' || value === 'rejected'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The start of a comment, to name it in a button or a message. */
function excerpt(body: string, length = 40): string {
  const flat = body.replace(/\s+/g, ' ').trim()
  return flat.length > length ? `${flat.slice(0, length - 1).trimEnd()}…` : flat
}
const nameOf = (comment: Comment) => `comment “${excerpt(comment.body)}”`

export default function Comments() {
  const { query, setQuery, page, search, setSearch, setPage } = useList()
  const toast = useToast()
  const act = useRowAction()
  const status = query.get('status')
  const itemParam = query.get('itemId') ?? ''
  const itemId = UUID.test(itemParam) ? itemParam : ''
  const [rejecting, setRejecting] = useState<Comment | null>(null)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/comments', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              ...(isStatus(status) ? { status } : {}),
              ...(search ? { search } : {}),
              ...(itemId ? { itemId } : {}),
            },
          },
        }),
      ),
    [page, status, search, itemId],
  )
  const stats = useResource((signal) => unwrap(api.GET('/api/admin/comments/stats', { signal })), [list.data])
  const item = useResource(
    async (signal) =>
      itemId
        ? (await unwrap(api.GET('/api/admin/items/{id}', { signal, params: { path: { id: itemId } } }))).data
        : undefined,
    [itemId],
  )
  const counts = stats.data?.data

  const changed = async (message: string) => {
    toast('success', message)
    await list.reload()
  }

  const approve = (comment: Comment) =>
    act({
      run: () =>
        unwrap(
          api.PUT('/api/admin/comments/{id}', {
            params: { path: { id: comment.id } },
            body: { status: 'approved' },
          }),
        ),
      done: `Comment “${excerpt(comment.body)}” approved`,
      reload: list.reload,
      reloadOnFailure: true,
    })

  const remove = (comment: Comment) =>
    act({
      ask: {
        title: 'Delete this comment?',
        message: `The comment by ${comment.author.name ?? comment.author.email} on “${comment.item.name}” will be deleted for good.`,
        confirmLabel: 'Delete',
        danger: true,
      },
      run: () => unwrap(api.DELETE('/api/admin/comments/{id}', { params: { path: { id: comment.id } } })),
      done: `Comment “${excerpt(comment.body)}” deleted`,
      reload: list.reload,
      reloadOnFailure: true,
    })

  const columns: Column<Comment>[] = [
    {
      header: 'Comment',
      cell: (comment) => <p class="comment-body">{comment.body}</p>,
    },
    {
      header: 'Item',
      cell: (comment) => (
        <>
          <Link href={`/items/${comment.item.id}`}>{comment.item.name}</Link>
          {comment.item.id !== itemId && (
            <div>
              <Button
                kind="link"
                class="small"
                onClick={() => setQuery({ itemId: comment.item.id, page: undefined }, { push: true })}
                aria-label={`Only comments on ${comment.item.name}`}
              >
                Only this item
              </Button>
            </div>
          )}
        </>
      ),
    },
    {
      header: 'Author',
      secondary: true,
      cell: (comment) => (
        <>
          {comment.author.name ?? comment.author.email}
          {comment.author.name && <div class="muted small">{comment.author.email}</div>}
        </>
      ),
    },
    {
      header: 'Status',
      cell: (comment) => (
        <>
          <span class={`status status-${comment.status}`}>{STATUS_LABELS[comment.status]}</span>
          {comment.moderationNote && <div class="muted small">{comment.moderationNote}</div>}
        </>
      ),
    },
    { header: 'Posted', secondary: true, cell: (comment) => formatDate(comment.createdAt, true) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (comment) => (
        <>
          {comment.status !== 'approved' && (
            <RowButton
              action="Approve"
              name={nameOf(comment)}
              kind="primary"
              onClick={() => approve(comment)}
            />
          )}
          {comment.status !== 'rejected' && (
            <RowButton action="Reject" name={nameOf(comment)} onClick={() => setRejecting(comment)} />
          )}
          <RowButton action="Delete" name={nameOf(comment)} kind="danger" onClick={() => remove(comment)} />
        </>
      ),
    },
  ]

  const tabs = [
    { value: '', label: 'All', count: counts?.total },
    { value: 'pending', label: 'Pending', count: counts?.pending },
    { value: 'approved', label: 'Approved', count: counts?.approved },
    { value: 'rejected', label: 'Rejected', count: counts?.rejected },
  ]

  return (
    <Page title="Comments">
      <Tabs
        label="Status"
        tabs={tabs}
        current={isStatus(status) ? status : ''}
        onSelect={(value) => setQuery({ status: value, page: undefined }, { push: true })}
      />
      <div class="toolbar">
        <SearchBox value={search} onSearch={setSearch} placeholder="Text, author’s name or email" />
      </div>
      {itemId && (
        <p class="filter-chip">
          Comments on{' '}
          <strong>{item.data ? <Link href={`/items/${itemId}`}>{item.data.name}</Link> : 'one item'}</strong>{' '}
          <Button
            kind="link"
            onClick={() => setQuery({ itemId: undefined, page: undefined }, { push: true })}
          >
            Show every item
          </Button>
        </p>
      )}
      <PagedTable
        caption="Comments"
        columns={columns}
        rows={list.data?.data}
        rowKey={(comment) => comment.id}
        busy={list.loading}
        empty={
          search || itemId || isStatus(status) ? 'No comment matches these filters.' : 'No comments yet.'
        }
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={setPage}
      />
      <RejectDialog
        comment={rejecting}
        onClose={() => setRejecting(null)}
        onRejected={async (comment) => {
          setRejecting(null)
          await changed(`Comment “${excerpt(comment.body)}” rejected`)
        }}
      />
    </Page>
  )
}

/** Rejects a comment (it leaves the site), with a note for the admins. */
function RejectDialog({
  comment,
  onClose,
  onRejected,
}: {
  comment: Comment | null
  onClose: () => void
  onRejected: (comment: Comment) => Promise<void>
}) {
  return (
    <ReasonDialog
      title="Reject this comment"
      open={comment !== null}
      onClose={onClose}
      intro={
        <>
          <blockquote class="quote">{comment?.body}</blockquote>
          <p class="small muted">
            By {comment?.author.name ?? comment?.author.email} on “{comment?.item.name}”. A rejected comment
            leaves the site; it can be approved again later.
          </p>
        </>
      }
      label="Note (optional)"
      hint="Why, for the admins: kept on the comment (up to 1000 characters)."
      maxLength={1000}
      rows={3}
      field="note"
      shown={['note', 'status']}
      confirmLabel="Reject"
      keepLabel="Keep it"
      send={async (note) => {
        if (!comment) return
        await unwrap(
          api.PUT('/api/admin/comments/{id}', {
            params: { path: { id: comment.id } },
            body: { status: 'rejected', ...(note ? { note } : {}) },
          }),
        )
        await onRejected(comment)
      }}
    />
  )
}
