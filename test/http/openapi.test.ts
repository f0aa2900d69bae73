/**
 * Both OpenAPI documents read like documentation, and stay so as routes are added: every operation is
 * summarised, described and tagged; every answer is described and has an example (a 204 has no body to
 * show); every request body has an example; every error status has a description and an example of its
 * own in the service's error shape (a 400 with `details`, a 429 with its headers); enums are `enum`s; a
 * parameter with a default is not required; every example is valid against its schema; the reference page
 * is titled with the service's name.
 */
import assert from 'node:assert/strict'
import { STATUS_CODES } from 'node:http'
import { after, before, describe, it } from 'node:test'
import AjvModule from 'ajv'
import addFormatsModule from 'ajv-formats'
import { ERROR_CODES } from '../../src/lib/error-codes.ts'
import { schemaChecker } from '../harness/openapi.ts'
import {
  type DirectoryHarness,
  type PlatformHarness,
  startDirectory,
  startPlatform,
} from '../helpers/apps.ts'

// ajv and ajv-formats are CommonJS: their default export arrives wrapped.
const _Ajv = AjvModule as unknown as typeof AjvModule.default
const _addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

type Json = Record<string, unknown>

interface Media {
  schema?: Json
  example?: unknown
  examples?: Record<string, { value?: unknown }>
}

interface Response {
  description?: string
  headers?: Record<string, { schema?: Json }>
  content?: Record<string, Media>
}

interface Operation {
  summary?: string
  description?: string
  tags?: string[]
  parameters?: { name: string; in: string; required?: boolean; schema: Json; example?: unknown }[]
  requestBody?: { content: Record<string, Media> }
  responses?: Record<string, Response>
}

interface Document {
  info: { title: string }
  paths: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, Json> }
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete'])

/** Every operation of a document, named `GET /api/works/{id}`. */
function operations(document: Document): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]): [string, Operation] => [`${method.toUpperCase()} ${path}`, operation]),
  )
}

/** The examples of a media object, whichever way it gives them. */
function examplesOf(media: Media | undefined): unknown[] {
  if (!media) return []
  const found: unknown[] = []
  if (media.example !== undefined) found.push(media.example)
  for (const example of Object.values(media.examples ?? {})) found.push(example.value)
  return found
}

/** Every schema object in a value, with where it is: the callback sees each node once. */
function walkSchemas(value: unknown, where: string, visit: (schema: Json, where: string) => void): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) walkSchemas(item, `${where}/${index}`, visit)
    return
  }
  if (value === null || typeof value !== 'object') return
  const node = value as Json
  const looksLikeSchema =
    'type' in node ||
    'anyOf' in node ||
    'oneOf' in node ||
    'enum' in node ||
    'const' in node ||
    '$ref' in node
  if (looksLikeSchema) visit(node, where)
  for (const [key, child] of Object.entries(node)) {
    // Example values are data, not schemas.
    if (key === 'example' || key === 'examples' || key === 'default' || key === 'enum' || key === 'const')
      continue
    walkSchemas(child, `${where}/${key}`, visit)
  }
}

/** The component a `$ref` names, by its last segment. */
const refName = (schema: Json | undefined) =>
  typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined

const services = [
  {
    name: 'platform',
    title: 'Curio platform API',
    errorSchema: 'PlatformError',
    /** The failures of an error example at a status, in the platform's shape. */
    shapeOf(status: number, body: Json): string[] {
      const problems: string[] = []
      if (body.statusCode !== status) problems.push(`statusCode ${String(body.statusCode)}`)
      if (body.error !== STATUS_CODES[status]) problems.push(`error ${String(body.error)}`)
      if (typeof body.message !== 'string' || body.message === '') problems.push('no message')
      return problems
    },
  },
  {
    name: 'directory',
    title: 'Curio directory API',
    errorSchema: 'DirectoryError',
    shapeOf(_status: number, body: Json): string[] {
      const problems: string[] = []
      if (body.success !== false) problems.push('success is not false')
      if (typeof body.error !== 'string' || body.error === '') problems.push('no error message')
      return problems
    },
  },
] as const

