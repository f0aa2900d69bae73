import type { App } from '../../http/app.ts'
import { described, invalidField } from '../../http/schemas.ts'
import { contextOf } from '../http/context.ts'
import { authOf } from '../http/guard.ts'
import { errors } from '../http/schemas.ts'
import {
  CapabilityBody,
  EnablePluginBody,
  EnableWorkPluginBody,
  ListPluginsQuery,
  ModelList,
  PluginDetails,
  PluginList,
  PluginParams,
  SettingsMenu,
  UpdatePluginSettingsBody,
  UpdateWorkPluginSettingsBody,
  WorkPluginEntry,
  WorkPluginList,
  WorkPluginParams,
  WorkPluginsParams,
} from './schemas.ts'
import type { PluginService } from './service.ts'
import type { WorkPluginService } from './work-service.ts'

const tags = ['plugins']
const jwtOnly = [
  [401, 'UNAUTHORIZED', 'INVALID_TOKEN'],
  [403, 'API_KEY_NOT_ALLOWED'],
] as const
const badSetting = invalidField('body.settings.model', 'must be at least 1 character long')
const notAPlugin = [404, 'PLUGIN_NOT_FOUND'] as const
const notAWork = [404, 'WORK_NOT_FOUND', 'PLUGIN_NOT_FOUND'] as const
const viewer = [403, 'API_KEY_NOT_ALLOWED', 'WORK_EDIT_FORBIDDEN'] as const

const SETTINGS_RULES =
  'Settings are checked against the plugin’s `settingsSchema` (400 naming each failing setting, e.g. ' +
  '`body.settings.model`); secret ones go in `secretSettings`, are stored encrypted and never shown again ' +
  '(masked as `••••` and their last 4 characters). `null` removes a setting; a masked value sent back keeps ' +
  'the stored secret. A production instance without `PLATFORM_ENCRYPTION_KEY` stores no secret (400 ' +
  '`ENCRYPTION_KEY_MISSING`).'

