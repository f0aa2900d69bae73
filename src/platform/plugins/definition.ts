import type { ModelEntry } from '../../integrations/openai/client.ts'

export type { ModelEntry }

/** One setting of a plugin: a JSON Schema property with Curio's annotations. */
export interface SettingProperty {
  type: 'string' | 'number' | 'integer' | 'boolean'
  /** The label a settings form shows. */
  title: string
  description?: string
  default?: string | number | boolean
  enum?: readonly (string | number)[]
  format?: 'uri'
  pattern?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  examples?: readonly unknown[]
  /** Stored only encrypted, never returned (masked), sent in `secretSettings`. */
  'x-secret'?: boolean
  /** The environment variable that supplies the value when neither the work nor the user sets one. */
  'x-envVar'?: string
}

/** A plugin's settings: an object schema whose properties are its settings. */
export interface SettingsSchema {
  type: 'object'
  properties: Record<string, SettingProperty>
  required?: readonly string[]
  additionalProperties: false
}

/** Resolved settings: each one's value after work > user > environment > default. */
export type ResolvedSettings = Readonly<Record<string, string | number | boolean | undefined>>

/** How long a provider call may take, and how often the SDK retries a transient failure. */
export interface ProviderLimits {
  timeoutMs: number
  maxRetries: number
  /** The fetch provider calls go through: on a production instance it reaches public addresses only. */
  fetch?: typeof globalThis.fetch
}

/** A chat completion whose answer must follow `schema` (JSON Schema); the raw text content comes back. */
export interface JsonCompletionRequest {
  system: string
  user: string
  schemaName: string
  schema: Record<string, unknown>
  maxTokens?: number
  signal?: AbortSignal
}

/** What a plugin with the `ai-provider` capability does: list models, answer JSON chat completions. */
export interface AiProvider {
  /** The model a generation uses. */
  readonly model: string
  listModels(signal?: AbortSignal): Promise<ModelEntry[]>
  completeJson(request: JsonCompletionRequest): Promise<{ content: string; finishReason: string | null }>
}

/**
 * One plugin, declared in `src/platform/plugins/<id>/plugin.ts` (its default export) beside its
 * `README.md`. The registry finds every such folder: adding a plugin is adding a folder.
 */
export interface PluginDefinition {
  /** Equal to its folder's name: lower-case letters, digits and dashes. */
  id: string
  name: string
  /** Semantic version of the plugin. */
  version: string
  description: string
  /** `ai-provider`, `deployment`, `git`, `search`, … */
  category: string
  /** What it can be made the active provider of, per work. */
  capabilities: readonly string[]
  icon: { type: 'emoji' | 'url' | 'svg'; value: string }
  settingsSchema: SettingsSchema
  /** Used by Curio's own pipelines (deploy) rather than only by a work's content. */
  systemPlugin: boolean
  /** Ships with Curio. */
  builtIn: boolean
  /** Enabled for the user's new works when the user enables it, unless they say otherwise. */
  autoEnable: boolean
  /** For `ai-provider` plugins: a client bound to the resolved settings. */
  aiProvider?(settings: ResolvedSettings, limits: ProviderLimits): AiProvider
}

/** A plugin as the registry holds it: its definition and its readme (from the folder's README.md). */
export type Plugin = Readonly<PluginDefinition & { readme: string }>

/** Declares a plugin; the identity function gives the definition its type where it is written. */
export const definePlugin = (definition: PluginDefinition): PluginDefinition => definition
