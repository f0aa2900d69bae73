/**
 * One client (`/clients/:id`): the profile as the API keeps it, the fields an admin may change (name,
 * username, job, company, bio, status, plan, account type), the moderation taken on them through reports,
 * and deleting the profile.
 */
import { ApiError, unwrap } from '../../shared/api.ts'
import { orNull, useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, navigate } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import { Button, formatDate, Loading, Notice, TextArea, TextField, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import {
  ACCOUNT_TYPE_LABELS,
  type AccountType,
  type Client,
  ClientChoices,
  type ClientPlan,
  type ClientStatus,
  ClientStatusBadge,
  deleteClient,
  onItsField,
  PLAN_LABELS,
} from '../client-profile.tsx'
import type { ScreenProps } from '../screen.ts'
import './people.css'

interface Form {
  displayName: string
  username: string
  jobTitle: string
  company: string
  bio: string
  status: ClientStatus
  plan: ClientPlan
  accountType: AccountType
}

const formOf = (client: Client): Form => ({
  displayName: client.displayName,
  username: client.username,
  jobTitle: client.jobTitle ?? '',
  company: client.company ?? '',
  bio: client.bio ?? '',
  status: client.status,
  plan: client.plan,
  accountType: client.accountType,
})

const FIELDS = ['displayName', 'username', 'jobTitle', 'company', 'bio', 'status', 'plan', 'accountType']

const ACTION_LABELS = {
  warned: 'Warned',
  suspended: 'Suspended',
  banned: 'Banned',
  content_removed: 'Content removed',
} as const

export default function ClientScreen({ params }: ScreenProps) {
  const id = params.id ?? ''
  const client = useResource(
    async (signal) =>
      (await unwrap(api.GET('/api/admin/clients/{clientId}', { signal, params: { path: { clientId: id } } })))
        .data,
    [id],
  )
  if (client.error !== undefined) {
    const missing = client.error instanceof ApiError && client.error.status === 404
    return (
      <Page title={missing ? 'Client not found' : 'Client'}>
        <Notice kind="error">
          {missing ? 'No client has this id: it may have been deleted.' : (client.error as Error).message}
        </Notice>
        <p>
          <Link href="/clients">Back to the clients</Link>
        </p>
      </Page>
    )
  }
  if (!client.data) return <Loading what="Loading the client" />
  return <ClientDetail key={client.data.updatedAt} client={client.data} onSaved={client.reload} />
}

function ClientDetail({ client, onSaved }: { client: Client; onSaved: () => Promise<void> }) {
  const toast = useToast()
  const act = useRowAction()
  const [form, set] = useFields<Form>(formOf(client))

  const save = useSubmit(async () => {
    await unwrap(
      api.PUT('/api/admin/clients/{clientId}', {
        params: { path: { clientId: client.id } },
        body: {
          displayName: form.displayName.trim(),
          username: form.username.trim(),
          jobTitle: orNull(form.jobTitle),
          company: orNull(form.company),
          bio: orNull(form.bio),
          status: form.status,
          plan: form.plan,
          accountType: form.accountType,
        },
      }),
    ).catch(onItsField)
    toast('success', `“${form.displayName.trim()}” saved`)
    await onSaved()
  }, FIELDS)
  const f = save.fields

  const remove = () => act({ ...deleteClient(client), reload: async () => navigate('/clients') })

  const yesNo = (value: boolean) => (value ? 'Yes' : 'No')
  const facts: [string, string][] = [
    ['Email', client.email],
    ['Username', client.username],
    ['Sign-in provider', client.provider],
    ['Email verified', yesNo(client.emailVerified)],
    ['Two-factor sign-in', yesNo(client.twoFactorEnabled)],
    ['Submissions', String(client.totalSubmissions)],
    ['Joined', formatDate(client.joinedAt, true)],
    ['Last active', formatDate(client.lastActiveAt, true)],
    ['Industry', client.industry ?? '—'],
    ['Location', client.location ?? '—'],
    ['Phone', client.phone ?? '—'],
    ['Updated', formatDate(client.updatedAt, true)],
  ]

  return (
    <Page
      title={client.displayName}
      actions={
        <Button kind="danger" onClick={remove}>
          Delete
        </Button>
      }
    >
      <p>
        <Link href="/clients">← All clients</Link>
        {' · '}
        <ClientStatusBadge status={client.status} />
        <span class="pill">{PLAN_LABELS[client.plan]}</span>
        <span class="pill">{ACCOUNT_TYPE_LABELS[client.accountType]}</span>
      </p>
      <section class="card" aria-labelledby="client-profile">
        <h2 id="client-profile">Profile</h2>
        <dl class="profile-facts">
          {facts.map(([term, value]) => (
            <div key={term}>
              <dt>{term}</dt>
              <dd>{value}</dd>
            </div>
          ))}
          <div>
            <dt>Website</dt>
            <dd>
              {client.website ? (
                <a href={client.website} rel="noreferrer noopener" target="_blank">
                  {client.website}
                </a>
              ) : (
                '—'
              )}
            </dd>
          </div>
        </dl>
      </section>
      <form class="form card" onSubmit={save.submit} noValidate aria-labelledby="client-edit">
        <h2 id="client-edit">Edit</h2>
        {save.error && <Notice kind="error">{save.error}</Notice>}
        <div class="grid-2">
          <TextField
            label="Display name"
            value={form.displayName}
            onValue={set('displayName')}
            error={f.displayName}
            required
            maxLength={100}
          />
          <TextField
            label="Username"
            value={form.username}
            onValue={set('username')}
            error={f.username}
            required
            maxLength={50}
            hint="3 to 50 letters, digits, _ or -"
          />
          <TextField
            label="Job title"
            value={form.jobTitle}
            onValue={set('jobTitle')}
            error={f.jobTitle}
            maxLength={100}
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
            onValue={(choice, value) => set(choice)(value as Form[typeof choice])}
            errors={f}
          />
        </div>
        <TextArea label="Bio" value={form.bio} onValue={set('bio')} error={f.bio} maxLength={2000} />
        <div class="actions">
          <Button kind="primary" type="submit" busy={save.busy}>
            Save
          </Button>
        </div>
      </form>
      <Moderation clientId={client.id} updatedAt={client.updatedAt} />
    </Page>
  )
}

/** What reports did to the client: warnings, suspension, ban, and each action with its reason. */
function Moderation({ clientId, updatedAt }: { clientId: string; updatedAt: string }) {
  const moderation = useResource(
    (signal) =>
      unwrap(api.GET('/api/admin/clients/{clientId}/moderation', { signal, params: { path: { clientId } } })),
    [clientId, updatedAt],
  )
  const data = moderation.data?.data
  return (
    <section
      class="card"
      aria-labelledby="client-moderation"
      aria-busy={moderation.loading ? 'true' : 'false'}
    >
      <h2 id="client-moderation">Moderation</h2>
      {moderation.error !== undefined && <Notice kind="error">{(moderation.error as Error).message}</Notice>}
      {!data && moderation.loading && <Loading what="Loading the moderation" />}
      {data && (
        <>
          <p>
            {data.warningCount} {data.warningCount === 1 ? 'warning' : 'warnings'}
            {data.suspendedAt && ` · suspended ${formatDate(data.suspendedAt, true)}`}
            {data.bannedAt && ` · banned ${formatDate(data.bannedAt, true)}`}
          </p>
          {data.history.length === 0 ? (
            <p class="muted">No moderation action has been taken on this client.</p>
          ) : (
            <ol class="history">
              {data.history.map((entry) => (
                <li key={entry.id}>
                  <strong>{ACTION_LABELS[entry.action]}</strong> {formatDate(entry.createdAt, true)}
                  <span class="muted">
                    {' '}
                    · {entry.contentType} {entry.contentId}
                    {entry.reportId ? ' · from a report' : ''}
                  </span>
                  {entry.reason && <div>Reason: {entry.reason}</div>}
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  )
}
