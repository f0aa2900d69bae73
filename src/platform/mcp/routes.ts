import type { AccessLevel } from '../../http/access.ts'
import type { App } from '../../http/app.ts'
import {
  createMcpEndpoint,
  MCP_ROUTE_DESCRIPTION,
  McpAnswer,
  McpMessage,
  sendMcpAnswer,
} from '../../http/mcp.ts'
import type { RateLimit, RateLimitKey } from '../../http/rate-limit.ts'
import { describeRule } from '../../http/rate-limit.ts'
import { described, invalidField, NoContent } from '../../http/schemas.ts'
import type { RateLimitRule } from '../../lib/rate-limiter.ts'
import { MINUTE_MS } from '../../lib/time.ts'
import { contextOf } from '../http/context.ts'
import { apiKeyNotAllowed, authOf } from '../http/guard.ts'
import { errors } from '../http/schemas.ts'
import type { PlatformTool } from './tools.ts'

/** Per API key, as the REST routes' general per-account limit: each JSON-RPC message counts once. */
export const MCP_RATE_LIMIT = { limit: 120, windowMs: MINUTE_MS } as const satisfies RateLimitRule

const perKey: RateLimitKey = {
  name: 'api-key',
  of: (req) => {
    const auth = authOf(req)
    return auth.apiKeyId ?? auth.userId
  },
}

const EXAMPLE_ANSWER = {
  jsonrpc: '2.0',
  id: 1,
  result: {
    content: [{ type: 'text', text: '{"works":[{"id":"3f9c…","slug":"cafe-guide","name":"Café Guide"}]}' }],
    structuredContent: { works: [{ id: '3f9c…', slug: 'cafe-guide', name: 'Café Guide' }] },
  },
}

const INSTRUCTIONS =
  'Curio builds directory websites ("works"): create one (create_work), fill it with items by AI ' +
  '(start_generation, then poll get_generation and read list_work_items), and follow your account ' +
  '(list_activity). Every tool acts as the API key’s user, with the rights the REST API gives that key.'

/**
 * `POST /mcp`: the platform's tools for an API key's user. A tool has exactly the rights its REST route
 * gives the key: the route's declared access level (read from the app's catalog) decides.
 */
export function mcpRoutes(
  app: App,
  { tools, rateLimit }: { tools: readonly PlatformTool[]; rateLimit: RateLimit },
) {
  const endpoint = createMcpEndpoint({ name: 'curio-platform', instructions: INSTRUCTIONS, tools })
  // Read at the first tool call, when every route is registered; each call then looks its route up once.
  let levels: Map<string, AccessLevel> | undefined
  const levelOf = (route: string) => {
    levels ??= new Map(app.routeCatalog.map((entry) => [`${entry.method} ${entry.url}`, entry.access]))
    return levels.get(route)
  }

  app.post(
    '/mcp',
    {
      config: { access: 'api-key' },
      preHandler: rateLimit('POST /mcp', MCP_RATE_LIMIT, perKey),
      schema: {
        tags: ['mcp'],
        summary: 'MCP endpoint (Model Context Protocol)',
        description:
          `${MCP_ROUTE_DESCRIPTION} Tools: ${tools.map((tool) => `\`${tool.name}\``).join(', ')}; each ` +
          'acts as the key’s user with the rights the REST API gives that key (another account’s work is ' +
          '`WORK_NOT_FOUND`; deployments and notifications need an access token, so their tools answer ' +
          `\`API_KEY_NOT_ALLOWED\`). ${describeRule(MCP_RATE_LIMIT, 'API key')} (429 with \`Retry-After\`).`,
        body: McpMessage,
        response: {
          200: McpAnswer(EXAMPLE_ANSWER),
          202: described(NoContent, 'A notification, accepted: no body'),
          ...errors([400, invalidField('body.jsonrpc', 'must be "2.0"')], 401, 413, 415, 429),
        },
      },
    },
    async (req, reply) => {
      const auth = authOf(req)
      const answer = await endpoint.answer(req, reply, {
        userId: auth.userId,
        event: contextOf(req),
        mayUse: (route) => {
          if (levelOf(route) !== 'jwt-or-api-key') throw apiKeyNotAllowed()
        },
      })
      return sendMcpAnswer(reply, answer)
    },
  )
}
