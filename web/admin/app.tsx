import type { ComponentType } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { messageOf, unwrap } from '../shared/api.ts'
import { Link, match, useLocation } from '../shared/router.tsx'
import { Button, ConfirmProvider, Loading, Notice, ToastProvider } from '../shared/ui.tsx'
import { api } from './api.ts'
import { NAV, ROUTES } from './routes.ts'
import type { ScreenProps } from './screen.ts'
import { NotAnAdmin, SignIn } from './screens/sign-in.tsx'
import { SessionProvider, useSession, useUser } from './session.tsx'

export function App() {
  return (
    <ToastProvider>
      <ConfirmProvider>
        <SessionProvider>
          <Gate />
        </SessionProvider>
      </ConfirmProvider>
    </ToastProvider>
  )
}

/** Signed in as an admin: the console; otherwise what stands in the way. */
function Gate() {
  const { session, refresh } = useSession()
  switch (session.state) {
    case 'loading':
      return (
        <main class="sign-in" id="main">
          <Loading what="Opening the console" />
        </main>
      )
    case 'failed':
      return (
        <main class="sign-in" id="main">
          <div class="card sign-in-card">
            <h1>The directory could not be reached</h1>
            <Notice kind="error">{messageOf(session.error)}</Notice>
            <Button kind="primary" onClick={refresh}>
              Try again
            </Button>
          </div>
        </main>
      )
    case 'signed-out':
      return <SignIn expired={session.expired} />
    case 'signed-in':
      return session.user.isAdmin ? <Shell /> : <NotAnAdmin email={session.user.email} />
  }
}

const loaded = new Map<string, ComponentType<ScreenProps>>()

/**
 * Starts loading the screen of the address the console opened at while it asks who is signed in, so the
 * two round trips overlap rather than follow each other.
 */
export function preloadScreen(path: string): void {
  const route = ROUTES.find((candidate) => match(candidate.pattern, path) !== null)
  route?.load().then(
    (module) => loaded.set(route.load.toString(), module.default),
    () => {},
  )
}

function Shell() {
  const user = useUser()
  const { signOut } = useSession()
  const location = useLocation()
  const [menuOpen, setMenuOpen] = useState(false)
  const main = useRef<HTMLElement>(null)
  const firstPath = useRef(location.path)

  const found = ROUTES.map((route) => ({ route, params: match(route.pattern, location.path) })).find(
    (candidate) => candidate.params !== null,
  )
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
          Curio admin
        </Link>
        <div class="topbar-end">
          <NotificationBell path={location.path} />
          <span class="user-email">{user.email}</span>
          <Button kind="link" onClick={signOut}>
            Sign out
          </Button>
        </div>
      </header>
      <nav id="main-nav" class="sidenav" aria-label="Main">
        <ul>
          {NAV.map((entry) => (
            <li key={entry.path}>
              <Link href={entry.path} aria-current={entry.name === current ? 'page' : undefined}>
                {entry.name}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content" ref={main} tabIndex={-1}>
        {found ? (
          <Screen key={found.route.pattern} load={found.route.load} params={found.params ?? {}} />
        ) : (
          <NotFound />
        )}
      </main>
    </div>
  )
}

/** Loads a screen's chunk once, then renders it. */
function Screen({
  load,
  params,
}: {
  load: () => Promise<{ default: ComponentType<ScreenProps> }>
  params: Record<string, string>
}) {
  const key = load.toString()
  const [Component, setComponent] = useState<ComponentType<ScreenProps> | undefined>(() => loaded.get(key))
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    if (Component) return
    load().then(
      (module) => {
        loaded.set(key, module.default)
        setComponent(() => module.default)
      },
      () => setFailed(true),
    )
  }, [key])
  if (failed)
    return (
      <Notice kind="error">
        This screen could not be loaded; the console may have been updated.{' '}
        <Button onClick={() => window.location.reload()}>Reload</Button>
      </Notice>
    )
  return Component ? <Component params={params} /> : <Loading />
}

function NotFound() {
  useEffect(() => {
    document.title = 'Not found · Admin'
  }, [])
  return (
    <section>
      <h1>Nothing here</h1>
      <p>
        This address is not a screen of the console. <Link href="/">Go to the dashboard</Link>.
      </p>
    </section>
  )
}

/** The bell: how many notifications are unread, read again on every navigation and each minute. */
function NotificationBell({ path }: { path: string }) {
  const [unread, setUnread] = useState<number | null>(null)
  useEffect(() => {
    let live = true
    const read = () =>
      unwrap(api.GET('/api/admin/notifications', { params: { query: { limit: 1, unread: 'true' } } })).then(
        (answer) => live && setUnread(answer.unreadCount),
        () => {},
      )
    read()
    const timer = window.setInterval(read, 60_000)
    const onChange = () => read()
    window.addEventListener('curio:notifications', onChange)
    return () => {
      live = false
      window.clearInterval(timer)
      window.removeEventListener('curio:notifications', onChange)
    }
  }, [path])
  const label = unread ? `Notifications, ${unread} unread` : 'Notifications'
  return (
    <Link href="/notifications" class="bell" aria-label={label}>
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