/** Error answers that are not in the service's error shape, by design. */
const OWN_SHAPE_ERRORS = new Set([
  'GET /readyz 503',
  'GET /api/collections/exists 500',
  // SPEC.md: the payment webhooks answer `{error}`.
  ...['stripe', 'lemonsqueezy', 'polar', 'solidgate'].flatMap((provider) => [
    `POST /api/${provider}/webhook 400`,
    `POST /api/${provider}/webhook 500`,
  ]),
])

const RATE_LIMIT_HEADERS = ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']

let platform: PlatformHarness
let directory: DirectoryHarness
const documents: Record<string, Document> = {}
const docsPages: Record<string, string> = {}

before(async () => {
  ;[platform, directory] = await Promise.all([startPlatform(), startDirectory()])
  for (const [name, app] of [
    ['platform', platform.app],
    ['directory', directory.app],
  ] as const) {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' })
    assert.equal(res.statusCode, 200)
    documents[name] = res.json()
    const page = await app.inject({ method: 'GET', url: '/docs/' })
    assert.equal(page.statusCode, 200, `${name} /docs/ answers ${page.statusCode}`)
    docsPages[name] = page.body
  }
})

after(async () => {
  await Promise.all([platform?.close(), directory?.close()])
})

/** Fails with every problem found, one per line, so one run names every route to fix. */
function assertNone(problems: string[], what: string) {
  assert.deepEqual(problems, [], `${what}:\n  ${problems.join('\n  ')}`)
}

