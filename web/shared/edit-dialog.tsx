/** The dialog of a list's create/edit form: open while `editing` is a row or `'new'`. */
import type { ComponentChildren } from 'preact'
import { Dialog } from './ui.tsx'

export function EditDialog<Row>({
  editing,
  title,
  onClose,
  wide,
  children,
}: {
  editing: Row | 'new' | null
  /** The title for a row, or for a new one (`null`). */
  title: (row: Row | null) => string
  onClose: () => void
  wide?: boolean
  /** The form for a row, or for a new one (`null`). */
  children: (row: Row | null) => ComponentChildren
}) {
  const row = editing === 'new' ? null : editing
  return (
    <Dialog title={editing === null ? '' : title(row)} open={editing !== null} onClose={onClose} wide={wide}>
      {editing !== null && children(row)}
    </Dialog>
  )
}
