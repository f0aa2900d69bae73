import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { ItemUsage } from '../usage.ts'
import { createCategoryCache } from './cache.ts'
import { createCategoryGitService } from './git.ts'
import { categoryGitRoutes } from './git-routes.ts'
import { categoryRoutes } from './routes.ts'
import { createCategoryService } from './service.ts'

export interface CategoriesModuleDeps {
  db: Db
  clock: Clock
  config: Pick<Config, 'dataRepository' | 'gitToken' | 'githubApiUrl'>
  usage: Pick<ItemUsage, 'of'>
}

/** Categories, their order, the cached public listing, and their file in the Git data repository. */
export function categoriesModule({ db, clock, config, usage }: CategoriesModuleDeps) {
  const cache = createCategoryCache(clock)
  const categories = createCategoryService({ db, clock, cache, usage })
  const categoryGit = createCategoryGitService({ db, config })
  const module: Module = {
    name: 'categories',
    routes: (app) => {
      categoryGitRoutes(app, { categoryGit })
      categoryRoutes(app, { categories })
    },
    caches: [cache],
  }
  return { categories, cache, module }
}
