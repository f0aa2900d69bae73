/** The dialog of a list's create/edit form: open while `editing` is a row or `'new'`. */
import type { ComponentChildren } from 'preact'
import { Dialog } from './ui.tsx'

/** What the form is given: the row being edited, or `null` for a new one. */
type Shown<Editing> = Editing extends 'new' ? null : Editing

export function EditDialog<Editing>({
  editing,
  title,
  onClose,
  wide,
  children,
}: {
  /** The row being edited, `'new'` for a new one, `null` while closed. */
  editing: Editing | null
  title: (row: Shown<Editing>) => string
  onClose: () => void
  wide?: boolean
  children: (row: Shown<Editing>) => ComponentChildren
}) {
  const row = (editing === 'new' ? null : editing) as Shown<Editing>
  return (
    <Dialog title={editing === null ? '' : title(row)} open={editing !== null} onClose={onClose} wide={wide}>
      {editing !== null && children(row)}
    </Dialog>
  )
}
