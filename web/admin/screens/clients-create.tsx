/**
 * The New client dialog: the client's email (an email without an account gets one), names, choices and
 * profile; a refused field is named next to it and what was typed is kept.
 */
import { unwrap } from '../../shared/api.ts'
import { useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { Button, Dialog, Notice, TextArea, TextField } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import {
  type AccountType,
  ClientChoices,
  type ClientPlan,
  type ClientStatus,
  onItsField,
} from '../client-profile.tsx'
import { defined } from './clients-params.ts'

interface NewClient {
  email: string
  displayName: string
  username: string
  status: ClientStatus
  plan: ClientPlan
  accountType: AccountType
  company: string
  jobTitle: string
  industry: string
  website: string
  phone: string
  location: string
  bio: string
}

const NEW_CLIENT: NewClient = {
  email: '',
  displayName: '',
  username: '',
  status: 'active',
  plan: 'free',
  accountType: 'individual',
  company: '',
  jobTitle: '',
  industry: '',
  website: '',
  phone: '',
  location: '',
  bio: '',
}

const CLIENT_FIELDS = Object.keys(NEW_CLIENT)

export function CreateClient({
  open,
  onClose,
  onCreated,
}: {
  open: boolean
  onClose: () => void
  onCreated: (name: string) => Promise<void>
}) {
  const [form, set, setForm] = useFields<NewClient>(NEW_CLIENT)
  const save = useSubmit(async () => {
    const text = (value: string) => (value.trim() === '' ? undefined : value.trim())
    const body = {
      email: form.email.trim(),
      status: form.status,
      plan: form.plan,
      accountType: form.accountType,
      ...defined({
        displayName: text(form.displayName),
        username: text(form.username),
        company: text(form.company),
        jobTitle: text(form.jobTitle),
        industry: text(form.industry),
        website: text(form.website),
        phone: text(form.phone),
        location: text(form.location),
        bio: text(form.bio),
      }),
    }
    const created = await unwrap(api.POST('/api/admin/clients', { body })).catch(onItsField)
    setForm(NEW_CLIENT)
    await onCreated(created.data.displayName)
  }, CLIENT_FIELDS)
  const f = save.fields
  const close = () => {
    save.reset()
    onClose()
  }
  return (
    <Dialog title="New client" open={open} onClose={close} wide>
      <form onSubmit={save.submit} noValidate aria-label="New client">
        {save.error && <Notice kind="error">{save.error}</Notice>}
        <div class="grid-2">
          <TextField
            label="Email"
            type="email"
            value={form.email}
            onValue={set('email')}
            error={f.email}
            required
            autocomplete="off"
            hint="An email without an account gets one, with a temporary password."
          />
          <TextField
            label="Display name"
            value={form.displayName}
            onValue={set('displayName')}
            error={f.displayName}
            maxLength={100}
            hint="The part of the email before @ when left empty"
          />
          <TextField
            label="Username"
            value={form.username}
            onValue={set('username')}
            error={f.username}
            maxLength={50}
            autocomplete="off"
            hint="3 to 50 letters, digits, _ or -"
          />
          <TextField
            label="Company"
            value={form.company}
            onValue={set('company')}
            error={f.company}
            maxLength={200}
          />
        </div>
        <div class="grid-3">
          <ClientChoices
            values={form}
            onValue={(choice, value) => set(choice)(value as NewClient[typeof choice])}
            errors={f}
          />
          <TextField
            label="Job title"
            value={form.jobTitle}
            onValue={set('jobTitle')}
            error={f.jobTitle}
            maxLength={100}
          />
          <TextField
            label="Industry"
            value={form.industry}
            onValue={set('industry')}
            error={f.industry}
            maxLength={100}
          />
          <TextField
            label="Location"
            value={form.location}
            onValue={set('location')}
            error={f.location}
            maxLength={200}
          />
          <TextField
            label="Website"
            type="url"
            value={form.website}
            onValue={set('website')}
            error={f.website}
            placeholder="https://"
          />
          <TextField
            label="Phone"
            type="tel"
            value={form.phone}
            onValue={set('phone')}
            error={f.phone}
            maxLength={50}
          />
        </div>
        <TextArea label="Bio" value={form.bio} onValue={set('bio')} error={f.bio} maxLength={2000} />
        <div class="actions">
          <Button kind="primary" type="submit" busy={save.busy}>
            Create client
          </Button>
          <Button onClick={close}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  )
}
