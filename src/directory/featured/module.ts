import type { Module } from '../../http/modules.ts'
import { featuredRoutes } from './routes.ts'
import { createFeaturedCache, createFeaturedService, type FeaturedServiceDeps } from './service.ts'

/** Featured items: the admin's entries and the public shelf, cached and invalidated on every instance. */
export function featuredModule({
  db,
  clock,
  itemBySlug,
}: Pick<FeaturedServiceDeps, 'db' | 'clock' | 'itemBySlug'>) {
  const cache = createFeaturedCache(clock)
  const featured = createFeaturedService({ db, clock, cache, itemBySlug })
  const module: Module = {
    name: 'featured-items',
    routes: (app) => featuredRoutes(app, { featured }),
    caches: [cache],
  }
  return { featured, module }
}
