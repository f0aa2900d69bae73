import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify'
import type { Logger } from 'pino'
import type { StandIn, TrustProxy } from '../config.ts'
import { databaseUnavailable } from '../db/errors.ts'
import { failureLogger } from '../db/outage-log.ts'
import { VERSION } from '../lib/version.ts'
import { type AccessRules, accessHook, allowedMethods, type RouteEntry, toArray } from './access.ts'
import { compilersFactory } from './compilers.ts'
import { type CorsSettings, corsPolicy, registerCors } from './cors.ts'
import { MAX_JSON_DEPTH, nestsDeeperThan, someText, tooDeep } from './edge-values.ts'
import { clientErrorAnswer, fieldLocator, type PublicError, toPublicError } from './errors.ts'
import { type AppMetrics, installMetricHooks, metricsRoute } from './metrics.ts'
import {
  type ReadinessCheck,
  type ReadinessChecks,
  ReadinessTimeout,
  withinReadinessTimeout,
} from './readiness.ts'
import { LazyRequestLogger } from './request-logger.ts'
import {
  described,
  HealthAnswer,
  NotReadyAnswer,
  ReadyAnswer,
  RootAnswer,
  RootAnswerWithDemo,
} from './schemas.ts'

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
  /** How long a client has to send a whole request, and its headers (408 after). */
  timeouts: { requestMs: number; headersMs: number }
  trustProxy: TrustProxy
  /** How the service enforces each access level its routes declare. */
  access: AccessRules
  /** The service's error body for a public error. */
  renderError(error: PublicError): unknown
  /**
   * What /readyz checks, by name: the service is ready unless one is `unavailable`, and answers but says
   * so when one is `degraded` (a fallback in use).
   */
  readiness: ReadinessChecks
  securitySchemes: Record<string, SecurityScheme>
  /** What decides which browser origins may call the service (CORS). */
  cors: CorsSettings
  /** Whether the service is timed and serves `/metrics`, and the pool it reports. */
  metrics: AppMetrics
  /** The 503 `DATABASE_UNAVAILABLE` answer in the service's shape, documented on every route of a module. */
  outageResponse: unknown
  tags: { name: string; description: string }[]
  /**
   * Where programs read the service besides its REST API (MCP, feeds, the typed client), listed by `GET /`
   * under `clients` with the guide to them.
   */
  clients: Record<string, string>
  /**
   * For a service whose providers may be local stand-ins (the platform): those it reaches through them
   * (DEMO_STAND_INS), listed by `GET /` under `demo` when there are any, so a console can say so.
   */
  standIns?: readonly StandIn[]
}

type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; bearerFormat?: string; description?: string }
  | { type: 'apiKey'; in: 'header' | 'cookie'; name: string; description?: string }

const SLOW_REQUEST_MS = 1000

/** The guide to the typed client, feeds, llms.txt and MCP, by its path in the Curio repository. */
export const CLIENTS_GUIDE = 'docs/clients.md'

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

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the app with its declared access level, in registration order. */
    routeCatalog: readonly RouteEntry[]
  }
}

