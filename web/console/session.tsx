/**
 * Who is signed in. On load the console resumes the session this browser keeps (auth.ts) and asks
 * `GET /api/auth/me`; signing in, creating an account and changing the password adopt the pair the API
 * answers. Any call that answers 401 even after a renewal brings the sign-in form back in place, at the same
 * address, so signing in again returns the user exactly where they were.
 */
import type { ComponentChildren } from 'preact'
import { createContext } from 'preact'
import { useContext, useEffect, useState } from 'preact/hooks'
import { SIGNED_OUT_EVENT, unwrap } from '../shared/api.ts'
import { api, type User } from './api.ts'
import {
  adopt,
  forget,
  hasStoredSession,
  onOtherTabSignOut,
  renew,
  storedRefreshToken,
  type TokenPair,
} from './auth.ts'

export type SessionState =
  | { state: 'loading' }
  | { state: 'failed'; error: unknown }
  | { state: 'signed-out'; expired: boolean }
  | { state: 'signed-in'; user: User }

interface SessionValue {
  session: SessionState
  /** Resumes the stored session, or says there is none. */
  resume: () => Promise<void>
  /** Takes the pair a sign-in, a new account or a password change answered. */
  signedIn: (pair: TokenPair) => void
  /** The user's name or email changed. */
  setUser: (user: User) => void
  signOut: () => Promise<void>
}

const SessionContext = createContext<SessionValue>({
  session: { state: 'loading' },
  resume: async () => {},
  signedIn: () => {},
  setUser: () => {},
  signOut: async () => {},
})

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [session, setSession] = useState<SessionState>({ state: 'loading' })

  const resume = async () => {
    if (!hasStoredSession()) {
      setSession({ state: 'signed-out', expired: false })
      return
    }
    setSession({ state: 'loading' })
    try {
      if (!(await renew(null))) {
        setSession({ state: 'signed-out', expired: false })
        return
      }
      const user = await unwrap(api.GET('/api/auth/me'), { quiet401: true })
      setSession({ state: 'signed-in', user })
    } catch (error) {
      setSession({ state: 'failed', error })
    }
  }

  const signedIn = (pair: TokenPair) => {
    adopt(pair)
    setSession({ state: 'signed-in', user: pair.user })
  }

  const signOut = async () => {
    const refreshToken = storedRefreshToken()
    try {
      if (refreshToken) await api.POST('/api/auth/logout', { body: { refreshToken } })
    } catch {
      // Signed out here either way; the token ends at its expiry.
    } finally {
      forget()
      setSession({ state: 'signed-out', expired: false })
    }
  }

  useEffect(() => {
    resume()
    const expired = () => setSession({ state: 'signed-out', expired: true })
    window.addEventListener(SIGNED_OUT_EVENT, expired)
    const stopWatching = onOtherTabSignOut(() => setSession({ state: 'signed-out', expired: false }))
    return () => {
      window.removeEventListener(SIGNED_OUT_EVENT, expired)
      stopWatching()
    }
  }, [])

  return (
    <SessionContext.Provider
      value={{
        session,
        resume,
        signedIn,
        setUser: (user) => setSession({ state: 'signed-in', user }),
        signOut,
      }}
    >
      {children}
    </SessionContext.Provider>
  )
}

export function useSession() {
  return useContext(SessionContext)
}

/** The signed-in user (screens render only once there is one). */
export function useUser(): User {
  const { session } = useSession()
  if (session.state !== 'signed-in') throw new Error('useUser outside a signed-in console')
  return session.user
}
