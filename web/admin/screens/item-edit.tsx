/**
 * One item: create it (`/items/new`) or edit it (`/items/:id`) with every field the API takes, named as
 * the API names them; review it, check its link, delete it, and read its history.
 */
import { useEffect, useState } from 'preact/hooks'
import { ApiError, unwrap } from '../../shared/api.ts'
import { useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, navigate } from '../../shared/router.tsx'
import {
  Button,
  Checkbox,
  formatDate,
  Loading,
  Notice,
  Pager,
  Select,
  TextArea,
  TextField,
  useConfirm,
  useToast,
} from '../../shared/ui.tsx'
import { type AdminItem, api, type ItemStatus } from '../api.ts'
import { ItemStatusBadge, STATUS_LABELS } from '../item-status.tsx'
import type { ScreenProps } from '../screen.ts'
import { RejectDialog } from './items.tsx'

interface Form {
  name: string
  slug: string
  description: string
  url: string
  iconUrl: string
  imageUrl: string
  categoryId: string
  tagIds: string[]
  companyId: string
  status: ItemStatus
  address: string
  city: string
  country: string
  latitude: string
  longitude: string
  isRemote: boolean
  serviceArea: string
}

const EMPTY: Form = {
  name: '',
  slug: '',
  description: '',
  url: '',
  iconUrl: '',
  imageUrl: '',
  categoryId: '',
  tagIds: [],
  companyId: '',
  status: 'draft',
  address: '',
  city: '',
  country: '',
  latitude: '',
  longitude: '',
  isRemote: false,
  serviceArea: '',
}

function formOf(item: AdminItem): Form {
  return {
    name: item.name,
    slug: item.slug,
    description: item.description ?? '',
    url: item.url ?? '',
    iconUrl: item.iconUrl ?? '',
    imageUrl: item.imageUrl ?? '',
    categoryId: item.category?.id ?? '',
    tagIds: item.tags.map((tag) => tag.id),
    companyId: item.company?.id ?? '',
    status: item.status,
    address: item.location.address ?? '',
    city: item.location.city ?? '',
    country: item.location.country ?? '',
    latitude: item.location.latitude?.toString() ?? '',
    longitude: item.location.longitude?.toString() ?? '',
    isRemote: item.location.isRemote,
    serviceArea: item.location.serviceArea ?? '',
  }
}

const orNull = (value: string) => (value.trim() === '' ? null : value.trim())
const numberOrNull = (value: string) => (value.trim() === '' ? null : Number(value))

/** The body of a create or an update: empty text is `null` (cleared), numbers are numbers. */
function bodyOf(form: Form) {
  return {
    name: form.name.trim(),
    ...(form.slug.trim() ? { slug: form.slug.trim() } : {}),
    description: orNull(form.description),
    url: orNull(form.url),
    iconUrl: orNull(form.iconUrl),
    imageUrl: orNull(form.imageUrl),
    categoryId: orNull(form.categoryId),
    tagIds: form.tagIds,
    companyId: orNull(form.companyId),
    status: form.status,
    location: {
      address: orNull(form.address),
      city: orNull(form.city),
      country: orNull(form.country),
      latitude: numberOrNull(form.latitude),
      longitude: numberOrNull(form.longitude),
      isRemote: form.isRemote,
      serviceArea: orNull(form.serviceArea),
    },
  }
}

const FIELDS = [
  'name',
  'slug',
  'description',
  'url',
  'iconUrl',
  'imageUrl',
  'categoryId',
  'tagIds',
  'companyId',
  'status',
  'location.address',
  'location.city',
  'location.country',
  'location.latitude',
  'location.longitude',
  'location.isRemote',
  'location.serviceArea',
  'location',
]

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
    <ItemForm
      key={`${item.data?.id ?? 'new'}:${version}`}
      item={item.data}
      version={version}
      onSaved={saved}
    />
  )
}

