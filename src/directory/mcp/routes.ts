import type { App } from '../../http/app.ts'
import {
  createMcpEndpoint,
  MCP_ROUTE_DESCRIPTION,
  McpAnswer,
  McpMessage,
  type McpTool,
  sendMcpAnswer,
} from '../../http/mcp.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { described, invalidField, NoContent } from '../../http/schemas.ts'
import { errors } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'

/** Counted per client as the public reads are (GET /api/items' limit). */
export const MCP_RATE_LIMIT = RATE_LIMITS.items

const EXAMPLE_ANSWER = {
  jsonrpc: '2.0',
  id: 1,
  result: {
    content: [
      { type: 'text', text: '{"success":true,"data":[{"id":"coffee","name":"Coffee","itemCount":12}]}' },
    ],
    structuredContent: { success: true, data: [{ id: 'coffee', name: 'Coffee', itemCount: 12 }] },
  },
}

const INSTRUCTIONS =
  'A directory website’s published content, read-only: search its items (search_items), read one ' +
  '(get_item), list its categories (list_categories) and what it features (list_featured_items).'

/** `POST /mcp`: the directory's public read-only tools, for anyone. */
export function mcpRoutes(
  app: App,
  { tools, rateLimit }: { tools: readonly McpTool<void>[]; rateLimit: RateLimit },
) {
  const endpoint = createMcpEndpoint({ name: 'curio-directory', instructions: INSTRUCTIONS, tools })

  app.post(
    '/mcp',
    {
      config: { access: 'public' },
      preHandler: rateLimit('POST /mcp', MCP_RATE_LIMIT),
      schema: {
        tags: ['mcp'],
        summary: 'MCP endpoint (Model Context Protocol)',
        description:
          `${MCP_ROUTE_DESCRIPTION} Public and read-only; tools: ` +
          `${tools.map((tool) => `\`${tool.name}\``).join(', ')}, over the same cached reads as the public ` +
          `routes. ${describeRule(MCP_RATE_LIMIT)} (429 with \`Retry-After\`).`,
        body: McpMessage,
        response: {
          200: McpAnswer(EXAMPLE_ANSWER),
          202: described(NoContent, 'A notification, accepted: no body'),
          ...errors([400, invalidField('body.jsonrpc', 'must be "2.0"')], 413, 415, 429),
        },
      },
    },
    async (req, reply) => sendMcpAnswer(reply, await endpoint.answer(req, reply, undefined)),
  )
}
