/**
 * The featured shelf: its entries in shelf order (higher `featuredOrder` first), each active or not, with
 * the window it is shown in; an item found by search and put on the shelf with its order and end date,
 * an entry edited, switched on or off, or removed (the item itself stays).
 */
import { useState } from 'preact/hooks'
import type { paths } from '../../../packages/client/src/generated/directory.ts'
import { unwrap } from '../../shared/api.ts'
import { EditDialog } from '../../shared/edit-dialog.tsx'
import { useSubmit } from '../../shared/form.ts'
import { useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import {
  Button,
  Checkbox,
  Dialog,
  formatDate,
  Notice,
  TextArea,
  TextField,
  useToast,
} from '../../shared/ui.tsx'
import { ActiveFilter, ActiveToggle, isActiveParam } from '../active.tsx'
import { type AdminItem, type Answer, api } from '../api.ts'
import { ItemPicker } from '../item-picker.tsx'
import './catalog.css'

type Entry = Answer<'/api/admin/featured-items'>['data'][number]
type EntryChanges = NonNullable<
  paths['/api/admin/featured-items/{id}']['put']['requestBody']
>['content']['application/json']

const PAGE_SIZE = 25

/** An ISO date-time as a `datetime-local` value, in the browser's time zone. */
function toLocalInput(iso: string | null): string {
  if (!iso) return ''
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

/** A `datetime-local` value as an ISO date-time (what the API takes); what is not a date is sent as typed. */
function fromLocalInput(value: string): string {
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : date.toISOString()
}

/** `featuredOrder` as typed: a number, or the text itself so that the API names what is wrong with it. */
function orderOf(value: string): number {
  return value.trim() === '' ? 0 : Number(value)
}

function stateOf(entry: Entry, now: number): { label: string; css: string } {
  if (!entry.isActive) return { label: 'Inactive', css: 'inactive' }
  if (entry.featuredUntil && new Date(entry.featuredUntil).getTime() <= now)
    return { label: 'Expired', css: 'expired' }
  if (new Date(entry.featuredAt).getTime() > now) return { label: 'Scheduled', css: 'pending' }
  return { label: 'On the shelf', css: 'active' }
}

const FIELDS = [
  'itemSlug',
  'itemName',
  'itemDescription',
  'itemIconUrl',
  'itemImageUrl',
  'featuredOrder',
  'isActive',
  'featuredAt',
  'featuredUntil',
]

export default function Featured() {
  const { query, page, setFilter, setPage } = useList()
  const active = query.get('active') ?? ''
  const toast = useToast()
  const act = useRowAction()
  const [adding, setAdding] = useState(false)
  const [editing, setEditing] = useState<Entry | null>(null)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/featured-items', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              ...isActiveParam(active),
            },
          },
        }),
      ),
    [page, active],
  )
  const now = Date.now()

  const changed = async (message: string) => {
    toast('success', message)
    await list.reload()
  }

  const setActive = (entry: Entry, isActive: boolean) =>
    act({
      run: () =>
        unwrap(
          api.PUT('/api/admin/featured-items/{id}', {
            params: { path: { id: entry.id } },
            body: { isActive },
          }),
        ),
      done: `“${entry.itemName}” ${isActive ? 'activated' : 'deactivated'}`,
      reload: list.reload,
    })

  const remove = (entry: Entry) =>
    act({
      ask: {
        title: 'Remove from the featured shelf?',
        message: `“${entry.itemName}” leaves the shelf for good; the item itself stays in the directory.`,
        confirmLabel: 'Remove',
        danger: true,
      },
      run: () => unwrap(api.DELETE('/api/admin/featured-items/{id}', { params: { path: { id: entry.id } } })),
      done: `“${entry.itemName}” removed from the shelf`,
      reload: list.reload,
    })

  const columns: Column<Entry>[] = [
    { header: 'Order', class: 'catalog-position', cell: (e) => e.featuredOrder },
    {
      header: 'Item',
      cell: (e) => (
        <>
          <strong>{e.itemName}</strong>
          <div class="muted small">{e.itemSlug}</div>
        </>
      ),
    },
    {
      header: 'State',
      cell: (e) => {
        const state = stateOf(e, now)
        return <span class={`status status-${state.css}`}>{state.label}</span>
      },
    },
    { header: 'From', secondary: true, cell: (e) => formatDate(e.featuredAt, true) },
    {
      header: 'Until',
      cell: (e) => (e.featuredUntil ? formatDate(e.featuredUntil, true) : <span class="muted">No end</span>),
    },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (e) => (
        <>
          <RowButton action="Edit" name={e.itemName} onClick={() => setEditing(e)} />
          <ActiveToggle name={e.itemName} active={e.isActive} onChange={(active) => setActive(e, active)} />
          <RowButton action="Remove" name={e.itemName} kind="danger" onClick={() => remove(e)} />
        </>
      ),
    },
  ]

  return (
    <Page
      title="Featured"
      actions={
        <Button kind="primary" onClick={() => setAdding(true)}>
          Feature an item
        </Button>
      }
    >
      <p class="muted">
        The site's shelf shows active entries that have not ended, the highest <code>featuredOrder</code>{' '}
        first.
      </p>
      <div class="toolbar">
        <ActiveFilter value={active} onValue={(value) => setFilter('active', value)} />
      </div>
      <PagedTable
        caption="Featured items"
        columns={columns}
        rows={list.data?.data}
        rowKey={(e) => e.id}
        busy={list.loading}
        empty={active ? 'No entry matches this filter.' : 'Nothing is featured yet.'}
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={setPage}
      />
      <Dialog title="Feature an item" open={adding} onClose={() => setAdding(false)} wide>
        {adding && (
          <AddForm
            onCancel={() => setAdding(false)}
            onSaved={async (message) => {
              setAdding(false)
              await changed(message)
            }}
          />
        )}
      </Dialog>
      <EditDialog
        editing={editing}
        title={(entry) => `Edit “${entry.itemName}”`}
        onClose={() => setEditing(null)}
        wide
        onSaved={changed}
      >
        {(entry, form) => <EditForm entry={entry} {...form} />}
      </EditDialog>
    </Page>
  )
}

