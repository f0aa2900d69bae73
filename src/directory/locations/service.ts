import { and, asc, count, desc, eq, gt, inArray, max, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { uniqueViolation } from '../../db/errors.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, HttpError } from '../../lib/errors.ts'
import { type Clearable, contentWriter, ITEMS_CONTENT } from '../content.ts'
import type { GeocodingService } from '../geocoding/service.ts'
import type { ItemService } from '../items/service.ts'
import { items } from '../items/tables.ts'
import { geoAnalytics } from './analytics.ts'
import { itemLocations, locationIndexRuns } from './tables.ts'

export const LOCATION_INDEX_JOB = 'location-index-rebuild'
export interface LocationIndexJob {
  runId: string
}

/** A run with no progress for this long is taken as dead (its job failed for good): a new one may start. */
export const STALLED_RUN_MS = 15 * 60 * 1000
/** Geocoding calls one step makes at once. */
const GEOCODE_CONCURRENCY = 4
const EARTH_RADIUS_KM = 6371
const KM_PER_DEGREE = 111.32

export interface LocationServiceDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  jobs: Pick<Jobs, 'send'>
  geocoding: Pick<GeocodingService, 'place'>
  /** The items module gives an item its geocoded coordinates. */
  items: Pick<ItemService, 'setCoordinates'>
  batchSize: number
  /** Whether location features are on (the instance's setting and the site's). */
  locationEnabled: () => Promise<boolean>
  /** What an item write makes stale on this instance (a geocoded item's new coordinates). */
  caches: readonly Clearable[]
}

type Run = typeof locationIndexRuns.$inferSelect

/** A run as its status shows it, with its progress in percent. */
export const runOf = (run: Run) => ({
  id: run.id,
  status: run.status,
  total: run.total,
  processed: run.processed,
  progressPercent:
    run.total === 0
      ? run.status === 'completed'
        ? 100
        : 0
      : Math.min(100, Math.round((run.processed / run.total) * 1000) / 10),
  geocoded: run.geocoded,
  geocodeFailed: run.geocodeFailed,
  skipped: run.skipped,
  error: run.error,
  requestedBy: run.requestedBy,
  createdAt: run.createdAt,
  startedAt: run.startedAt,
  finishedAt: run.finishedAt,
  updatedAt: run.updatedAt,
})
export type RunStatus = ReturnType<typeof runOf>

const eligible = sql`${items.status} = 'published' and (${items.isRemote} or ${items.latitude} is not null)`

/** Runs `work` on each of `values`, `limit` at a time. */
async function eachLimited<T>(values: readonly T[], limit: number, work: (value: T) => Promise<void>) {
  let next = 0
  const lanes = Array.from({ length: Math.min(limit, values.length) }, async () => {
    while (next < values.length) await work(values[next++] as T)
  })
  await Promise.all(lanes)
}

/** The boxes (one, or two across the antimeridian) of longitudes `west`..`east` and latitudes `south`..`north`. */
function boxesOf(west: number, south: number, east: number, north: number) {
  const box = (w: number, e: number) =>
    sql`point(${itemLocations.longitude}, ${itemLocations.latitude}) <@ box(point(${w}, ${south}), point(${e}, ${north}))`
  return west <= east ? box(west, east) : sql`(${box(west, 180)} or ${box(-180, east)})`
}

/** The distance in km from (`latitude`, `longitude`) to an index row, by the haversine formula. */
const distanceFrom = (latitude: number, longitude: number) =>
  sql<number>`${2 * EARTH_RADIUS_KM} * asin(sqrt(power(sin(radians(${itemLocations.latitude} - ${latitude}::float8) / 2), 2) + cos(radians(${latitude}::float8)) * cos(radians(${itemLocations.latitude})) * power(sin(radians(${itemLocations.longitude} - ${longitude}::float8) / 2), 2)))`