export function pluginRoutes(
  app: App,
  { plugins, workPlugins }: { plugins: PluginService; workPlugins: WorkPluginService },
) {
  app.get(
    '/api/plugins',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'List plugins',
        description:
          'Every plugin Curio has, by category then name, with whether you enabled it and whether it is ' +
          '`configured` (every required setting has a value: yours, or the server’s environment variable).',
        querystring: ListPluginsQuery,
        response: { 200: PluginList, ...errors(400, ...jwtOnly) },
      },
    },
    async (req) => ({ plugins: await plugins.list(authOf(req).userId, req.query.category) }),
  )

  app.get(
    '/api/plugins/settings-menu',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Plugin settings menu',
        description: 'The plugins you enabled that have settings you can change, grouped by category.',
        response: { 200: SettingsMenu, ...errors(...jwtOnly) },
      },
    },
    async (req) => plugins.settingsMenu(authOf(req).userId),
  )

  app.get(
    '/api/plugins/:pluginId',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Get a plugin',
        description:
          'The plugin with its settings schema, your settings (secrets masked, never their value) and its readme.',
        params: PluginParams,
        response: { 200: described(PluginDetails, 'The plugin'), ...errors(...jwtOnly, notAPlugin) },
      },
    },
    async (req) => plugins.details(authOf(req).userId, req.params.pluginId),
  )

  app.get(
    '/api/plugins/:pluginId/models',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'List an AI provider’s models',
        description:
          'Asks the provider (`GET {baseUrl}/models`) with your credentials. The plugin must be an AI provider ' +
          '(400 `NOT_AN_AI_PROVIDER`), enabled for you (400 `PLUGIN_NOT_ENABLED`) and configured (400 ' +
          '`PLUGIN_NOT_CONFIGURED`). The provider’s refusal is answered with its reason: credentials rejected ' +
          'or credits exhausted 400, no answer in time 504, any other failure 502.',
        params: PluginParams,
        response: {
          200: ModelList,
          ...errors(
            [
              400,
              'NOT_AN_AI_PROVIDER',
              'PLUGIN_NOT_ENABLED',
              'PLUGIN_NOT_CONFIGURED',
              'PROVIDER_CREDENTIALS_REJECTED',
              'PROVIDER_CREDITS_EXHAUSTED',
            ],
            ...jwtOnly,
            notAPlugin,
            [502, 'PROVIDER_ERROR'],
            [504, 'PROVIDER_TIMEOUT'],
          ),
        },
      },
    },
    async (req) => plugins.models(authOf(req).userId, req.params.pluginId),
  )

  app.post(
    '/api/plugins/:pluginId/enable',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Enable a plugin for your account',
        description:
          `Enables the plugin, merging the settings you send (enabling again only merges). ${SETTINGS_RULES} ` +
          '`autoEnableForWorks` (default: the plugin’s `autoEnable`) enables it for each new work you create.',
        params: PluginParams,
        body: EnablePluginBody,
        response: {
          200: described(PluginDetails, 'The plugin, enabled'),
          ...errors([400, badSetting, 'ENCRYPTION_KEY_MISSING'], ...jwtOnly, notAPlugin, 413, 415),
        },
      },
    },
    async (req) => plugins.enable(authOf(req).userId, req.params.pluginId, req.body ?? {}, contextOf(req)),
  )

  app.post(
    '/api/plugins/:pluginId/disable',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Disable a plugin for your account',
        description:
          'Disables the plugin for you and, in the same transaction, for every work you own. Your settings are ' +
          'kept for when you enable it again.',
        params: PluginParams,
        response: {
          200: described(PluginDetails, 'The plugin, disabled'),
          ...errors(...jwtOnly, notAPlugin),
        },
      },
    },
    async (req) => plugins.disable(authOf(req).userId, req.params.pluginId, contextOf(req)),
  )

  app.patch(
    '/api/plugins/:pluginId/settings',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Update your plugin settings',
        description:
          `Merges settings, secrets and metadata into yours. ${SETTINGS_RULES} The plugin must be enabled for ` +
          'you (400 `PLUGIN_NOT_ENABLED`).',
        params: PluginParams,
        body: UpdatePluginSettingsBody,
        response: {
          200: described(PluginDetails, 'The plugin with your new settings'),
          ...errors(
            [400, badSetting, 'PLUGIN_NOT_ENABLED', 'ENCRYPTION_KEY_MISSING'],
            ...jwtOnly,
            notAPlugin,
            413,
            415,
          ),
        },
      },
    },
    async (req) =>
      plugins.updateSettings(authOf(req).userId, req.params.pluginId, req.body ?? {}, contextOf(req)),
  )

  app.get(
    '/api/works/:workId/plugins',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'List a work’s plugins',
        description:
          'Every plugin with its state in this work: enabled, the capability it is the active provider of, and ' +
          'the work’s own settings (they win over the account’s). Edit permission on the work (a viewer gets ' +
          '403); a work you may not see is 404.',
        params: WorkPluginsParams,
        response: { 200: WorkPluginList, ...errors(...jwtOnly.slice(0, 1), viewer, [404, 'WORK_NOT_FOUND']) },
      },
    },
    async (req) => ({ plugins: await workPlugins.list(authOf(req).userId, req.params.workId) }),
  )

  app.post(
    '/api/works/:workId/plugins/:pluginId/enable',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Enable a plugin for a work',
        description:
          'The work’s owner must have enabled the plugin for their account (400 `PLUGIN_NOT_ENABLED`). ' +
          '`activeCapability` makes it the work’s provider of that capability (400 `CAPABILITY_NOT_OFFERED` ' +
          'when it offers none such); without it, the plugin takes its first capability no other plugin of the ' +
          `work holds. ${SETTINGS_RULES} Edit permission on the work.`,
        params: WorkPluginParams,
        body: EnableWorkPluginBody,
        response: {
          200: described(WorkPluginEntry, 'The plugin as the work now has it'),
          ...errors(
            [400, badSetting, 'PLUGIN_NOT_ENABLED', 'CAPABILITY_NOT_OFFERED', 'ENCRYPTION_KEY_MISSING'],
            jwtOnly[0],
            viewer,
            notAWork,
            413,
            415,
          ),
        },
      },
    },
    async (req) =>
      workPlugins.enable(
        authOf(req).userId,
        req.params.workId,
        req.params.pluginId,
        req.body ?? {},
        contextOf(req),
      ),
  )

  app.post(
    '/api/works/:workId/plugins/:pluginId/disable',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Disable a plugin for a work',
        description:
          'Disables the plugin for this work only (your account’s setting is untouched); it stops being the ' +
          'active provider of its capability. Edit permission on the work.',
        params: WorkPluginParams,
        response: {
          200: described(WorkPluginEntry, 'The plugin, disabled for the work'),
          ...errors(jwtOnly[0], viewer, notAWork),
        },
      },
    },
    async (req) =>
      workPlugins.disable(authOf(req).userId, req.params.workId, req.params.pluginId, contextOf(req)),
  )

  app.patch(
    '/api/works/:workId/plugins/:pluginId/settings',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Update a work’s plugin settings',
        description:
          `Merges the work’s own settings, which win over the account’s. ${SETTINGS_RULES} The plugin must be ` +
          'enabled for the work (400 `WORK_PLUGIN_NOT_ENABLED`). Edit permission on the work.',
        params: WorkPluginParams,
        body: UpdateWorkPluginSettingsBody,
        response: {
          200: described(WorkPluginEntry, 'The plugin with the work’s new settings'),
          ...errors(
            [400, badSetting, 'WORK_PLUGIN_NOT_ENABLED', 'ENCRYPTION_KEY_MISSING'],
            jwtOnly[0],
            viewer,
            notAWork,
            413,
            415,
          ),
        },
      },
    },
    async (req) =>
      workPlugins.updateSettings(
        authOf(req).userId,
        req.params.workId,
        req.params.pluginId,
        req.body ?? {},
        contextOf(req),
      ),
  )

  app.post(
    '/api/works/:workId/plugins/:pluginId/capability',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Make a plugin the work’s provider of a capability',
        description:
          'Makes the plugin the active provider of `capability` for the work and deactivates the previous one, ' +
          'in one transaction: only one plugin is ever active per capability per work, also under concurrent ' +
          'switches. The plugin must offer it (400 `CAPABILITY_NOT_OFFERED`) and be enabled for the work (400 ' +
          '`WORK_PLUGIN_NOT_ENABLED`). Edit permission on the work.',
        params: WorkPluginParams,
        body: CapabilityBody,
        response: {
          200: described(WorkPluginEntry, 'The plugin, now the active provider'),
          ...errors(
            [
              400,
              invalidField('body.capability', 'is required'),
              'CAPABILITY_NOT_OFFERED',
              'WORK_PLUGIN_NOT_ENABLED',
            ],
            jwtOnly[0],
            viewer,
            notAWork,
            413,
            415,
          ),
        },
      },
    },
    async (req) =>
      workPlugins.switchCapability(
        authOf(req).userId,
        req.params.workId,
        req.params.pluginId,
        req.body,
        contextOf(req),
      ),
  )
}