for (const service of services) {
  describe(`${service.name} OpenAPI document`, () => {
    const doc = () => documents[service.name]!

    it('has routes to check', () => {
      assert.ok(operations(doc()).length > 5)
    })

    it('labels no answer "Default Response"', () => {
      const problems = operations(doc()).flatMap(([name, operation]) =>
        Object.entries(operation.responses ?? {})
          .filter(([, response]) => !response.description || response.description === 'Default Response')
          .map(([status]) => `${name} ${status}`),
      )
      assertNone(problems, 'answers without a description of their own')
    })

    it('summarises, describes and tags every operation', () => {
      const problems = operations(doc()).flatMap(([name, operation]) => [
        ...(operation.summary ? [] : [`${name}: no summary`]),
        ...(operation.description ? [] : [`${name}: no description`]),
        ...(operation.tags?.length ? [] : [`${name}: no tags`]),
      ])
      assertNone(problems, 'operations missing a summary, description or tags')
    })

    it('describes a success answer of every operation, with an example', () => {
      const problems: string[] = []
      for (const [name, operation] of operations(doc())) {
        const successes = Object.entries(operation.responses ?? {}).filter(([status]) =>
          status.startsWith('2'),
        )
        if (successes.length === 0) problems.push(`${name}: no 2xx answer`)
        for (const [status, response] of successes) {
          if (status === '204') continue
          // An accepted message with nothing to answer (MCP's notifications): a 202 that says it has no body.
          if (status === '202' && !response.content && /no body/.test(response.description ?? '')) continue
          const media = Object.values(response.content ?? {})
          if (media.length === 0) problems.push(`${name} ${status}: no content`)
          for (const item of media) {
            if (examplesOf(item).length === 0) problems.push(`${name} ${status}: no example`)
          }
        }
      }
      assertNone(problems, 'success answers without an example')
    })

    it('gives every request body an example', () => {
      const problems = operations(doc()).flatMap(([name, operation]) =>
        Object.entries(operation.requestBody?.content ?? {})
          .filter(([, media]) => examplesOf(media).length === 0)
          .map(([type]) => `${name} ${type}`),
      )
      assertNone(problems, 'request bodies without an example')
    })

    it('documents every error status with its own description and an example in the service’s shape', () => {
      const problems: string[] = []
      const descriptions = new Map<string, string>()
      for (const [name, operation] of operations(doc())) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const code = Number(status)
          if (!(code >= 400)) continue
          const where = `${name} ${status}`
          if (!response.description) problems.push(`${where}: no description`)
          const media = response.content?.['application/json']
          const examples = examplesOf(media)
          if (examples.length === 0) problems.push(`${where}: no example`)
          if (OWN_SHAPE_ERRORS.has(where)) continue
          // One status, one description: two statuses never share the text of another.
          const seen = descriptions.get(response.description ?? '')
          if (seen && seen !== status) problems.push(`${where}: the description of a ${seen}`)
          descriptions.set(response.description ?? '', status)
          if (refName(media?.schema) !== service.errorSchema) {
            problems.push(`${where}: not the shared ${service.errorSchema} schema`)
          }
          for (const example of examples as Json[]) {
            const errorCode = String(example.code)
            if (!(errorCode in ERROR_CODES))
              problems.push(`${where}: example code ${errorCode} is not listed`)
            for (const problem of service.shapeOf(code, example))
              problems.push(`${where}: example ${problem}`)
          }
          if (code === 400 && !(examples as Json[]).some((example) => Array.isArray(example.details))) {
            problems.push(`${where}: no example with details`)
          }
          if (code === 429) {
            for (const header of RATE_LIMIT_HEADERS) {
              if (!response.headers?.[header]) problems.push(`${where}: no ${header} header`)
            }
          }
        }
      }
      assertNone(problems, 'error answers')
    })

    it('writes enums as enum, not as a union of constants', () => {
      const problems: string[] = []
      const constant = (branch: Json) =>
        'const' in branch || (Array.isArray(branch.enum) && branch.enum.length === 1)
      walkSchemas(doc(), '#', (schema, where) => {
        for (const keyword of ['anyOf', 'oneOf'] as const) {
          const branches = schema[keyword]
          if (Array.isArray(branches) && branches.length > 1 && (branches as Json[]).every(constant)) {
            problems.push(`${where}: ${keyword} of constants`)
          }
        }
      })
      assertNone(problems, 'unions of constants')
    })

    it('marks no parameter with a default as required', () => {
      const problems = operations(doc()).flatMap(([name, operation]) =>
        (operation.parameters ?? [])
          .filter(
            (parameter) =>
              parameter.required && parameter.schema.default !== undefined && parameter.in !== 'path',
          )
          .map((parameter) => `${name}: ${parameter.in}.${parameter.name}`),
      )
      assertNone(problems, 'required parameters with a default')
    })

    it('has every example valid against its schema', () => {
      const validate = schemaChecker(doc())
      const problems: string[] = []
      const check = (schema: Json | undefined, value: unknown, where: string) => {
        if (!schema) return
        for (const problem of validate(schema, value)) problems.push(`${where}: ${problem}`)
      }
      for (const [name, operation] of operations(doc())) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.example !== undefined) {
            check(parameter.schema, parameter.example, `${name} ${parameter.in}.${parameter.name}`)
          }
        }
        for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
          for (const example of examplesOf(media)) check(media.schema, example, `${name} body ${type}`)
        }
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          for (const [type, media] of Object.entries(response.content ?? {})) {
            for (const example of examplesOf(media)) check(media.schema, example, `${name} ${status} ${type}`)
          }
        }
      }
      // Examples inside schemas (properties, items, headers, components).
      walkSchemas(doc(), '#', (schema, where) => {
        const { examples, example } = schema
        const values = [
          ...(Array.isArray(examples) ? examples : []),
          ...(example === undefined ? [] : [example]),
        ]
        for (const value of values) check(schema, value, where)
      })
      assertNone(problems, 'examples that break their schema')
    })

    it('titles the reference page with the service’s name', () => {
      assert.match(docsPages[service.name]!, new RegExp(`<title>${service.title}`))
      assert.equal(doc().info.title, service.title)
    })
  })
}
