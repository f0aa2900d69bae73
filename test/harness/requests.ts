import fc from 'fast-check'
import type { Operation, Parameter, Schema } from './openapi.ts'
import {
  BAD_ENCODINGS,
  nestedArrays,
  nestedObjects,
  ODD_DATES,
  ODD_JSON,
  ODD_NUMBER_TEXT,
  ODD_TEXT,
  pathsIn,
  RawJson,
  Real,
  validValue,
  withAt,
} from './values.ts'

/** A piece of a URL: text to percent-encode, raw text sent as it is, or a real value picked at send time. */
type UrlPart = { text: string } | { raw: string } | Real

/** One generated request, symbolic until sent: credentials and real values are filled in by the sender. */
export interface FuzzRequest {
  /** `POST /api/works/{id}`: the operation of the document it was made for (or the path it misuses). */
  operation: string
  method: string
  path: string
  pathParts: UrlPart[]
  query: [UrlPart, UrlPart][]
  /** Who sends it: a credential name the test resolves (anonymous, jwt, admin…). */
  auth: string
  headers: Record<string, string>
  body: { json: unknown } | { raw: string } | undefined
  /** What was done to a valid request, in words. */
  mutations: string[]
  /** The request as sent, once it was. */
  sent?: { url: string; headers: Record<string, string>; payload: string | undefined }
}

export interface RequestSources {
  /** The credential names of the service with how often each is used. */
  auths: readonly (readonly [string, number])[]
}

const cut = (text: string, length = 200) =>
  text.length > length ? `${text.slice(0, length)}… (${text.length} chars)` : text

/** How a failing request is printed by fast-check: the operation and what was sent. */
function describe(this: FuzzRequest): string {
  const sent = this.sent
  const lines = [
    `${this.operation} as ${this.auth}`,
    `  mutations: ${this.mutations.length ? this.mutations.join(', ') : 'none (a valid request)'}`,
  ]
  if (sent) {
    lines.push(`  ${this.method} ${cut(sent.url, 400)}`)
    const headers = Object.entries(sent.headers).map(
      ([name, value]) => `${name}: ${cut(JSON.stringify(value), 120)}`,
    )
    if (headers.length) lines.push(`  headers: ${headers.join('; ')}`)
    if (sent.payload !== undefined) lines.push(`  body: ${cut(JSON.stringify(sent.payload), 400)}`)
  }
  return lines.join('\n')
}

const text = (value: string): UrlPart => ({ text: value })
const raw = (value: string): UrlPart => ({ raw: value })

/** An odd value for a URL: odd text, an odd date or number, or a broken percent-encoding. */
const oddUrlPart: fc.Arbitrary<UrlPart> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('\u0000', 'a\u0000b').map(text) },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_TEXT).map(text) },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_NUMBER_TEXT).map(text) },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_DATES).map(text) },
  { weight: 2, arbitrary: fc.constantFrom(...BAD_ENCODINGS).map(raw) },
)

/** The pool of a path parameter: ids answered by the collection the parameter indexes. */
function paramPools(path: string, name: string): string[] {
  const before = path.slice(0, path.indexOf(`{${name}}`)).replace(/\/$/, '')
  return [before, name, 'any']
}

function pathParamValue(operation: Operation, parameter: Parameter): fc.Arbitrary<UrlPart> {
  const pools = paramPools(operation.path, parameter.name)
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.nat().map((pick) => new Real(pools, pick, '00000000-0000-4000-8000-000000000000')),
    },
    { weight: 2, arbitrary: fc.uuid().map(text) },
    { weight: 3, arbitrary: oddUrlPart },
  )
}

const queryText = (value: unknown): string =>
  value instanceof Real ? value.fallback : typeof value === 'string' ? value : JSON.stringify(value)

/** A valid value of a query parameter as the query string spells it (several for an array). */
function validQueryValues(operation: Operation, parameter: Parameter): fc.Arbitrary<UrlPart[]> {
  return validValue(parameter.schema, parameter.name, operation.path).map((value) => {
    const values = Array.isArray(value) ? value : [value]
    return values.map((item) => (item instanceof Real ? item : text(queryText(item))))
  })
}

