import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { SiteSettings } from '../feeds/service.ts'
import { exportRoutes } from './routes.ts'
import { createExportService } from './service.ts'

/** The admins' export of the whole directory as an awesome-list Markdown, CSV or JSON file. */
export function exportsModule({
  db,
  config,
  rateLimit,
  settings,
  concurrent,
}: {
  db: Db
  /** Whether the database answers several statements at once (Postgres, not the embedded database). */
  concurrent: boolean
  config: Pick<Config, 'appUrl'>
  rateLimit: RateLimit
  settings: SiteSettings
}) {
  const siteUrl = new URL('/', config.appUrl).href
  const exports = createExportService({
    db,
    concurrent,
    site: async () => {
      const { data } = await settings()
      return { name: data.site.name, description: data.site.description, url: siteUrl }
    },
  })
  const module: Module = { name: 'exports', routes: (app) => exportRoutes(app, { exports, rateLimit }) }
  return { exports, module }
}
