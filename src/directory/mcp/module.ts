import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import { mcpRoutes } from './routes.ts'
import { type DirectoryToolServices, directoryTools } from './tools.ts'

/** The MCP endpoint: the public reads as tools for AI assistants. */
export function mcpModule(deps: DirectoryToolServices & { rateLimit: RateLimit }) {
  const tools = directoryTools(deps)
  const module: Module = {
    name: 'mcp',
    routes: (app) => mcpRoutes(app, { tools, rateLimit: deps.rateLimit }),
  }
  return { module }
}
