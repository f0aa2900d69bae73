import { type Static, type TSchema, Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { LOCATION_INDEX_RUN_STATUSES } from './tables.ts'

export const MAP_LIMITS = {
  defaultLimit: 100,
  maxLimit: 500,
  defaultRadiusKm: 25,
  maxRadiusKm: 1000,
} as const

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const Count = (example: number, description?: string) =>
  Type.Integer({ examples: [example], ...(description ? { description } : {}) })

const EXAMPLE_RUN = {
  id: '6a8c0e2b-4d6f-4a8c-9e0b-2d4f6a8c0e2b',
  status: 'running' as const,
  total: 1500,
  processed: 400,
  progressPercent: 26.7,
  geocoded: 37,
  geocodeFailed: 2,
  skipped: 5,
  error: null,
  requestedBy: '1c3e5a7b-9d0f-4b2d-8e6a-0c2e4a6b8d0f',
  createdAt: '2026-11-22T10:00:00.000Z',
  startedAt: '2026-11-22T10:00:01.000Z',
  finishedAt: null,
  updatedAt: '2026-11-22T10:00:09.000Z',
}

export const LocationIndexRun = Type.Object(
  {
    id: Type.String({ examples: [EXAMPLE_RUN.id] }),
    status: Type.Enum([...LOCATION_INDEX_RUN_STATUSES], { examples: ['running'] }),
    total: Count(1500, 'items to go through, counted when the run started'),
    processed: Count(400, 'items gone through so far'),
    progressPercent: Type.Number({ minimum: 0, maximum: 100, examples: [26.7] }),
    geocoded: Count(37, 'published items given coordinates from their address'),
    geocodeFailed: Count(2, 'addresses no provider could place (nothing found, or every provider failed)'),
    skipped: Count(5, 'items lacking coordinates left as they were: no address, or geocoding off'),
    error: Nullable(
      Type.String({
        description: 'why a failed run failed',
        examples: ['stalled: no progress for 15 minutes'],
      }),
    ),
    requestedBy: Nullable(Type.String({ description: 'the admin who asked for it' })),
    createdAt: Timestamp,
    startedAt: NullableTimestamp,
    finishedAt: NullableTimestamp,
    updatedAt: Timestamp,
  },
  { description: 'a rebuild of the location index' },
)

export const RebuildAnswer = Type.Object(
  {
    success: Type.Literal(true),
    message: Type.String({ examples: ['Location index rebuild queued'] }),
    data: LocationIndexRun,
  },
  {
    description: 'The rebuild is queued: follow it with GET /api/admin/location-index',
    examples: [
      {
        success: true,
        message: 'Location index rebuild queued',
        data: {
          ...EXAMPLE_RUN,
          status: 'queued',
          total: 0,
          processed: 0,
          progressPercent: 0,
          geocoded: 0,
          geocodeFailed: 0,
          skipped: 0,
          startedAt: null,
          updatedAt: EXAMPLE_RUN.createdAt,
        },
      },
    ],
  },
)

export const IndexStatusAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      entries: Count(1433, 'rows in the index (published items with coordinates, and remote ones)'),
      lastIndexedAt: NullableTimestamp,
      run: Nullable(LocationIndexRun),
    }),
  },
  {
    description:
      'The index’s size, when it was last brought up to date, and the latest rebuild (null before the first)',
    examples: [
      { success: true, data: { entries: 1433, lastIndexedAt: '2026-11-22T10:00:09.000Z', run: EXAMPLE_RUN } },
    ],
  },
)

const NamedCount = (key: 'name' | 'area', example: string) =>
  Type.Object({ [key]: Type.String({ examples: [example] }), count: Count(12) })

const EXAMPLE_ANALYTICS = {
  stats: {
    totalIndexed: 3,
    totalItems: 4,
    itemsWithLocation: 3,
    itemsRemote: 1,
    coveragePercent: 75,
    indexHealth: { synced: true, indexCount: 2, expectedCount: 2 },
    citiesCount: 2,
    countriesCount: 2,
    remoteCount: 1,
    lastIndexedAt: '2026-11-22T10:00:09.000Z',
    lastRebuildAt: '2026-11-22T10:00:09.000Z',
  },
  distributions: {
    byCountry: [
      { name: 'Germany', count: 1 },
      { name: 'United States', count: 1 },
    ],
    byCity: [
      { name: 'Berlin', count: 1 },
      { name: 'Oakland', count: 1 },
    ],
    byServiceArea: [{ area: 'Worldwide', count: 1 }],
  },
  locations: [
    {
      itemSlug: 'blue-bottle-coffee',
      latitude: 37.8044,
      longitude: -122.2712,
      city: 'Oakland',
      country: 'United States',
      isRemote: false,
    },
    {
      itemSlug: 'the-barn',
      latitude: 52.52,
      longitude: 13.405,
      city: 'Berlin',
      country: 'Germany',
      isRemote: false,
    },
  ],
  heatmapData: [
    { lat: 37.8044, lng: -122.2712 },
    { lat: 52.52, lng: 13.405 },
  ],
}

