import { consoleRoutes } from '../http/console.ts'
import type { Module } from '../http/modules.ts'

/**
 * The platform console (web/console) at `/console`: a page that calls this service's public API with the
 * user's access token, from this origin, so it needs no route of its own beyond its files.
 */
export function platformConsoleModule(dir?: string): Module {
  return {
    name: 'platform-console',
    routes: (app) =>
      consoleRoutes(app, {
        prefix: '/console',
        name: 'console',
        title: 'The platform console',
        ...(dir ? { dir } : {}),
      }),
  }
}
