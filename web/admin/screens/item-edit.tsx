/**
 * One item: create it (`/items/new`) or edit it (`/items/:id`) with every field the API takes, named as
 * the API names them; review it, check its link, delete it, and read its history.
 */
import { useState } from 'preact/hooks'
import { ApiError, unwrap } from '../../shared/api.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, navigate } from '../../shared/router.tsx'
import { Button, Loading, Notice, useConfirm, useToast } from '../../shared/ui.tsx'
import { type AdminItem, api } from '../api.ts'
import { ItemStatusBadge } from '../item-status.tsx'
import type { ScreenProps } from '../screen.ts'
import { ItemEditForm } from './item-edit-form.tsx'
import { History } from './item-edit-history.tsx'
import { LinkHealth } from './item-edit-link.tsx'
import { RejectDialog } from './items.tsx'

export default function ItemEdit({ params }: ScreenProps) {
  const id = params.id
  const [version, setVersion] = useState(0)
  const item = useResource(
    async (signal) =>
      id
        ? (await unwrap(api.GET('/api/admin/items/{id}', { signal, params: { path: { id } } }))).data
        : undefined,
    [id],
  )
  if (id && item.error !== undefined) {
    const missing = item.error instanceof ApiError && item.error.status === 404
    return (
      <Page title={missing ? 'Item not found' : 'Item'}>
        <Notice kind="error">
          {missing ? 'No item has this id: it may have been deleted.' : (item.error as Error).message}
        </Notice>
        <p>
          <Link href="/items">Back to the items</Link>
        </p>
      </Page>
    )
  }
  if (id && !item.data) return <Loading what="Loading the item" />
  // Each save or review starts the form again from what the API answers, and reads the history again.
  const saved = async () => {
    await item.reload()
    setVersion((current) => current + 1)
  }
  return (
    <ItemPage
      key={`${item.data?.id ?? 'new'}:${version}`}
      item={item.data}
      version={version}
      onSaved={saved}
    />
  )
}

/** The item's page: its review actions (approve, reject, delete), its form, link health and history. */
function ItemPage({
  item,
  version,
  onSaved,
}: {
  item: AdminItem | undefined
  version: number
  onSaved: () => Promise<void>
}) {
  const toast = useToast()
  const confirm = useConfirm()
  const [rejecting, setRejecting] = useState(false)
  const approve = async () => {
    if (!item) return
    try {
      await unwrap(
        api.POST('/api/admin/items/{id}/review', {
          params: { path: { id: item.id } },
          body: { action: 'approve' },
        }),
      )
      toast('success', `“${item.name}” approved`)
      await onSaved()
    } catch (error) {
      toast.failed(error)
    }
  }

  const remove = async () => {
    if (!item) return
    const sure = await confirm({
      title: 'Delete this item?',
      message: `“${item.name}” will be deleted for good, with its history.`,
      confirmLabel: 'Delete',
      danger: true,
    })
    if (!sure) return
    try {
      await unwrap(api.DELETE('/api/admin/items/{id}', { params: { path: { id: item.id } } }))
      toast('success', `“${item.name}” deleted`)
      navigate('/items')
    } catch (error) {
      toast.failed(error)
    }
  }

  return (
    <Page
      title={item ? item.name : 'New item'}
      actions={
        item && (
          <>
            {item.status !== 'published' && (
              <Button kind="primary" onClick={approve}>
                Approve
              </Button>
            )}
            {item.status !== 'rejected' && <Button onClick={() => setRejecting(true)}>Reject</Button>}
            <Button kind="danger" onClick={remove}>
              Delete
            </Button>
          </>
        )
      }
    >
      <p>
        <Link href="/items">← All items</Link>
        {item && (
          <>
            {' · '}
            <ItemStatusBadge status={item.status} />
            {item.reviewNote && <span class="muted"> · Review note: {item.reviewNote}</span>}
          </>
        )}
      </p>
      <ItemEditForm item={item} onSaved={onSaved} />
      {item && (
        <RejectDialog
          items={rejecting ? [item] : null}
          onClose={() => setRejecting(false)}
          reject={async ([target], note) => {
            if (!target) return
            await unwrap(
              api.POST('/api/admin/items/{id}/review', {
                params: { path: { id: target.id } },
                body: { action: 'reject', ...(note ? { note } : {}) },
              }),
            )
          }}
          onRejected={async (_count, name) => {
            setRejecting(false)
            toast('success', `“${name}” rejected`)
            await onSaved()
          }}
        />
      )}
      {item && <LinkHealth item={item} onChecked={onSaved} />}
      {item && <History id={item.id} version={version} />}
    </Page>
  )
}
