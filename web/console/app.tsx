import { useEffect, useState } from 'preact/hooks'
import { unwrap } from '../shared/api.ts'
import { NOTIFICATIONS_CHANGED, usePolling } from '../shared/poll.ts'
import { useLocation } from '../shared/router.tsx'
import { Bell, NotFound, Opening, ShellLayout, Unreachable } from '../shared/shell.tsx'
import { Button, ConfirmProvider, ToastProvider } from '../shared/ui.tsx'
import { api } from './api.ts'
import { Banners } from './banners.tsx'
import { NAV, ROUTES } from './routes.ts'
import { CreateAccount, SignIn } from './screens/sign-in.tsx'
import { SessionProvider, useSession, useUser } from './session.tsx'
import { StandIns } from './stand-ins.tsx'

export function App() {
  return (
    <ToastProvider>
      <ConfirmProvider>
        <StandIns />
        <SessionProvider>
          <Gate />
        </SessionProvider>
      </ConfirmProvider>
    </ToastProvider>
  )
}

/** Signed in: the console; otherwise the sign-in form (or account creation) in place, at the same address. */
function Gate() {
  const { session, resume } = useSession()
  const location = useLocation()
  switch (session.state) {
    case 'loading':
      return <Opening />
    case 'failed':
      return <Unreachable service="platform" error={session.error} onRetry={resume} />
    case 'signed-out':
      return location.path === '/create-account' ? <CreateAccount /> : <SignIn expired={session.expired} />
    case 'signed-in':
      return <Shell />
  }
}

function Shell() {
  const user = useUser()
  const { signOut } = useSession()
  return (
    <ShellLayout
      brand="Curio"
      nav={NAV}
      routes={ROUTES}
      banner={<Banners />}
      notFound={<NotFound title="Curio" home="/works" homeLabel="Go to your works" />}
      end={
        <>
          <NotificationBell />
          <span class="user-email">{user.email}</span>
          <Button kind="link" onClick={signOut}>
            Sign out
          </Button>
        </>
      }
    />
  )
}

/** The bell: how many notifications are unread, asked every 20 s while the tab is visible. */
function NotificationBell() {
  const [unread, setUnread] = useState<number | null>(null)
  const read = () =>
    unwrap(api.GET('/api/notifications/unread-count')).then(
      (answer) => setUnread(answer.count),
      () => {},
    )
  useEffect(() => {
    read()
    window.addEventListener(NOTIFICATIONS_CHANGED, read)
    return () => window.removeEventListener(NOTIFICATIONS_CHANGED, read)
  }, [])
  usePolling(read, 20_000)
  return <Bell href="/notifications" unread={unread} />
}
