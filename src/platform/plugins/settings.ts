import type { Logger } from 'pino'
import type { Envelope } from '../../lib/crypto.ts'
import type { Plugin, ResolvedSettings } from './definition.ts'
import type { SealedSettings, StoredSettings } from './tables.ts'

/** How a secret is shown: never the value, at most its last 4 characters after this mark. */
export const SECRET_MASK = '••••'
const MIN_LENGTH_TO_SHOW_TAIL = 12

export function maskSecret(value: string): string {
  return value.length >= MIN_LENGTH_TO_SHOW_TAIL ? `${SECRET_MASK}${value.slice(-4)}` : SECRET_MASK
}

/** A masked value sent back unchanged by a settings form: it means "keep the secret", never a new one. */
export const isMasked = (value: unknown): boolean =>
  typeof value === 'string' && value.startsWith(SECRET_MASK)

/** A settings change as a caller sends it: a value sets the setting, `null` removes it. */
export type SettingsChange = Record<string, string | number | boolean | null>

/** A change checked against the plugin's schema (settings-schema.ts), split into plain and secret values. */
export interface ValidatedChange {
  settings: SettingsChange
  secrets: SettingsChange
}

/** Where a level's settings live: the user's own, or one work's. Bound into each secret's envelope. */
export type SettingsOwner = { kind: 'user'; userId: string } | { kind: 'work'; workId: string }

/** One level of settings as stored. */
export interface SettingsLevel {
  settings: StoredSettings
  secretSettings: SealedSettings
}

export interface PluginSettingsDeps {
  envelope: Envelope
  /** The value of an `x-envVar` (config.pluginEnv). */
  env: (name: string) => string | undefined
  log: Pick<Logger, 'warn'>
}

/**
 * Plugin settings: sealing secrets, merging changes, showing settings without their secrets, and the one
 * resolution every consumer uses (work > user > environment > default).
 */
export function createPluginSettings({ envelope, env, log }: PluginSettingsDeps) {
  // The envelope is bound to its owner, plugin and setting, so a sealed value copied elsewhere cannot be opened.
  const contextOf = (owner: SettingsOwner, pluginId: string, name: string) =>
    `plugin-setting:${owner.kind}:${owner.kind === 'user' ? owner.userId : owner.workId}:${pluginId}:${name}`

  function openSecret(owner: SettingsOwner, pluginId: string, name: string, sealed: string | undefined) {
    if (sealed === undefined) return undefined
    try {
      return envelope.open(sealed, contextOf(owner, pluginId, name))
    } catch (error) {
      // A changed PLATFORM_ENCRYPTION_KEY: the secret is unreadable, so it counts as unset.
      log.warn({ pluginId, setting: name, owner: owner.kind, err: error }, 'plugin secret cannot be opened')
      return undefined
    }
  }

  return {
    /** The stored level after applying a validated change: values set, `null` removes, masked secrets kept. */
    merge(
      plugin: Plugin,
      owner: SettingsOwner,
      current: SettingsLevel,
      change: ValidatedChange,
    ): SettingsLevel {
      const settings: StoredSettings = { ...current.settings }
      for (const [name, value] of Object.entries(change.settings)) {
        if (value === null) delete settings[name]
        else settings[name] = value
      }
      const secretSettings: SealedSettings = { ...current.secretSettings }
      for (const [name, value] of Object.entries(change.secrets)) {
        if (value === null) delete secretSettings[name]
        else if (!isMasked(value))
          secretSettings[name] = envelope.seal(String(value), contextOf(owner, plugin.id, name))
      }
      return { settings, secretSettings }
    },

    /** A level's settings as its owner sees them: plain values, and each secret masked. */
    shown(plugin: Plugin, owner: SettingsOwner, level: SettingsLevel): Record<string, unknown> {
      const shown: Record<string, unknown> = {}
      for (const name of Object.keys(plugin.settingsSchema.properties)) {
        if (name in level.settings) shown[name] = level.settings[name]
        const secret = openSecret(owner, plugin.id, name, level.secretSettings[name])
        if (secret !== undefined) shown[name] = maskSecret(secret)
      }
      return shown
    },

    /** Each setting's value: the work's, else the user's, else its environment variable's, else its default. */
    resolve(
      plugin: Plugin,
      levels: {
        work?: { workId: string; level: SettingsLevel }
        user?: { userId: string; level: SettingsLevel }
      },
    ): ResolvedSettings {
      const { work, user } = levels
      const resolved: Record<string, string | number | boolean | undefined> = {}
      for (const [name, property] of Object.entries(plugin.settingsSchema.properties)) {
        const secret = Boolean(property['x-secret'])
        /** The setting at one level: its sealed secret opened, or its plain value. */
        const at = (owner: SettingsOwner, level: SettingsLevel) =>
          secret ? openSecret(owner, plugin.id, name, level.secretSettings[name]) : level.settings[name]
        const fromWork = work ? at({ kind: 'work', workId: work.workId }, work.level) : undefined
        const fromUser = user ? at({ kind: 'user', userId: user.userId }, user.level) : undefined
        const envVar = property['x-envVar']
        const fromEnv = envVar ? env(envVar) : undefined
        resolved[name] = fromWork ?? fromUser ?? coerced(property.type, fromEnv) ?? property.default
      }
      return resolved
    },

    /** Whether every required setting has a value at the work, user or environment level. */
    configured(plugin: Plugin, resolved: ResolvedSettings): boolean {
      return (plugin.settingsSchema.required ?? []).every((name) => {
        const value = resolved[name]
        return value !== undefined && value !== ''
      })
    },
  }
}

/** An environment variable's text as the setting's type; text that is not one counts as unset. */
function coerced(type: string, raw: string | undefined): string | number | boolean | undefined {
  if (raw === undefined) return undefined
  if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : undefined
  if (type === 'number' || type === 'integer') {
    const value = Number(raw)
    return Number.isFinite(value) && (type === 'number' || Number.isInteger(value)) ? value : undefined
  }
  return raw
}

export type PluginSettings = ReturnType<typeof createPluginSettings>
