import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Clearable } from '../content.ts'
import { siteRoutes } from './routes.ts'
import { createSiteCache, createSiteService, type SiteServiceDeps } from './service.ts'

/** The site's typed settings and its menus, cached and cleared on every instance by each save. */
export function siteModule({
  db,
  clock,
  config,
  locationIndex,
  alsoClears = [],
}: {
  db: Db
  clock: Clock
  config: SiteServiceDeps['config'] & Partial<Config>
  locationIndex?: SiteServiceDeps['locationIndex']
  /** Caches that show the settings besides this module's own (the feeds show the site's name). */
  alsoClears?: Clearable[]
}) {
  const cache = createSiteCache(clock)
  const site = createSiteService({
    db,
    clock,
    cache,
    config,
    alsoClears,
    ...(locationIndex ? { locationIndex } : {}),
  })
  const module: Module = { name: 'site', routes: (app) => siteRoutes(app, { site }), caches: [cache] }
  return { site, module }
}
