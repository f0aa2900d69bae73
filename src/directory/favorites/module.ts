import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import { favoriteRoutes } from './routes.ts'
import { createFavoriteService } from './service.ts'

/** Signed-in users' favorite items. */
export function favoritesModule({ db, clock }: { db: Db; clock: Clock }) {
  const favorites = createFavoriteService({ db, clock })
  const module: Module = { name: 'favorites', routes: (app) => favoriteRoutes(app, { favorites }) }
  return { favorites, module }
}
