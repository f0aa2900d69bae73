import { count, eq, sql } from 'drizzle-orm'
import type { Config } from '../../config.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import { createInvalidatedCache, type InvalidatedCache } from '../../db/invalidated-cache.ts'
import type { Clock } from '../../lib/clock.ts'
import { type FieldIssue, invalidInput } from '../../lib/errors.ts'
import {
  type Clearable,
  CONTENT_CHANGED_CHANNEL,
  contentWriter,
  NAVIGATION_CONTENT,
  SETTINGS_CONTENT,
} from '../content.ts'
import { geocodingProviders } from '../geocoding/service.ts'
import { items } from '../items/tables.ts'
import type { IndexStatus } from '../locations/service.ts'
import {
  type NavigationBody,
  type NavigationEntry,
  SETTINGS_DEFAULTS,
  type Settings,
  type UpdateSettingsBody,
} from './schemas.ts'
import { siteDocuments } from './tables.ts'

interface Stored {
  value: Record<string, unknown> | null
  updatedAt: Date | null
}

/**
 * The site's settings and navigation as stored, each instance's own: every write notifies
 * `CONTENT_CHANGED_CHANNEL` with `settings` or `navigation` in its transaction, and each instance forgets
 * that document on it.
 */
export function createSiteCache(clock: Pick<Clock, 'nowMs'>): InvalidatedCache<Stored> {
  return createInvalidatedCache<Stored>({
    name: 'site',
    channel: CONTENT_CHANGED_CHANNEL,
    invalidates: (payload) =>
      payload === SETTINGS_CONTENT || payload === NAVIGATION_CONTENT ? { key: payload } : 'none',
    clock,
  })
}

type Group = keyof Settings

/** The stored settings over the defaults: a setting added later reads as its default until saved. */
function settingsOf(stored: Record<string, unknown> | null): Settings {
  const settings = structuredClone(SETTINGS_DEFAULTS) as Settings
  for (const group of Object.keys(settings) as Group[]) {
    const saved = stored?.[group]
    if (!saved || typeof saved !== 'object') continue
    for (const key of Object.keys(settings[group])) {
      if (key in saved)
        (settings[group] as Record<string, unknown>)[key] = (saved as Record<string, unknown>)[key]
    }
  }
  return settings
}

const isExternal = (href: string) => /^https?:\/\//.test(href)

type EntryInput = { label: string; href?: string; children?: EntryInput[] }

/** The menus with labels trimmed; an entry needs a link or entries below it (400 naming each that has neither). */
function checkedMenus(body: NavigationBody): { header: EntryInput[]; footer: EntryInput[] } {
  const issues: FieldIssue[] = []
  const walk = (entries: EntryInput[], path: string): EntryInput[] =>
    entries.map((entry, index) => {
      const at = `${path}.${index}`
      const label = entry.label.trim()
      if (label === '') issues.push({ field: `${at}.label`, message: 'must not be blank' })
      if (!entry.href && !entry.children?.length) {
        issues.push({ field: `${at}.href`, message: 'is required for an entry without children' })
      }
      return {
        label,
        ...(entry.href ? { href: entry.href } : {}),
        ...(entry.children ? { children: walk(entry.children, `${at}.children`) } : {}),
      }
    })
  const menus = {
    header: walk(body.header as EntryInput[], 'header'),
    footer: walk(body.footer as EntryInput[], 'footer'),
  }
  if (issues.length > 0) throw invalidInput(issues)
  return menus
}

const entryOf = (entry: EntryInput): NavigationEntry => ({
  label: entry.label,
  href: entry.href ?? null,
  external: entry.href ? isExternal(entry.href) : false,
  children: (entry.children ?? []).map(entryOf),
})

/** The site's typed settings, its menus, and what the location features have to work with. */
export interface SiteServiceDeps {
  db: Db
  clock: Clock
  cache: InvalidatedCache<Stored>
  config: Pick<Config, 'locationEnabled' | 'geocodingProvider' | 'mapboxAccessToken' | 'googleMapsApiKey'>
  /** The location index's figures and latest rebuild, for the map status. */
  locationIndex?: () => Promise<IndexStatus>
  /** Caches a settings write makes stale besides the site's own. */
  alsoClears?: readonly Clearable[]
}

