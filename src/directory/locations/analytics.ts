import { desc, eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/queries.ts'
import { items } from '../items/tables.ts'
import { itemLocations, locationIndexRuns } from './tables.ts'

/** SPEC.md: the distribution by city lists the top 20. */
const TOP_CITIES = 20

interface Group {
  value: string | null
  remote: boolean | null
  n: number
  /** Which grouping set the row belongs to: `country`, `city`, `area` or `remote`. */
  dimension: 'country' | 'city' | 'area' | 'remote'
}

/** Most items first, then by name; empty names are left out. */
function ranked(groups: Group[], dimension: Group['dimension']) {
  return groups
    .filter((group) => group.dimension === dimension && group.value)
    .sort((a, b) => b.n - a.n || ((a.value as string) < (b.value as string) ? -1 : 1))
}

/**
 * When the index was last brought up to date: its latest write, or the end of the latest completed rebuild
 * (which writes no row it finds right).
 */
const latest = (write: Date | undefined, rebuild: Date | null | undefined): Date | undefined =>
  rebuild && (!write || rebuild > write) ? rebuild : write

/**
 * SPEC.md's geographic analytics as a JSON body, from the items and the index as they are now (never
 * cached). Five statements run side by side, each one pass: the published items' figures (an index-only
 * scan), every distribution at once (grouping sets, hashed), the index's latest write, the points, and the
 * latest rebuild. The points' two arrays are joined from the JSON text each index row carries (written with
 * the row): at 100,000 items that is a fraction of what building 200,000 JSON objects costs on every call.
 */
export async function geoAnalytics(db: Db): Promise<string> {
  const [itemRows, groups, indexed, points, lastRun] = await Promise.all([
    db
      .select({
        totalItems: sql<number>`count(*)::int`,
        withLocation: sql<number>`(count(*) filter (where ${items.isRemote} or ${items.latitude} is not null))::int`,
        remote: sql<number>`(count(*) filter (where ${items.isRemote}))::int`,
      })
      .from(items)
      .where(eq(items.status, 'published')),
    rowsOf<Group>(
      db,
      sql`select coalesce(country, city, service_area) as value, is_remote as remote, count(*)::int as n,
            case when grouping(country) = 0 then 'country' when grouping(city) = 0 then 'city'
                 when grouping(service_area) = 0 then 'area' else 'remote' end as dimension
          from ${itemLocations}
          group by grouping sets ((country), (city), (service_area), (is_remote))`,
    ),
    db
      .select({ at: itemLocations.indexedAt })
      .from(itemLocations)
      .orderBy(desc(itemLocations.indexedAt))
      .limit(1),
    rowsOf<{ locations: string | null; heatmap: string | null }>(
      db,
      sql`select string_agg(entry_json, ',') as locations, string_agg(point_json, ',') as heatmap
          from ${itemLocations} where not is_remote`,
    ),
    db
      .select({ finishedAt: locationIndexRuns.finishedAt })
      .from(locationIndexRuns)
      .where(eq(locationIndexRuns.status, 'completed'))
      .orderBy(desc(locationIndexRuns.finishedAt))
      .limit(1),
  ])

  const figures = itemRows[0] ?? { totalItems: 0, withLocation: 0, remote: 0 }
  const remoteGroups = groups.filter((group) => group.dimension === 'remote')
  const totalIndexed = remoteGroups.reduce((sum, group) => sum + group.n, 0)
  const remoteCount = remoteGroups.find((group) => group.remote === true)?.n ?? 0
  const countries = ranked(groups, 'country')
  const cities = ranked(groups, 'city')
  const expectedCount = figures.withLocation - figures.remote
  const indexCount = totalIndexed - remoteCount
  const stats = {
    totalIndexed,
    totalItems: figures.totalItems,
    itemsWithLocation: figures.withLocation,
    itemsRemote: figures.remote,
    coveragePercent:
      figures.totalItems === 0 ? 0 : Math.round((figures.withLocation / figures.totalItems) * 1000) / 10,
    indexHealth: { synced: indexCount === expectedCount, indexCount, expectedCount },
    citiesCount: cities.length,
    countriesCount: countries.length,
    remoteCount,
    lastIndexedAt: latest(indexed[0]?.at, lastRun[0]?.finishedAt)?.toISOString() ?? null,
    lastRebuildAt: lastRun[0]?.finishedAt?.toISOString() ?? null,
  }
  const distributions = {
    byCountry: countries.map(({ value, n }) => ({ name: value, count: n })),
    byCity: cities.slice(0, TOP_CITIES).map(({ value, n }) => ({ name: value, count: n })),
    byServiceArea: ranked(groups, 'area').map(({ value, n }) => ({ area: value, count: n })),
  }

  // One scan aggregates both arrays, so their entries come in the same order.
  const joined = points[0] ?? { locations: null, heatmap: null }
  return (
    `{"success":true,"data":{"stats":${JSON.stringify(stats)},"distributions":${JSON.stringify(distributions)},` +
    `"locations":[${joined.locations ?? ''}],"heatmapData":[${joined.heatmap ?? ''}]}}`
  )
}
