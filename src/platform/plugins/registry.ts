import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { notFound } from '../../lib/errors.ts'
import type { Plugin, PluginDefinition } from './definition.ts'
import { compileSettingsSchema } from './settings-schema.ts'

/** The folder whose sub-folders are the plugins Curio ships. */
export const PLUGINS_DIR = fileURLToPath(new URL('.', import.meta.url))

const PLUGIN_ID = /^[a-z0-9][a-z0-9-]{0,62}$/
const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/
const ENV_NAME = /^[A-Z][A-Z0-9_]*$/
const AI_PROVIDER = 'ai-provider'

/** A plugin folder whose definition is wrong: Curio refuses to start rather than serve half a plugin. */
export class PluginDefinitionError extends Error {
  override name = 'PluginDefinitionError'
}

/** Every plugin under `dir`: each sub-folder with a `plugin.ts` (default export) and a `README.md`. */
export async function loadPlugins(dir: string = PLUGINS_DIR): Promise<Plugin[]> {
  const plugins: Plugin[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue
    const folder = join(dir, entry.name)
    const file = join(folder, 'plugin.ts')
    if (!existsSync(file)) continue
    const module = (await import(pathToFileURL(file).href)) as { default?: PluginDefinition }
    if (!module.default) throw new PluginDefinitionError(`${file} has no default export`)
    const readmeFile = join(folder, 'README.md')
    if (!existsSync(readmeFile)) throw new PluginDefinitionError(`Plugin folder ${folder} has no README.md`)
    plugins.push(checkedPlugin(entry.name, module.default, readFileSync(readmeFile, 'utf8')))
  }
  return plugins
}

/** The definition as a plugin, or a PluginDefinitionError naming what is wrong with it. */
export function checkedPlugin(folder: string, definition: PluginDefinition, readme: string): Plugin {
  const problems: string[] = []
  const { id, settingsSchema: schema } = definition
  if (id !== folder) problems.push(`its id "${id}" differs from its folder "${folder}"`)
  if (!PLUGIN_ID.test(id)) problems.push('its id must be lower-case letters, digits and dashes')
  if (!VERSION.test(definition.version)) problems.push(`its version "${definition.version}" is not semver`)
  if (!definition.name?.trim()) problems.push('it has no name')
  if (!PLUGIN_ID.test(definition.category ?? '')) problems.push('its category must be like "ai-provider"')
  if (!Array.isArray(definition.capabilities) || definition.capabilities.length === 0) {
    problems.push('it declares no capabilities')
  }
  if (definition.capabilities?.includes(AI_PROVIDER) && typeof definition.aiProvider !== 'function') {
    problems.push('it offers ai-provider but has no aiProvider()')
  }
  if (schema?.type !== 'object' || typeof schema.properties !== 'object') {
    problems.push('its settingsSchema must be an object schema with properties')
  } else {
    for (const [name, property] of Object.entries(schema.properties)) {
      if (!property.title) problems.push(`setting "${name}" has no title`)
      const envVar = property['x-envVar']
      if (envVar !== undefined && !ENV_NAME.test(envVar))
        problems.push(`setting "${name}" has a bad x-envVar`)
      if (property['x-secret'] && property.default !== undefined) {
        problems.push(`secret setting "${name}" must not have a default`)
      }
    }
    for (const name of schema.required ?? []) {
      if (!(name in schema.properties)) problems.push(`required setting "${name}" is not a property`)
    }
    try {
      compileSettingsSchema(schema)
    } catch (error) {
      problems.push(`its settingsSchema does not compile: ${(error as Error).message}`)
    }
  }
  if (problems.length > 0) {
    throw new PluginDefinitionError(`Plugin "${folder}" is invalid: ${problems.join('; ')}`)
  }
  return Object.freeze({ ...definition, readme })
}

/** Settings-menu labels of the categories Curio knows; another category is labelled from its id. */
const CATEGORY_LABELS: Record<string, string> = {
  'ai-provider': 'AI providers',
  deployment: 'Deployment',
  git: 'Git hosting',
  search: 'Search',
}

export const categoryLabel = (category: string) =>
  CATEGORY_LABELS[category] ?? category.replace(/-/g, ' ').replace(/^./, (first) => first.toUpperCase())

export function createPluginRegistry(plugins: readonly Plugin[]) {
  const byId = new Map<string, Plugin>()
  for (const plugin of plugins) {
    if (byId.has(plugin.id)) throw new PluginDefinitionError(`Two plugins have the id "${plugin.id}"`)
    byId.set(plugin.id, plugin)
  }
  const ordered = [...byId.values()].sort(
    (a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name),
  )
  return {
    /** Every plugin, by category then name. */
    list: (): readonly Plugin[] => ordered,
    get: (id: string): Plugin | undefined => byId.get(id),
    /** The plugin, or 404 `PLUGIN_NOT_FOUND`. */
    require(id: string): Plugin {
      const plugin = byId.get(id)
      if (!plugin) throw notFound(`No plugin has the id "${id.slice(0, 64)}"`, 'PLUGIN_NOT_FOUND')
      return plugin
    },
  }
}

export type PluginRegistry = ReturnType<typeof createPluginRegistry>
