/** The item picker of the collection and featured screens: a search of the items and a button per item found. */
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { messageOf, unwrap } from '../shared/api.ts'
import { useResource } from '../shared/resource.ts'
import { Button, Notice } from '../shared/ui.tsx'
import { type AdminItem, api } from './api.ts'
import { ItemStatusBadge } from './item-status.tsx'
import './screens/catalog.css'

/**
 * Finds items by name or description (`GET /api/admin/items?search=`) and offers each with a button:
 * `<action> <name>`, or `done` (disabled) for an item already chosen.
 */
export function ItemPicker({
  chosen,
  action,
  done,
  onPick,
  label = 'Find items',
}: {
  chosen: ReadonlySet<string>
  action: string
  done: string
  onPick: (item: AdminItem) => unknown
  label?: string
}) {
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  const [text, setText] = useState('')
  const [search, setSearch] = useState('')
  const timer = useRef<number>(undefined)
  useEffect(() => () => window.clearTimeout(timer.current), [])
  const found = useResource(
    async (signal) =>
      search
        ? unwrap(
            api.GET('/api/admin/items', {
              signal,
              params: { query: { search, limit: 10, sortBy: 'name', sortOrder: 'asc' } },
            }),
          )
        : undefined,
    [search],
  )
  const results = found.data?.data ?? []
  return (
    <div class="catalog-picker">
      {/* Not a form: the picker may sit in one (the featured dialog's), and Enter searches at once. */}
      <search class="field">
        <label for={id}>{label}</label>
        <input
          id={id}
          ref={input}
          type="search"
          value={text}
          aria-describedby={`${id}-hint`}
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return
            event.preventDefault()
            window.clearTimeout(timer.current)
            setSearch(text.trim())
          }}
          onInput={(event) => {
            const next = event.currentTarget.value
            setText(next)
            window.clearTimeout(timer.current)
            timer.current = window.setTimeout(() => setSearch(next.trim()), 300)
          }}
        />
        <p class="field-hint" id={`${id}-hint`}>
          Words of the name or description, any status
        </p>
      </search>
      <p class="visually-hidden" role="status">
        {search && found.data
          ? `${found.data.meta.total} ${found.data.meta.total === 1 ? 'item' : 'items'} found`
          : ''}
      </p>
      {found.error !== undefined && <Notice kind="error">{messageOf(found.error)}</Notice>}
      {search && found.data && results.length === 0 && <p class="muted">No item matches “{search}”.</p>}
      {results.length > 0 && (
        <ul class="catalog-results" aria-label="Items found" aria-busy={found.loading ? 'true' : 'false'}>
          {results.map((item) => {
            const taken = chosen.has(item.id)
            return (
              <li key={item.id}>
                <span class="catalog-result-name">
                  <strong>{item.name}</strong> <ItemStatusBadge status={item.status} />
                  <span class="muted small"> {item.slug}</span>
                </span>
                <Button
                  kind={taken ? 'secondary' : 'primary'}
                  disabled={taken}
                  aria-label={`${taken ? done : action} ${item.name}`}
                  onClick={async () => {
                    await onPick(item)
                    // The button is now disabled (chosen): the search keeps the keyboard's place.
                    input.current?.focus()
                  }}
                >
                  {taken ? done : action}
                </Button>
              </li>
            )
          })}
        </ul>
      )}
      {found.data && found.data.meta.total > results.length && (
        <p class="muted small">
          {results.length} of {found.data.meta.total} shown: add words to narrow the search.
        </p>
      )}
    </div>
  )
}
