/** Featuring an item: one found by search is put on the shelf with its order, end date and state. */
import { useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Button, Checkbox, Notice, TextField } from '../../shared/ui.tsx'
import { type AdminItem, api } from '../api.ts'
import { ItemPicker } from '../item-picker.tsx'
import { FIELDS, fromLocalInput, orderOf } from './featured-model.ts'

/** Puts an item found by search on the shelf; its name, description and pictures are copied from it. */
export function AddForm({
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
