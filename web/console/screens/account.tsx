/**
 * The account: who is signed in, and the password changed. Changing it ends every other session of the
 * account (the API revokes their refresh tokens); this one goes on with the new pair it answers.
 */
import { useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Page } from '../../shared/page.tsx'
import { Link } from '../../shared/router.tsx'
import { Button, Notice, TextField, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { useSession, useUser } from '../session.tsx'

export default function Account() {
  const user = useUser()
  const { signedIn } = useSession()
  const toast = useToast()
  const [currentPassword, setCurrentPassword] = useState('')
  const [newPassword, setNewPassword] = useState('')
  const [repeated, setRepeated] = useState('')
  const [mismatch, setMismatch] = useState<string | undefined>()
  const form = useSubmit(async () => {
    if (newPassword !== repeated) {
      setMismatch('The two new passwords differ')
      return
    }
    setMismatch(undefined)
    const pair = await unwrap(
      api.POST('/api/auth/change-password', { body: { currentPassword, newPassword } }),
      {
        quiet401: true,
      },
    )
    signedIn(pair)
    setCurrentPassword('')
    setNewPassword('')
    setRepeated('')
    toast('success', 'Password changed. Other sessions of this account are signed out.')
  }, ['currentPassword', 'newPassword'])

  return (
    <Page title="Account">
      <dl class="facts">
        <dt>Name</dt>
        <dd>{user.name ?? '—'}</dd>
        <dt>Email</dt>
        <dd>{user.email}</dd>
      </dl>
      <p class="muted">
        Scripts use <Link href="/api-keys">API keys</Link>; providers are set up under{' '}
        <Link href="/plugins">Plugins</Link>.
      </p>
      <form class="card inline-form" onSubmit={form.submit} noValidate aria-labelledby="password-title">
        <h2 id="password-title">Change password</h2>
        {form.error && <Notice kind="error">{form.error}</Notice>}
        <TextField
          label="Current password"
          type="password"
          autocomplete="current-password"
          value={currentPassword}
          onValue={setCurrentPassword}
          error={form.fields.currentPassword}
          required
        />
        <TextField
          label="New password"
          type="password"
          autocomplete="new-password"
          hint="8 to 128 characters."
          value={newPassword}
          onValue={setNewPassword}
          error={form.fields.newPassword}
          required
        />
        <TextField
          label="Repeat the new password"
          type="password"
          autocomplete="new-password"
          value={repeated}
          onValue={setRepeated}
          error={mismatch}
          required
        />
        <Button kind="primary" type="submit" busy={form.busy}>
          Change password
        </Button>
      </form>
    </Page>
  )
}
