import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { Clock } from '../../lib/clock.ts'
import type { CategoryService } from '../categories/service.ts'
import type { ProfileService } from '../clients/profiles.ts'
import type { Clearable } from '../content.ts'
import { createPublicItemCache, createPublicItems } from './public.ts'
import type { ItemCollections, ItemLinks } from './relations.ts'
import { adminItemRoutes } from './routes.ts'
import { createItemCountCache, createItemService } from './service.ts'
import { siteItemRoutes } from './site-routes.ts'

/**
 * Items: the admin's management with history and review, the public site's reads (cached, invalidated on
 * every instance) and submissions.
 */
export function itemsModule(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'warn'>
  rateLimit: RateLimit
  /** Caches an item write makes stale besides this module's own (the categories' item counts). */
  alsoClears: Clearable[]
  /** Whether the site's settings take submissions now. */
  submissionsOpen: () => Promise<boolean>
  categories: Pick<CategoryService, 'adjustCounts'>
  /** The collections an item is in (collections/memberships.ts). */
  collections: ItemCollections
  /** An item's link check (links/item-links.ts). */
  links: ItemLinks
  profiles: Pick<ProfileService, 'countSubmission'>
}) {
  const { db, clock, log, rateLimit } = deps
  const cache = createPublicItemCache(clock)
  const counts = createItemCountCache(clock)
  const items = createItemService({
    db,
    clock,
    log,
    caches: [cache, ...deps.alsoClears],
    counts,
    categories: deps.categories,
    collections: deps.collections,
    links: deps.links,
    profiles: deps.profiles,
  })
  const site = createPublicItems({ db, cache })
  const module: Module = {
    name: 'items',
    routes: (app) => {
      adminItemRoutes(app, { items })
      siteItemRoutes(app, { items, site, rateLimit, submissionsOpen: deps.submissionsOpen })
    },
    caches: [cache, counts],
  }
  return { items, site, cache, module }
}
