/**
 * The frame both consoles share: a top bar (menu toggle on narrow screens, brand, the console's own end),
 * the main navigation, and the content, which takes focus on each navigation as a page load would.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { messageOf } from './api.ts'
import { Link, useLocation } from './router.tsx'
import { findRoute, type Route, Screen } from './screens.tsx'
import { Button, Loading, Notice } from './ui.tsx'

export interface NavEntry {
  name: string
  path: string
}

export function ShellLayout({
  brand,
  nav,
  routes,
  end,
  banner,
  notFound,
}: {
  brand: string
  nav: readonly NavEntry[]
  routes: readonly Route[]
  /** What the top bar ends with: the user, sign out, a bell. */
  end: ComponentChildren
  /** Shown above every screen (persistent notices). */
  banner?: ComponentChildren
  notFound: ComponentChildren
}) {
  const location = useLocation()
  const [menuOpen, setMenuOpen] = useState(false)
  const main = useRef<HTMLElement>(null)
  const firstPath = useRef(location.path)
  const found = findRoute(routes, location.path)
  const current = found?.route.nav

  // A new screen moves focus to its content, as a page load would, and closes the menu on small screens.
  useEffect(() => {
    setMenuOpen(false)
    if (location.path !== firstPath.current) main.current?.focus()
    firstPath.current = ''
  }, [location.path])

  return (
    <div class={`shell${menuOpen ? ' menu-open' : ''}`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <button
          type="button"
          class="button button-link menu-toggle"
          aria-expanded={menuOpen ? 'true' : 'false'}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <Link href="/" class="brand">
          {brand}
        </Link>
        <div class="topbar-end">{end}</div>
      </header>
      <nav id="main-nav" class="sidenav" aria-label="Main">
        <ul>
          {nav.map((entry) => (
            <li key={entry.path}>
              <Link href={entry.path} aria-current={entry.name === current ? 'page' : undefined}>
                {entry.name}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content" ref={main} tabIndex={-1}>
        {banner}
        {found ? (
          <Screen key={found.route.pattern} load={found.route.load} params={found.params} />
        ) : (
          notFound
        )}
      </main>
    </div>
  )
}

/** The bell: a link to the notifications, saying how many are unread. */
export function Bell({ href, unread }: { href: string; unread: number | null }) {
  const label = unread ? `Notifications, ${unread} unread` : 'Notifications'
  return (
    <Link href={href} class="bell" aria-label={label}>
      <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20">
        <path
          fill="currentColor"
          d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z"
        />
      </svg>
      {unread ? <span class="badge">{unread > 99 ? '99+' : unread}</span> : null}
    </Link>
  )
}

/** An address that is no screen of the console. */
export function NotFound({ title, home, homeLabel }: { title: string; home: string; homeLabel: string }) {
  useEffect(() => {
    document.title = `Not found · ${title}`
  }, [])
  return (
    <section>
      <h1>Nothing here</h1>
      <p>
        This address is not a screen of the console. <Link href={home}>{homeLabel}</Link>.
      </p>
    </section>
  )
}

/** While the console finds out who is signed in. */
export function Opening() {
  return (
    <main class="sign-in" id="main">
      <Loading what="Opening the console" />
    </main>
  )
}

/** The service did not answer who is signed in: why, and a way to ask again. */
export function Unreachable({
  service,
  error,
  onRetry,
}: {
  service: string
  error: unknown
  onRetry: () => unknown
}) {
  return (
    <main class="sign-in" id="main">
      <div class="card sign-in-card">
        <h1>The {service} could not be reached</h1>
        <Notice kind="error">{messageOf(error)}</Notice>
        <Button kind="primary" onClick={onRetry}>
          Try again
        </Button>
      </div>
    </main>
  )
}