export function createSiteService({
  db,
  clock,
  cache,
  config,
  locationIndex,
  alsoClears = [],
}: SiteServiceDeps) {
  const writeSettings = contentWriter(db, SETTINGS_CONTENT, [cache, ...alsoClears])
  const writeNavigation = contentWriter(db, NAVIGATION_CONTENT, [cache])

  const stored = (key: string) =>
    cache.get(key, async () => {
      const [row] = await db.select().from(siteDocuments).where(eq(siteDocuments.key, key))
      return { value: row?.value ?? null, updatedAt: row?.updatedAt ?? null }
    })

  /** The document's row, made when missing and locked, so two admins' saves apply one after the other. */
  async function lockedDocument(tx: DbOrTx, key: string): Promise<Record<string, unknown>> {
    await tx.insert(siteDocuments).values({ key, value: {}, updatedAt: clock.now() }).onConflictDoNothing()
    const [row] = await tx.select().from(siteDocuments).where(eq(siteDocuments.key, key)).for('update')
    return row?.value ?? {}
  }

  async function settings() {
    const { value, updatedAt } = await stored(SETTINGS_CONTENT)
    return { data: settingsOf(value), updatedAt }
  }

  return {
    settings,

    /**
     * Gives the site's name and description from an imported file, in the import's transaction, where the
     * site still has the default name or no description; the caller notifies `SETTINGS_CONTENT` when this
     * answers true, and clears `caches` once it committed.
     */
    async adoptWithin(
      tx: DbOrTx,
      from: { name?: string; description?: string },
      actorId: string | null,
    ): Promise<boolean> {
      const current = settingsOf(await lockedDocument(tx, SETTINGS_CONTENT))
      let changed = false
      if (from.description && !current.site.description.trim()) {
        current.site.description = from.description.slice(0, 500)
        changed = true
      }
      if (from.name && current.site.name === SETTINGS_DEFAULTS.site.name) {
        current.site.name = from.name.slice(0, 100)
        changed = true
      }
      if (!changed) return false
      await tx
        .update(siteDocuments)
        .set({ value: current, updatedBy: actorId, updatedAt: clock.now() })
        .where(eq(siteDocuments.key, SETTINGS_CONTENT))
      return true
    },

    /** What a settings write makes stale on this instance. */
    caches: [cache, ...alsoClears] as readonly Clearable[],

    /** Changes the settings sent, group by group; the others keep their values. */
    async updateSettings(body: UpdateSettingsBody, actorId: string) {
      // Unknown fields are stripped before this point, as on every route: what is left must change something.
      if (Object.keys(body).length === 0) {
        throw invalidInput(
          'body',
          `names no setting to change (the groups are ${Object.keys(SETTINGS_DEFAULTS).join(', ')})`,
        )
      }
      return writeSettings(async (tx) => {
        const current = settingsOf(await lockedDocument(tx, SETTINGS_CONTENT))
        for (const group of Object.keys(body) as Group[]) {
          Object.assign(current[group], body[group])
        }
        const now = clock.now()
        await tx
          .update(siteDocuments)
          .set({ value: current, updatedBy: actorId, updatedAt: now })
          .where(eq(siteDocuments.key, SETTINGS_CONTENT))
        return { data: current, updatedAt: now }
      })
    },

    async navigation() {
      const { value, updatedAt } = await stored(NAVIGATION_CONTENT)
      const menus = (value ?? { header: [], footer: [] }) as { header?: EntryInput[]; footer?: EntryInput[] }
      return {
        data: { header: (menus.header ?? []).map(entryOf), footer: (menus.footer ?? []).map(entryOf) },
        updatedAt,
      }
    },

    /** Replaces both menus whole. */
    async replaceNavigation(body: NavigationBody, actorId: string) {
      const menus = checkedMenus(body)
      const now = clock.now()
      await writeNavigation(async (tx) => {
        await lockedDocument(tx, NAVIGATION_CONTENT)
        await tx
          .update(siteDocuments)
          .set({ value: menus, updatedBy: actorId, updatedAt: now })
          .where(eq(siteDocuments.key, NAVIGATION_CONTENT))
      })
      return {
        data: { header: menus.header.map(entryOf), footer: menus.footer.map(entryOf) },
        updatedAt: now,
      }
    },

    async mapStatus() {
      const { data } = await settings()
      const [figures] = await db
        .select({
          total: count(),
          withCoordinates: sql<number>`count(*) filter (where ${items.latitude} is not null)`.mapWith(Number),
          remote: sql<number>`count(*) filter (where ${items.isRemote})`.mapWith(Number),
          missingLocation:
            sql<number>`count(*) filter (where ${items.latitude} is null and not ${items.isRemote})`.mapWith(
              Number,
            ),
        })
        .from(items)
      const providers = geocodingProviders(config)
      // The instance's LOCATION_ENABLED switches the features off whatever the site's settings say.
      const locationEnabled = config.locationEnabled && data.location.enabled
      return {
        locationEnabled,
        mapEnabled: locationEnabled && data.location.map,
        geocoding: { configured: providers.length > 0, providers },
        items: figures ?? { total: 0, withCoordinates: 0, remote: 0, missingLocation: 0 },
        locationIndex: (await locationIndex?.()) ?? null,
      }
    },
  }
}

export type SiteService = ReturnType<typeof createSiteService>
