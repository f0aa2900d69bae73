import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import { geocodingRoutes } from './routes.ts'
import { createGeocodingService, type GeocodingServiceDeps } from './service.ts'

/** Forward and reverse geocoding through Mapbox and Google, with the per-instance cache SPEC.md defines. */
export function geocodingModule(deps: {
  config: GeocodingServiceDeps['config']
  clock: Clock
  siteLocationEnabled: () => Promise<boolean>
}) {
  const geocoding = createGeocodingService(deps)
  const module: Module = { name: 'geocoding', routes: (app) => geocodingRoutes(app, { geocoding }) }
  return { geocoding, module }
}
