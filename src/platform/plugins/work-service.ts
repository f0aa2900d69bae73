import { and, eq, ne } from 'drizzle-orm'
import type { Db, Tx } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { badRequest } from '../../lib/errors.ts'
import type { ActivityWriter } from '../activity-log/writer.ts'
import type { EventContext } from '../events.ts'
import type { WorkAccess, WorkWithRole } from '../works/access.ts'
import { works } from '../works/tables.ts'
import type { Plugin } from './definition.ts'
import type { PluginRegistry } from './registry.ts'
import { validatedChange } from './rules.ts'
import type {
  CapabilityBody,
  EnableWorkPluginBody,
  UpdateWorkPluginSettingsBody,
  WorkPluginEntry,
} from './schemas.ts'
import type { PluginSettings } from './settings.ts'
import { userPlugins, workPlugins } from './tables.ts'

type WorkPluginRow = typeof workPlugins.$inferSelect

export interface WorkPluginServiceDeps {
  db: Db
  clock: Clock
  registry: PluginRegistry
  settings: PluginSettings
  access: Pick<WorkAccess, 'requireEdit'>
  activity: Pick<ActivityWriter, 'audit'>
}

const notEnabledForWork = (plugin: Plugin) =>
  badRequest(
    `The ${plugin.name} plugin is not enabled for this work: enable it first`,
    'WORK_PLUGIN_NOT_ENABLED',
  )

function requireCapability(plugin: Plugin, capability: string) {
  if (!plugin.capabilities.includes(capability)) {
    throw badRequest(
      `The ${plugin.name} plugin does not offer "${capability}"; it offers ${plugin.capabilities.join(', ')}`,
      'CAPABILITY_NOT_OFFERED',
    )
  }
}