export const GeoAnalyticsAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      stats: Type.Object({
        totalIndexed: Count(3, 'rows in the location index'),
        totalItems: Count(4, 'published items'),
        itemsWithLocation: Count(3, 'published items with a latitude, or remote'),
        itemsRemote: Count(1, 'published remote items'),
        coveragePercent: Type.Number({
          description: 'itemsWithLocation / totalItems × 100, one decimal',
          examples: [75],
        }),
        indexHealth: Type.Object({
          synced: Type.Boolean({ description: 'indexCount equals expectedCount', examples: [true] }),
          indexCount: Count(2, 'totalIndexed − remoteCount'),
          expectedCount: Count(2, 'itemsWithLocation − itemsRemote'),
        }),
        citiesCount: Count(2, 'distinct cities in the index'),
        countriesCount: Count(2, 'distinct countries in the index'),
        remoteCount: Count(1, 'remote rows in the index'),
        lastIndexedAt: Nullable(
          Type.String({
            description: 'the index’s latest write, or the end of the latest completed rebuild if later',
            examples: ['2026-11-22T10:00:09.000Z'],
          }),
        ),
        lastRebuildAt: Nullable(
          Type.String({
            description: 'the latest completed rebuild',
            examples: ['2026-11-22T10:00:09.000Z'],
          }),
        ),
      }),
      distributions: Type.Object({
        byCountry: Type.Array(NamedCount('name', 'Germany'), {
          description: 'every country, most items first',
        }),
        byCity: Type.Array(NamedCount('name', 'Berlin'), { description: 'the 20 cities with most items' }),
        byServiceArea: Type.Array(NamedCount('area', 'Worldwide'), {
          description: 'every service area, most first',
        }),
      }),
      locations: Type.Array(
        Type.Object({
          itemSlug: Type.String({ examples: ['the-barn'] }),
          latitude: Type.Number({ examples: [52.52] }),
          longitude: Type.Number({ examples: [13.405] }),
          city: Nullable(Type.String({ examples: ['Berlin'] })),
          country: Nullable(Type.String({ examples: ['Germany'] })),
          isRemote: Type.Boolean({ examples: [false] }),
        }),
        { description: 'every indexed item but the remote ones (at 0,0), in no set order' },
      ),
      heatmapData: Type.Array(
        Type.Object({ lat: Type.Number({ examples: [52.52] }), lng: Type.Number({ examples: [13.405] }) }),
        {
          description: 'the non-remote points, in the order of `locations`',
        },
      ),
    }),
  },
  {
    description: 'Coverage, index health, distributions and every point, computed now (never cached)',
    examples: [{ success: true, data: EXAMPLE_ANALYTICS }],
  },
)

export const MapQuerySchema = Query({
  bbox: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        '`west,south,east,north` in degrees (longitudes −180..180, latitudes −90..90, south ≤ north); a west greater ' +
        'than east crosses the antimeridian',
      examples: ['-122.6,37.6,-122.2,37.9'],
    }),
  ),
  near: Type.Optional(
    Type.String({
      maxLength: 60,
      description: '`latitude,longitude` of the centre',
      examples: ['52.52,13.405'],
    }),
  ),
  radius: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: MAP_LIMITS.maxRadiusKm,
      description: `km around \`near\` (default ${MAP_LIMITS.defaultRadiusKm})`,
      examples: [10],
    }),
  ),
  limit: Type.Integer({
    minimum: 1,
    maximum: MAP_LIMITS.maxLimit,
    default: MAP_LIMITS.defaultLimit,
    examples: [100],
  }),
})
export type MapQuerySchema = Static<typeof MapQuerySchema>

export const MapAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(
      Type.Object({
        itemSlug: Type.String({ examples: ['the-barn'] }),
        name: Type.String({ examples: ['The Barn'] }),
        latitude: Type.Number({ examples: [52.52] }),
        longitude: Type.Number({ examples: [13.405] }),
        city: Nullable(Type.String({ examples: ['Berlin'] })),
        country: Nullable(Type.String({ examples: ['Germany'] })),
        distanceKm: Type.Optional(
          Type.Number({ description: 'with `near`: from the centre, in km', examples: [0.42] }),
        ),
      }),
    ),
    count: Count(1, 'entries answered'),
  },
  {
    description: 'Published items on the map: by slug within a box, nearest first within a radius',
    examples: [
      {
        success: true,
        data: [
          {
            itemSlug: 'the-barn',
            name: 'The Barn',
            latitude: 52.52,
            longitude: 13.405,
            city: 'Berlin',
            country: 'Germany',
            distanceKm: 0.42,
          },
        ],
        count: 1,
      },
    ],
  },
)
