import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Clearable } from '../content.ts'
import type { GeocodingService } from '../geocoding/service.ts'
import type { ItemService } from '../items/service.ts'
import { locationRoutes } from './routes.ts'
import { createLocationService, LOCATION_INDEX_JOB, type LocationIndexJob } from './service.ts'

/**
 * The location index: the public map's reads, the geographic analytics, and the rebuild, a durable job
 * of steps that geocodes the items lacking coordinates.
 */
export function locationsModule(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  jobs: Pick<Jobs, 'send'>
  rateLimit: RateLimit
  geocoding: Pick<GeocodingService, 'place'>
  items: Pick<ItemService, 'setCoordinates'>
  batchSize: number
  locationEnabled: () => Promise<boolean>
  caches: readonly Clearable[]
}) {
  const locations = createLocationService(deps)
  const module: Module = {
    name: 'locations',
    routes: (app) => locationRoutes(app, { locations, rateLimit: deps.rateLimit }),
    jobs: [
      {
        name: LOCATION_INDEX_JOB,
        handler: async ({ runId }: LocationIndexJob) => locations.step(runId),
        retryLimit: 5,
        retryDelaySeconds: 10,
        retryBackoff: true,
        // A step geocodes a batch (4 at a time, GEOCODING_TIMEOUT_MS each at worst): a step still active
        // after 10 minutes belonged to a process that died, and runs again from the saved cursor.
        expireInSeconds: 600,
      },
    ],
  }
  return { locations, module }
}
