/**
 * Who is signed in. The console asks `GET /api/current-user` once on load and after signing in; any API
 * call that answers 401 afterwards (the session expired or was revoked) brings the sign-in form back in
 * place, at the same address, so signing in again returns the user exactly where they were.
 */
import type { ComponentChildren } from 'preact'
import { createContext } from 'preact'
import { useContext, useEffect, useState } from 'preact/hooks'
import { SIGNED_OUT_EVENT, unwrap } from '../shared/api.ts'
import { type Answer, api } from './api.ts'

export type CurrentUser = NonNullable<Answer<'/api/current-user'>>

export type SessionState =
  | { state: 'loading' }
  | { state: 'failed'; error: unknown }
  | { state: 'signed-out'; expired: boolean }
  | { state: 'signed-in'; user: CurrentUser }

interface SessionValue {
  session: SessionState
  /** Reads the current user again (after signing in). */
  refresh: () => Promise<void>
  signOut: () => Promise<void>
}

const SessionContext = createContext<SessionValue>({
  session: { state: 'loading' },
  refresh: async () => {},
  signOut: async () => {},
})

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [session, setSession] = useState<SessionState>({ state: 'loading' })

  const refresh = async () => {
    try {
      const user = await unwrap(api.GET('/api/current-user'), { quiet401: true })
      setSession(user ? { state: 'signed-in', user } : { state: 'signed-out', expired: false })
    } catch (error) {
      setSession({ state: 'failed', error })
    }
  }

  const signOut = async () => {
    try {
      await unwrap(api.POST('/api/auth/signout'), { quiet401: true })
    } finally {
      setSession({ state: 'signed-out', expired: false })
    }
  }

  useEffect(() => {
    refresh()
    const expired = () => setSession({ state: 'signed-out', expired: true })
    window.addEventListener(SIGNED_OUT_EVENT, expired)
    return () => window.removeEventListener(SIGNED_OUT_EVENT, expired)
  }, [])

  return <SessionContext.Provider value={{ session, refresh, signOut }}>{children}</SessionContext.Provider>
}

export function useSession() {
  return useContext(SessionContext)
}

/** The signed-in admin (screens render only once there is one). */
export function useUser(): CurrentUser {
  const { session } = useSession()
  if (session.state !== 'signed-in') throw new Error('useUser outside a signed-in console')
  return session.user
}
