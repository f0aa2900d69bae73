/**
 * Editing a featured entry: its item's name, slug, description and pictures as the shelf shows them, its
 * order, its window and whether it is active; only what changed is sent.
 */
import { useState } from 'preact/hooks'
import type { paths } from '../../../packages/client/src/generated/directory.ts'
import { unwrap } from '../../shared/api.ts'
import { orNull, useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { Button, Checkbox, Notice, TextArea, TextField } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { type Entry, FIELDS, fromLocalInput, orderOf, toLocalInput } from './featured-model.ts'

type EntryChanges = NonNullable<
  paths['/api/admin/featured-items/{id}']['put']['requestBody']
>['content']['application/json']

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
export function EditForm({
  entry,
  onCancel,
  onSaved,
}: {
  entry: Entry
  onCancel: () => void
  onSaved: (message: string) => Promise<void>
}) {
  const initial = valuesOf(entry)
  const [form, setField] = useFields<EditValues>(initial)
  const [unchanged, setUnchanged] = useState(false)
  // A change hides "Nothing has changed yet".
  const set =
    <K extends keyof EditValues>(key: K) =>
    (value: EditValues[K]) => {
      setUnchanged(false)
      setField(key)(value)
    }
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
