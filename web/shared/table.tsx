/**
 * A list shown as a table: a caption for screen readers, a header per column, one row per record, an
 * empty text, and optionally a checkbox per row for bulk actions ("Select all on this page" in the
 * header). The table keeps its rows while a new page loads and says so with `aria-busy`.
 */
import type { ComponentChildren } from 'preact'

export interface Column<Row> {
  header: string
  cell: (row: Row) => ComponentChildren
  /** Hidden below 640 px wide, to keep a phone's table readable. */
  secondary?: boolean
  class?: string
}

interface TableProps<Row> {
  caption: string
  columns: readonly Column<Row>[]
  rows: readonly Row[] | undefined
  rowKey: (row: Row) => string
  empty: string
  busy?: boolean
  /** With a selection, each row has a checkbox labelled `Select <rowLabel>`. */
  selection?: {
    selected: ReadonlySet<string>
    onChange: (selected: Set<string>) => void
    rowLabel: (row: Row) => string
  }
}

export function DataTable<Row>({ caption, columns, rows, rowKey, empty, busy, selection }: TableProps<Row>) {
  const keys = (rows ?? []).map(rowKey)
  const allSelected =
    selection !== undefined && keys.length > 0 && keys.every((key) => selection.selected.has(key))
  return (
    // Focusable, so a table wider than the screen can be scrolled with the keyboard (WCAG 2.1.1).
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to be scrolled by keys
    <section class="table-wrap" tabIndex={0} aria-label={caption}>
      <table class="table" aria-busy={busy ? 'true' : 'false'}>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {selection && (
              <th scope="col" class="select-cell">
                <input
                  type="checkbox"
                  aria-label="Select all on this page"
                  checked={allSelected}
                  disabled={keys.length === 0}
                  onChange={(event) => {
                    const next = new Set(selection.selected)
                    for (const key of keys) {
                      if (event.currentTarget.checked) next.add(key)
                      else next.delete(key)
                    }
                    selection.onChange(next)
                  }}
                />
              </th>
            )}
            {columns.map((column) => (
              <th key={column.header} scope="col" class={column.secondary ? 'secondary' : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows?.map((row) => {
            const key = rowKey(row)
            return (
              <tr key={key}>
                {selection && (
                  <td class="select-cell">
                    <input
                      type="checkbox"
                      aria-label={`Select ${selection.rowLabel(row)}`}
                      checked={selection.selected.has(key)}
                      onChange={(event) => {
                        const next = new Set(selection.selected)
                        if (event.currentTarget.checked) next.add(key)
                        else next.delete(key)
                        selection.onChange(next)
                      }}
                    />
                  </td>
                )}
                {columns.map((column) => (
                  <td
                    key={column.header}
                    data-label={column.header}
                    class={
                      [column.secondary ? 'secondary' : '', column.class ?? ''].join(' ').trim() || undefined
                    }
                  >
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            )
          })}
          {rows && rows.length === 0 && (
            <tr>
              <td class="empty" colSpan={columns.length + (selection ? 1 : 0)}>
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  )
}
