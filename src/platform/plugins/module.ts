import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Envelope } from '../../lib/crypto.ts'
import type { ActivityWriter } from '../activity-log/writer.ts'
import type { PlatformEvents } from '../events.ts'
import type { WorkAccess } from '../works/access.ts'
import type { Plugin, ProviderLimits } from './definition.ts'
import { createPluginRegistry } from './registry.ts'
import { pluginRoutes } from './routes.ts'
import { createPluginService } from './service.ts'
import { createPluginSettings } from './settings.ts'
import { createWorkPluginService } from './work-service.ts'

export interface PluginsModuleDeps {
  db: Db
  clock: Clock
  log: Logger
  plugins: readonly Plugin[]
  envelope: Envelope
  env: (name: string) => string | undefined
  access: Pick<WorkAccess, 'requireEdit'>
  activity: Pick<ActivityWriter, 'audit'>
  providerLimits: ProviderLimits
}

/** Plugins at user and work level; `plugins` is what generation and deploy resolve settings through. */
export function pluginsModule(deps: PluginsModuleDeps) {
  const registry = createPluginRegistry(deps.plugins)
  const settings = createPluginSettings({ envelope: deps.envelope, env: deps.env, log: deps.log })
  const plugins = createPluginService({ ...deps, registry, settings })
  const workPlugins = createWorkPluginService({ ...deps, registry, settings })
  const module: Module<PlatformEvents> = {
    name: 'plugins',
    routes: (app) => pluginRoutes(app, { plugins, workPlugins }),
    listeners: (events) =>
      events.on('WorkCreated', ({ userId, workId }, tx) => plugins.autoEnableForNewWork(tx, userId, workId)),
  }
  return { plugins, registry, module }
}
