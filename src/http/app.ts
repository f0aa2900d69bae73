import { randomUUID } from 'node:crypto'
import AjvCompiler from '@fastify/ajv-compiler'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { AnySchema } from 'ajv'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  LogController,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify'
import type { Logger } from 'pino'
import { Type } from 'typebox'
import type { TrustProxy } from '../config.ts'
import { fieldLocator, type PublicError, toPublicError } from './errors.ts'
import { LazyRequestLogger } from './request-logger.ts'

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

export interface BaseAppOptions {
  service: 'platform' | 'directory'
  title: string
  description: string
  log: Logger
  bodyLimitBytes: number
  trustProxy: TrustProxy
  /** The service's error body for a public error. */
  renderError(error: PublicError): unknown
  /**
   * What /readyz checks, by name: the service is ready unless one is `unavailable`, and answers but says
   * so when one is `degraded` (a fallback in use).
   */
  readiness: Record<string, () => Promise<ReadinessCheck>>
  securitySchemes: Record<string, SecurityScheme>
  tags: { name: string; description: string }[]
}

export interface ReadinessCheck {
  status: 'ok' | 'degraded' | 'unavailable'
  detail?: string
}

type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; bearerFormat?: string; description?: string }
  | { type: 'apiKey'; in: 'header' | 'cookie'; name: string; description?: string }

const SLOW_REQUEST_MS = 1000

// Client-supplied request ids are kept only when harmless in a log line and a header.
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * Security headers of every answer, computed once. JSON answers load nothing, so the policy forbids
 * everything; the reference at /docs replaces it with its own.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
} as const

const HealthBody = Type.Object({ status: Type.String({ examples: ['ok'] }) })

const ReadinessBody = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')], {
    examples: ['ok'],
  }),
  checks: Type.Record(
    Type.String(),
    Type.Object({
      status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')]),
      detail: Type.Optional(Type.String()),
    }),
    {
      examples: [
        {
          database: { status: 'ok' },
          rateLimits: { status: 'degraded', detail: 'Redis unreachable: limits are counted per instance' },
        },
      ],
    },
  ),
})

const validatorPool = AjvCompiler()

const AJV_OPTIONS = {
  // Unknown fields are stripped everywhere, never an error: one rule for every route.
  removeAdditional: 'all',
  useDefaults: true,
  allErrors: false,
} as const

/**
 * Query strings, path parameters and headers arrive as text, so their values are coerced to the schema's
 * types (`?limit=10` is a number). A JSON body already has types: a number where a string belongs is a
 * 400 naming the field, not silently turned into "42".
 */
function buildValidators(externalSchemas: Record<string, AnySchema>) {
  const coercing = validatorPool(externalSchemas, { customOptions: { ...AJV_OPTIONS, coerceTypes: 'array' } })
  const exact = validatorPool(externalSchemas, { customOptions: { ...AJV_OPTIONS, coerceTypes: false } })
  // The pool's typings describe ajv's compile; at run time it takes Fastify's route definition.
  type Compile = (route: { schema: unknown; httpPart?: string }) => unknown
  return (route: { schema: unknown; httpPart?: string }) =>
    ((route.httpPart === 'body' ? exact : coercing) as unknown as Compile)(route)
}

/** A Fastify app with everything both services share; the service adds its modules. */
export async function createBaseApp(options: BaseAppOptions): Promise<App> {
  const app = Fastify({
    loggerInstance: options.log.child({ service: options.service }) as FastifyBaseLogger,
    // One line per request, written on response, rather than Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // The request's child logger is made only if the request writes a line.
    childLoggerFactory: (logger, bindings, options) =>
      new LazyRequestLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger,
    // genReqId reads x-request-id itself, so an unsafe value is replaced rather than echoed.
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id']
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    },
    bodyLimit: options.bodyLimitBytes,
    trustProxy:
      typeof options.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (options.trustProxy as number)
        : options.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    schemaController: {
      compilersFactory: { buildValidator: buildValidators as unknown as ReturnType<typeof AjvCompiler> },
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  // JSON only: any other content type of a body is 415.
  app.removeContentTypeParser('text/plain')

  // Callback-style hooks: these run on every request, and an async hook costs a promise each time.
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(SECURITY_HEADERS)
    reply.header('x-request-id', req.id)
    done()
  })
  // Closing waits for every open connection, and one kept alive after answering a request in flight
  // would hold it for the keep-alive timeout (72 s): while closing, a connection goes once it is idle.
  app.addHook('preClose', (done) => {
    app.server.keepAliveTimeout = 1
    done()
  })

  // One line per answer: refusals at info, slow answers at warn, and the routine ones at debug, so the
  // default level keeps what an operator looks for without a line per successful request.
  app.addHook('onResponse', (req, reply, done) => {
    const ms = Math.round(reply.elapsedTime)
    const level = ms >= SLOW_REQUEST_MS ? 'warn' : reply.statusCode >= 400 ? 'info' : 'debug'
    if ((req.log as unknown as Pick<Logger, 'isLevelEnabled'>).isLevelEnabled(level)) {
      req.log[level](
        { method: req.method, url: req.url, statusCode: reply.statusCode, ms },
        'request completed',
      )
    }
    done()
  })

  app.setErrorHandler(async (error, req, reply) => {
    const publicError = toPublicError(error, fieldLocator(req.routeOptions.schema))
    if (publicError.status >= 500)
      req.log.error({ err: error, method: req.method, url: req.url }, 'request failed')
    else req.log.debug({ err: error }, 'request refused')
    return reply.code(publicError.status).type('application/json').send(options.renderError(publicError))
  })
  app.setNotFoundHandler(async (req, reply) =>
    reply.code(404).send(
      options.renderError({
        status: 404,
        code: 'NOT_FOUND',
        message: `Route ${req.method} ${req.url} not found`,
      }),
    ),
  )

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, description: options.description, version: '0.1.0' },
      components: { securitySchemes: options.securitySchemes },
      tags: [{ name: 'health', description: 'Liveness and readiness probes' }, ...options.tags],
    },
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    // The reference is also served over plain HTTP on local instances.
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
    uiConfig: { url: '/openapi.json', deepLinking: true, docExpansion: 'list' },
  })

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness',
        description: 'Answers while the process serves requests.',
        response: { 200: HealthBody },
      },
    },
    async () => ({ status: 'ok' }),
  )
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness',
        description:
          'Answers 200 once the database answers, 503 otherwise. `checks` names each dependency; ' +
          '`degraded` means the service answers on a fallback (rate limits counted per instance while Redis ' +
          'is unreachable).',
        response: { 200: ReadinessBody, 503: ReadinessBody },
      },
    },
    async (req, reply) => {
      const checks: Record<string, ReadinessCheck> = {}
      for (const [name, check] of Object.entries(options.readiness)) {
        checks[name] = await check().catch((error: unknown) => {
          req.log.warn({ err: error, check: name }, 'readiness check failed')
          return { status: 'unavailable' as const }
        })
      }
      const states = Object.values(checks).map((check) => check.status)
      const status = states.includes('unavailable')
        ? 'unavailable'
        : states.includes('degraded')
          ? 'degraded'
          : 'ok'
      return reply.code(status === 'unavailable' ? 503 : 200).send({ status, checks })
    },
  )

  return app
}
