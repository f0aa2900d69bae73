import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Answer, Behaviour, RequestMatch, ScriptedFault, ScriptedRequest } from './scripted.ts'
import { parseBody, startScriptedFake } from './scripted.ts'

export const DEFAULT_TWENTY_API_KEY = 'twenty-fake-api-key-0123456789abcdef'

export interface TwentyFakeOptions {
  /** The key every request must present as `Authorization: Bearer <apiKey>`. */
  apiKey?: string
}

/** A request as Twenty received it; `path` without the query, e.g. `/rest/people`. */
export interface TwentyFakeRequest extends ScriptedRequest {
  /** The JSON body parsed, the raw text when it is not JSON, undefined when empty. */
  body: unknown
  authorization: string | undefined
}

interface Person {
  id: string
  name: { firstName: string; lastName: string }
  emails: { primaryEmail: string; additionalEmails: string[] | null }
  jobTitle: string
  city: string
  companyId: string | null
  position: number
  createdAt: string
  updatedAt: string
  deletedAt: null
}

interface Company {
  id: string
  name: string
  domainName: { primaryLinkUrl: string; primaryLinkLabel: string; secondaryLinks: unknown[] | null }
  employees: number | null
  position: number
  createdAt: string
  updatedAt: string
  deletedAt: null
}

/** The fields each object takes on create and update; Twenty refuses a field its object does not have. */
const PERSON_FIELDS = new Set(['id', 'name', 'emails', 'jobTitle', 'city', 'companyId', 'position'])
const COMPANY_FIELDS = new Set(['id', 'name', 'domainName', 'employees', 'position'])

const twentyError = (status: number, error: string, message: string): Answer => ({
  status,
  body: { statusCode: status, error, messages: [message] },
})

