import { parse } from 'csv-parse/sync'
import { XMLValidator } from 'fast-xml-parser'
import { EXPORT_HEADER } from '../../src/platform/activity-log/service.ts'
import type { ResponseCheck } from './openapi.ts'
import type { FuzzRequest } from './requests.ts'
import type { Answer } from './send.ts'

/** What no answer may carry, whatever its status: internals a client has no business seeing. */
const LEAKS: readonly [string, RegExp][] = [
  [
    'a stack trace',
    /\bat (?:async )?[\w.$<>[\] ]+ \((?:file:|node:|\/)[^)]*:\d+:\d+\)|(?:\\n|\n)\s*at (?:file:|node:|\/)/,
  ],
  [
    'SQL',
    /\bselect\s[^"]{0,200}?\sfrom\s|\binsert\s+into\s|\bdelete\s+from\s|\bupdate\s+"?\w+"?\.?"?\w*"?\s+set\s/i,
  ],
  ['a file path', /\/work\/|node_modules|\bsrc\/[\w/.-]+\.(?:ts|js)\b/],
  [
    'database driver text',
    /invalid byte sequence|out of range|syntax error at|invalid input syntax|violates (?:unique|foreign key|not-null|check) constraint|duplicate key value|value too long for type|relation "|column "|PGlite|ECONNREFUSED|unterminated quoted/i,
  ],
]

export type ErrorShape = (body: unknown, status: number) => string[]

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

function detailsProblems(details: unknown): string[] {
  if (details === undefined) return []
  if (!Array.isArray(details)) return ['`details` is not an array']
  return details.every(
    (item) => isObject(item) && typeof item.field === 'string' && typeof item.message === 'string',
  )
    ? []
    : ['`details` holds an entry that is not {field, message}']
}

function extraKeys(body: Record<string, unknown>, allowed: readonly string[]): string[] {
  const extra = Object.keys(body).filter((key) => !allowed.includes(key))
  return extra.length ? [`unexpected keys ${extra.join(', ')}`] : []
}

/** The platform's error body: `{statusCode, error, message, code, details?}`, statusCode the HTTP status. */
export const platformErrorShape: ErrorShape = (body, status) => {
  if (!isObject(body)) return ['the error body is not a JSON object']
  const problems = extraKeys(body, ['statusCode', 'error', 'message', 'code', 'details'])
  if (body.statusCode !== status)
    problems.push(`statusCode ${String(body.statusCode)} is not the status ${status}`)
  for (const key of ['error', 'message', 'code']) {
    if (typeof body[key] !== 'string' || body[key] === '')
      problems.push(`\`${key}\` is not a non-empty string`)
  }
  return [...problems, ...detailsProblems(body.details)]
}

/** The directory's error body (SPEC.md): `{success: false, error, code, details?}`. */
/**
 * SPEC.md's payment-webhook error body, `{error}`: what the webhook routes answer themselves (no signature, a
 * bad one, an unparseable body). The answers every route shares (413, 429) keep the directory's shape.
 */
export const paymentWebhookErrorShape: ErrorShape = (body) => {
  if (!isObject(body)) return ['the error body is not a JSON object']
  const problems = extraKeys(body, ['error'])
  if (typeof body.error !== 'string' || body.error === '') problems.push('`error` is not a non-empty string')
  return problems
}

export const directoryErrorShape: ErrorShape = (body) => {
  if (!isObject(body)) return ['the error body is not a JSON object']
  const problems = extraKeys(body, ['success', 'error', 'code', 'details'])
  if (body.success !== false) problems.push('`success` is not false')
  for (const key of ['error', 'code']) {
    if (typeof body[key] !== 'string' || body[key] === '')
      problems.push(`\`${key}\` is not a non-empty string`)
  }
  return [...problems, ...detailsProblems(body.details)]
}

/** How much of a request an error may quote: a long path or value is cut, never repeated whole. */
const QUOTE_MAX = 200

/** The most an error answer may weigh, whatever was sent: a few KB (a 400 lists a bounded number of fields). */
const ERROR_MAX_CHARACTERS = 8 * 1024

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** Whether `message` holds a run of more than QUOTE_MAX characters of `source`. */
function quotes(message: string, source: string): boolean {
  if (message.length <= QUOTE_MAX || source.length <= QUOTE_MAX) return false
  for (let start = 0; start + QUOTE_MAX < source.length && start < 50 * QUOTE_MAX; start += QUOTE_MAX / 2) {
    if (message.includes(source.slice(start, start + QUOTE_MAX + 1))) return true
  }
  return false
}

function repeatedRequest(request: FuzzRequest, body: unknown): string[] {
  if (!isObject(body) || !request.sent) return []
  const sources = [request.sent.url, decoded(request.sent.url), request.sent.payload ?? '']
  return (['message', 'error'] as const)
    .filter(
      (key) => typeof body[key] === 'string' && sources.some((source) => quotes(body[key] as string, source)),
    )
    .map((key) => `\`${key}\` repeats more than ${QUOTE_MAX} characters of the request`)
}

