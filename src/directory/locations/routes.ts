import type { App } from '../../http/app.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { invalidField } from '../../http/schemas.ts'
import { type FieldIssue, invalidInput } from '../../lib/errors.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'
import {
  GeoAnalyticsAnswer,
  IndexStatusAnswer,
  MAP_LIMITS,
  MapAnswer,
  MapQuerySchema,
  RebuildAnswer,
} from './schemas.ts'
import type { LocationService, MapQuery } from './service.ts'

const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/

/** Comma-separated decimal degrees, or null when any part is not a plain number. */
function numbersOf(text: string, expected: number): number[] | null {
  const parts = text.split(',')
  if (parts.length !== expected || !parts.every((part) => NUMBER.test(part))) return null
  return parts.map(Number)
}

/** A map query from `bbox`, or `near` (and `radius`): exactly one of them, each checked, every field named. */
export function mapQueryOf(query: MapQuerySchema): MapQuery {
  const issues: FieldIssue[] = []
  const { bbox, near, radius, limit } = query
  if ((bbox === undefined) === (near === undefined)) {
    issues.push({ field: 'bbox', message: 'send bbox, or near (with an optional radius), one of the two' })
  }
  if (bbox !== undefined && radius !== undefined)
    issues.push({ field: 'radius', message: 'goes with near, not bbox' })
  if (bbox !== undefined) {
    const box = numbersOf(bbox, 4)
    if (!box) issues.push({ field: 'bbox', message: 'must be west,south,east,north in decimal degrees' })
    else {
      const [west, south, east, north] = box as [number, number, number, number]
      if ([west, east].some((lng) => lng < -180 || lng > 180))
        issues.push({ field: 'bbox', message: 'longitudes must be -180 to 180' })
      if ([south, north].some((lat) => lat < -90 || lat > 90))
        issues.push({ field: 'bbox', message: 'latitudes must be -90 to 90' })
      if (south > north) issues.push({ field: 'bbox', message: 'south must not be above north' })
      if (issues.length === 0) return { kind: 'bbox', west, south, east, north, limit }
    }
  }
  if (near !== undefined) {
    const point = numbersOf(near, 2)
    if (!point) issues.push({ field: 'near', message: 'must be latitude,longitude in decimal degrees' })
    else {
      const [latitude, longitude] = point as [number, number]
      if (latitude < -90 || latitude > 90)
        issues.push({ field: 'near', message: 'latitude must be -90 to 90' })
      if (longitude < -180 || longitude > 180)
        issues.push({ field: 'near', message: 'longitude must be -180 to 180' })
      if (issues.length === 0) {
        return { kind: 'near', latitude, longitude, radiusKm: radius ?? MAP_LIMITS.defaultRadiusKm, limit }
      }
    }
  }
  throw invalidInput(issues)
}

export function locationRoutes(
  app: App,
  { locations, rateLimit }: { locations: LocationService; rateLimit: RateLimit },
) {
  app.get(
    '/api/admin/geo-analytics',
    {
      config: { access: 'admin-401' },
      schema: {
        tags: ['locations'],
        summary: 'Geographic analytics',
        description:
          'Coverage and index health of the published items, their distributions by country, city (top 20) and ' +
          'service area, every indexed point, and the heatmap, computed from the database on every call ' +
          '(`Cache-Control: no-store`). `coveragePercent` = itemsWithLocation / totalItems × 100 (one decimal; an ' +
          'item has a location when it has a latitude or is remote); `expectedCount` = itemsWithLocation − ' +
          'itemsRemote; `indexCount` = totalIndexed − remoteCount; `synced` when they are equal. When it is not, ' +
          'rebuild the index with POST /api/admin/location-index.',
        response: { 200: GeoAnalyticsAnswer, ...errors(401) },
      },
    },
    async (_req, reply) =>
      // Already JSON: Postgres built the arrays (see the service), so it is sent as it is.
      reply
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send((await locations.analytics()) as never),
  )

  app.post(
    '/api/admin/location-index',
    {
      config: { access: 'admin', optionalBody: true },
      schema: {
        tags: ['locations'],
        summary: 'Rebuild the location index',
        description:
          'Queues a rebuild, a durable job in steps of `LOCATION_INDEX_BATCH_SIZE` items: each step geocodes the ' +
          'published items that lack coordinates but have an address, city or country (writing the coordinates ' +
          'to the item, with a history entry), re-indexes the batch and saves its progress with the next step, ' +
          'so a restart resumes where it stopped; the last step drops any entry that no longer belongs. Follow ' +
          'it with GET /api/admin/location-index or the settings’ map-status. One rebuild at a time: 409 ' +
          '`LOCATION_INDEX_BUSY` while one is queued or running (a run without progress for 15 minutes is taken ' +
          'as failed). 503 `LOCATION_DISABLED` when location features are off. The index itself follows every ' +
          'item write without a rebuild.',
        response: {
          202: RebuildAnswer,
          ...errors(
            401,
            [403, 'FORBIDDEN', 'CROSS_ORIGIN'],
            [409, 'LOCATION_INDEX_BUSY'],
            [503, 'LOCATION_DISABLED'],
          ),
        },
      },
    },
    async (req, reply) =>
      reply.code(202).send({
        success: true as const,
        message: 'Location index rebuild queued',
        data: await locations.requestRebuild(viewerOf(req).user.id),
      }),
  )

  app.get(
    '/api/admin/location-index',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['locations'],
        summary: 'Location index status',
        description:
          'How many entries the index has, when it was last brought up to date (`lastIndexedAt`: its latest ' +
          'write, or the end of the latest completed rebuild if later), and the latest rebuild with its progress ' +
          '(processed of total, geocoded, failed and skipped).',
        response: { 200: IndexStatusAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await locations.indexStatus() }),
  )

  app.get(
    '/api/locations',
    {
      config: { access: 'public' },
      preHandler: rateLimit('GET /api/locations', RATE_LIMITS.locations),
      schema: {
        tags: ['locations'],
        summary: 'Items on the map',
        description:
          'Published items with coordinates (never remote ones) from the location index, read through its ' +
          'spatial (GiST) index: `bbox=west,south,east,north` answers those in the box by slug (west > east ' +
          'crosses the antimeridian); `near=latitude,longitude` with `radius` in km (default ' +
          `${MAP_LIMITS.defaultRadiusKm}, at most ${MAP_LIMITS.maxRadiusKm}) answers those within it, nearest ` +
          `first, with \`distanceKm\` (great-circle). \`limit\` 1 to ${MAP_LIMITS.maxLimit} (default ` +
          `${MAP_LIMITS.defaultLimit}). 503 \`LOCATION_DISABLED\` when location features are off. ` +
          `${describeRule(RATE_LIMITS.locations)}.`,
        querystring: MapQuerySchema,
        response: {
          200: MapAnswer,
          ...errors(
            [400, invalidField('query.bbox', 'must be west,south,east,north in decimal degrees')],
            429,
            [503, 'LOCATION_DISABLED'],
          ),
        },
      },
    },
    async (req) => {
      const data = await locations.map(mapQueryOf(req.query))
      return { success: true as const, data, count: data.length }
    },
  )
}
