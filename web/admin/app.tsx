import { useEffect, useState } from 'preact/hooks'
import { unwrap } from '../shared/api.ts'
import { useLocation } from '../shared/router.tsx'
import { preloadScreen } from '../shared/screens.tsx'
import { Bell, NotFound, Opening, ShellLayout, Unreachable } from '../shared/shell.tsx'
import { Button, ConfirmProvider, ToastProvider } from '../shared/ui.tsx'
import { api } from './api.ts'
import { NAV, ROUTES } from './routes.ts'
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
      return <Opening />
    case 'failed':
      return <Unreachable service="directory" error={session.error} onRetry={refresh} />
    case 'signed-out':
      return <SignIn expired={session.expired} />
    case 'signed-in':
      return session.user.isAdmin ? <Shell /> : <NotAnAdmin email={session.user.email} />
  }
}

/** Starts loading the screen of the address the console opened at (main.tsx). */
export const preloadAdminScreen = (path: string) => preloadScreen(ROUTES, path)

function Shell() {
  const user = useUser()
  const { signOut } = useSession()
  const location = useLocation()
  return (
    <ShellLayout
      brand="Curio admin"
      nav={NAV}
      routes={ROUTES}
      notFound={<NotFound title="Admin" home="/" homeLabel="Go to the dashboard" />}
      end={
        <>
          <NotificationBell path={location.path} />
          <span class="user-email">{user.email}</span>
          <Button kind="link" onClick={signOut}>
            Sign out
          </Button>
        </>
      }
    />
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
  return <Bell href="/notifications" unread={unread} />
}
