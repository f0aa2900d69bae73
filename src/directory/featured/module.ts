import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import { featuredRoutes } from './routes.ts'
import { createFeaturedCache, createFeaturedService } from './service.ts'

/** Featured items: the admin's entries and the public shelf, cached and invalidated on every instance. */
export function featuredModule({ db, clock }: { db: Db; clock: Clock }) {
  const cache = createFeaturedCache(clock)
  const featured = createFeaturedService({ db, clock, cache })
  const module: Module = {
    name: 'featured-items',
    routes: (app) => featuredRoutes(app, { featured }),
    caches: [cache],
  }
  return { featured, module }
}
