import AjvCompiler from '@fastify/ajv-compiler'
import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import type { AnySchema } from 'ajv'
import type { FastifyServerOptions } from 'fastify'
import { addEdgeKeywords, withEdgeRules } from './edge-values.ts'

/**
 * The compilers of route schemas: ajv validators of requests, fast-json-stringify serializers of answers.
 *
 * Each is compiled the first time its route needs it, not when the app starts: a service has about 200
 * routes, each with a validator per part and a serializer per status, and compiling them all took most of
 * an app's start (about 2 s of CPU) although a process, and above all a test, uses few of them. A schema
 * is still compiled once per app, and the first request of a route pays a few milliseconds.
 */

const validatorPool = AjvCompiler()
const serializerPool = SerializerSelector()

const AJV_OPTIONS = {
  // Unknown fields are stripped everywhere, never an error: one rule for every route.
  removeAdditional: 'all',
  useDefaults: true,
  // Every failing field is reported, each with its schema, so messages can name allowed values.
  allErrors: true,
  verbose: true,
} as const

interface RouteSchema {
  schema: unknown
  httpPart?: string
}

/** An ajv validate function: false with its `errors` set, as Fastify reads it. */
interface Validate {
  (data: unknown): boolean
  errors?: unknown
}

/** A validator compiled at its first call, then that compiled function; `errors` as ajv sets them. */
function lazyValidator(compile: () => Validate): Validate {
  let compiled: Validate | undefined
  const validate: Validate = (data) => {
    compiled ??= compile()
    const valid = compiled(data)
    validate.errors = compiled.errors
    return valid
  }
  return validate
}

/**
 * Query strings, path parameters and headers arrive as text, so their values are coerced to the schema's
 * types (`?limit=10` is a number). A JSON body already has types: a number where a string belongs is a
 * 400 naming the field, not silently turned into "42".
 */
function buildValidators(externalSchemas: Record<string, AnySchema>) {
  // Every schema gets the edge rules (no NUL, integers in range, real dates): see edge-values.ts.
  const shared = Object.fromEntries(
    Object.entries(externalSchemas).map(([id, schema]) => [id, withEdgeRules(schema)]),
  )
  const onCreate = addEdgeKeywords
  const coercing = validatorPool(shared, {
    customOptions: { ...AJV_OPTIONS, coerceTypes: 'array' },
    onCreate,
  })
  const exact = validatorPool(shared, { customOptions: { ...AJV_OPTIONS, coerceTypes: false }, onCreate })
  // The pool's typings describe ajv's compile; at run time it takes Fastify's route definition.
  type Compile = (route: RouteSchema) => Validate
  return (route: RouteSchema) =>
    lazyValidator(() =>
      ((route.httpPart === 'body' ? exact : coercing) as unknown as Compile)({
        ...route,
        schema: withEdgeRules(route.schema),
      }),
    )
}

/** Serializers of answers (fast-json-stringify, as Fastify's own), each compiled at its first answer. */
function buildSerializers(...args: Parameters<typeof serializerPool>) {
  const compile = serializerPool(...args) as (route: RouteSchema) => (data: unknown) => string
  return (route: RouteSchema) => {
    let compiled: ((data: unknown) => string) | undefined
    return (data: unknown) => {
      compiled ??= compile(route)
      return compiled(data)
    }
  }
}

/** Fastify's schema compilers for both services. Fastify's typings describe the pools' own options; at run
 * time they are handed the route definitions above. */
export const compilersFactory = {
  buildValidator: buildValidators,
  buildSerializer: buildSerializers,
} as unknown as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
