/** The dialog of a list's create/edit form: open while `editing` is a row or `'new'`. */
import type { ComponentChildren } from 'preact'
import { Dialog } from './ui.tsx'

/** What the form is given: the row being edited, or `null` for a new one. */
type Shown<Editing> = Editing extends 'new' ? null : Editing

/** What a form in the dialog is given to close it. */
export interface FormHandlers {
  onCancel: () => void
  onSaved: (message: string) => Promise<void>
}

export function EditDialog<Editing>({
  editing,
  title,
  onClose,
  wide,
  onSaved,
  children,
}: {
  /** The row being edited, `'new'` for a new one, `null` while closed. */
  editing: Editing | null
  title: (row: Shown<Editing>) => string
  onClose: () => void
  wide?: boolean
  /** After a save: the dialog has closed; says so and reloads. */
  onSaved?: (message: string) => Promise<void>
  /** The form, given the row and its `onCancel` (closes) and `onSaved` (closes, then the dialog's `onSaved`). */
  children: (row: Shown<Editing>, form: FormHandlers) => ComponentChildren
}) {
  const handlers: FormHandlers = {
    onCancel: onClose,
    onSaved: async (message) => {
      onClose()
      await onSaved?.(message)
    },
  }
  const row = (editing === 'new' ? null : editing) as Shown<Editing>
  return (
    <Dialog title={editing === null ? '' : title(row)} open={editing !== null} onClose={onClose} wide={wide}>
      {editing !== null && children(row, handlers)}
    </Dialog>
  )
}
