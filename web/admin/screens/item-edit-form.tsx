/**
 * An item's fields as the API names them, in one form: a new item is created (and opened at its own
 * address), an existing one saved; a refusal puts each failing field's message next to it and keeps what
 * was typed.
 */
import { unwrap } from '../../shared/api.ts'
import { orNull, useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { useResource } from '../../shared/resource.ts'
import { navigate } from '../../shared/router.tsx'
import { Button, Checkbox, Notice, Select, TextArea, TextField, useToast } from '../../shared/ui.tsx'
import { type AdminItem, api, type ItemStatus } from '../api.ts'
import { STATUS_LABELS } from '../item-status.tsx'

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

/** The form of a new item (`item` undefined) or of an existing one (`onSaved` runs after it is saved). */
export function ItemEditForm({
  item,
  onSaved,
}: {
  item: AdminItem | undefined
  onSaved: () => Promise<void>
}) {
  const toast = useToast()
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

  const companyOptions = [
    { value: '', label: 'No company' },
    ...(companies.data?.data ?? []).map((c) => ({ value: c.id, label: c.name })),
    ...(item?.company && !companies.data?.data.some((c) => c.id === item.company?.id)
      ? [{ value: item.company.id, label: item.company.name }]
      : []),
  ]
  return (
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
  )
}