/** Puts an item found by search on the shelf; its name, description and pictures are copied from it. */
function AddForm({
  onCancel,
  onSaved,
}: {
  onCancel: () => void
  onSaved: (message: string) => Promise<void>
}) {
  const [item, setItem] = useState<AdminItem | null>(null)
  const [featuredOrder, setFeaturedOrder] = useState('0')
  const [featuredUntil, setFeaturedUntil] = useState('')
  const [isActive, setIsActive] = useState(true)
  const [missing, setMissing] = useState<string | undefined>(undefined)
  const save = useSubmit(async () => {
    if (!item) {
      setMissing('Choose the item to feature')
      return
    }
    const answer = await unwrap(
      api.POST('/api/admin/featured-items', {
        body: {
          itemSlug: item.slug,
          featuredOrder: orderOf(featuredOrder),
          isActive,
          featuredUntil: featuredUntil ? fromLocalInput(featuredUntil) : null,
        },
      }),
    )
    await onSaved(`“${answer.data.itemName}” featured`)
  }, FIELDS)
  const f = save.fields
  return (
    <form onSubmit={save.submit} noValidate>
      {save.error && <Notice kind="error">{save.error}</Notice>}
      <fieldset class="catalog-choice">
        <legend>Item</legend>
        {item ? (
          <p class="catalog-chosen">
            <span>
              <strong>{item.name}</strong> <span class="muted small">{item.slug}</span>
            </span>
            <Button kind="link" onClick={() => setItem(null)}>
              Choose another item
            </Button>
          </p>
        ) : (
          <ItemPicker
            chosen={new Set()}
            action="Choose"
            done="Chosen"
            onPick={(picked) => {
              setItem(picked)
              setMissing(undefined)
            }}
          />
        )}
        {(missing ?? f.itemSlug ?? f.itemName) && (
          <p class="field-error">{missing ?? f.itemSlug ?? f.itemName}</p>
        )}
      </fieldset>
      <div class="grid-2">
        <TextField
          label="featuredOrder"
          type="number"
          step={1}
          value={featuredOrder}
          onValue={setFeaturedOrder}
          error={f.featuredOrder}
          hint="Higher is more prominent"
        />
        <TextField
          label="featuredUntil"
          type="datetime-local"
          value={featuredUntil}
          onValue={setFeaturedUntil}
          error={f.featuredUntil}
          hint="Your local time; empty: no end"
        />
      </div>
      <Checkbox label="isActive" checked={isActive} onValue={setIsActive} />
      {f.isActive && <p class="field-error">{f.isActive}</p>}
      <div class="actions">
        <Button kind="primary" type="submit" busy={save.busy}>
          Feature
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}

interface EditValues {
  itemSlug: string
  itemName: string
  itemDescription: string
  itemIconUrl: string
  itemImageUrl: string
  featuredOrder: string
  featuredAt: string
  featuredUntil: string
  isActive: boolean
}

function valuesOf(entry: Entry): EditValues {
  return {
    itemSlug: entry.itemSlug,
    itemName: entry.itemName,
    itemDescription: entry.itemDescription ?? '',
    itemIconUrl: entry.itemIconUrl ?? '',
    itemImageUrl: entry.itemImageUrl ?? '',
    featuredOrder: String(entry.featuredOrder),
    featuredAt: toLocalInput(entry.featuredAt),
    featuredUntil: toLocalInput(entry.featuredUntil),
    isActive: entry.isActive,
  }
}

/** The entry's fields; only those changed are sent (the dates are shown to the minute). */
function EditForm({
  entry,
  onCancel,
  onSaved,
}: {
  entry: Entry
  onCancel: () => void
  onSaved: (message: string) => Promise<void>
}) {
  const initial = valuesOf(entry)
  const [form, setForm] = useState<EditValues>(initial)
  const [unchanged, setUnchanged] = useState(false)
  const set =
    <K extends keyof EditValues>(key: K) =>
    (value: EditValues[K]) => {
      setUnchanged(false)
      setForm((current) => ({ ...current, [key]: value }))
    }
  const orNull = (value: string) => (value.trim() === '' ? null : value.trim())
  const save = useSubmit(async () => {
    const body: EntryChanges = {}
    if (form.itemSlug !== initial.itemSlug) body.itemSlug = form.itemSlug.trim()
    if (form.itemName !== initial.itemName) body.itemName = form.itemName.trim()
    if (form.itemDescription !== initial.itemDescription) body.itemDescription = orNull(form.itemDescription)
    if (form.itemIconUrl !== initial.itemIconUrl) body.itemIconUrl = orNull(form.itemIconUrl)
    if (form.itemImageUrl !== initial.itemImageUrl) body.itemImageUrl = orNull(form.itemImageUrl)
    if (form.featuredOrder !== initial.featuredOrder) body.featuredOrder = orderOf(form.featuredOrder)
    if (form.featuredAt !== initial.featuredAt) body.featuredAt = fromLocalInput(form.featuredAt)
    if (form.featuredUntil !== initial.featuredUntil)
      body.featuredUntil = form.featuredUntil ? fromLocalInput(form.featuredUntil) : null
    if (form.isActive !== initial.isActive) body.isActive = form.isActive
    if (Object.keys(body).length === 0) {
      setUnchanged(true)
      return
    }
    const answer = await unwrap(
      api.PUT('/api/admin/featured-items/{id}', { params: { path: { id: entry.id } }, body }),
    )
    await onSaved(`“${answer.data.itemName}” saved`)
  }, FIELDS)
  const f = save.fields
  return (
    <form onSubmit={save.submit} noValidate>
      {save.error && <Notice kind="error">{save.error}</Notice>}
      {unchanged && <Notice>Nothing has changed yet.</Notice>}
      <div class="grid-2">
        <TextField
          label="itemName"
          value={form.itemName}
          onValue={set('itemName')}
          error={f.itemName}
          maxLength={200}
          required
        />
        <TextField
          label="itemSlug"
          value={form.itemSlug}
          onValue={set('itemSlug')}
          error={f.itemSlug}
          maxLength={200}
          required
        />
      </div>
      <TextArea
        label="itemDescription"
        value={form.itemDescription}
        onValue={set('itemDescription')}
        error={f.itemDescription}
        rows={3}
      />
      <div class="grid-2">
        <TextField
          label="itemIconUrl"
          type="url"
          value={form.itemIconUrl}
          onValue={set('itemIconUrl')}
          error={f.itemIconUrl}
          placeholder="https://"
        />
        <TextField
          label="itemImageUrl"
          type="url"
          value={form.itemImageUrl}
          onValue={set('itemImageUrl')}
          error={f.itemImageUrl}
          placeholder="https://"
        />
      </div>
      <div class="grid-3">
        <TextField
          label="featuredOrder"
          type="number"
          step={1}
          value={form.featuredOrder}
          onValue={set('featuredOrder')}
          error={f.featuredOrder}
          hint="Higher is more prominent"
        />
        <TextField
          label="featuredAt"
          type="datetime-local"
          value={form.featuredAt}
          onValue={set('featuredAt')}
          error={f.featuredAt}
          hint="Your local time"
        />
        <TextField
          label="featuredUntil"
          type="datetime-local"
          value={form.featuredUntil}
          onValue={set('featuredUntil')}
          error={f.featuredUntil}
          hint="Your local time; empty: no end"
        />
      </div>
      <Checkbox label="isActive" checked={form.isActive} onValue={set('isActive')} />
      {f.isActive && <p class="field-error">{f.isActive}</p>}
      <div class="actions">
        <Button kind="primary" type="submit" busy={save.busy}>
          Save
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