/** The longest path the not-found message repeats. */
const PATH_IN_MESSAGE = 120

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
    // A client that never finishes its request is answered 408 and disconnected, not waited on for ever.
    requestTimeout: options.timeouts.requestMs,
    http: {
      headersTimeout: options.timeouts.headersMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(25, Math.floor(options.timeouts.headersMs / 4))),
    },
    // Errors the framework raises before a route is found answer in the service's shape, with its headers.
    frameworkErrors: (error, req, reply) => {
      reply.headers(SECURITY_HEADERS)
      reply.header('x-request-id', req.id)
      const publicError = toPublicError(error)
      req.log.info({ method: req.method, code: error.code }, publicError.message)
      ;(reply as FastifyReply)
        .code(publicError.status)
        .type('application/json')
        .send(options.renderError(publicError))
    },
    // Errors of the connection itself (headers too large, a request not sent in time, a malformed request
    // line) are written to the socket, as the framework does, but in the service's shape.
    clientErrorHandler: (error, socket) => {
      const answer = clientErrorAnswer(error)
      options.log.info(
        { service: options.service, code: (error as { code?: string }).code },
        answer ? `client error: ${answer.message}` : 'client closed the connection',
      )
      if (!answer || socket.destroyed) return
      if (socket.writable) {
        const body = JSON.stringify(options.renderError(answer))
        const headers = {
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(body)),
          'x-request-id': randomUUID(),
          connection: 'close',
          ...SECURITY_HEADERS,
        }
        const head = Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}`)
          .join('\r\n')
        socket.write(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n${head}\r\n\r\n${body}`)
      }
      socket.destroy()
    },
    trustProxy:
      typeof options.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (options.trustProxy as number)
        : options.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    schemaController: {
      compilersFactory,
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  // JSON only: any other content type of a body is 415.
  app.removeContentTypeParser('text/plain')
  // Many clients send `content-type: application/json` on every call: an empty body is no body on a route
  // that takes none, and still a 400 on a route that needs one.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' && (!req.routeOptions.schema?.body || req.routeOptions.config.optionalBody)) {
      return done(null, undefined)
    }
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) return done(tooDeep(), undefined)
    // JSON may escape a lone surrogate (`"\udc00"`), which is not Unicode: Postgres refuses it in jsonb and
    // text would store it mangled, so such a body is as invalid as broken JSON. Only bodies with escapes pay.
    if (!(body as string).includes('\\u')) return parseJson(req, body as string, done)
    parseJson(req, body as string, (error, value) => {
      if (error || wellFormed(value)) return done(error, value)
      done(
        Object.assign(new SyntaxError('The body has an unpaired surrogate escape'), { statusCode: 400 }),
        undefined,
      )
    })
  })

  // Callback-style hooks: these run on every request, and an async hook costs a promise each time.
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(SECURITY_HEADERS)
    reply.header('x-request-id', req.id)
    done()
  })
  installMetricHooks(app, options.service, options.metrics)
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

  // An outage fails every request alike: said once per interval with a count, not once per request.
  const outageLog = failureLogger(options.log.child({ service: options.service }))
  app.setErrorHandler(async (error, req, reply) => {
    const publicError = toPublicError(error, fieldLocator(req.routeOptions.schema))
    if (req.raw.destroyed && (error as { code?: string }).code === 'ECONNRESET') {
      req.log.info({ method: req.method, url: req.url }, 'client closed the connection mid-request')
    } else if (publicError.code === 'DATABASE_UNAVAILABLE') {
      outageLog(error, { method: req.method, url: req.url }, 'request answered 503')
    } else if (publicError.status >= 500) {
      req.log.error({ err: error, method: req.method, url: req.url }, 'request failed')
    } else req.log.debug({ err: error }, 'request refused')
    if (publicError.headers) reply.headers(publicError.headers)
    return reply.code(publicError.status).type('application/json').send(options.renderError(publicError))
  })
  // A known path with another method is 405 with `Allow`; an unknown one 404, naming method and path (cut
  // short, without its query) rather than repeating a URL of any length.
  const catalog: RouteEntry[] = []
  const methodsOf = allowedMethods(catalog)
  app.decorate('routeCatalog', catalog)
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?', 1)[0]!
    const shown = path.length > PATH_IN_MESSAGE ? `${path.slice(0, PATH_IN_MESSAGE)}…` : path
    const allowed = methodsOf(path)
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send(
          options.renderError({
            status: 405,
            code: 'METHOD_NOT_ALLOWED',
            message: `${req.method} is not allowed on ${shown}: use ${allowed.join(', ')}`,
          }),
        )
    }
    return reply.code(404).send(
      options.renderError({
        status: 404,
        code: 'NOT_FOUND',
        message: `Route ${req.method} ${shown} not found`,
      }),
    )
  })

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, description: options.description, version: VERSION },
      components: { securitySchemes: options.securitySchemes },
      tags: [{ name: 'health', description: 'Liveness and readiness probes' }, ...options.tags],
    },
    // Shared schemas (the error bodies) appear in components under their $id, not as `def-0`.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    // The reference is also served over plain HTTP on local instances.
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
    uiConfig: { url: '/openapi.json', deepLinking: true, docExpansion: 'list' },
    theme: { title: `${options.title} reference` },
  })
  // Before the access hook: the plugin's catch-all OPTIONS route answers preflights only, in `onRequest`.
  await registerCors(app, corsPolicy(options.cors, options.service))

  // Every route registered from here on declares its access level (the reference's own are public).
  app.addHook('onRoute', accessHook(options.access, catalog))
  // A route whose body may be left out (`config.optionalBody`) validates a missing one as `{}`: decided
  // once per route, ahead of its guard, so the routes that take no such body run no hook for it.
  app.addHook('onRoute', (route) => {
    if (route.config?.optionalBody) route.preValidation = [emptyBodyAsObject, ...toArray(route.preValidation)]
  })

  app.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  )

  const root = {
    name: options.title,
    service: options.service,
    version: VERSION,
    links: { docs: '/docs', openapi: '/openapi.json', health: '/healthz', ready: '/readyz' },
    clients: { guide: CLIENTS_GUIDE, ...options.clients },
    ...(options.standIns?.length ? { demo: { standIns: options.standIns } } : {}),
  }
  app.get(
    '/',
    {
      config: { access: 'public' },
      schema: {
        tags: ['health'],
        summary: 'About this service',
        description:
          'Names the service and its version, and links to its reference, document and probes, and to what ' +
          'programs use besides the REST API (`clients`: the MCP endpoint, feeds, the typed client, and the ' +
          'guide to them).' +
          (options.standIns === undefined
            ? ''
            : ' On an instance started by `npm run demo`, `demo` names the providers it reaches through ' +
              'local stand-ins instead of the real services.'),
        response: {
          200: described(
            options.standIns === undefined ? RootAnswer : RootAnswerWithDemo,
            'About this service',
            root,
          ),
        },
      },
    },
    async () => root,
  )
  app.get(
    '/healthz',
    {
      config: { access: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Liveness',
        description: 'Answers while the process serves requests.',
        response: { 200: HealthAnswer },
      },
    },
    async () => ({ status: 'ok' }),
  )
  metricsRoute(app, options.metrics)
  app.get(
    '/readyz',
    {
      config: { access: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Readiness',
        description:
          'Answers 200 once the database and the job queue answer, 503 otherwise. `checks` names what was ' +
          'checked: `database` (a query), `jobs` (the job queue is started and its tables answer) and, ' +
          'with `REDIS_URL` set, `redis` (the shared rate-limit store). `degraded` (still 200) means the ' +
          'service answers on a fallback: Redis unreachable, rate limits counted per instance.',
        response: { 200: ReadyAnswer, 503: NotReadyAnswer },
      },
    },
    async (req, reply) => {
      const named = Object.entries(options.readiness) as [
        keyof ReadinessChecks,
        () => Promise<ReadinessCheck>,
      ][]
      const results = await Promise.all(
        named.map(([name, check]) =>
          withinReadinessTimeout(check()).catch((error: unknown): ReadinessCheck => {
            const reason = error instanceof ReadinessTimeout ? error.message : databaseUnavailable(error)
            req.log.warn({ check: name, reason, ...(reason ? {} : { err: error }) }, 'readiness check failed')
            return { status: 'unavailable', detail: reason ?? 'failed: the log says why' }
          }),
        ),
      )
      const checks = Object.fromEntries(named.map(([name], i) => [name, results[i]!])) as Record<
        keyof ReadinessChecks,
        ReadinessCheck
      >
      const states = Object.values(checks).map((check) => check.status)
      const status = states.includes('unavailable')
        ? 'unavailable'
        : states.includes('degraded')
          ? 'degraded'
          : 'ok'
      return reply.code(status === 'unavailable' ? 503 : 200).send({ status, checks })
    },
  )

  // Any module route may find the database away: each documents that 503 (a route naming 503 for reasons
  // of its own gets DATABASE_UNAVAILABLE among them from `errors()`).
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { response?: Record<string, unknown>; hide?: boolean } | undefined
    if (!schema?.response || schema.hide || 503 in schema.response) return
    schema.response = { ...schema.response, 503: options.outageResponse }
  })

  return app
}

/** A missing body as `{}`, on the routes whose body may be left out. */
function emptyBodyAsObject(req: FastifyRequest, _reply: FastifyReply, done: () => void) {
  if (req.body === undefined) req.body = {}
  done()
}

/** Whether every string in a parsed JSON value, keys included, is well-formed Unicode. */
const wellFormed = (value: unknown) => !someText(value, (text) => !text.isWellFormed())
