import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { InvalidatedCache } from '../../db/invalidated-cache.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { Clock } from '../../lib/clock.ts'
import { createItemsExport } from './export.ts'
import { feedRoutes } from './routes.ts'
import { createFeedCache, createFeedService, type FeedDocument, type SiteSettings } from './service.ts'

/** The cache the feeds module renders into: made first, so the writers of what it shows can clear it. */
export const feedsCache = (clock: Pick<Clock, 'nowMs'>) => createFeedCache(clock)

/**
 * Machine reads of the published site: RSS, Atom and JSON feeds, llms.txt (cached, invalidated on every
 * instance), and the whole directory as one streamed JSON document.
 */
export function feedsModule({
  db,
  clock,
  config,
  rateLimit,
  settings,
  cache,
}: {
  db: Db
  clock: Clock
  config: Pick<Config, 'appUrl'>
  rateLimit: RateLimit
  settings: SiteSettings
  cache: InvalidatedCache<FeedDocument>
}) {
  const feeds = createFeedService({ db, clock, cache, settings, appUrl: config.appUrl })
  const itemsExport = createItemsExport({ db, clock, site: feeds.site })
  const module: Module = {
    name: 'feeds',
    routes: (app) => feedRoutes(app, { feeds, itemsExport, rateLimit }),
    caches: [cache],
  }
  return { feeds, module }
}