/** The body of an injected fault, as Twenty (or the proxy in front of it) words that status. */
function faultBody(status: number): unknown {
  if (status === 401) return { statusCode: 401, error: 'UNAUTHENTICATED', messages: ['Token invalid.'] }
  if (status === 429) {
    return { statusCode: 429, error: 'TooManyRequestsException', messages: ['Too many requests'] }
  }
  if (status === 502 || status === 503 || status === 504) return 'Service Unavailable'
  if (status >= 500) {
    return { statusCode: status, error: 'InternalServerErrorException', messages: ['Internal server error'] }
  }
  return { statusCode: status, error: 'BadRequestException', messages: ['Bad request'] }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A value at a dotted path (`emails.primaryEmail`). */
function valueAt(record: object, path: string): unknown {
  let current: unknown = record
  for (const part of path.split('.')) current = isRecord(current) ? current[part] : undefined
  return current
}

/** `field[op]:value` as Twenty's REST filter writes it; `eq` and `neq`, the value quoted or bare. */
function parseFilter(filter: string): ((record: object) => boolean) | string {
  const match = /^([A-Za-z][\w.]*)\[(eq|neq)\]:(.*)$/s.exec(filter)
  if (!match) return `Invalid filter: "${filter}"`
  const [, field, op, raw] = match as unknown as [string, string, string, string]
  const value = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw
  return (record) => (String(valueAt(record, field) ?? '') === value) === (op === 'eq')
}

/** An answer instead of the real one: a status and a body (a string is sent as is, as text). */
export type TwentyFakeFault = Omit<ScriptedFault, 'headers'>

export type TwentyFakeBehaviour = Behaviour<TwentyFakeFault>

export type TwentyFakeMatch = RequestMatch

/**
 * A stand-in for Twenty's REST API (https://twenty.com/developers) on 127.0.0.1, the subset the CRM sync
 * speaks, with Twenty's paths and shapes:
 *
 * - `GET /rest/people` and `/rest/companies`: `filter` (`emails.primaryEmail[eq]:"ada@example.com"`,
 *   `name[eq]:"Acme"`), `limit` (default 60); answers `{data:{people:[…]}, pageInfo:{hasNextPage,
 *   startCursor, endCursor}, totalCount}`.
 * - `GET /rest/people/{id}`, `/rest/companies/{id}`: `{data:{person}}` / `{data:{company}}`.
 * - `POST /rest/people`, `/rest/companies`: 201 `{data:{createPerson}}` / `{data:{createCompany}}`.
 * - `PATCH /rest/people/{id}`, `/rest/companies/{id}`: `{data:{updatePerson}}` / `{data:{updateCompany}}`;
 *   an unknown id is 400 `EntityNotFoundError`, as Twenty answers it.
 * - `DELETE /rest/people/{id}`: `{data:{deletePerson:{id}}}`.
 *
 * Every request needs `Authorization: Bearer <apiKey>`: none is 403 `FORBIDDEN_EXCEPTION` ("Missing
 * authentication token"), another key 401 `UNAUTHENTICATED` ("Token invalid."). Errors are
 * `{statusCode, error, messages}`. A field the object does not have is 400; a person's primary email is
 * unique, and a `companyId` must name a company. Switches: `failNext` / `hangNext` for the next matching
 * requests, `down` for every request until `up`. No timers: a held request waits for `release()`, `up()` or
 * `close()`, and is then carried out even when its client has given up (as a slow server would).
 */
export async function startTwentyFake({ apiKey = DEFAULT_TWENTY_API_KEY }: TwentyFakeOptions = {}) {
  const people = new Map<string, Person>()
  const companies = new Map<string, Company>()
  let outage: TwentyFakeBehaviour | undefined
  let position = 0

  const now = () => new Date().toISOString()

  function personOf(input: Record<string, unknown>, existing?: Person): Person | string {
    for (const key of Object.keys(input)) {
      if (!PERSON_FIELDS.has(key)) return `Object person doesn't have any "${key}" field.`
    }
    const name = isRecord(input.name) ? input.name : {}
    const emails = isRecord(input.emails) ? input.emails : {}
    const person: Person = existing
      ? structuredClone(existing)
      : {
          id: typeof input.id === 'string' ? input.id : randomUUID(),
          name: { firstName: '', lastName: '' },
          emails: { primaryEmail: '', additionalEmails: null },
          jobTitle: '',
          city: '',
          companyId: null,
          position: position++,
          createdAt: now(),
          updatedAt: now(),
          deletedAt: null,
        }
    if (input.name !== undefined) {
      person.name = { firstName: String(name.firstName ?? ''), lastName: String(name.lastName ?? '') }
    }
    if (input.emails !== undefined) {
      person.emails = {
        primaryEmail: String(emails.primaryEmail ?? '').toLowerCase(),
        additionalEmails: Array.isArray(emails.additionalEmails) ? emails.additionalEmails.map(String) : null,
      }
    }
    if (typeof input.jobTitle === 'string') person.jobTitle = input.jobTitle
    if (typeof input.city === 'string') person.city = input.city
    if (input.companyId !== undefined) {
      if (input.companyId !== null && !companies.has(String(input.companyId))) {
        return `Company with id ${String(input.companyId)} not found`
      }
      person.companyId = input.companyId === null ? null : String(input.companyId)
    }
    const email = person.emails.primaryEmail
    const taken = [...people.values()].some(
      (other) => other.id !== person.id && email && other.emails.primaryEmail === email,
    )
    if (taken)
      return 'duplicate key value violates unique constraint "IDX_UNIQUE_PERSON_EMAILS_PRIMARY_EMAIL"'
    person.updatedAt = now()
    return person
  }

  function companyOf(input: Record<string, unknown>, existing?: Company): Company | string {
    for (const key of Object.keys(input)) {
      if (!COMPANY_FIELDS.has(key)) return `Object company doesn't have any "${key}" field.`
    }
    const company: Company = existing
      ? structuredClone(existing)
      : {
          id: typeof input.id === 'string' ? input.id : randomUUID(),
          name: '',
          domainName: { primaryLinkUrl: '', primaryLinkLabel: '', secondaryLinks: null },
          employees: null,
          position: position++,
          createdAt: now(),
          updatedAt: now(),
          deletedAt: null,
        }
    if (typeof input.name === 'string') company.name = input.name
    if (isRecord(input.domainName)) {
      company.domainName = {
        ...company.domainName,
        primaryLinkUrl: String(input.domainName.primaryLinkUrl ?? ''),
      }
    }
    if (typeof input.employees === 'number') company.employees = input.employees
    company.updatedAt = now()
    return company
  }

  const OBJECTS = {
    people: { store: people, singular: 'person', Singular: 'Person', make: personOf },
    companies: { store: companies, singular: 'company', Singular: 'Company', make: companyOf },
  } as const

  function route(method: string, path: string, query: URLSearchParams, body: unknown): Answer {
    const match = /^\/rest\/(people|companies)(?:\/([^/]+))?$/.exec(path)
    if (!match) return twentyError(404, 'NotFoundException', `Cannot ${method} ${path}`)
    const object = OBJECTS[match[1] as keyof typeof OBJECTS]
    const store = object.store as Map<string, Person | Company>
    const make = object.make as (
      input: Record<string, unknown>,
      existing?: Person | Company,
    ) => Person | Company | string
    const id = match[2] === undefined ? undefined : decodeURIComponent(match[2])

    if (method === 'GET' && id === undefined) {
      let list = [...store.values()].sort((a, b) => a.position - b.position)
      const filter = query.get('filter')
      if (filter) {
        const predicate = parseFilter(filter)
        if (typeof predicate === 'string') return twentyError(400, 'BadRequestException', predicate)
        list = list.filter(predicate)
      }
      const limit = Number(query.get('limit') ?? 60)
      if (!Number.isInteger(limit) || limit < 0)
        return twentyError(400, 'BadRequestException', 'Invalid limit')
      const page = list.slice(0, limit)
      return {
        status: 200,
        body: {
          data: { [match[1]!]: page },
          pageInfo: {
            hasNextPage: list.length > page.length,
            startCursor: page[0] ? Buffer.from(JSON.stringify({ id: page[0].id })).toString('base64') : null,
            endCursor: page.at(-1)
              ? Buffer.from(JSON.stringify({ id: page.at(-1)!.id })).toString('base64')
              : null,
          },
          totalCount: list.length,
        },
      }
    }
    if (method === 'GET') {
      const found = store.get(id!)
      return found
        ? { status: 200, body: { data: { [object.singular]: found } } }
        : twentyError(404, 'NotFoundException', `Record not found`)
    }
    if (method === 'POST' && id === undefined) {
      if (!isRecord(body)) return twentyError(400, 'BadRequestException', 'Invalid body')
      const made = make(body)
      if (typeof made === 'string') return twentyError(400, 'BadRequestException', made)
      if (store.has(made.id)) {
        return twentyError(400, 'QueryFailedError', 'duplicate key value violates unique constraint "PK_id"')
      }
      store.set(made.id, made)
      return { status: 201, body: { data: { [`create${object.Singular}`]: made } } }
    }
    if (method === 'PATCH' && id !== undefined) {
      const existing = store.get(id)
      if (!existing) {
        return twentyError(
          400,
          'EntityNotFoundError',
          `Could not find any entity of type "${object.singular}" matching: {"id": "${id}"}`,
        )
      }
      if (!isRecord(body)) return twentyError(400, 'BadRequestException', 'Invalid body')
      const updated = make(body, existing)
      if (typeof updated === 'string') return twentyError(400, 'BadRequestException', updated)
      store.set(id, updated)
      return { status: 200, body: { data: { [`update${object.Singular}`]: updated } } }
    }
    if (method === 'DELETE' && id !== undefined) {
      if (!store.delete(id)) return twentyError(404, 'NotFoundException', 'Record not found')
      return { status: 200, body: { data: { [`delete${object.Singular}`]: { id } } } }
    }
    return twentyError(404, 'NotFoundException', `Cannot ${method} ${path}`)
  }

  function respond(req: IncomingMessage, { method, body }: TwentyFakeRequest, url: URL): Answer {
    const authorization = req.headers.authorization
    if (!authorization?.startsWith('Bearer ') || authorization.length === 'Bearer '.length) {
      return twentyError(403, 'FORBIDDEN_EXCEPTION', 'Missing authentication token')
    }
    if (authorization.slice('Bearer '.length) !== apiKey) {
      return twentyError(401, 'UNAUTHENTICATED', 'Token invalid.')
    }
    return route(method, url.pathname, url.searchParams, body)
  }

  const { url, requests, script, controls } = await startScriptedFake<
    TwentyFakeBehaviour,
    TwentyFakeMatch,
    TwentyFakeRequest
  >({
    faultBody,
    log: (req, text) => ({ body: parseBody(text), authorization: req.headers.authorization }),
    respond,
    types: { text: 'text/plain; charset=utf-8', json: 'application/json; charset=utf-8' },
    // An outage answers every request; a held one is worked on when released even if its client has gone.
    override: () => outage,
  })

  return {
    /** The server's address, as TWENTY_API_URL takes it (`/rest/…` is added by the client). */
    url,
    apiKey,
    /** Every request, in order. */
    requests,
    /** The requests to people or companies (reads included) with this method, e.g. `POST`. */
    calls(method: string, object: 'people' | 'companies') {
      return requests.filter(
        (request) => request.method === method && request.path.startsWith(`/rest/${object}`),
      )
    },
    people: () => [...people.values()].map((person) => structuredClone(person)),
    companies: () => [...companies.values()].map((company) => structuredClone(company)),
    personByEmail: (email: string) =>
      [...people.values()].find((person) => person.emails.primaryEmail === email.toLowerCase()),
    /** Deletes a person as someone working in Twenty would. */
    deletePerson(id: string) {
      people.delete(id)
    },
    /** The next `times` requests matching `match` answer `behaviour` (a fault, or held open). */
    failNext(match: TwentyFakeMatch, fault: TwentyFakeFault, times = 1) {
      script.fail(match, fault, times)
    },
    hangNext(match: TwentyFakeMatch, times = 1) {
      script.fail(match, { hang: true }, times)
    },
    /** Every request answers `behaviour` (a fault, or held open) until `up()`. */
    down(behaviour: TwentyFakeBehaviour) {
      outage = behaviour
    },
    /** Back to normal: held requests get their real answers, scripted faults are dropped. */
    up() {
      outage = undefined
      script.clear()
      script.release()
    },
    /** How many requests are held (their clients may have given up on them). */
    get held(): number {
      return controls.held
    },
    release: controls.release,
    close: () => {
      outage = undefined
      return controls.close()
    },
  }
}

export type TwentyFake = Awaited<ReturnType<typeof startTwentyFake>>
