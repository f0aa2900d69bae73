/**
 * Signing in and creating an account, shown in place of any screen while nobody is signed in: signing in
 * keeps the address, so a deep link or an expired session comes back to where the user was.
 */
import { useEffect, useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Link, navigate } from '../../shared/router.tsx'
import { Button, Notice, TextField } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { useSession } from '../session.tsx'

function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Curio`
  }, [title])
}

export function SignIn({ expired }: { expired: boolean }) {
  const { signedIn } = useSession()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  useTitle('Sign in')
  const form = useSubmit(async () => {
    const pair = await unwrap(api.POST('/api/auth/login', { body: { email: email.trim(), password } }), {
      quiet401: true,
    })
    signedIn(pair)
  }, ['email', 'password'])

  return (
    <main class="sign-in" id="main">
      <form class="card sign-in-card" onSubmit={form.submit} noValidate aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Curio</h1>
        {expired && !form.error && (
          <Notice>Your session has ended. Sign in again to go on where you were.</Notice>
        )}
        {form.error && <Notice kind="error">{form.error}</Notice>}
        <TextField
          label="Email"
          type="email"
          autocomplete="username"
          value={email}
          onValue={setEmail}
          error={form.fields.email}
          required
          autofocus
        />
        <TextField
          label="Password"
          type="password"
          autocomplete="current-password"
          value={password}
          onValue={setPassword}
          error={form.fields.password}
          required
        />
        <Button kind="primary" type="submit" busy={form.busy}>
          Sign in
        </Button>
        <p class="muted">
          New to Curio? <Link href="/create-account">Create an account</Link>
        </p>
      </form>
    </main>
  )
}

export function CreateAccount() {
  const { signedIn } = useSession()
  const [name, setName] = useState('')
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  useTitle('Create an account')
  const form = useSubmit(async () => {
    const pair = await unwrap(
      api.POST('/api/auth/register', {
        body: { email: email.trim(), password, ...(name.trim() ? { name: name.trim() } : {}) },
      }),
    )
    signedIn(pair)
    navigate('/works', { replace: true })
  }, ['name', 'email', 'password'])

  return (
    <main class="sign-in" id="main">
      <form class="card sign-in-card" onSubmit={form.submit} noValidate aria-labelledby="create-title">
        <h1 id="create-title">Create your Curio account</h1>
        {form.error && <Notice kind="error">{form.error}</Notice>}
        <TextField
          label="Name"
          autocomplete="name"
          value={name}
          onValue={setName}
          error={form.fields.name}
          autofocus
        />
        <TextField
          label="Email"
          type="email"
          autocomplete="username"
          value={email}
          onValue={setEmail}
          error={form.fields.email}
          required
        />
        <TextField
          label="Password"
          type="password"
          autocomplete="new-password"
          hint="8 to 128 characters."
          value={password}
          onValue={setPassword}
          error={form.fields.password}
          required
        />
        <Button kind="primary" type="submit" busy={form.busy}>
          Create account
        </Button>
        <p class="muted">
          Already have an account? <Link href="/">Sign in</Link>
        </p>
      </form>
    </main>
  )
}