type QueryMutation = (query: [UrlPart, UrlPart][]) => [[UrlPart, UrlPart][], string]

const nameOf = (part: UrlPart) => ('text' in part ? part.text : 'raw' in part ? part.raw : '?')

function queryMutation(operation: Operation): fc.Arbitrary<QueryMutation> {
  const declared = operation.query.map((parameter) => parameter.name)
  const names = declared.length > 0 ? declared : ['limit', 'page', 'search']
  const pickName = fc.constantFrom(...names)
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.tuple(pickName, oddUrlPart).map(
        ([name, value]): QueryMutation =>
          (query) => [
            [...query.filter(([key]) => nameOf(key) !== name), [text(name), value]],
            `query.${name}=${cut(JSON.stringify(nameOf(value)), 40)}`,
          ],
      ),
    },
    {
      weight: 2,
      arbitrary: pickName.map(
        (name): QueryMutation =>
          (query) => {
            const left = query.filter(([key]) => nameOf(key) !== name)
            return [left, left.length < query.length ? `query.${name} left out` : '']
          },
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(pickName, oddUrlPart).map(
        ([name, value]): QueryMutation =>
          (query) => [[...query, [text(name), value], [text(name), value]], `query.${name} repeated`],
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...BAD_ENCODINGS).map(
        (encoding): QueryMutation =>
          (query) => [[...query, [raw(encoding), text('1')]], `query name ${encoding}`],
      ),
    },
  )
}

function queryOf(operation: Operation): fc.Arbitrary<[[UrlPart, UrlPart][], string[]]> {
  const parameters = operation.query.map((parameter) =>
    fc.option(validQueryValues(operation, parameter), { freq: parameter.required ? 10 : 2, nil: undefined }),
  )
  const baseline = fc
    .tuple(...parameters)
    .map((chosen) =>
      chosen.flatMap((values, index): [UrlPart, UrlPart][] =>
        (values ?? []).map((value) => [text(operation.query[index]!.name), value]),
      ),
    )
  const mutations = fc.oneof(
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.array(queryMutation(operation), { minLength: 1, maxLength: 3 }) },
  )
  return fc.tuple(baseline, mutations).map(([query, changes]) => {
    const said: string[] = []
    let current = query
    for (const change of changes) {
      const [next, words] = change(current)
      current = next
      if (words) said.push(words)
    }
    return [current, said]
  })
}

type Body = FuzzRequest['body']
type BodyChange = { body: Body; headers: Record<string, string>; said: string }

/** Bodies no route should take: broken JSON, the wrong media type, prototype keys, bodies past the limit. */
const ODD_BODIES: readonly BodyChange[] = [
  ...['{', '{"a":', "{'a':1}", '[1,]', 'nul', '\u0000', '{"a":1}}', '\uFEFF{}', '"'].map((payload) => ({
    body: { raw: payload },
    headers: { 'content-type': 'application/json' },
    said: `bad JSON ${JSON.stringify(payload)}`,
  })),
  ...['[]', 'null', '0', '"text"', 'true', '[{}]'].map((payload) => ({
    body: { raw: payload },
    headers: { 'content-type': 'application/json' },
    said: `JSON ${payload} instead of an object`,
  })),
  {
    body: { raw: '' },
    headers: { 'content-type': 'application/json' },
    said: 'empty body as application/json',
  },
  ...(
    [
      ['text/plain', 'hello'],
      ['application/x-www-form-urlencoded', 'name=a&email=b'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
      ],
      ['application/xml', '<a/>'],
      ['application/octet-stream', '\u00ff\u00fe'],
      ['application/json; charset=utf-16', '{}'],
      ['application/jsonx', '{}'],
      ['APPLICATION/JSON', '{}'],
    ] as const
  ).map(([type, payload]) => ({
    body: { raw: payload },
    headers: { 'content-type': type },
    said: `content-type ${type}`,
  })),
  {
    body: { raw: '{"__proto__":{"isAdmin":true}}' },
    headers: { 'content-type': 'application/json' },
    said: '__proto__ key',
  },
  {
    body: { raw: '{"constructor":{"prototype":{"isAdmin":true}}}' },
    headers: { 'content-type': 'application/json' },
    said: 'constructor.prototype key',
  },
  {
    body: { raw: nestedArrays(5000) },
    headers: { 'content-type': 'application/json' },
    said: 'JSON nested 5000 deep',
  },
  {
    body: { raw: nestedObjects(100_000) },
    headers: { 'content-type': 'application/json' },
    said: 'objects nested 100,000 deep',
  },
  {
    body: { raw: `{"name":${nestedArrays(10_000)},"email":${nestedObjects(10_000)}}` },
    headers: { 'content-type': 'application/json' },
    said: 'fields nested 10,000 deep',
  },
  {
    body: {
      raw: `{${Array.from({ length: 5000 }, (_, index) => `"k${index}":${nestedArrays(3)}`).join(',')}}`,
    },
    headers: { 'content-type': 'application/json' },
    said: '5000 unknown keys',
  },
  {
    body: { raw: JSON.stringify({ padding: 'p'.repeat(1_100_000) }) },
    headers: { 'content-type': 'application/json' },
    said: 'body past the 1 MiB limit',
  },
]

