/** The form of a record known by a name and an id (a tag, a category): a new one, or a new name for one. */
import { useState } from 'preact/hooks'
import { useSubmit } from '../shared/form.ts'
import { Button, Notice, TextField } from '../shared/ui.tsx'

/**
 * `name`, and for a new record an `id` made from it unless given; a record's id does not change.
 * `save` sends them (`id` empty when not given) and resolves with the success message.
 */
export function NameForm({
  record,
  noun,
  nameHint,
  save: send,
  onCancel,
  onSaved,
}: {
  record: { id: string; name: string } | null
  /** `tag`: the create button says `Create tag`. */
  noun: string
  nameHint: string
  save: (name: string, id: string) => Promise<string>
  onCancel: () => void
  onSaved: (message: string) => Promise<void>
}) {
  const [name, setName] = useState(record?.name ?? '')
  const [id, setId] = useState('')
  const save = useSubmit(async () => {
    await onSaved(await send(name.trim(), id.trim()))
  }, ['name', 'id'])
  return (
    <form onSubmit={save.submit} noValidate>
      {save.error && <Notice kind="error">{save.error}</Notice>}
      <TextField
        label="name"
        value={name}
        onValue={setName}
        error={save.fields.name}
        hint={nameHint}
        maxLength={100}
        required
        autofocus
      />
      {record ? (
        <p class="muted">
          id: <code>{record.id}</code> (an id does not change)
        </p>
      ) : (
        <TextField
          label="id"
          value={id}
          onValue={setId}
          error={save.fields.id}
          hint="Lower-case letters, digits and hyphens; made from the name when left empty"
          maxLength={100}
        />
      )}
      <div class="actions">
        <Button kind="primary" type="submit" busy={save.busy}>
          {record ? 'Save' : `Create ${noun}`}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
