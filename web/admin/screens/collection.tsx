/**
 * One collection (`/collections/:id`): its items in their order, moved up or down or removed, and items
 * found by search and added. Every change sends the whole list to the API (`PUT …/items`), which keeps
 * the order and when each item was added.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, messageOf, unwrap } from '../../shared/api.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, navigate } from '../../shared/router.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import { Button, formatDate, Loading, Notice, useConfirm, useToast } from '../../shared/ui.tsx'
import { ActiveStatus } from '../active.tsx'
import { type Answer, api } from '../api.ts'
import { ItemPicker } from '../item-picker.tsx'
import { ItemStatusBadge } from '../item-status.tsx'
import type { ScreenProps } from '../screen.ts'
import { type Collection, CollectionDialog, useRemoveCollection } from './collections.tsx'
import './catalog.css'

type Member = Answer<'/api/admin/collections/{id}/items'>['data'][number]

/** The API keeps at most this many items in a collection. */
const MAX_ITEMS = 500

export default function CollectionScreen({ params }: ScreenProps) {
  const id = params.id ?? ''
  const toast = useToast()
  const confirm = useConfirm()
  const remove = useRemoveCollection()
  const [editing, setEditing] = useState<Collection | null>(null)
  const [saving, setSaving] = useState(false)
  const savingNow = useRef(false)
  const focusAfter = useRef<{ id: string; step: -1 | 1 } | null>(null)

  const collection = useResource(
    async (signal) =>
      (await unwrap(api.GET('/api/admin/collections/{id}', { signal, params: { path: { id } } }))).data,
    [id],
  )
  const members = useResource(
    (signal) => unwrap(api.GET('/api/admin/collections/{id}/items', { signal, params: { path: { id } } })),
    [id],
  )
  const [list, setList] = useState<Member[] | undefined>(undefined)
  useEffect(() => setList(members.data?.data), [members.data])

  useEffect(() => {
    const target = focusAfter.current
    if (!target || saving) return
    focusAfter.current = null
    const buttons = [...document.querySelectorAll<HTMLButtonElement>(`[data-move="${target.id}"]`)]
    const preferred = buttons.find((b) => b.dataset.step === String(target.step) && !b.disabled)
    ;(preferred ?? buttons.find((b) => !b.disabled))?.focus()
  }, [list, saving])

  /** Sends the whole membership; the answer is the new list, shown at once. */
  const save = async (itemIds: string[], message: string, focus?: { id: string; step: -1 | 1 }) => {
    if (savingNow.current) return
    savingNow.current = true
    setSaving(true)
    try {
      const answer = await unwrap(
        api.PUT('/api/admin/collections/{id}/items', { params: { path: { id } }, body: { itemIds } }),
      )
      if (focus) focusAfter.current = focus
      setList(answer.data)
      toast('success', message)
      collection.reload()
    } catch (error) {
      toast.failed(error)
    } finally {
      savingNow.current = false
      setSaving(false)
    }
  }

  if (collection.error !== undefined) {
    const missing = collection.error instanceof ApiError && collection.error.status === 404
    return (
      <Page title={missing ? 'Collection not found' : 'Collection'}>
        <Notice kind="error">
          {missing ? 'No collection has this id: it may have been deleted.' : messageOf(collection.error)}
        </Notice>
        <p>
          <Link href="/collections">Back to the collections</Link>
        </p>
      </Page>
    )
  }
  if (!collection.data) return <Loading what="Loading the collection" />
  const current = collection.data
  const ids = (list ?? []).map((member) => member.item.id)

  const move = (member: Member, step: -1 | 1) => {
    const at = ids.indexOf(member.item.id)
    const other = ids[at + step]
    if (at < 0 || other === undefined) return
    const next = [...ids]
    next[at] = other
    next[at + step] = member.item.id
    return save(
      next,
      `“${member.item.name}” moved ${step < 0 ? 'up' : 'down'}: ${at + step + 1} of ${ids.length}`,
      { id: member.item.id, step },
    )
  }

  const removeMember = async (member: Member) => {
    const sure = await confirm({
      title: 'Remove this item from the collection?',
      message: `“${member.item.name}” leaves “${current.name}”; the item itself stays in the directory.`,
      confirmLabel: 'Remove',
      danger: true,
    })
    if (!sure) return
    await save(
      ids.filter((itemId) => itemId !== member.item.id),
      `“${member.item.name}” removed from “${current.name}”`,
    )
  }

  const columns: Column<Member>[] = [
    { header: 'Position', class: 'catalog-position', cell: (m) => ids.indexOf(m.item.id) + 1 },
    {
      header: 'Item',
      cell: (m) => (
        <>
          <Link href={`/items/${m.item.id}`}>{m.item.name}</Link>
          <div class="muted small">{m.item.slug}</div>
        </>
      ),
    },
    {
      header: 'Status',
      cell: (m) => <ItemStatusBadge status={m.item.status} />,
    },
    { header: 'Added', secondary: true, cell: (m) => formatDate(m.addedAt) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (m) => {
        const at = ids.indexOf(m.item.id)
        return (
          <>
            <Button
              aria-label={`Move up ${m.item.name}`}
              data-move={m.item.id}
              data-step="-1"
              disabled={at <= 0}
              onClick={() => move(m, -1)}
            >
              Move up
            </Button>
            <Button
              aria-label={`Move down ${m.item.name}`}
              data-move={m.item.id}
              data-step="1"
              disabled={at >= ids.length - 1}
              onClick={() => move(m, 1)}
            >
              Move down
            </Button>
            <Button kind="danger" aria-label={`Remove ${m.item.name}`} onClick={() => removeMember(m)}>
              Remove
            </Button>
          </>
        )
      },
    },
  ]

  return (
    <Page
      title={current.name}
      actions={
        <>
          <Button onClick={() => setEditing(current)}>Edit</Button>
          <Button
            kind="danger"
            onClick={async () => {
              if (await remove(current)) navigate('/collections')
            }}
          >
            Delete
          </Button>
        </>
      }
    >
      <p>
        <Link href="/collections">← All collections</Link>
        {' · '}
        <ActiveStatus active={current.isActive} />
        <span class="muted"> · {current.slug}</span>
      </p>
      {current.description && <p>{current.description}</p>}
      <section class="card" aria-labelledby="collection-items">
        <h2 id="collection-items">
          Items <span class="muted">({ids.length})</span>
        </h2>
        <p class="muted small">The site shows them in this order.</p>
        {members.error !== undefined && <Notice kind="error">{messageOf(members.error)}</Notice>}
        <DataTable
          caption={`Items of ${current.name}`}
          columns={columns}
          rows={list}
          rowKey={(m) => m.item.id}
          busy={members.loading || saving}
          empty="No items in this collection yet: find some below and add them."
        />
      </section>
      <section class="card" aria-labelledby="add-items">
        <h2 id="add-items">Add items</h2>
        {ids.length >= MAX_ITEMS ? (
          <Notice>A collection holds at most {MAX_ITEMS} items: remove some to add others.</Notice>
        ) : (
          <ItemPicker
            chosen={new Set(ids)}
            action="Add"
            done="Added"
            onPick={(item) => save([...ids, item.id], `“${item.name}” added to “${current.name}”`)}
          />
        )}
      </section>
      <CollectionDialog
        collection={editing}
        onClose={() => setEditing(null)}
        onSaved={async (saved) => {
          setEditing(null)
          toast('success', `“${saved.name}” saved`)
          await collection.reload()
        }}
      />
    </Page>
  )
}
