import { type Static, Type } from 'typebox'

const EXAMPLE_WORK_ID = '0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10'
/** At most this many settings, or metadata keys, in one request. */
export const MAX_SETTINGS_PER_REQUEST = 50
export const MAX_PRIORITY = 1000

// Not length-bounded: an id no plugin has is 404 PLUGIN_NOT_FOUND, whatever its shape (SPEC errors).
const PluginId = Type.String({
  description: 'the plugin id, e.g. `openai`',
  examples: ['openai'],
})
const Capability = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z0-9][a-z0-9-]*$',
  description: 'a capability the plugin offers, e.g. `ai-provider`',
  examples: ['ai-provider'],
})

export const PluginParams = Type.Object({ pluginId: PluginId })
export const WorkPluginParams = Type.Object({
  workId: Type.String({ description: 'the work id (a UUID)', examples: [EXAMPLE_WORK_ID] }),
  pluginId: PluginId,
})
export const WorkPluginsParams = Type.Object({
  workId: Type.String({ description: 'the work id (a UUID)', examples: [EXAMPLE_WORK_ID] }),
})

export const ListPluginsQuery = Type.Object({
  category: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'only plugins of this category, e.g. `ai-provider`, `deployment`, `git`',
      examples: ['ai-provider'],
    }),
  ),
})

const Icon = Type.Object(
  {
    type: Type.Enum(['emoji', 'url', 'svg'], { examples: ['emoji'] }),
    value: Type.String({ examples: ['🤖'] }),
  },
  { description: 'how to draw the plugin: an emoji, an image URL or an inline SVG' },
)

const entryFields = {
  id: Type.String({ examples: ['openai'] }),
  name: Type.String({ examples: ['OpenAI'] }),
  version: Type.String({ examples: ['1.0.0'] }),
  description: Type.String({
    examples: ['Generates a work’s items with OpenAI or any OpenAI-compatible chat completions API.'],
  }),
  category: Type.String({ examples: ['ai-provider'] }),
  capabilities: Type.Array(Type.String(), { examples: [['ai-provider']] }),
  icon: Icon,
  enabled: Type.Boolean({ description: 'enabled for your account' }),
  configured: Type.Boolean({
    description: 'every required setting has a value (yours, or the server’s environment variable)',
  }),
  autoEnable: Type.Boolean({ description: 'enabled for your new works by default when you enable it' }),
  systemPlugin: Type.Boolean({ description: 'used by Curio’s own pipelines (deploy)' }),
  builtIn: Type.Boolean({ description: 'ships with Curio' }),
}

const EXAMPLE_ENTRY = {
  id: 'openai',
  name: 'OpenAI',
  version: '1.0.0',
  description: 'Generates a work’s items with OpenAI or any OpenAI-compatible chat completions API.',
  category: 'ai-provider',
  capabilities: ['ai-provider'],
  icon: { type: 'emoji' as const, value: '🤖' },
  enabled: true,
  configured: true,
  autoEnable: true,
  systemPlugin: false,
  builtIn: true,
}

export const PluginListEntry = Type.Object(entryFields)
export type PluginListEntry = Static<typeof PluginListEntry>

export const PluginList = Type.Object(
  { plugins: Type.Array(PluginListEntry) },
  { description: 'Every plugin, by category then name', examples: [{ plugins: [EXAMPLE_ENTRY] }] },
)

const FreeObject = (description: string, examples: unknown[]) =>
  Type.Record(Type.String(), Type.Unknown(), { description, examples })

const EXAMPLE_SCHEMA = {
  type: 'object',
  properties: {
    baseUrl: {
      type: 'string',
      title: 'API base URL',
      format: 'uri',
      default: 'https://api.openai.com/v1',
      'x-envVar': 'OPENAI_API_URL',
    },
    model: { type: 'string', title: 'Model', default: 'gpt-4o-mini' },
    apiKey: { type: 'string', title: 'API key', 'x-secret': true, 'x-envVar': 'OPENAI_API_KEY' },
  },
  required: ['apiKey'],
  additionalProperties: false,
}

export const PluginDetails = Type.Object(
  {
    ...entryFields,
    settingsSchema: FreeObject(
      'JSON Schema of the settings: each property has a `title`; `x-secret` ones go in `secretSettings` and ' +
        'are never shown; `x-envVar` names the environment variable used when you set no value',
      [EXAMPLE_SCHEMA],
    ),
    settings: FreeObject('your settings; secrets masked as `••••` and their last 4 characters', [
      { model: 'gpt-4o-mini', apiKey: '••••3f9a' },
    ]),
    autoEnableForWorks: Type.Boolean({ description: 'the plugin is enabled for each new work you create' }),
    metadata: FreeObject('free-form data you stored with the plugin', [{ setupStep: 'done' }]),
    readme: Type.String({
      description: 'Markdown',
      examples: ['# OpenAI\n\nGenerates the items of a work…'],
    }),
  },
  {
    examples: [
      {
        ...EXAMPLE_ENTRY,
        settingsSchema: EXAMPLE_SCHEMA,
        settings: { model: 'gpt-4o-mini', apiKey: '••••3f9a' },
        autoEnableForWorks: true,
        metadata: {},
        readme: '# OpenAI\n\nGenerates the items of a work…',
      },
    ],
  },
)
export type PluginDetails = Static<typeof PluginDetails>

