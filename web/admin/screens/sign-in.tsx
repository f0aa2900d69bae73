import { useState } from 'preact/hooks'
import { ApiError, unwrap } from '../../shared/api.ts'
import { Button, Notice, TextField } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { useSession } from '../session.tsx'

/** The sign-in form, shown in place of any screen while no admin is signed in. */
export function SignIn({ expired }: { expired: boolean }) {
  const { refresh } = useSession()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const fields = error?.fieldErrors() ?? {}

  const submit = async (event: Event) => {
    event.preventDefault()
    if (busy) return
    setBusy(true)
    setError(null)
    try {
      await unwrap(api.POST('/api/auth/signin', { body: { email: email.trim(), password } }), {
        quiet401: true,
      })
      await refresh()
    } catch (thrown) {
      setError(
        thrown instanceof ApiError
          ? thrown
          : new ApiError(0, 'NETWORK_ERROR', 'The service could not be reached'),
      )
      setBusy(false)
    }
  }

  return (
    <main class="sign-in" id="main">
      <form class="card sign-in-card" onSubmit={submit} noValidate aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to the admin console</h1>
        {expired && !error && <Notice>Your session has ended. Sign in again to go on where you were.</Notice>}
        {error && !error.details.length && <Notice kind="error">{error.message}</Notice>}
        <TextField
          label="Email"
          type="email"
          autocomplete="username"
          value={email}
          onValue={setEmail}
          error={fields.email}
          required
          autofocus
        />
        <TextField
          label="Password"
          type="password"
          autocomplete="current-password"
          value={password}
          onValue={setPassword}
          error={fields.password}
          required
        />
        <Button kind="primary" type="submit" busy={busy}>
          Sign in
        </Button>
      </form>
    </main>
  )
}

/** What a signed-in user who is not an admin sees: that, and a way out. */
export function NotAnAdmin({ email }: { email: string | null }) {
  const { signOut } = useSession()
  return (
    <main class="sign-in" id="main">
      <div class="card sign-in-card">
        <h1>This account is not an admin</h1>
        <Notice kind="error">
          You are signed in as {email ?? 'a user'}, who has no access to this directory's admin console. Sign
          in with an admin account instead.
        </Notice>
        <Button kind="primary" onClick={signOut}>
          Sign out
        </Button>
      </div>
    </main>
  )
}
