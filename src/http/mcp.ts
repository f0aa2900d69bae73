import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { type Static, type TObject, type TSchema, Type } from 'typebox'
import { type ErrorCode, HttpError } from '../lib/errors.ts'
import { loadOnce } from '../lib/load-once.ts'
import { addEdgeKeywords, withEdgeRules } from './edge-values.ts'
import { toPublicError } from './errors.ts'

/**
 * The Model Context Protocol endpoint both services serve at `POST /mcp`: the official SDK's low-level
 * `Server` and its Streamable HTTP transport, stateless (a new server and transport per request, no session
 * id), answering JSON rather than an event stream, so any instance behind a load balancer answers any call.
 * Tools are declared with TypeBox schemas: their input schema is what `tools/list` shows, checked with
 * ajv as the routes' are; their answer is serialized by the REST route's response schema, so a tool shows
 * exactly the fields the REST answer shows.
 */

/** What `initialize` reports as the server's version; the protocol's version is the SDK's to negotiate. */
const SERVER_VERSION = '1.0.0'

/** One tool: what a model reads to choose it, what it takes, and the service call it makes. */
export interface McpTool<Context> {
  name: string
  title: string
  /** What it does, when to use it, what it returns: a model acts on this text alone. */
  description: string
  input: TObject
  /** The REST answer's schema: the result is serialized by it (no field REST would not show). */
  output: TSchema
  /** True for a tool that changes nothing (MCP's `readOnlyHint`). */
  readOnly: boolean
  call(args: never, context: Context): Promise<unknown>
}

/** A tool with its arguments typed from its input schema. */
export function mcpTool<Input extends TObject, Context>(tool: {
  name: string
  title: string
  description: string
  input: Input
  output: TSchema
  readOnly: boolean
  call(args: Static<Input>, context: Context): Promise<unknown>
}): McpTool<Context> {
  return tool as McpTool<Context>
}

/** A JSON-RPC 2.0 request or notification, as a client posts it (one message; MCP has no batches). */
export const McpMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Integer()], {
        description: 'absent for a notification, which is answered 202 with no body',
      }),
    ),
    method: Type.String({
      minLength: 1,
      maxLength: 200,
      examples: ['tools/call'],
      description: '`initialize`, `notifications/initialized`, `ping`, `tools/list` or `tools/call`',
    }),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  {
    description: 'A JSON-RPC 2.0 message of the Model Context Protocol',
    examples: [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_works', arguments: {} } },
    ],
  },
)

/** A JSON-RPC 2.0 answer: a result, or a protocol error (an unknown method or tool, bad params). */
export const McpAnswer = (example: unknown) =>
  Type.Object(
    {
      jsonrpc: Type.Literal('2.0'),
      id: Type.Union([Type.String(), Type.Number(), Type.Null()]),
      result: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      error: Type.Optional(
        Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
      ),
    },
    {
      description:
        'The JSON-RPC answer. A tool that failed answers a result with `isError: true`, its text the REST ' +
        'error as JSON (`{"status":404,"code":"WORK_NOT_FOUND","message":"Work not found"}`)',
      examples: [example],
    },
  )

/** What `POST /mcp`'s description says on both services: how to speak to it. */
export const MCP_ROUTE_DESCRIPTION =
  'The Model Context Protocol endpoint (Streamable HTTP transport, stateless: no `Mcp-Session-Id`, any ' +
  'instance answers any call). The body is one JSON-RPC 2.0 message: `initialize`, then `tools/list` and ' +
  '`tools/call`; a notification (no `id`) is answered 202 with no body. Answers are JSON, never an event ' +
  'stream; `GET` and `DELETE /mcp` are 405 (`Allow: POST`), as a stateless server answers. A tool’s failure ' +
  'is a result with `isError: true` carrying the REST error’s status, code and message; a bad message is ' +
  'a 400 in this service’s error shape.'

// The SDK (and zod under it) is loaded by the first MCP request, not by every process that starts.
const loadSdk = loadOnce(async () => {
  const [server, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ])
  return {
    Server: server.Server,
    Transport: transport.WebStandardStreamableHTTPServerTransport,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    CallToolRequestSchema: types.CallToolRequestSchema,
    McpError: types.McpError,
    InvalidParams: types.ErrorCode.InvalidParams,
  }
})

// The SDK validates elicitation answers with a JSON Schema validator it would build per server (an ajv
// each request); these servers elicit nothing, so they share one that is never asked.
const NO_ELICITATION = {
  getValidator: () => {
    throw new Error('MCP elicitation is not used')
  },
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv
// The routes' body options: unknown fields stripped, defaults filled in, every failing field reported.
const ajv = addFormats(
  new Ajv({ removeAdditional: 'all', useDefaults: true, allErrors: true, verbose: true, strict: false }),
)
addEdgeKeywords(ajv)

/** A tool's arguments that fail its input schema: a 400 naming each field, as a route's body would. */
function invalidArguments(validate: ValidateFunction): Error {
  return Object.assign(new Error('Invalid arguments'), {
    validation: validate.errors ?? [],
    validationContext: 'arguments',
  })
}

/** A tool's failure as the tool error's text: the REST error's status, code, message (and fields). */
function toolError(error: unknown, tool: string, log: FastifyBaseLogger) {
  const { status, code, message, details } = toPublicError(error)
  if (status >= 500) log.error({ err: error, tool }, 'MCP tool failed')
  const body = { status, code, message, ...(details === undefined ? {} : { details }) }
  return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify(body) }] }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A `tools/call` whose params the SDK would refuse with an internal error quoting its schema library's
 * issues: answered here as JSON-RPC's invalid params (-32602), in words.
 */
