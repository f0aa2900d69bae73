/**
 * A plugin's settings as its `settingsSchema` declares them, read for a form: each setting's label, kind,
 * whether it is secret or required, what applies when it is left empty (the account's value, the server's
 * environment variable, the default), and the change a form sends (`settings` and `secretSettings`).
 */
import type { Answer, Body } from '../api.ts'

export type PluginEntry = Answer<'/api/plugins'>['plugins'][number]
export type PluginDetails = Answer<'/api/plugins/{pluginId}'>
export type WorkPlugin = Answer<'/api/works/{workId}/plugins'>['plugins'][number]
export type SettingsChange = Required<
  Pick<Body<'/api/plugins/{pluginId}/settings', 'patch'>, 'settings' | 'secretSettings'>
>
type SettingValue = SettingsChange['settings'][string]

/** A secret as the API shows it once saved: this mark, then at most its last 4 characters. */
const SECRET_MASK = '••••'

interface SettingProperty {
  type?: string
  title?: string
  description?: string
  default?: string | number | boolean
  enum?: readonly (string | number)[]
  format?: string
  'x-secret'?: boolean
  'x-envVar'?: string
}

export interface Setting {
  name: string
  label: string
  kind: 'text' | 'number' | 'integer' | 'boolean' | 'choice'
  secret: boolean
  required: boolean
  property: SettingProperty
}

/** The settings of a schema, in its order; anything the schema leaves vague is read as text. */
export function settingsOf(schema: Record<string, unknown>): Setting[] {
  const properties = (schema.properties ?? {}) as Record<string, SettingProperty>
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : []
  return Object.entries(properties).map(([name, property]) => ({
    name,
    label: property.title || name,
    kind: Array.isArray(property.enum)
      ? 'choice'
      : property.type === 'boolean' || property.type === 'number' || property.type === 'integer'
        ? property.type
        : 'text',
    secret: Boolean(property['x-secret']),
    required: required.includes(name),
    property,
  }))
}

export const isMasked = (value: unknown): value is string =>
  typeof value === 'string' && value.startsWith(SECRET_MASK)

const hasValue = (values: Record<string, unknown>, name: string) =>
  values[name] !== undefined && values[name] !== null && values[name] !== ''

/** The required settings no level gives a value to, by label, when the API says the plugin is not configured. */
export function missingSettings(details: PluginDetails): string[] {
  if (details.configured) return []
  return settingsOf(details.settingsSchema)
    .filter((setting) => setting.required && !hasValue(details.settings, setting.name))
    .map((setting) => setting.label)
}

const shown = (value: unknown) => (value === true ? 'yes' : value === false ? 'no' : String(value))

/**
 * What the server uses for a setting the account leaves empty: its environment variable (said as
 * certain when the API counts a required setting as configured without a value of the account's) and the
 * schema's default.
 */
function serverFallback(setting: Setting, details: PluginDetails): string | undefined {
  const envVar = setting.property['x-envVar']
  const fallback = setting.property.default
  const fromEnvironment =
    envVar !== undefined &&
    fallback === undefined &&
    setting.required &&
    details.configured &&
    !hasValue(details.settings, setting.name)
  if (fromEnvironment) return `the server’s environment variable ${envVar}, which its operator set`
  const parts: string[] = []
  if (envVar) parts.push(`the server’s environment variable ${envVar} if its operator set it`)
  if (fallback !== undefined) parts.push(`the default, ${shown(fallback)}`)
  return parts.length > 0 ? parts.join(', else ') : undefined
}

/** What applies to an account setting left empty, as a sentence. */
export function accountFallback(setting: Setting, details: PluginDetails): string | undefined {
  const fallback = serverFallback(setting, details)
  return fallback && `Left empty, Curio uses ${fallback}.`
}

/**
 * What applies to a work setting left empty: the owner's account value (known only to the owner, whose
 * account it is), else what the server supplies.
 */
export function workFallback(setting: Setting, account: PluginDetails, owner: boolean): string {
  if (!owner) return 'Left empty, the work uses its owner’s account setting.'
  const value = account.settings[setting.name]
  if (hasValue(account.settings, setting.name)) {
    return setting.secret
      ? `Left empty, the work uses the one saved in your account (${String(value)}).`
      : `Left empty, the work uses your account’s setting: ${shown(value)}.`
  }
  const fallback = serverFallback(setting, account)
  return fallback
    ? `Left empty, the work uses ${fallback}: your account sets none.`
    : 'Left empty, the work has none: your account sets none either.'
}

/** The text a form field starts with: a plain setting's value; a secret's field always starts empty. */
export function initialText(setting: Setting, values: Record<string, unknown>): string {
  const value = values[setting.name]
  if (setting.secret || value === undefined || value === null) return ''
  return String(value)
}

function typed(setting: Setting, text: string): SettingValue {
  if (setting.kind === 'boolean') return text === 'true'
  const numeric =
    setting.kind === 'number' || setting.kind === 'integer' || typeof setting.property.enum?.[0] === 'number'
  // Text that is not a number goes as it is: the API names the setting and says what it must be.
  if (numeric && text !== '' && Number.isFinite(Number(text))) return Number(text)
  return text
}

/**
 * The change a form asks for: each plain setting edited (emptied ones removed, `null`), and each secret
 * typed anew; a secret left empty keeps the saved one, so it is not sent.
 */
export function changeOf(
  settings: readonly Setting[],
  initial: Record<string, string>,
  texts: Record<string, string>,
): SettingsChange {
  const change: SettingsChange = { settings: {}, secretSettings: {} }
  for (const setting of settings) {
    const text = (texts[setting.name] ?? '').trim()
    if (setting.secret) {
      if (text !== '') change.secretSettings[setting.name] = text
    } else if (text !== (initial[setting.name] ?? '').trim()) {
      change.settings[setting.name] = text === '' ? null : typed(setting, text)
    }
  }
  return change
}

export const isEmptyChange = (change: SettingsChange) =>
  Object.keys(change.settings).length === 0 && Object.keys(change.secretSettings).length === 0

/** The change without its empty groups, as a request body takes it. */
export function bodyOf(change: SettingsChange): Partial<SettingsChange> {
  return {
    ...(Object.keys(change.settings).length > 0 ? { settings: change.settings } : {}),
    ...(Object.keys(change.secretSettings).length > 0 ? { secretSettings: change.secretSettings } : {}),
  }
}

/** The setting an AI provider's model is chosen with, when its schema has one a model list can fill. */
export function modelSetting(details: Pick<PluginDetails, 'capabilities' | 'settingsSchema'>) {
  if (!details.capabilities.includes('ai-provider')) return undefined
  return settingsOf(details.settingsSchema).find(
    (setting) => setting.name === 'model' && setting.kind === 'text' && !setting.secret,
  )
}