export const SettingsMenu = Type.Object(
  {
    categories: Type.Array(
      Type.Object({
        id: Type.String({ examples: ['ai-provider'] }),
        label: Type.String({ examples: ['AI providers'] }),
        plugins: Type.Array(
          Type.Object({ id: Type.String(), name: Type.String(), icon: Icon, configured: Type.Boolean() }),
        ),
      }),
    ),
  },
  {
    description: 'The plugins you enabled that have settings, grouped by category',
    examples: [
      {
        categories: [
          {
            id: 'ai-provider',
            label: 'AI providers',
            plugins: [
              { id: 'openai', name: 'OpenAI', icon: { type: 'emoji', value: '🤖' }, configured: true },
            ],
          },
        ],
      },
    ],
  },
)
export type SettingsMenu = Static<typeof SettingsMenu>

export const ModelEntry = Type.Object({
  id: Type.String({ examples: ['gpt-4o-mini'] }),
  name: Type.String({ examples: ['gpt-4o-mini'] }),
  contextLength: Type.Integer({
    description: 'tokens; 0 when the provider does not say',
    examples: [128000],
  }),
  capabilities: Type.Optional(
    Type.Object({
      supportsStreaming: Type.Boolean(),
      supportsToolCalling: Type.Boolean(),
      supportsVision: Type.Boolean(),
    }),
  ),
})

export const ModelList = Type.Array(ModelEntry, {
  description: 'The provider’s models, by id',
  examples: [[{ id: 'gpt-4o-mini', name: 'gpt-4o-mini', contextLength: 128000 }]],
})

const SettingValue = Type.Union([
  Type.String({ maxLength: 2000 }),
  Type.Number(),
  Type.Boolean(),
  Type.Null(),
])
const SettingsChange = (description: string, example: Record<string, unknown>) =>
  Type.Record(Type.String({ maxLength: 100 }), SettingValue, {
    maxProperties: MAX_SETTINGS_PER_REQUEST,
    description,
    examples: [example],
  })
const PlainSettings = SettingsChange(
  'settings to set, by name (see the plugin’s `settingsSchema`); `null` removes one',
  { model: 'gpt-4o-mini' },
)
const SecretSettings = SettingsChange(
  'secret settings (`x-secret`), stored encrypted and never shown again; `null` removes one, and a masked ' +
    'value sent back (`••••…`) keeps the stored one',
  { apiKey: 'sk-proj-…' },
)

export const EnablePluginBody = Type.Object(
  {
    settings: Type.Optional(PlainSettings),
    secretSettings: Type.Optional(SecretSettings),
    autoEnableForWorks: Type.Optional(
      Type.Boolean({ description: 'enable it for each new work; defaults to the plugin’s `autoEnable`' }),
    ),
  },
  {
    examples: [
      {
        settings: { model: 'gpt-4o-mini' },
        secretSettings: { apiKey: 'sk-proj-…' },
        autoEnableForWorks: true,
      },
    ],
  },
)
export type EnablePluginBody = Static<typeof EnablePluginBody>

export const UpdatePluginSettingsBody = Type.Object(
  {
    settings: Type.Optional(PlainSettings),
    secretSettings: Type.Optional(SecretSettings),
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
        maxProperties: MAX_SETTINGS_PER_REQUEST,
        description: 'free-form data merged into the stored metadata; `null` removes a key',
        examples: [{ setupStep: 'done' }],
      }),
    ),
  },
  { examples: [{ settings: { model: 'gpt-4o' }, metadata: { setupStep: 'done' } }] },
)
export type UpdatePluginSettingsBody = Static<typeof UpdatePluginSettingsBody>

export const WorkPluginEntry = Type.Object(
  {
    id: Type.String({ examples: ['openai'] }),
    name: Type.String({ examples: ['OpenAI'] }),
    category: Type.String({ examples: ['ai-provider'] }),
    enabled: Type.Boolean({ description: 'enabled for this work' }),
    activeCapability: Type.Union([Type.String(), Type.Null()], {
      description: 'the capability this plugin is the work’s active provider of, if any',
      examples: ['ai-provider'],
    }),
    priority: Type.Integer({ examples: [0] }),
    settings: FreeObject('the work’s own settings (they win over yours); secrets masked', [
      { model: 'gpt-4o' },
    ]),
  },
  {
    examples: [
      {
        id: 'openai',
        name: 'OpenAI',
        category: 'ai-provider',
        enabled: true,
        activeCapability: 'ai-provider',
        priority: 0,
        settings: { model: 'gpt-4o' },
      },
    ],
  },
)
export type WorkPluginEntry = Static<typeof WorkPluginEntry>

export const WorkPluginList = Type.Object(
  { plugins: Type.Array(WorkPluginEntry) },
  {
    description: 'Every plugin, with its state in this work',
    examples: [
      {
        plugins: [
          {
            id: 'openai',
            name: 'OpenAI',
            category: 'ai-provider',
            enabled: true,
            activeCapability: 'ai-provider',
            priority: 0,
            settings: {},
          },
        ],
      },
    ],
  },
)

export const EnableWorkPluginBody = Type.Object(
  {
    settings: Type.Optional(PlainSettings),
    activeCapability: Type.Optional(Capability),
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PRIORITY, examples: [0] })),
  },
  { examples: [{ settings: { model: 'gpt-4o' }, activeCapability: 'ai-provider', priority: 0 }] },
)
export type EnableWorkPluginBody = Static<typeof EnableWorkPluginBody>

export const UpdateWorkPluginSettingsBody = Type.Object(
  { settings: Type.Optional(PlainSettings), secretSettings: Type.Optional(SecretSettings) },
  { examples: [{ settings: { model: 'gpt-4o' } }] },
)
export type UpdateWorkPluginSettingsBody = Static<typeof UpdateWorkPluginSettingsBody>

export const CapabilityBody = Type.Object(
  { capability: Capability },
  { examples: [{ capability: 'ai-provider' }] },
)
export type CapabilityBody = Static<typeof CapabilityBody>