function ItemForm({
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
  const [form, set] = useFields<Form>(item ? formOf(item) : EMPTY)
  const categories = useResource((signal) => unwrap(api.GET('/api/admin/categories/all', { signal })), [])
  const tags = useResource((signal) => unwrap(api.GET('/api/admin/tags/all', { signal })), [])
  const companies = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/companies', {
          signal,
          params: { query: { limit: 100, sortBy: 'name', sortOrder: 'asc' } },
        }),
      ),
    [],
  )

  const save = useSubmit(async () => {
    if (item) {
      await unwrap(
        api.PUT('/api/admin/items/{id}', { params: { path: { id: item.id } }, body: bodyOf(form) }),
      )
      toast('success', `“${form.name.trim()}” saved`)
      await onSaved()
    } else {
      const created = await unwrap(api.POST('/api/admin/items', { body: bodyOf(form) }))
      toast('success', `“${created.data.name}” created`)
      navigate(`/items/${created.data.id}`, { replace: true })
    }
  }, FIELDS)
  const f = save.fields

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

  const companyOptions = [
    { value: '', label: 'No company' },
    ...(companies.data?.data ?? []).map((c) => ({ value: c.id, label: c.name })),
    ...(item?.company && !companies.data?.data.some((c) => c.id === item.company?.id)
      ? [{ value: item.company.id, label: item.company.name }]
      : []),
  ]

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
      <form class="form card" onSubmit={save.submit} noValidate aria-label={item ? 'Edit item' : 'New item'}>
        {save.error && <Notice kind="error">{save.error}</Notice>}
        <div class="grid-2">
          <TextField
            label="name"
            value={form.name}
            onValue={set('name')}
            error={f.name}
            required
            maxLength={200}
          />
          <TextField
            label="slug"
            value={form.slug}
            onValue={set('slug')}
            error={f.slug}
            hint={item ? undefined : 'Made from the name when left empty'}
            maxLength={200}
          />
        </div>
        <TextArea
          label="description"
          value={form.description}
          onValue={set('description')}
          error={f.description}
          maxLength={5000}
        />
        <div class="grid-3">
          <TextField
            label="url"
            type="url"
            value={form.url}
            onValue={set('url')}
            error={f.url}
            placeholder="https://"
          />
          <TextField
            label="iconUrl"
            type="url"
            value={form.iconUrl}
            onValue={set('iconUrl')}
            error={f.iconUrl}
            placeholder="https://"
          />
          <TextField
            label="imageUrl"
            type="url"
            value={form.imageUrl}
            onValue={set('imageUrl')}
            error={f.imageUrl}
            placeholder="https://"
          />
        </div>
        <div class="grid-3">
          <Select
            label="categoryId"
            value={form.categoryId}
            onValue={set('categoryId')}
            error={f.categoryId}
            options={[
              { value: '', label: 'No category' },
              ...(categories.data?.data ?? []).map((c) => ({ value: c.id, label: c.name })),
            ]}
          />
          <Select
            label="companyId"
            value={form.companyId}
            onValue={set('companyId')}
            error={f.companyId}
            options={companyOptions}
          />
          <Select
            label="status"
            value={form.status}
            onValue={(value) => set('status')(value as ItemStatus)}
            error={f.status}
            options={(['draft', 'pending', 'published', 'rejected'] as const).map((s) => ({
              value: s,
              label: `${s} (${STATUS_LABELS[s]})`,
            }))}
          />
        </div>
        <fieldset class="checkbox-group" aria-describedby={f.tagIds ? 'tag-error' : undefined}>
          <legend>tagIds</legend>
          {(tags.data?.data ?? []).length === 0 && <p class="muted">No tags yet.</p>}
          {(tags.data?.data ?? []).map((tag) => (
            <Checkbox
              key={tag.id}
              label={tag.name}
              checked={form.tagIds.includes(tag.id)}
              onValue={(checked) =>
                set('tagIds')(checked ? [...form.tagIds, tag.id] : form.tagIds.filter((t) => t !== tag.id))
              }
            />
          ))}
          {f.tagIds && (
            <p class="field-error" id="tag-error">
              {f.tagIds}
            </p>
          )}
        </fieldset>
        <fieldset>
          <legend>location</legend>
          {f.location && <p class="field-error">{f.location}</p>}
          <div class="grid-3">
            <TextField
              label="address"
              value={form.address}
              onValue={set('address')}
              error={f['location.address']}
            />
            <TextField label="city" value={form.city} onValue={set('city')} error={f['location.city']} />
            <TextField
              label="country"
              value={form.country}
              onValue={set('country')}
              error={f['location.country']}
            />
            <TextField
              label="latitude"
              inputMode="decimal"
              value={form.latitude}
              onValue={set('latitude')}
              error={f['location.latitude']}
            />
            <TextField
              label="longitude"
              inputMode="decimal"
              value={form.longitude}
              onValue={set('longitude')}
              error={f['location.longitude']}
            />
            <TextField
              label="serviceArea"
              value={form.serviceArea}
              onValue={set('serviceArea')}
              error={f['location.serviceArea']}
            />
          </div>
          <Checkbox label="isRemote" checked={form.isRemote} onValue={set('isRemote')} />
        </fieldset>
        <div class="actions">
          <Button kind="primary" type="submit" busy={save.busy}>
            {item ? 'Save' : 'Create item'}
          </Button>
        </div>
      </form>
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

