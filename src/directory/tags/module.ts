import type { Module } from '../../http/modules.ts'
import { tagRoutes } from './routes.ts'
import { createTagService, type TagServiceDeps } from './service.ts'

/** Tags: admin management, with how many items carry each. */
export function tagsModule(deps: TagServiceDeps) {
  const tagService = createTagService(deps)
  const module: Module = {
    name: 'tags',
    routes: (app) => tagRoutes(app, { tagService }),
  }
  return { tags: tagService, module }
}
