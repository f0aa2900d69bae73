/** The fields of a sponsor ad an admin may change (title, description, start and end), and saving them. */
import { unwrap } from '../../shared/api.ts'
import { orNull, useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { Button, Notice, TextArea, TextField, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import type { Ad } from './sponsor-ad-details.tsx'

/** An ISO date-time as a `datetime-local` value, in the user's time zone. */
function toLocalInput(value: string | null): string {
  if (!value) return ''
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

const FIELDS = ['title', 'description', 'startDate', 'endDate']

/** The edit form; the dates go only when changed, and a refusal shows under its field. */
export function EditForm({ ad, onSaved }: { ad: Ad; onSaved: () => Promise<void> }) {
  const toast = useToast()
  const initial = {
    title: ad.title,
    description: ad.description ?? '',
    startDate: toLocalInput(ad.startDate),
    endDate: toLocalInput(ad.endDate),
  }
  const [form, set] = useFields(initial)
  const date = (value: string) => {
    const parsed = new Date(value)
    // An unreadable value goes as typed, so the API names the field.
    return Number.isNaN(parsed.getTime()) ? value : parsed.toISOString()
  }
  const save = useSubmit(async () => {
    await unwrap(
      api.PUT('/api/admin/sponsor-ads/{id}', {
        params: { path: { id: ad.id } },
        body: {
          title: form.title.trim(),
          description: orNull(form.description),
          // The dates go only when changed: the field holds minutes, the ad keeps seconds.
          ...(form.startDate !== initial.startDate && form.startDate !== ''
            ? { startDate: date(form.startDate) }
            : {}),
          ...(form.endDate !== initial.endDate && form.endDate !== '' ? { endDate: date(form.endDate) } : {}),
        },
      }),
    )
    toast('success', `“${form.title.trim()}” saved`)
    await onSaved()
  }, FIELDS)
  const f = save.fields
  return (
    <form class="form card" onSubmit={save.submit} noValidate aria-labelledby="ad-edit">
      <h2 id="ad-edit">Edit</h2>
      {save.error && <Notice kind="error">{save.error}</Notice>}
      <TextField
        label="Title"
        value={form.title}
        onValue={set('title')}
        error={f.title}
        hint="Starts as the item’s name"
        maxLength={200}
      />
      <TextArea
        label="Description"
        value={form.description}
        onValue={set('description')}
        error={f.description}
        maxLength={1000}
        rows={3}
      />
      <div class="grid-2">
        <TextField
          label="Start"
          type="datetime-local"
          value={form.startDate}
          onValue={set('startDate')}
          error={f.startDate}
          hint={ad.startDate ? undefined : 'Set by the approval'}
        />
        <TextField
          label="End"
          type="datetime-local"
          value={form.endDate}
          onValue={set('endDate')}
          error={f.endDate}
          hint="After the start. An active ad given an end in the past leaves the site at once."
        />
      </div>
      <div class="actions">
        <Button kind="primary" type="submit" busy={save.busy}>
          Save
        </Button>
      </div>
    </form>
  )
}