/** Plugins of one work: edit permission on the work; another account's work is 404. */
export function createWorkPluginService({
  db,
  clock,
  registry,
  settings,
  access,
  activity,
}: WorkPluginServiceDeps) {
  function entryOf(plugin: Plugin, workId: string, row: WorkPluginRow | undefined): WorkPluginEntry {
    return {
      id: plugin.id,
      name: plugin.name,
      category: plugin.category,
      enabled: row?.enabled ?? false,
      activeCapability: row?.activeCapability ?? null,
      priority: row?.priority ?? 0,
      settings: row ? settings.shown(plugin, { kind: 'work', workId }, row) : {},
    }
  }

  /**
   * Runs `change` with the work's row locked, so plugin changes of one work (capability switches above all)
   * happen one after another; the partial unique index guards the rule even without the lock.
   */
  async function inWorkLock<T>(workId: string, change: (tx: Tx) => Promise<T>): Promise<T> {
    return db.transaction(async (tx) => {
      await tx.select({ id: works.id }).from(works).where(eq(works.id, workId)).for('no key update')
      return change(tx)
    })
  }

  async function rowOf(tx: Tx, workId: string, pluginId: string) {
    const [row] = await tx
      .select()
      .from(workPlugins)
      .where(and(eq(workPlugins.workId, workId), eq(workPlugins.pluginId, pluginId)))
    return row
  }

  /** Makes the plugin the holder of `capability` in the work, taking it from whichever plugin held it. */
  async function claim(tx: Tx, workId: string, pluginId: string, capability: string) {
    await tx
      .update(workPlugins)
      .set({ activeCapability: null, updatedAt: clock.now() })
      .where(
        and(
          eq(workPlugins.workId, workId),
          eq(workPlugins.activeCapability, capability),
          ne(workPlugins.pluginId, pluginId),
        ),
      )
    const [row] = await tx
      .update(workPlugins)
      .set({ activeCapability: capability, updatedAt: clock.now() })
      .where(and(eq(workPlugins.workId, workId), eq(workPlugins.pluginId, pluginId)))
      .returning()
    return row!
  }

  /** The first capability of the plugin that no plugin of the work holds yet. */
  async function freeCapability(tx: Tx, workId: string, plugin: Plugin): Promise<string | undefined> {
    const held = await tx
      .select({ capability: workPlugins.activeCapability })
      .from(workPlugins)
      .where(eq(workPlugins.workId, workId))
    const taken = new Set(held.map((row) => row.capability))
    return plugin.capabilities.find((capability) => !taken.has(capability))
  }

  const audit = (
    tx: Tx,
    userId: string,
    work: WorkWithRole,
    plugin: Plugin,
    what: {
      actionType: 'plugin_enabled' | 'plugin_disabled' | 'plugin_configured'
      action: string
      summary: string
    },
    details: Record<string, unknown>,
    context: EventContext,
  ) =>
    activity.audit(
      {
        userId,
        workId: work.id,
        ...what,
        status: 'completed',
        details: { pluginId: plugin.id, ...details },
        context,
      },
      tx,
    )

  return {
    async list(userId: string, workId: string): Promise<WorkPluginEntry[]> {
      const work = await access.requireEdit(workId, userId)
      const rows = await db.select().from(workPlugins).where(eq(workPlugins.workId, work.id))
      const byPlugin = new Map(rows.map((row) => [row.pluginId, row]))
      return registry.list().map((plugin) => entryOf(plugin, work.id, byPlugin.get(plugin.id)))
    },

    /** Enables the plugin for the work; its owner must have enabled it for their account (400 otherwise). */
    async enable(
      userId: string,
      workId: string,
      pluginId: string,
      body: EnableWorkPluginBody,
      context: EventContext,
    ): Promise<WorkPluginEntry> {
      const work = await access.requireEdit(workId, userId)
      const plugin = registry.require(pluginId)
      if (body.activeCapability !== undefined) requireCapability(plugin, body.activeCapability)
      const change = validatedChange(plugin, { settings: body.settings ?? {} })
      const row = await inWorkLock(work.id, async (tx) => {
        const [ownerLevel] = await tx
          .select({ enabled: userPlugins.enabled })
          .from(userPlugins)
          .where(and(eq(userPlugins.userId, work.ownerId), eq(userPlugins.pluginId, plugin.id)))
        if (!ownerLevel?.enabled) {
          throw badRequest(
            work.ownerId === userId
              ? `Enable the ${plugin.name} plugin for your account first (POST /api/plugins/${plugin.id}/enable)`
              : `The owner of this work has not enabled the ${plugin.name} plugin for their account`,
            'PLUGIN_NOT_ENABLED',
          )
        }
        const current = await rowOf(tx, work.id, plugin.id)
        const level = settings.merge(
          plugin,
          { kind: 'work', workId: work.id },
          current ?? { settings: {}, secretSettings: {} },
          change,
        )
        const now = clock.now()
        const priority = body.priority ?? current?.priority ?? 0
        await tx
          .insert(workPlugins)
          .values({
            workId: work.id,
            pluginId: plugin.id,
            enabled: true,
            ...level,
            priority,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoUpdate({
            target: [workPlugins.workId, workPlugins.pluginId],
            set: { enabled: true, ...level, priority, updatedAt: now },
          })
        const capability =
          body.activeCapability ?? current?.activeCapability ?? (await freeCapability(tx, work.id, plugin))
        const saved = capability
          ? await claim(tx, work.id, plugin.id, capability)
          : (await rowOf(tx, work.id, plugin.id))!
        await audit(
          tx,
          userId,
          work,
          plugin,
          {
            actionType: 'plugin_enabled',
            action: 'work.plugin_enabled',
            summary: `Enabled ${plugin.name} for "${work.name}"`,
          },
          { activeCapability: saved.activeCapability, settingsChanged: Object.keys(change.settings) },
          context,
        )
        return saved
      })
      return entryOf(plugin, work.id, row)
    },

    /** Disables the plugin for the work only; it gives up any capability it held. */
    async disable(
      userId: string,
      workId: string,
      pluginId: string,
      context: EventContext,
    ): Promise<WorkPluginEntry> {
      const work = await access.requireEdit(workId, userId)
      const plugin = registry.require(pluginId)
      const row = await inWorkLock(work.id, async (tx) => {
        const [saved] = await tx
          .update(workPlugins)
          .set({ enabled: false, activeCapability: null, updatedAt: clock.now() })
          .where(and(eq(workPlugins.workId, work.id), eq(workPlugins.pluginId, plugin.id)))
          .returning()
        if (saved) {
          await audit(
            tx,
            userId,
            work,
            plugin,
            {
              actionType: 'plugin_disabled',
              action: 'work.plugin_disabled',
              summary: `Disabled ${plugin.name} for "${work.name}"`,
            },
            {},
            context,
          )
        }
        return saved
      })
      return entryOf(plugin, work.id, row)
    },

    /** Merges the work's own settings of a plugin enabled for it (400 otherwise). */
    async updateSettings(
      userId: string,
      workId: string,
      pluginId: string,
      body: UpdateWorkPluginSettingsBody,
      context: EventContext,
    ): Promise<WorkPluginEntry> {
      const work = await access.requireEdit(workId, userId)
      const plugin = registry.require(pluginId)
      const change = validatedChange(plugin, body)
      const row = await inWorkLock(work.id, async (tx) => {
        const current = await rowOf(tx, work.id, plugin.id)
        if (!current?.enabled) throw notEnabledForWork(plugin)
        const level = settings.merge(plugin, { kind: 'work', workId: work.id }, current, change)
        const [saved] = await tx
          .update(workPlugins)
          .set({ ...level, updatedAt: clock.now() })
          .where(and(eq(workPlugins.workId, work.id), eq(workPlugins.pluginId, plugin.id)))
          .returning()
        await audit(
          tx,
          userId,
          work,
          plugin,
          {
            actionType: 'plugin_configured',
            action: 'work.plugin_configured',
            summary: `Updated the ${plugin.name} settings of "${work.name}"`,
          },
          { settingsChanged: [...Object.keys(change.settings), ...Object.keys(change.secrets)] },
          context,
        )
        return saved!
      })
      return entryOf(plugin, work.id, row)
    },

    /** Makes the plugin the work's active provider of the capability, deactivating the previous one. */
    async switchCapability(
      userId: string,
      workId: string,
      pluginId: string,
      body: CapabilityBody,
      context: EventContext,
    ): Promise<WorkPluginEntry> {
      const work = await access.requireEdit(workId, userId)
      const plugin = registry.require(pluginId)
      requireCapability(plugin, body.capability)
      const row = await inWorkLock(work.id, async (tx) => {
        const current = await rowOf(tx, work.id, plugin.id)
        if (!current?.enabled) throw notEnabledForWork(plugin)
        const saved = await claim(tx, work.id, plugin.id, body.capability)
        await audit(
          tx,
          userId,
          work,
          plugin,
          {
            actionType: 'plugin_configured',
            action: 'work.plugin_capability_switched',
            summary: `${plugin.name} is now the ${body.capability} of "${work.name}"`,
          },
          { capability: body.capability },
          context,
        )
        return saved
      })
      return entryOf(plugin, work.id, row)
    },
  }
}

export type WorkPluginService = ReturnType<typeof createWorkPluginService>
