import AjvModule, { type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'

// ajv and ajv-formats are CommonJS: their default export arrives wrapped.
const Ajv = AjvModule as unknown as typeof AjvModule.default
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** A JSON Schema as an OpenAPI document spells it. */
export type Schema = Record<string, unknown>

export interface Parameter {
  name: string
  in: 'path' | 'query'
  required: boolean
  schema: Schema
}

/** One method of one path of an OpenAPI document, with what the harness needs to call it and check it. */
export interface Operation {
  method: string
  /** The path as OpenAPI writes it: `/api/works/{id}`. */
  path: string
  pathParams: Parameter[]
  query: Parameter[]
  /** The JSON body's schema, when the route takes one. */
  body: Schema | undefined
  bodyRequired: boolean
  /** Declared answers by status: the media types each may have. */
  responses: Record<string, { mediaTypes: string[] }>
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>
  components?: { schemas?: Record<string, Schema> }
}

interface OperationObject {
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[]
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> }
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete'])

/** Every operation of the document, in its order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue
      const parameters = (operation.parameters ?? []).map((parameter) => ({
        name: parameter.name,
        in: parameter.in as Parameter['in'],
        required: parameter.required === true,
        schema: parameter.schema,
      }))
      const responses: Operation['responses'] = {}
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        responses[status] = { mediaTypes: Object.keys(response.content ?? {}) }
      }
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((parameter) => parameter.in === 'path'),
        query: parameters.filter((parameter) => parameter.in === 'query'),
        body: operation.requestBody?.content['application/json']?.schema,
        bodyRequired: operation.requestBody?.required === true,
        responses,
      })
    }
  }
  return operations
}

const DOCUMENT_ID = 'openapi.json'

/** The schema with its `#/components/...` references pointing into the document added to ajv. */
function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored)
  if (schema === null || typeof schema !== 'object') return schema
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    copy[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? `${DOCUMENT_ID}${value}`
        : anchored(value)
  }
  return copy
}

export type ResponseCheck = (body: unknown) => string[]

/**
 * Checks values against schemas of one document, its `#/components/...` references resolved; each schema
 * is compiled once. Returns the ways a value breaks the schema (none when it conforms).
 */
export function schemaChecker(document: Pick<OpenApiDocument, 'components'>) {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true })
  addFormats(ajv)
  ajv.addSchema({ $id: DOCUMENT_ID, components: anchored(document.components ?? {}) })
  const compiled = new Map<string, ValidateFunction>()
  return (schema: unknown, value: unknown): string[] => {
    const key = JSON.stringify(schema)
    let validate = compiled.get(key)
    if (!validate) {
      validate = ajv.compile(anchored(schema) as Schema)
      compiled.set(key, validate)
    }
    return validate(value)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`)
  }
}

/**
 * Validators of the JSON answers the document declares, by method, path and status: each returns the
 * ways an answer breaks its schema (none when it conforms).
 */
export function responseValidators(document: OpenApiDocument) {
  const check = schemaChecker(document)
  return (
    method: string,
    path: string,
    status: number,
    mediaType = 'application/json',
  ): ResponseCheck | undefined => {
    const responses = document.paths[path]?.[method.toLowerCase()]?.responses ?? {}
    const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default
    const schema = response?.content?.[mediaType]?.schema
    return schema ? (body) => check(schema, body) : undefined
  }
}