type ValueChange = (value: unknown) => [unknown, string]

const location = (path: (string | number)[]) => ['body', ...path].join('.')

/** Paths of the leaves of `value` that hold a `type` (string, number). */
const leavesOf = (value: unknown, type: 'string' | 'number') =>
  pathsIn(value).filter((path) => {
    const leaf = path.reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], value)
    return typeof leaf === type || (type === 'string' && leaf instanceof Real)
  })

/** Replaces one place of `value`, chosen among `candidates` (all places when there are none). */
const replaceAt =
  (candidates: (value: unknown) => (string | number)[][], pick: number, replacement: unknown): ValueChange =>
  (value) => {
    const found = candidates(value)
    const paths = found.length > 0 ? found : pathsIn(value)
    const path = paths[pick % paths.length]!
    return [
      withAt(value, path, replacement),
      `${location(path)}=${cut(JSON.stringify(replacement) ?? '', 40)}`,
    ]
  }

/** Text with NUL, which Postgres cannot store, weighted up: the edge that reaches the database. */
const oddText = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', 'name\u0000') },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_TEXT) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD_DATES) },
)

/** JSON numbers past every column's range, non-finite once parsed, or not whole. */
const oddNumber = fc.constantFrom<unknown>(
  new RawJson('1e400'),
  new RawJson('-1e400'),
  1e20,
  2147483648,
  -2147483649,
  -1,
  0,
  1.5,
  Number.MAX_SAFE_INTEGER + 2,
)

/** A change to one place of a valid body: odd text or numbers where they are expected, another type, or removed. */
const valueChange: fc.Arbitrary<ValueChange> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.nat(), oddText)
      .map(([pick, text]) => replaceAt((value) => leavesOf(value, 'string'), pick, text)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.nat(), oddNumber)
      .map(([pick, number]) => replaceAt((value) => leavesOf(value, 'number'), pick, number)),
  },
  { weight: 2, arbitrary: fc.tuple(fc.nat(), ODD_JSON).map(([pick, odd]) => replaceAt(pathsIn, pick, odd)) },
  {
    weight: 1,
    arbitrary: fc.nat().map(
      (pick): ValueChange =>
        (value) => {
          const paths = pathsIn(value).filter((path) => path.length > 0)
          if (paths.length === 0) return [value, 'nothing to remove']
          const path = paths[pick % paths.length]!
          return [withAt(value, path, undefined), `${location(path)} left out`]
        },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('unexpected', '__proto__', 'constructor', 'k'.repeat(10_000)).map(
      (key): ValueChange =>
        (value) => [
          value !== null && typeof value === 'object' && !Array.isArray(value)
            ? { ...(value as object), [key]: { polluted: true } }
            : value,
          `body.${cut(key, 40)} added`,
        ],
    ),
  },
)

