import { and, eq, inArray } from 'drizzle-orm'
import type { Db, DbOrTx } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { badRequest } from '../../lib/errors.ts'
import type { ActivityWriter } from '../activity-log/writer.ts'
import type { EventContext } from '../events.ts'
import { works } from '../works/tables.ts'
import type { AiProvider, Plugin, ProviderLimits, ResolvedSettings } from './definition.ts'
import { categoryLabel, type PluginRegistry } from './registry.ts'
import { notConfigured, notEnabled, providerFailure, validatedChange } from './rules.ts'
import type {
  EnablePluginBody,
  PluginDetails,
  PluginListEntry,
  SettingsMenu,
  UpdatePluginSettingsBody,
} from './schemas.ts'
import type { PluginSettings, SettingsLevel } from './settings.ts'
import { userPlugins, workPlugins } from './tables.ts'

export type UserPluginRow = typeof userPlugins.$inferSelect

export const AI_PROVIDER_CAPABILITY = 'ai-provider'

export interface PluginServiceDeps {
  db: Db
  clock: Clock
  registry: PluginRegistry
  settings: PluginSettings
  activity: Pick<ActivityWriter, 'audit'>
  providerLimits: ProviderLimits
}

const NO_LEVEL: SettingsLevel = { settings: {}, secretSettings: {} }

