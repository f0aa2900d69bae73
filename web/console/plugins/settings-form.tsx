/**
 * A plugin's settings form, built from its settings schema, for either level (the account's or a work's):
 * each setting a field labelled with its title, its description and what applies when it is left empty
 * as the hint; text, numbers, yes/no and choices as their controls; secrets as password fields that start
 * empty, say "Saved" (masked) once set, keep the saved value when left empty, and can be removed. The API's
 * verdict on each setting shows at its field.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { useSubmit } from '../../shared/form.ts'
import { Button, Field, Notice, Select, TextField, useConfirm, useToast } from '../../shared/ui.tsx'
import { changeOf, initialText, isMasked, type Setting, type SettingsChange, settingsOf } from './schema.ts'
import './plugins.css'

interface SettingsFormProps {
  /** The form's name, as a screen reader announces it ("OpenAI settings"). */
  label: string
  schema: Record<string, unknown>
  /** This level's own settings as the API shows them: secrets masked. */
  values: Record<string, unknown>
  /** What applies to a setting left empty at this level, as a sentence. */
  fallback: (setting: Setting) => string | undefined
  /** Values a setting is chosen from (an AI provider's models), by setting name. */
  choices?: Partial<Record<string, readonly string[]>>
  /** Saves a change at this level; resolves with what the success message says. */
  save: (change: SettingsChange) => Promise<string>
  submitLabel: string
  /** Whether a saved secret can be removed here (the level takes changes now). */
  removable: boolean
  /** Shown, not changed: no field takes input and there is nothing to submit. */
  readOnly?: boolean
  /** The level's own fields beyond its settings, shown before the submit button. */
  children?: ComponentChildren
}

const fieldName = (setting: Setting) => `${setting.secret ? 'secretSettings' : 'settings'}.${setting.name}`

export function SettingsForm({
  label,
  schema,
  values,
  fallback,
  choices = {},
  save,
  submitLabel,
  removable,
  readOnly = false,
  children,
}: SettingsFormProps) {
  const toast = useToast()
  const confirm = useConfirm()
  const settings = useMemo(() => settingsOf(schema), [schema])
  const initial = useMemo(
    () => Object.fromEntries(settings.map((setting) => [setting.name, initialText(setting, values)])),
    [settings, values],
  )
  const [texts, setTexts] = useState(initial)
  // Saved: the level's new settings come back, and every field (secrets above all) starts from them again.
  useEffect(() => setTexts(initial), [initial])
  const form = useSubmit(async () => {
    toast('success', await save(changeOf(settings, initial, texts)))
  }, settings.map(fieldName))

  const remove = async (setting: Setting) => {
    const sure = await confirm({
      title: `Remove the saved ${setting.label}?`,
      message: [`The saved ${setting.label} is deleted for good.`, fallback(setting)]
        .filter(Boolean)
        .join(' '),
      confirmLabel: 'Remove',
      danger: true,
    })
    if (!sure) return
    try {
      await save({ settings: {}, secretSettings: { [setting.name]: null } })
      toast('success', `${setting.label} removed`)
    } catch (error) {
      toast.failed(error)
    }
  }

  return (
    <form class="settings-form" onSubmit={form.submit} noValidate aria-label={label}>
      {form.error && <Notice kind="error">{form.error}</Notice>}
      {settings.length === 0 && <p class="muted">This plugin has no settings.</p>}
      {settings.map((setting) => (
        <SettingField
          key={setting.name}
          setting={setting}
          text={texts[setting.name] ?? ''}
          onText={(text) => setTexts((current) => ({ ...current, [setting.name]: text }))}
          saved={values[setting.name]}
          hint={hintOf(setting, values[setting.name], fallback)}
          error={form.fields[fieldName(setting)]}
          choices={choices[setting.name]}
          readOnly={readOnly}
          onRemove={removable && !readOnly ? () => remove(setting) : undefined}
        />
      ))}
      {children}
      {!readOnly && (
        <Button kind="primary" type="submit" busy={form.busy}>
          {submitLabel}
        </Button>
      )}
    </form>
  )
}

/** A description as a sentence of the form: code marks dropped, a full stop at the end. */
function plain(description: string | undefined): string | undefined {
  const text = description?.replace(/`/g, '').trim()
  return text ? (/[.!?]$/.test(text) ? text : `${text}.`) : undefined
}

/** The schema's description, then what the field holds or what applies when it is left empty. */
function hintOf(setting: Setting, value: unknown, fallback: SettingsFormProps['fallback']): string {
  // Left empty, a saved secret is kept: what applies without it matters only once it is removed.
  const state = isMasked(value)
    ? `Saved (${value}): leave it empty to keep it, or type a new one to replace it.`
    : fallback(setting)
  return [plain(setting.property.description), state].filter(Boolean).join(' ')
}

function SettingField({
  setting,
  text,
  onText,
  saved,
  hint,
  error,
  choices,
  readOnly,
  onRemove,
}: {
  setting: Setting
  text: string
  onText: (text: string) => void
  saved: unknown
  hint: string
  error: string | undefined
  choices: readonly string[] | undefined
  readOnly: boolean
  onRemove: (() => Promise<void>) | undefined
}) {
  const common = { label: setting.label, error, hint, disabled: readOnly }
  if (setting.secret) {
    return (
      <Field label={setting.label} error={error} hint={hint}>
        {({ id, describedBy, invalid }) => (
          <div class="secret-input">
            <input
              type="password"
              id={id}
              value={text}
              // Never offered the account's password, nor kept by a password manager as one.
              autocomplete="new-password"
              spellcheck={false}
              disabled={readOnly}
              aria-invalid={invalid ? 'true' : undefined}
              aria-describedby={describedBy}
              onInput={(event) => onText(event.currentTarget.value)}
            />
            {isMasked(saved) && <span class="status status-active">Saved</span>}
            {isMasked(saved) && onRemove && (
              <Button kind="danger" onClick={onRemove} aria-label={`Remove the saved ${setting.label}`}>
                Remove
              </Button>
            )}
          </div>
        )}
      </Field>
    )
  }
  const listed = setting.kind === 'choice' ? (setting.property.enum ?? []).map(String) : choices
  if (setting.kind === 'boolean' || listed) {
    const options =
      setting.kind === 'boolean'
        ? [
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ]
        : [...(listed ?? []), ...(text && !listed?.includes(text) ? [text] : [])].map((value) => ({
            value,
            label: value,
          }))
    return (
      <Select
        {...common}
        value={text}
        onValue={onText}
        options={[{ value: '', label: 'Not set' }, ...options]}
      />
    )
  }
  const numeric = setting.kind === 'number' || setting.kind === 'integer'
  return (
    <TextField
      {...common}
      type={numeric ? 'number' : setting.property.format === 'uri' ? 'url' : 'text'}
      {...(numeric ? { inputMode: setting.kind === 'integer' ? 'numeric' : 'decimal' } : {})}
      value={text}
      onValue={onText}
    />
  )
}
