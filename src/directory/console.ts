import { consoleRoutes } from '../http/console.ts'
import type { Module } from '../http/modules.ts'

/**
 * The admin console (web/admin) at `/admin`: a page that calls this service's public API with the admin's
 * session cookie, from this origin, so it needs no route of its own beyond its files.
 */
export function adminConsoleModule(dir?: string): Module {
  return {
    name: 'admin-console',
    routes: (app) =>
      consoleRoutes(app, {
        prefix: '/admin',
        name: 'admin',
        title: 'The admin console',
        ...(dir ? { dir } : {}),
      }),
  }
}