/** Plugins at user level, and the settings resolution every consumer (generation, deploy) uses. */
export function createPluginService({
  db,
  clock,
  registry,
  settings,
  activity,
  providerLimits,
}: PluginServiceDeps) {
  const levelOf = (row: UserPluginRow | undefined): SettingsLevel => row ?? NO_LEVEL

  async function rowsOf(userId: string, executor: DbOrTx = db): Promise<Map<string, UserPluginRow>> {
    const rows = await executor.select().from(userPlugins).where(eq(userPlugins.userId, userId))
    return new Map(rows.map((row) => [row.pluginId, row]))
  }

  async function rowOf(userId: string, pluginId: string, executor: DbOrTx = db) {
    const [row] = await executor
      .select()
      .from(userPlugins)
      .where(and(eq(userPlugins.userId, userId), eq(userPlugins.pluginId, pluginId)))
    return row
  }

  const resolvedForUser = (plugin: Plugin, userId: string, row: UserPluginRow | undefined) =>
    settings.resolve(plugin, { user: { userId, level: levelOf(row) } })

  function entryOf(plugin: Plugin, userId: string, row: UserPluginRow | undefined): PluginListEntry {
    return {
      id: plugin.id,
      name: plugin.name,
      version: plugin.version,
      description: plugin.description,
      category: plugin.category,
      capabilities: [...plugin.capabilities],
      icon: plugin.icon,
      enabled: row?.enabled ?? false,
      configured: settings.configured(plugin, resolvedForUser(plugin, userId, row)),
      autoEnable: plugin.autoEnable,
      systemPlugin: plugin.systemPlugin,
      builtIn: plugin.builtIn,
    }
  }

  function detailsOf(plugin: Plugin, userId: string, row: UserPluginRow | undefined): PluginDetails {
    return {
      ...entryOf(plugin, userId, row),
      settingsSchema: plugin.settingsSchema as unknown as Record<string, unknown>,
      settings: settings.shown(plugin, { kind: 'user', userId }, levelOf(row)),
      autoEnableForWorks: row?.autoEnableForWorks ?? plugin.autoEnable,
      metadata: row?.metadata ?? {},
      readme: plugin.readme,
    }
  }

  /** The changed setting names, for the activity log: never a value. */
  const changedNames = (change: { settings: object; secrets: object }) => [
    ...Object.keys(change.settings),
    ...Object.keys(change.secrets),
  ]

  return {
    async list(userId: string, category?: string): Promise<PluginListEntry[]> {
      const rows = await rowsOf(userId)
      return registry
        .list()
        .filter((plugin) => category === undefined || plugin.category === category)
        .map((plugin) => entryOf(plugin, userId, rows.get(plugin.id)))
    },

    async settingsMenu(userId: string): Promise<SettingsMenu> {
      const rows = await rowsOf(userId)
      const categories = new Map<string, SettingsMenu['categories'][number]>()
      for (const plugin of registry.list()) {
        const row = rows.get(plugin.id)
        if (!row?.enabled || Object.keys(plugin.settingsSchema.properties).length === 0) continue
        let category = categories.get(plugin.category)
        if (!category) {
          category = { id: plugin.category, label: categoryLabel(plugin.category), plugins: [] }
          categories.set(plugin.category, category)
        }
        category.plugins.push({
          id: plugin.id,
          name: plugin.name,
          icon: plugin.icon,
          configured: settings.configured(plugin, resolvedForUser(plugin, userId, row)),
        })
      }
      return { categories: [...categories.values()] }
    },

    async details(userId: string, pluginId: string): Promise<PluginDetails> {
      const plugin = registry.require(pluginId)
      return detailsOf(plugin, userId, await rowOf(userId, plugin.id))
    },

    /** Enables the plugin for the user, merging any settings sent (enabling again only merges). */
    async enable(
      userId: string,
      pluginId: string,
      body: EnablePluginBody,
      context: EventContext,
    ): Promise<PluginDetails> {
      const plugin = registry.require(pluginId)
      const change = validatedChange(plugin, body)
      const row = await db.transaction(async (tx) => {
        const now = clock.now()
        // The row exists and is locked before it is read, so concurrent enables and PATCHes merge in turn.
        await tx
          .insert(userPlugins)
          .values({
            userId,
            pluginId: plugin.id,
            enabled: false,
            autoEnableForWorks: plugin.autoEnable,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
        const [current] = await tx
          .select()
          .from(userPlugins)
          .where(and(eq(userPlugins.userId, userId), eq(userPlugins.pluginId, plugin.id)))
          .for('update')
        const level = settings.merge(plugin, { kind: 'user', userId }, levelOf(current), change)
        const autoEnableForWorks = body.autoEnableForWorks ?? current?.autoEnableForWorks ?? plugin.autoEnable
        const [saved] = await tx
          .insert(userPlugins)
          .values({
            userId,
            pluginId: plugin.id,
            enabled: true,
            ...level,
            autoEnableForWorks,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoUpdate({
            target: [userPlugins.userId, userPlugins.pluginId],
            set: { enabled: true, ...level, autoEnableForWorks, updatedAt: now },
          })
          .returning()
        await activity.audit(
          {
            userId,
            actionType: 'plugin_enabled',
            action: 'plugin.enabled',
            status: 'completed',
            summary: `Enabled the ${plugin.name} plugin`,
            details: { pluginId: plugin.id, settingsChanged: changedNames(change), autoEnableForWorks },
            context,
          },
          tx,
        )
        return saved!
      })
      return detailsOf(plugin, userId, row)
    },

    /** Disables the plugin for the user and, in the same transaction, for every work the user owns. */
    async disable(userId: string, pluginId: string, context: EventContext): Promise<PluginDetails> {
      const plugin = registry.require(pluginId)
      const row = await db.transaction(async (tx) => {
        const [saved] = await tx
          .update(userPlugins)
          .set({ enabled: false, updatedAt: clock.now() })
          .where(and(eq(userPlugins.userId, userId), eq(userPlugins.pluginId, plugin.id)))
          .returning()
        const worksDisabled = await tx
          .update(workPlugins)
          .set({ enabled: false, activeCapability: null, updatedAt: clock.now() })
          .where(
            and(
              eq(workPlugins.pluginId, plugin.id),
              eq(workPlugins.enabled, true),
              inArray(
                workPlugins.workId,
                tx.select({ id: works.id }).from(works).where(eq(works.ownerId, userId)),
              ),
            ),
          )
          .returning({ workId: workPlugins.workId })
        if (saved) {
          await activity.audit(
            {
              userId,
              actionType: 'plugin_disabled',
              action: 'plugin.disabled',
              status: 'completed',
              summary: `Disabled the ${plugin.name} plugin`,
              details: { pluginId: plugin.id, worksDisabled: worksDisabled.length },
              context,
            },
            tx,
          )
        }
        return saved
      })
      return detailsOf(plugin, userId, row)
    },

    /** Merges settings, secrets and metadata of a plugin the user enabled (400 otherwise). */
    async updateSettings(
      userId: string,
      pluginId: string,
      body: UpdatePluginSettingsBody,
      context: EventContext,
    ): Promise<PluginDetails> {
      const plugin = registry.require(pluginId)
      const change = validatedChange(plugin, body)
      const row = await db.transaction(async (tx) => {
        const [current] = await tx
          .select()
          .from(userPlugins)
          .where(and(eq(userPlugins.userId, userId), eq(userPlugins.pluginId, plugin.id)))
          .for('update')
        if (!current?.enabled) throw notEnabled(plugin)
        const level = settings.merge(plugin, { kind: 'user', userId }, current, change)
        const metadata = { ...current.metadata }
        for (const [key, value] of Object.entries(body.metadata ?? {})) {
          if (value === null) delete metadata[key]
          else metadata[key] = value
        }
        const [saved] = await tx
          .update(userPlugins)
          .set({ ...level, metadata, updatedAt: clock.now() })
          .where(and(eq(userPlugins.userId, userId), eq(userPlugins.pluginId, plugin.id)))
          .returning()
        await activity.audit(
          {
            userId,
            actionType: 'plugin_configured',
            action: 'plugin.configured',
            status: 'completed',
            summary: `Updated the settings of the ${plugin.name} plugin`,
            details: { pluginId: plugin.id, settingsChanged: changedNames(change) },
            context,
          },
          tx,
        )
        return saved!
      })
      return detailsOf(plugin, userId, row)
    },

    /** The models of an AI provider the user enabled and configured, from the provider itself. */
    async models(userId: string, pluginId: string) {
      const plugin = registry.require(pluginId)
      if (!plugin.aiProvider) {
        throw badRequest(
          `The ${plugin.name} plugin is not an AI provider: it has no models`,
          'NOT_AN_AI_PROVIDER',
        )
      }
      const row = await rowOf(userId, plugin.id)
      if (!row?.enabled) throw notEnabled(plugin)
      const resolved = resolvedForUser(plugin, userId, row)
      if (!settings.configured(plugin, resolved)) throw notConfigured(plugin)
      try {
        return await plugin.aiProvider(resolved, providerLimits).listModels()
      } catch (error) {
        throw providerFailure(plugin, error)
      }
    },

    /**
     * A plugin's settings for a work: the work's own, then its owner's (shared works use the owner's), then
     * the environment, then the schema's defaults.
     */
    async resolveForWork(
      work: { id: string; ownerId: string },
      pluginId: string,
      executor: DbOrTx = db,
    ): Promise<{ plugin: Plugin; settings: ResolvedSettings; configured: boolean }> {
      const plugin = registry.require(pluginId)
      const [userRow, workRow] = await Promise.all([
        rowOf(work.ownerId, plugin.id, executor),
        executor
          .select()
          .from(workPlugins)
          .where(and(eq(workPlugins.workId, work.id), eq(workPlugins.pluginId, plugin.id)))
          .then((rows) => rows[0]),
      ])
      const resolved = settings.resolve(plugin, {
        user: { userId: work.ownerId, level: levelOf(userRow) },
        // A plugin disabled for the work keeps its settings for later, but they do not apply meanwhile.
        ...(workRow?.enabled ? { work: { workId: work.id, level: workRow } } : {}),
      })
      return { plugin, settings: resolved, configured: settings.configured(plugin, resolved) }
    },

    /** A plugin's settings for the user themselves (their own level, then the environment, then defaults). */
    async resolveForUser(
      userId: string,
      pluginId: string,
    ): Promise<{ plugin: Plugin; settings: ResolvedSettings; configured: boolean; enabled: boolean }> {
      const plugin = registry.require(pluginId)
      const row = await rowOf(userId, plugin.id)
      const resolved = resolvedForUser(plugin, userId, row)
      return {
        plugin,
        settings: resolved,
        configured: settings.configured(plugin, resolved),
        enabled: row?.enabled ?? false,
      }
    },

    /** The work's active AI provider, ready to call; 400 when it has none or it lacks a required setting. */
    async aiProviderForWork(
      work: { id: string; ownerId: string; name: string },
      executor: DbOrTx = db,
    ): Promise<{ plugin: Plugin; provider: AiProvider }> {
      const [active] = await executor
        .select({ pluginId: workPlugins.pluginId })
        .from(workPlugins)
        .where(
          and(
            eq(workPlugins.workId, work.id),
            eq(workPlugins.enabled, true),
            eq(workPlugins.activeCapability, AI_PROVIDER_CAPABILITY),
          ),
        )
      const plugin = active && registry.get(active.pluginId)
      if (!plugin?.aiProvider) {
        throw badRequest(
          `No AI provider is active for "${work.name}": enable one with ` +
            'POST /api/works/:workId/plugins/:pluginId/enable and {"activeCapability": "ai-provider"}',
          'NO_AI_PROVIDER',
        )
      }
      const resolved = await this.resolveForWork(work, plugin.id, executor)
      if (!resolved.configured) throw notConfigured(plugin)
      return { plugin, provider: plugin.aiProvider(resolved.settings, providerLimits) }
    },

    /** Enables, for a new work, the plugins its owner enabled with `autoEnableForWorks`. */
    async autoEnableForNewWork(tx: DbOrTx, ownerId: string, workId: string): Promise<void> {
      const rows = await tx
        .select({ pluginId: userPlugins.pluginId })
        .from(userPlugins)
        .where(
          and(
            eq(userPlugins.userId, ownerId),
            eq(userPlugins.enabled, true),
            eq(userPlugins.autoEnableForWorks, true),
          ),
        )
      const taken = new Set<string>()
      const now = clock.now()
      for (const plugin of registry
        .list()
        .filter((candidate) => rows.some((row) => row.pluginId === candidate.id))) {
        const capability = plugin.capabilities.find((candidate) => !taken.has(candidate)) ?? null
        if (capability) taken.add(capability)
        await tx
          .insert(workPlugins)
          .values({
            workId,
            pluginId: plugin.id,
            enabled: true,
            activeCapability: capability,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
      }
    },
  }
}

export type PluginService = ReturnType<typeof createPluginService>
