/**
 * Which AI provider a work's generation will use, as far as the caller may know it: the plugin the work
 * made its `ai-provider`, the model it will ask (the work's own setting, else the account's, else the
 * plugin's default), and whether a required setting (the API key) is missing. Without one, the AI
 * provider plugins the account could use, so the screen can say what to do.
 */
import { unwrap } from '../../shared/api.ts'
import { useResource } from '../../shared/resource.ts'
import { type Answer, api, type Work } from '../api.ts'
import { canEdit } from '../work-tab.ts'

export const AI_PROVIDER = 'ai-provider'

type PluginDetails = Answer<'/api/plugins/{pluginId}'>
type WorkPlugin = Answer<'/api/works/{workId}/plugins'>['plugins'][number]
export type AccountPlugin = Answer<'/api/plugins'>['plugins'][number]

export type AiProviderState =
  /**
   * The work's provider and, when it has a model setting, the model it asks and where that comes from
   * (`name` is unknown to an editor when the owner's account sets it).
   */
  | { kind: 'ready'; id: string; name: string; model: { name?: string; from: string } | undefined }
  /** The work's provider lacks a required setting (its API key): these, by title. */
  | { kind: 'not-configured'; id: string; name: string; missing: string[] }
  /** No provider is active for the work; `available` are the AI provider plugins the account has. */
  | { kind: 'none'; available: AccountPlugin[] }

interface SettingsSchema {
  properties?: Record<string, { title?: string; default?: unknown }>
  required?: string[]
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value : undefined)

/**
 * Reads the work's plugins and the active provider's details; a viewer (who may not read a work's
 * plugins) gets no state, and neither does anyone while it loads.
 */
export function useAiProvider(work: Work) {
  const editor = canEdit(work)
  const owner = work.role === 'owner'
  return useResource<AiProviderState | undefined>(
    async (signal) => {
      if (!editor) return undefined
      const { plugins } = await unwrap(
        api.GET('/api/works/{workId}/plugins', { signal, params: { path: { workId: work.id } } }),
      )
      const active = plugins.find((plugin) => plugin.enabled && plugin.activeCapability === AI_PROVIDER)
      if (!active) {
        const account = await unwrap(
          api.GET('/api/plugins', { signal, params: { query: { category: AI_PROVIDER } } }),
        )
        return { kind: 'none', available: account.plugins }
      }
      const details = await unwrap(
        api.GET('/api/plugins/{pluginId}', { signal, params: { path: { pluginId: active.id } } }),
      )
      const schema = details.settingsSchema as SettingsSchema
      const properties = schema.properties ?? {}
      const required = (schema.required ?? []).filter(
        (key) => active.settings[key] === undefined || active.settings[key] === null,
      )
      // The account's settings are the owner's: only the owner's own answer says whether they are complete.
      if (owner && !details.configured && required.length > 0) {
        return {
          kind: 'not-configured',
          id: active.id,
          name: active.name,
          missing: required.map((key) => properties[key]?.title ?? key),
        }
      }
      return {
        kind: 'ready',
        id: active.id,
        name: active.name,
        model: modelOf(active.settings, details, owner),
      }
    },
    [work.id, work.role],
  )
}

/** The model a run asks: the work's setting wins over the account's, which wins over the plugin's default. */
function modelOf(
  workSettings: WorkPlugin['settings'],
  details: PluginDetails,
  owner: boolean,
): { name?: string; from: string } | undefined {
  const property = (details.settingsSchema as SettingsSchema).properties?.model
  if (!property) return undefined
  const fromWork = text(workSettings.model)
  if (fromWork) return { name: fromWork, from: 'set for this work' }
  // `details.settings` are the caller's own: they apply only when the caller owns the work.
  if (!owner) return { from: 'set in the owner’s account' }
  const fromAccount = text(details.settings.model)
  if (fromAccount) return { name: fromAccount, from: 'set in your account' }
  const fallback = text(property.default)
  return fallback ? { name: fallback, from: `${details.name}’s default` } : undefined
}
