/**
 * The consoles' router: the address bar is the state. A screen is chosen by the path under the console's
 * base, and its filters, tab and page live in the query string, so a view can be reloaded, bookmarked and
 * shared. `navigate` pushes a history entry; `setQuery` replaces the current one (typing in a search box
 * should not fill the back button's history).
 */
import type { AnchorHTMLAttributes } from 'preact'
import { useEffect, useState } from 'preact/hooks'

const CHANGED = 'curio:location'
let base = ''

/** Sets the path the console is served under (`/admin`), once, before the first render. */
export function setBase(path: string): void {
  base = path.replace(/\/+$/, '')
}

/** The console's own path of the current address (`/items/42`), without its base. */
export function currentPath(): string {
  const path = window.location.pathname
  const inside = path.startsWith(base) ? path.slice(base.length) : path
  return inside === '' ? '/' : inside
}

/** An address inside the console: `href('/items', {status: 'pending'})` → `/admin/items?status=pending`. */
export function href(path: string, query?: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query ?? {}))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value))
  const search = params.toString()
  return `${base}${path === '/' ? '/' : path}${search ? `?${search}` : ''}`
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const target = to.startsWith(base) ? to : `${base}${to}`
  if (target === window.location.pathname + window.location.search) return
  window.history[options.replace ? 'replaceState' : 'pushState'](null, '', target)
  window.dispatchEvent(new Event(CHANGED))
}

export interface Location {
  path: string
  query: URLSearchParams
  /** The whole address, base included, for coming back to it. */
  href: string
}

function read(): Location {
  return {
    path: currentPath(),
    query: new URLSearchParams(window.location.search),
    href: window.location.pathname + window.location.search,
  }
}

/** The current location; re-renders on every navigation, back and forward included. */
export function useLocation(): Location {
  const [location, setLocation] = useState(read)
  useEffect(() => {
    const update = () => setLocation(read())
    window.addEventListener('popstate', update)
    window.addEventListener(CHANGED, update)
    return () => {
      window.removeEventListener('popstate', update)
      window.removeEventListener(CHANGED, update)
    }
  }, [])
  return location
}

/**
 * The query string as state: `setQuery({status: 'pending', page: undefined})` changes the named keys and
 * keeps the others (an empty or undefined value removes a key).
 */
export function useQuery(): [
  URLSearchParams,
  (patch: Record<string, string | number | undefined | null>, options?: { push?: boolean }) => void,
] {
  const { path, query } = useLocation()
  const setQuery = (
    patch: Record<string, string | number | undefined | null>,
    options: { push?: boolean } = {},
  ) => {
    const next = new URLSearchParams(window.location.search)
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined || value === null || value === '') next.delete(key)
      else next.set(key, String(value))
    }
    const search = next.toString()
    navigate(`${base}${path}${search ? `?${search}` : ''}`, { replace: !options.push })
  }
  return [query, setQuery]
}

/** Matches `/items/:id` against a path; the params, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = []
  const source = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_all, name: string) => {
    names.push(name)
    return '([^/]+)'
  })
  const found = new RegExp(`^${source}/?$`).exec(path)
  if (!found) return null
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1] ?? '')]))
}

/** A link inside the console: a plain `<a>` (open in a new tab works), followed without a page load. */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { href: to, onClick, ...rest } = props
  const target = to.startsWith(base) ? to : `${base}${to}`
  return (
    <a
      {...rest}
      href={target}
      onClick={(event) => {
        onClick?.(event)
        if (event.defaultPrevented || event.button !== 0) return
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
        event.preventDefault()
        navigate(target)
      }}
    />
  )
}