function bodyOf(operation: Operation): fc.Arbitrary<BodyChange> {
  const json = 'application/json'
  const odd = fc.constantFrom(...ODD_BODIES)
  if (!operation.body) {
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant<BodyChange>({ body: undefined, headers: {}, said: '' }) },
      {
        weight: 1,
        arbitrary: fc.constant<BodyChange>({
          body: { raw: '' },
          headers: { 'content-type': json },
          said: 'empty body as application/json',
        }),
      },
      { weight: 1, arbitrary: odd },
    )
  }
  const valid = validValue(operation.body as Schema, 'body', operation.path)
  const changed = fc
    .tuple(valid, fc.array(valueChange, { minLength: 1, maxLength: 3 }))
    .map(([value, changes]): BodyChange => {
      const said: string[] = []
      let current = value
      for (const change of changes) {
        const [next, words] = change(current)
        current = next
        said.push(words)
      }
      return { body: { json: current }, headers: {}, said: said.join(', ') }
    })
  return fc.oneof(
    {
      weight: 4,
      arbitrary: valid.map((value): BodyChange => ({ body: { json: value }, headers: {}, said: '' })),
    },
    { weight: 5, arbitrary: changed },
    { weight: 1, arbitrary: fc.constant<BodyChange>({ body: undefined, headers: {}, said: 'no body' }) },
    { weight: 2, arbitrary: odd },
  )
}

function finish(request: Omit<FuzzRequest, 'mutations'>, said: string[]): FuzzRequest {
  const made: FuzzRequest = { ...request, mutations: said.filter(Boolean) }
  Object.defineProperty(made, fc.toStringMethod, { value: describe, enumerable: false })
  return made
}

/** Requests for one operation: valid ones and broken ones, each sent as one of the service's callers. */
export function requestsFor(operation: Operation, sources: RequestSources): fc.Arbitrary<FuzzRequest> {
  const auth = authOf(sources)
  const segments = operation.path.split('/').slice(1)
  const parts = fc.tuple(
    ...segments.map((segment) => {
      const parameter = operation.pathParams.find((candidate) => `{${candidate.name}}` === segment)
      return parameter ? pathParamValue(operation, parameter) : fc.constant(text(segment))
    }),
  )
  return fc
    .record({ auth, parts, query: queryOf(operation), body: bodyOf(operation) })
    .map(({ auth, parts, query: [query, querySaid], body }) => {
      const pathSaid = parts.flatMap((part, index) =>
        segments[index]!.startsWith('{') && !(part instanceof Real)
          ? [`path ${segments[index]}=${cut(JSON.stringify(nameOf(part)), 40)}`]
          : [],
      )
      return finish(
        {
          operation: `${operation.method} ${operation.path}`,
          method: operation.method,
          path: operation.path,
          pathParts: parts,
          query,
          auth,
          headers: body.headers,
          body: body.body,
        },
        [...pathSaid, ...querySaid, body.said],
      )
    })
}

const authOf = (sources: RequestSources) =>
  fc.oneof(...sources.auths.map(([name, weight]) => ({ weight, arbitrary: fc.constant(name) })))

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/** Requests with a method the path does not take (405 or 404 in the error shape). */
export function wrongMethods(
  operations: Operation[],
  sources: RequestSources,
): fc.Arbitrary<FuzzRequest> | undefined {
  const byPath = new Map<string, Set<string>>()
  for (const operation of operations) {
    byPath.set(operation.path, (byPath.get(operation.path) ?? new Set()).add(operation.method))
  }
  const misuses = [...byPath].flatMap(([path, methods]) =>
    METHODS.filter((method) => !methods.has(method)).map((method) => ({ path, method })),
  )
  if (misuses.length === 0) return undefined
  return fc
    .tuple(fc.constantFrom(...misuses), authOf(sources), fc.boolean())
    .map(([{ path, method }, auth, withBody]) =>
      finish(
        {
          operation: `${method} ${path}`,
          method,
          path,
          pathParts: path
            .split('/')
            .slice(1)
            .map((segment) =>
              segment.startsWith('{')
                ? new Real(paramPools(path, segment.slice(1, -1)), 0, 'x')
                : text(segment),
            ),
          query: [],
          auth,
          headers: withBody ? { 'content-type': 'application/json' } : {},
          body: withBody ? { json: {} } : undefined,
        },
        ['a method the path does not take'],
      ),
    )
}

export { RawJson, Real }
