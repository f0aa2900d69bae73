/**
 * The site's settings, every group the API has (`site`, `submissions`, `comments`, `location`), saved
 * together. A 400 puts each failing setting's message next to its field and keeps what was typed.
 */
import { messageOf, unwrap } from '../../shared/api.ts'
import { useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { useResource } from '../../shared/resource.ts'
import {
  Button,
  Checkbox,
  formatDate,
  Loading,
  Notice,
  Select,
  TextArea,
  TextField,
  useToast,
} from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'

type SiteSettingsData = Answer<'/api/admin/settings'>['data']

interface Form {
  name: string
  description: string
  logoUrl: string
  contactEmail: string
  submissionsEnabled: boolean
  commentsEnabled: boolean
  moderation: 'pre' | 'post'
  locationEnabled: boolean
  map: boolean
}

function formOf(settings: SiteSettingsData): Form {
  return {
    name: settings.site.name,
    description: settings.site.description,
    logoUrl: settings.site.logoUrl ?? '',
    contactEmail: settings.site.contactEmail ?? '',
    submissionsEnabled: settings.submissions.enabled,
    commentsEnabled: settings.comments.enabled,
    moderation: settings.comments.moderation,
    locationEnabled: settings.location.enabled,
    map: settings.location.map,
  }
}

const orNull = (value: string) => (value.trim() === '' ? null : value.trim())

function bodyOf(form: Form) {
  return {
    site: {
      name: form.name.trim(),
      description: form.description.trim(),
      logoUrl: orNull(form.logoUrl),
      contactEmail: orNull(form.contactEmail),
    },
    submissions: { enabled: form.submissionsEnabled },
    comments: { enabled: form.commentsEnabled, moderation: form.moderation },
    location: { enabled: form.locationEnabled, map: form.map },
  }
}

const FIELDS = [
  'site.name',
  'site.description',
  'site.logoUrl',
  'site.contactEmail',
  'site',
  'submissions.enabled',
  'submissions',
  'comments.enabled',
  'comments.moderation',
  'comments',
  'location.enabled',
  'location.map',
  'location',
]

/**
 * A nullable setting's message reads "must be null; must be an email address": the first half says only
 * that it may also be left empty, which the field's hint already does.
 */
export const tidy = (message: string | undefined) => message?.replace(/^must be null; /, '')

export function SiteSettings() {
  const settings = useResource((signal) => unwrap(api.GET('/api/admin/settings', { signal })), [])
  if (settings.error !== undefined && !settings.data)
    return (
      <Notice kind="error">
        The settings could not be loaded: {messageOf(settings.error)}{' '}
        <Button onClick={settings.reload}>Try again</Button>
      </Notice>
    )
  if (!settings.data) return <Loading what="Loading the settings" />
  return (
    <SiteForm
      key={settings.data.updatedAt ?? 'defaults'}
      settings={settings.data.data}
      updatedAt={settings.data.updatedAt}
      onSaved={settings.reload}
    />
  )
}

function SiteForm({
  settings,
  updatedAt,
  onSaved,
}: {
  settings: SiteSettingsData
  updatedAt: string | null
  onSaved: () => Promise<void>
}) {
  const toast = useToast()
  const [form, set] = useFields<Form>(() => formOf(settings))

  const save = useSubmit(async () => {
    await unwrap(api.PUT('/api/admin/settings', { body: bodyOf(form) }))
    toast('success', 'Settings saved')
    await onSaved()
  }, FIELDS)
  const f = save.fields

  return (
    <form class="form" onSubmit={save.submit} noValidate aria-label="Site settings">
      {save.error && <Notice kind="error">{save.error}</Notice>}
      <section class="card" aria-labelledby="settings-site">
        <h2 id="settings-site">Site</h2>
        {f.site && <p class="field-error">{f.site}</p>}
        <div class="grid-2">
          <TextField
            label="Site name"
            value={form.name}
            onValue={set('name')}
            error={tidy(f['site.name'])}
            hint="Shown in titles and emails"
            required
            maxLength={100}
          />
          <TextField
            label="Contact email"
            type="email"
            value={form.contactEmail}
            onValue={set('contactEmail')}
            error={tidy(f['site.contactEmail'])}
            hint="Where contact messages are sent; empty for none"
            autocomplete="email"
            maxLength={254}
          />
        </div>
        <TextArea
          label="Description"
          value={form.description}
          onValue={set('description')}
          error={tidy(f['site.description'])}
          hint="A sentence or two about the site (500 characters at most)"
          maxLength={500}
          rows={3}
        />
        <TextField
          label="Logo URL"
          type="url"
          value={form.logoUrl}
          onValue={set('logoUrl')}
          error={tidy(f['site.logoUrl'])}
          hint="An http(s) address of the logo; empty for none"
          placeholder="https://"
          maxLength={2048}
        />
      </section>
      <div class="grid-2">
        <section class="card" aria-labelledby="settings-submissions">
          <h2 id="settings-submissions">Submissions</h2>
          <Checkbox
            label="Signed-in users may submit items"
            checked={form.submissionsEnabled}
            onValue={set('submissionsEnabled')}
          />
          <FieldError message={f['submissions.enabled'] ?? f.submissions} />
          <p class="field-hint">While off, the submit form answers that submissions are closed.</p>
        </section>
        <section class="card" aria-labelledby="settings-comments">
          <h2 id="settings-comments">Comments</h2>
          <Checkbox
            label="Signed-in users may comment on published items"
            checked={form.commentsEnabled}
            onValue={set('commentsEnabled')}
          />
          <FieldError message={f['comments.enabled'] ?? f.comments} />
          <Select
            label="Moderation"
            value={form.moderation}
            onValue={(value) => set('moderation')(value === 'post' ? 'post' : 'pre')}
            error={f['comments.moderation']}
            options={[
              { value: 'pre', label: 'Before: a comment shows once approved' },
              { value: 'post', label: 'After: a comment shows at once, and may be rejected later' },
            ]}
          />
        </section>
      </div>
      <section class="card" aria-labelledby="settings-location">
        <h2 id="settings-location">Location</h2>
        <Checkbox
          label="Items carry locations and the location features are on"
          checked={form.locationEnabled}
          onValue={set('locationEnabled')}
        />
        <FieldError message={f['location.enabled']} />
        <Checkbox label="Show items on a map" checked={form.map} onValue={set('map')} />
        <FieldError message={f['location.map'] ?? f.location} />
        <p class="field-hint">
          The instance’s LOCATION_ENABLED must be on as well: the Location tab says what applies.
        </p>
      </section>
      <div class="actions settings-save">
        <Button kind="primary" type="submit" busy={save.busy}>
          Save settings
        </Button>
        <span class="muted small">
          {updatedAt ? `Last saved ${formatDate(updatedAt, true)}` : 'Never saved: these are the defaults'}
        </span>
      </div>
    </form>
  )
}

function FieldError({ message }: { message: string | undefined }) {
  return message ? <p class="field-error">{message}</p> : null
}
