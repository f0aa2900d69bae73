import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import { collectionRoutes } from './routes.ts'
import { createCollectionService, createCollectionsCache } from './service.ts'

/** Collections of items: the admin's lists and the public count, cached and invalidated on every instance. */
export function collectionsModule({ db, clock }: { db: Db; clock: Clock }) {
  const cache = createCollectionsCache(clock)
  const collections = createCollectionService({ db, clock, cache })
  const module: Module = {
    name: 'collections',
    routes: (app) => collectionRoutes(app, { collections }),
    caches: [cache],
  }
  return { collections, module }
}
