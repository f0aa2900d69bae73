import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import { mcpRoutes } from './routes.ts'
import { type PlatformToolServices, platformTools } from './tools.ts'

/** The MCP endpoint: the platform's tools over the services the REST routes call. */
export function mcpModule(deps: PlatformToolServices & { rateLimit: RateLimit }) {
  const tools = platformTools(deps)
  const module: Module = {
    name: 'mcp',
    routes: (app) => mcpRoutes(app, { tools, rateLimit: deps.rateLimit }),
  }
  return { tools, module }
}