export interface AnswerRules {
  errorShape: ErrorShape
  /** A route's own error shape where the specification prescribes one (the payment webhooks' `{error}`). */
  errorShapeOf?(request: FuzzRequest, status: number): ErrorShape | undefined
  /** The validator of a route's declared JSON answer for a status, if it declares one. */
  response(method: string, path: string, status: number): ResponseCheck | undefined
  /** The media types a route declares for a status' answer, if the document has the route. */
  mediaTypes?(method: string, path: string, status: number): string[] | undefined
  /** The validator of a route's declared answer of another JSON media type (`application/feed+json`). */
  responseOf?(method: string, path: string, status: number, mediaType: string): ResponseCheck | undefined
  /** The statuses a route declares, or undefined for a path and method the document does not have. */
  declared(method: string, path: string): string[] | undefined
  /** A 5xx the specification itself prescribes (the Git routes without a configured repository). */
  prescribedServerError?(request: FuzzRequest, answer: Answer, body: unknown): boolean
}

const header = (answer: Answer, name: string) => String(answer.headers[name] ?? '')

/** A complete CSV export: the header row, then whole records of six cells, each ended by CRLF. */
function csvProblems(body: string): string[] {
  if (!body.startsWith(EXPORT_HEADER)) return ['the CSV does not start with its header row']
  if (!body.endsWith('\r\n')) return ['the CSV does not end with a complete record']
  try {
    const records = parse(body, { relax_column_count: false }) as string[][]
    return records.every((record) => record.length === 6) ? [] : ['a CSV record does not have six cells']
  } catch (error) {
    return [`the CSV does not parse: ${(error as Error).message}`]
  }
}

function parsed(answer: Answer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(answer.body) }
  } catch {
    return { ok: false }
  }
}

/**
 * A success of a media type other than JSON or CSV: one the route declares for the status, and well formed
 * for its kind (XML parses, JSON parses and meets its schema, text is not empty).
 */
function declaredMediaProblems(request: FuzzRequest, answer: Answer, rules: AnswerRules, mediaType: string) {
  const declared = rules.mediaTypes?.(request.method, request.path, answer.status) ?? []
  if (!declared.includes(mediaType)) {
    return [`a ${answer.status} that is ${mediaType || 'untyped'}, which the route does not declare`]
  }
  if (mediaType.endsWith('+xml') || mediaType.endsWith('/xml')) {
    const valid = XMLValidator.validate(answer.body)
    return valid === true ? [] : [`the ${mediaType} body is not well-formed XML: ${valid.err.msg}`]
  }
  if (mediaType.endsWith('+json')) {
    const body = parsed(answer)
    if (!body.ok) return [`a ${answer.status} whose ${mediaType} body is not valid JSON`]
    const check = rules.responseOf?.(request.method, request.path, answer.status, mediaType)
    return (check?.(body.value) ?? []).map((issue) => `the ${answer.status} body breaks its schema: ${issue}`)
  }
  return answer.body === '' ? [`an empty ${mediaType} ${answer.status}`] : []
}

/** Every way the answer breaks the conventions every route inherits; none when it keeps them. */
export function problemsOf(request: FuzzRequest, answer: Answer, rules: AnswerRules): string[] {
  const problems: string[] = []
  const type = header(answer, 'content-type')
  const json = type.startsWith('application/json') ? parsed(answer) : undefined
  for (const [what, pattern] of LEAKS) {
    const match = pattern.exec(answer.body)
    if (match)
      problems.push(
        `the body shows ${what}: …${answer.body.slice(Math.max(0, match.index - 40), match.index + 80)}…`,
      )
  }
  if (!answer.headers['x-request-id']) problems.push('no x-request-id header')
  const success = answer.status >= 200 && answer.status < 300
  if (answer.status >= 500) {
    const prescribed = json?.ok && rules.prescribedServerError?.(request, answer, json.value)
    if (!prescribed) problems.push(`answered ${answer.status}`)
  }
  if (!success) {
    if (answer.body.length > ERROR_MAX_CHARACTERS) {
      problems.push(`the error answer is ${answer.body.length} characters long`)
    }
    if (!json) problems.push(`the error is ${type || 'untyped'}, not JSON`)
    else if (!json.ok) problems.push('the error body is not valid JSON')
    else {
      const shape = rules.errorShapeOf?.(request, answer.status) ?? rules.errorShape
      problems.push(...shape(json.value, answer.status))
      problems.push(...repeatedRequest(request, json.value))
    }
    return problems
  }
  const statuses = rules.declared(request.method, request.path)
  if (statuses && !statuses.includes(String(answer.status))) {
    problems.push(`answered ${answer.status}, which the route does not declare (${statuses.join(', ')})`)
  }
  if (answer.status === 204) {
    if (answer.body !== '') problems.push('a 204 with a body')
    return problems
  }
  // MCP: a notification (a JSON-RPC message without an id) is accepted with a 202 and no body.
  if (answer.status === 202 && request.path === '/mcp') {
    if (answer.body !== '') problems.push('a 202 to an MCP notification with a body')
    return problems
  }
  if (type.startsWith('text/csv')) return [...problems, ...csvProblems(answer.body)]
  const mediaType = type.split(';')[0]!.trim()
  if (mediaType !== 'application/json' && rules.mediaTypes) {
    return [...problems, ...declaredMediaProblems(request, answer, rules, mediaType)]
  }
  if (!json) return [...problems, `a ${answer.status} that is ${type || 'untyped'}, neither JSON nor CSV`]
  if (!json.ok) return [...problems, `a ${answer.status} whose body is not valid JSON`]
  const check = rules.response(request.method, request.path, answer.status)
  if (check) {
    for (const issue of check(json.value))
      problems.push(`the ${answer.status} body breaks its schema: ${issue}`)
  }
  return problems
}
