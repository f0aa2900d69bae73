/** What moves through a list: tabs over a query parameter, the pager, and the search box. */
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { Button } from './button.tsx'

/** Tabs over one query parameter: each is a link, so a tab can be opened, shared and reloaded. */
export function Tabs({
  label,
  tabs,
  current,
  onSelect,
}: {
  label: string
  tabs: readonly { value: string; label: string; count?: number | undefined }[]
  current: string
  onSelect: (value: string) => void
}) {
  return (
    <div class="tabs" role="tablist" aria-label={label}>
      {tabs.map((tab) => (
        <button
          key={tab.value}
          type="button"
          role="tab"
          class="tab"
          aria-selected={tab.value === current ? 'true' : 'false'}
          tabIndex={tab.value === current ? 0 : -1}
          onClick={() => onSelect(tab.value)}
          onKeyDown={(event) => {
            const index = tabs.findIndex((t) => t.value === tab.value)
            const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0
            if (!step) return
            event.preventDefault()
            const target = tabs[(index + step + tabs.length) % tabs.length]
            if (!target) return
            onSelect(target.value)
            const list = event.currentTarget.parentElement
            window.requestAnimationFrame(() =>
              list?.querySelector<HTMLButtonElement>('[aria-selected="true"]')?.focus(),
            )
          }}
        >
          {tab.label}
          {tab.count !== undefined && <span class="tab-count">{tab.count}</span>}
        </button>
      ))}
    </div>
  )
}

/** Previous and next, and where the user is; the page lives in the query string. */
export function Pager({
  page,
  totalPages,
  total,
  onPage,
}: {
  page: number
  totalPages: number
  total?: number
  onPage: (page: number) => void
}) {
  if (totalPages <= 1 && page <= 1)
    return total === undefined ? null : <p class="pager-total">{total} in all</p>
  return (
    <nav class="pager" aria-label="Pages">
      <Button onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous
      </Button>
      <span>
        Page {page} of {Math.max(totalPages, 1)}
        {total !== undefined && ` · ${total} in all`}
      </span>
      <Button onClick={() => onPage(page + 1)} disabled={page >= totalPages}>
        Next
      </Button>
    </nav>
  )
}

/** The search box of a list: labelled `Search`, kept in the query string as the user stops typing. */
export function SearchBox({
  value,
  onSearch,
  placeholder,
}: {
  value: string
  onSearch: (value: string) => void
  placeholder?: string
}) {
  const [text, setText] = useState(value)
  const id = useId()
  const timer = useRef<number>(undefined)
  useEffect(() => setText(value), [value])
  return (
    <search class="search">
      <form
        onSubmit={(event) => {
          event.preventDefault()
          window.clearTimeout(timer.current)
          onSearch(text.trim())
        }}
      >
        <label for={id}>Search</label>
        <input
          id={id}
          type="search"
          value={text}
          placeholder={placeholder}
          onInput={(event) => {
            const next = event.currentTarget.value
            setText(next)
            window.clearTimeout(timer.current)
            timer.current = window.setTimeout(() => onSearch(next.trim()), 300)
          }}
        />
      </form>
    </search>
  )
}