function badToolCall(message: Static<typeof McpMessage>): McpHttpAnswer | undefined {
  if (message.method !== 'tools/call' || message.id === undefined) return undefined
  const params = message.params
  const problem =
    typeof params?.name !== 'string'
      ? 'params.name must be the name of a tool (a string)'
      : params.arguments !== undefined && !isObject(params.arguments)
        ? 'params.arguments must be an object'
        : undefined
  if (!problem) return undefined
  const error = { code: -32602, message: `Invalid params: ${problem}` }
  return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: message.id, error }) }
}

/** What the transport answered, for the route to send. */
export interface McpHttpAnswer {
  status: number
  body: string
}

/** The transport's own refusals (a bad protocol version header), in the service's error shape. */
const TRANSPORT_CODES: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  406: 'BAD_REQUEST',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
}

function transportRefusal(status: number, body: string): HttpError {
  let message = 'The MCP message was refused'
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } }
    if (typeof parsed.error?.message === 'string') message = parsed.error.message
  } catch {
    // The transport's refusals are JSON; the default message stands otherwise.
  }
  return new HttpError(status, TRANSPORT_CODES[status] ?? 'BAD_REQUEST', message)
}

// The transport reads only these of the request; the answer is JSON whatever the client accepts.
const ENDPOINT_URL = 'http://localhost/mcp'

function webRequestOf(req: FastifyRequest): Request {
  const headers = new Headers({
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
  })
  const version = req.headers['mcp-protocol-version']
  if (typeof version === 'string') headers.set('mcp-protocol-version', version)
  return new Request(ENDPOINT_URL, { method: 'POST', headers })
}

/**
 * An MCP endpoint over `tools`: `answer` runs one request through a fresh server and transport, with the
 * tools acting for `context` (the caller the route's guard established).
 */
export function createMcpEndpoint<Context>(options: {
  name: string
  instructions: string
  tools: readonly McpTool<Context>[]
}) {
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]))
  const validators = new Map<string, ValidateFunction>()
  const validatorOf = (tool: McpTool<Context>) => {
    let validate = validators.get(tool.name)
    if (!validate) {
      validate = ajv.compile(withEdgeRules(tool.input))
      validators.set(tool.name, validate)
    }
    return validate
  }
  const listed = options.tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: JSON.parse(JSON.stringify(tool.input)) as { type: 'object' },
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly,
      destructiveHint: false,
      openWorldHint: false,
    },
  }))

  async function callTool(name: string, args: unknown, context: Context, reply: FastifyReply) {
    const tool = tools.get(name)
    if (!tool) {
      const { McpError, InvalidParams } = await loadSdk()
      throw new McpError(InvalidParams, `Unknown tool: ${name.slice(0, 100)}`)
    }
    try {
      const validate = validatorOf(tool)
      const input = structuredClone(args ?? {})
      if (!validate(input)) throw invalidArguments(validate)
      const result = await tool.call(input as never, context)
      const text = reply.serializeInput(
        result as Record<string, unknown>,
        tool.output as unknown as Record<string, unknown>,
      )
      return {
        content: [{ type: 'text' as const, text }],
        structuredContent: JSON.parse(text) as Record<string, unknown>,
      }
    } catch (error) {
      return toolError(error, name, reply.log)
    }
  }

  return {
    async answer(req: FastifyRequest, reply: FastifyReply, context: Context): Promise<McpHttpAnswer> {
      const refused = badToolCall(req.body as Static<typeof McpMessage>)
      if (refused) return refused
      const sdk = await loadSdk()
      const server = new sdk.Server(
        { name: options.name, version: SERVER_VERSION },
        {
          capabilities: { tools: { listChanged: false } },
          instructions: options.instructions,
          jsonSchemaValidator: NO_ELICITATION,
        },
      )
      server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: listed }))
      server.setRequestHandler(sdk.CallToolRequestSchema, (request) =>
        callTool(request.params.name, request.params.arguments, context, reply),
      )
      const transport = new sdk.Transport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      await server.connect(transport)
      try {
        const response = await transport.handleRequest(webRequestOf(req), { parsedBody: req.body })
        const body = await response.text()
        if (response.status >= 400) throw transportRefusal(response.status, body)
        return { status: response.status, body }
      } finally {
        await server.close()
      }
    },
  }
}

/** Sends the transport's answer: the JSON-RPC answer as it was written, or a notification's empty 202. */
export function sendMcpAnswer(reply: FastifyReply, answer: McpHttpAnswer) {
  if (answer.status === 202) return reply.code(202).send()
  return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body)
}