/** The last check of the item's link, and `Check link` to check it now. */
function LinkHealth({ item, onChecked }: { item: AdminItem; onChecked: () => Promise<void> }) {
  const toast = useToast()
  const link = item.link
  const check = async () => {
    try {
      const answer = await unwrap(
        api.POST('/api/admin/items/{id}/check-link', { params: { path: { id: item.id } } }),
      )
      toast(
        'success',
        `Link checked: ${answer.data.status}${answer.data.httpStatus ? ` (HTTP ${answer.data.httpStatus})` : ''}`,
      )
      await onChecked()
    } catch (error) {
      toast.failed(error)
    }
  }
  return (
    <section class="card" aria-labelledby="link-health">
      <h2 id="link-health">Link health</h2>
      {item.url ? (
        <>
          <p>
            <span class={`status link-${link.status}`}>{link.status}</span>{' '}
            {link.checkedAt ? `checked ${formatDate(link.checkedAt, true)}` : 'not checked yet'}
            {link.httpStatus ? ` · HTTP ${link.httpStatus}` : ''}
            {link.failures
              ? ` · ${link.failures} failed ${link.failures === 1 ? 'check' : 'checks'} in a row`
              : ''}
          </p>
          {link.finalUrl && link.finalUrl !== item.url && <p class="muted">Ends at {link.finalUrl}</p>}
          <Button onClick={check}>Check link</Button>
        </>
      ) : (
        <p class="muted">This item has no URL to check.</p>
      )}
    </section>
  )
}

function History({ id, version }: { id: string; version: number }) {
  const [page, setPage] = useState(1)
  useEffect(() => setPage(1), [version])
  const history = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/items/{id}/history', {
          signal,
          params: { path: { id }, query: { page, limit: 10 } },
        }),
      ),
    [id, page, version],
  )
  return (
    <section class="card" aria-labelledby="item-history">
      <h2 id="item-history">History</h2>
      {history.error !== undefined && <Notice kind="error">{(history.error as Error).message}</Notice>}
      <ol class="history" aria-busy={history.loading ? 'true' : 'false'}>
        {history.data?.data.map((entry) => (
          <li key={entry.id}>
            <strong>{entry.action}</strong> {formatDate(entry.createdAt, true)}
            {entry.actor && <span class="muted"> by {entry.actor.name ?? entry.actor.email}</span>}
            {entry.note && <div>Note: {entry.note}</div>}
            {entry.changes.length > 0 && (
              <ul class="changes">
                {entry.changes.map((change) => (
                  <li key={change.field}>
                    {change.field}: {show(change.from)} → {show(change.to)}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      {history.data && <Pager page={page} totalPages={history.data.meta.totalPages} onPage={setPage} />}
    </section>
  )
}

function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—'
  if (typeof value === 'string') return value.length > 80 ? `${value.slice(0, 80)}…` : value
  return JSON.stringify(value)
}