export type MapQuery =
  | { kind: 'bbox'; west: number; south: number; east: number; north: number; limit: number }
  | { kind: 'near'; latitude: number; longitude: number; radiusKm: number; limit: number }

/**
 * The location index: the public map's reads by bounding box and radius, the geographic analytics, and
 * the rebuild, a durable job in steps.
 */
export function createLocationService(deps: LocationServiceDeps) {
  const { db, clock, log, jobs, geocoding, batchSize, items: itemService } = deps
  const writeItems = contentWriter(db, ITEMS_CONTENT, deps.caches)

  async function latestRun(executor: DbOrTx = db): Promise<Run | null> {
    // The active run, if any (at most one); else the newest.
    const [run] = await executor
      .select()
      .from(locationIndexRuns)
      .orderBy(
        desc(sql`${locationIndexRuns.status} in ('queued', 'running')`),
        desc(locationIndexRuns.createdAt),
        desc(locationIndexRuns.id),
      )
      .limit(1)
    return run ?? null
  }

  async function checkEnabled() {
    if (!(await deps.locationEnabled())) {
      throw new HttpError(503, 'LOCATION_DISABLED', 'Location features are disabled on this site')
    }
  }

  /** Re-indexes `ids` from the items as they are now: rows for the eligible, none for the others. */
  async function reindex(tx: DbOrTx, ids: string[], at: Date) {
    if (ids.length === 0) return
    await tx.execute(sql`
      insert into ${itemLocations}
        (item_id, item_slug, latitude, longitude, city, country, service_area, is_remote, indexed_at, entry_json, point_json)
      select id, slug, lat, lng, city, country, service_area, is_remote, ${at},
             directory.location_entry_json(slug, lat, lng, city, country, is_remote),
             directory.location_point_json(lat, lng)
      from (select *, case when is_remote then 0 else latitude end as lat, case when is_remote then 0 else longitude end as lng
            from ${items} where ${inArray(items.id, ids)} and ${eligible}) as eligible_items
      on conflict (item_id) do update set
        item_slug = excluded.item_slug, latitude = excluded.latitude, longitude = excluded.longitude,
        city = excluded.city, country = excluded.country, service_area = excluded.service_area,
        is_remote = excluded.is_remote, indexed_at = excluded.indexed_at,
        entry_json = excluded.entry_json, point_json = excluded.point_json
        where (${itemLocations}.item_slug, ${itemLocations}.latitude, ${itemLocations}.longitude, ${itemLocations}.city,
               ${itemLocations}.country, ${itemLocations}.service_area, ${itemLocations}.is_remote)
          is distinct from (excluded.item_slug, excluded.latitude, excluded.longitude, excluded.city,
               excluded.country, excluded.service_area, excluded.is_remote)`)
    await tx.execute(sql`
      delete from ${itemLocations} where ${inArray(itemLocations.itemId, ids)}
        and not exists (select 1 from ${items} where ${items.id} = ${itemLocations.itemId} and ${eligible})`)
  }

  /** Geocodes the published items of a batch that lack coordinates; counts what happened. */
  async function geocodeBatch(batch: (typeof items.$inferSelect)[], actorId: string | null) {
    const tally = { geocoded: 0, failed: 0, skipped: 0 }
    const missing = batch.filter(
      (item) => item.status === 'published' && item.latitude === null && !item.isRemote,
    )
    await eachLimited(missing, GEOCODE_CONCURRENCY, async (item) => {
      const address = [item.address, item.city, item.country].filter((part) => part?.trim()).join(', ')
      if (!address) {
        tally.skipped++
        return
      }
      const answer = await geocoding.place({ address: address.slice(0, 500) })
      if (!answer.ok) {
        if (answer.off) tally.skipped++
        else {
          tally.failed++
          log.warn({ itemId: item.id, error: answer.error }, 'location index: geocoding failed')
        }
        return
      }
      if (!answer.result) {
        tally.failed++
        return
      }
      const { latitude, longitude, city, country } = answer.result
      const changed = await writeItems((tx) =>
        itemService.setCoordinates(
          tx,
          item.id,
          {
            latitude,
            longitude,
            ...(item.city ? {} : city ? { city: city.slice(0, 100) } : {}),
            ...(item.country ? {} : country ? { country: country.slice(0, 100) } : {}),
          },
          { actorId, note: `Geocoded from "${address.slice(0, 200)}" by the location index rebuild` },
        ),
      )
      if (changed) tally.geocoded++
    })
    return tally
  }

  /** One step of a run: the next batch after its cursor; the next step is queued with its progress. */
  async function step(runId: string): Promise<void> {
    let run = (await db.select().from(locationIndexRuns).where(eq(locationIndexRuns.id, runId)))[0]
    if (!run || run.status === 'completed' || run.status === 'failed') return
    if (run.status === 'queued') {
      const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(items)
      const now = clock.now()
      ;[run] = await db
        .update(locationIndexRuns)
        .set({ status: 'running', total, startedAt: now, updatedAt: now })
        .where(and(eq(locationIndexRuns.id, runId), eq(locationIndexRuns.status, 'queued')))
        .returning()
      if (!run) return
    }
    const cursor = run.cursor
    const batch = await db
      .select()
      .from(items)
      .where(cursor ? gt(items.id, cursor) : undefined)
      .orderBy(asc(items.id))
      .limit(batchSize)
    const tally = await geocodeBatch(batch, run.requestedBy)
    const done = batch.length < batchSize
    await db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(locationIndexRuns)
        .where(eq(locationIndexRuns.id, runId))
        .for('update')
      // Another attempt of this step got here first: its progress stands.
      if (current?.status !== 'running' || current.cursor !== cursor) return
      const now = clock.now()
      await reindex(
        tx,
        batch.map((item) => item.id),
        now,
      )
      if (done) {
        // Drift no batch can see (rows of items that left the published set between steps) goes too.
        await tx.execute(sql`
          delete from ${itemLocations} where not exists
            (select 1 from ${items} where ${items.id} = ${itemLocations.itemId} and ${eligible})`)
      }
      await tx
        .update(locationIndexRuns)
        .set({
          processed: current.processed + batch.length,
          geocoded: current.geocoded + tally.geocoded,
          geocodeFailed: current.geocodeFailed + tally.failed,
          skipped: current.skipped + tally.skipped,
          cursor: batch.at(-1)?.id ?? cursor,
          ...(done ? { status: 'completed' as const, finishedAt: now } : {}),
          // More items than counted at the start (added meanwhile): the total follows what was done.
          total: Math.max(current.total, current.processed + batch.length),
          updatedAt: now,
        })
        .where(eq(locationIndexRuns.id, runId))
      if (!done) await jobs.send<LocationIndexJob>(LOCATION_INDEX_JOB, { runId }, { tx })
    })
    if (done) log.info({ runId }, 'location index rebuilt')
  }

  return {
    step,

    /** Queues a rebuild: 409 while one is queued or running (unless it stalled, which is failed first). */
    async requestRebuild(actorId: string): Promise<RunStatus> {
      await checkEnabled()
      const now = clock.now()
      try {
        return await db.transaction(async (tx) => {
          await tx
            .update(locationIndexRuns)
            .set({
              status: 'failed',
              error: 'stalled: no progress for 15 minutes',
              finishedAt: now,
              updatedAt: now,
            })
            .where(
              and(
                inArray(locationIndexRuns.status, ['queued', 'running']),
                sql`${locationIndexRuns.updatedAt} < ${new Date(now.getTime() - STALLED_RUN_MS)}`,
              ),
            )
          const [run] = await tx
            .insert(locationIndexRuns)
            .values({ status: 'queued', requestedBy: actorId, createdAt: now, updatedAt: now })
            .returning()
          if (!run) throw new Error('location index run insert returned no row')
          await jobs.send<LocationIndexJob>(LOCATION_INDEX_JOB, { runId: run.id }, { tx })
          return runOf(run)
        })
      } catch (error) {
        if (uniqueViolation(error)?.constraint !== 'location_index_runs_one_active') throw error
        const active = await latestRun()
        const progress = active ? ` (${active.processed} of ${active.total} items done)` : ''
        throw conflict(
          `A location index rebuild is already ${active?.status ?? 'running'}${progress}`,
          'LOCATION_INDEX_BUSY',
        )
      }
    },

    /**
     * The latest run, and the index's own figures. `lastIndexedAt` is its latest write, or the end of the
     * latest completed rebuild when that is later: a rebuild that finds every row right writes none, yet
     * the index is up to date as of its end.
     */
    async indexStatus() {
      const run = await latestRun()
      const [figures] = await db
        .select({
          entries: count(),
          lastIndexedAt: sql<Date | null>`greatest(max(${itemLocations.indexedAt}), (${db
            .select({ at: max(locationIndexRuns.finishedAt) })
            .from(locationIndexRuns)
            .where(eq(locationIndexRuns.status, 'completed'))}))`.mapWith((value) =>
            value === null ? null : new Date(value),
          ),
        })
        .from(itemLocations)
      return {
        entries: figures?.entries ?? 0,
        lastIndexedAt: figures?.lastIndexedAt ?? null,
        run: run ? runOf(run) : null,
      }
    },

    /** The public map: published, non-remote items in a box or within a radius, through the GiST index. */
    async map(query: MapQuery) {
      await checkEnabled()
      const columns = {
        itemSlug: itemLocations.itemSlug,
        name: items.name,
        latitude: itemLocations.latitude,
        longitude: itemLocations.longitude,
        city: itemLocations.city,
        country: itemLocations.country,
      }
      if (query.kind === 'bbox') {
        const rows = await db
          .select(columns)
          .from(itemLocations)
          .innerJoin(items, eq(items.id, itemLocations.itemId))
          .where(
            and(boxesOf(query.west, query.south, query.east, query.north), eq(itemLocations.isRemote, false)),
          )
          .orderBy(asc(itemLocations.itemSlug))
          .limit(query.limit)
        return rows
      }
      const { latitude, longitude, radiusKm } = query
      const dLat = radiusKm / KM_PER_DEGREE
      const cosine = Math.cos((latitude * Math.PI) / 180)
      const dLng = cosine < 1e-6 ? 360 : radiusKm / (KM_PER_DEGREE * cosine)
      const south = Math.max(-90, latitude - dLat)
      const north = Math.min(90, latitude + dLat)
      // A box reaching a pole, or wider than the world, spans every longitude.
      const allLongitudes = dLng >= 180 || south <= -90 || north >= 90
      const west = allLongitudes ? -180 : ((longitude - dLng + 540) % 360) - 180
      const east = allLongitudes ? 180 : ((longitude + dLng + 540) % 360) - 180
      const distance = distanceFrom(latitude, longitude)
      const rows = await db
        .select({ ...columns, distanceKm: distance })
        .from(itemLocations)
        .innerJoin(items, eq(items.id, itemLocations.itemId))
        .where(
          and(
            boxesOf(west, south, east, north),
            eq(itemLocations.isRemote, false),
            sql`${distance} <= ${radiusKm}::float8`,
          ),
        )
        .orderBy(distance, asc(itemLocations.itemSlug))
        .limit(query.limit)
      return rows.map((row) => ({ ...row, distanceKm: Math.round(Number(row.distanceKm) * 1000) / 1000 }))
    },

    /** SPEC.md's geographic analytics, as a JSON body (see `geoAnalytics`). */
    analytics: () => geoAnalytics(db),
  }
}

export type LocationService = ReturnType<typeof createLocationService>
export type IndexStatus = Awaited<ReturnType<LocationService['indexStatus']>>
