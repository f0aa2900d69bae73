import { type AddressPolicy, type Lookup, safeRequest } from '../../lib/safe-http.ts'
import { isRecord } from '../../lib/values.ts'

/**
 * Twenty's REST API (https://twenty.com/developers): `{baseUrl}/rest/people` and `/rest/companies`, a
 * Bearer API key. Twenty has no official Node SDK, and its base URL is an admin's choice, so every call goes
 * through the SSRF-safe client: no redirects, time and bytes capped. Answers are values, never thrown:
 * what Twenty said (or why it said nothing), in our words and its own, and whether a later try may succeed.
 */

export interface TwentyConnection {
  /** The server's address, e.g. `https://api.twenty.com` or a self-hosted one; `/rest/…` is added. */
  baseUrl: string
  apiKey: string
}

export interface TwentyClientOptions {
  /** The whole of one request: lookup, connection, answer. */
  timeoutMs: number
  policy: AddressPolicy
  requireHttps: boolean
  lookup?: Lookup
}

export interface TwentyFailure {
  ok: false
  /** Twenty's HTTP status; null when it gave none (timeout, no connection, a refused address). */
  status: number | null
  error: string
  /** A later attempt may succeed (5xx, 408, 429, a timeout, no connection); a refusal will not. */
  retry: boolean
}

export type TwentyResult<T> = { ok: true; status: number; value: T } | TwentyFailure

/** A person as the sync writes it: Twenty's composite fields (`name`, `emails`) and plain ones. */
export interface TwentyPersonInput {
  name: { firstName: string; lastName: string }
  emails: { primaryEmail: string }
  jobTitle: string
  city: string
  /** Absent: the person's company is left as it is; null: unlinked. */
  companyId?: string | null
}

export interface TwentyCompanyInput {
  name: string
  domainName?: { primaryLinkUrl: string }
}

export interface ConnectionCheck {
  ok: boolean
  status: number | null
  message: string
}

/** Generous for one record or a one-row list; a longer answer is cut and then fails to parse. */
const MAX_RESPONSE_BYTES = 256 * 1024
const ERROR_TEXT_MAX = 300
const USER_AGENT = 'Curio-CRM-Sync/1.0'

/** `https://crm.example.com/` and `https://crm.example.com/rest` both mean the server. */
export const serverUrlOf = (baseUrl: string) => baseUrl.replace(/\/+$/, '').replace(/\/rest$/, '')

/** Twenty's filter value: quoted, so commas and spaces stay in it; a value with a quote cannot be. */
const quoted = (value: string) => (value.includes('"') ? undefined : `"${value}"`)

/** What Twenty's error body says (`{statusCode, error, messages}`), else the start of the text. */
function reasonOf(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body)
    if (isRecord(parsed)) {
      const messages = Array.isArray(parsed.messages)
        ? parsed.messages.filter((message) => typeof message === 'string')
        : typeof parsed.message === 'string'
          ? [parsed.message]
          : []
      if (messages.length > 0) return messages.join('; ')
      if (typeof parsed.error === 'string') return parsed.error
    }
  } catch {
    // Not JSON: a proxy's page, plain text.
  }
  return body.replace(/\s+/g, ' ').trim()
}

/** A PATCH of a record Twenty does not have: 404, or the 400 `EntityNotFoundError` older versions send. */
function isMissingRecord(status: number, body: string): boolean {
  if (status === 404) return true
  return status === 400 && /EntityNotFound|Could not find any entity/i.test(body)
}

export function createTwentyClient(options: TwentyClientOptions) {
  const { timeoutMs } = options

  async function call(
    connection: TwentyConnection,
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    body?: unknown,
  ): Promise<TwentyResult<{ json: Record<string, unknown>; text: string }>> {
    // Whatever a server echoes, the key never reaches a message we keep or answer.
    const redact = (text: string) =>
      (connection.apiKey ? text.split(connection.apiKey).join('[redacted]') : text).slice(0, ERROR_TEXT_MAX)
    const result = await safeRequest({
      url: `${serverUrlOf(connection.baseUrl)}/rest${path}`,
      method,
      headers: {
        authorization: `Bearer ${connection.apiKey}`,
        accept: 'application/json',
        'user-agent': USER_AGENT,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      policy: options.policy,
      requireHttps: options.requireHttps,
      ...(options.lookup ? { lookup: options.lookup } : {}),
    })
    switch (result.kind) {
      case 'blocked':
        return {
          ok: false,
          status: null,
          error: `The CRM address is refused: ${result.reason}`,
          retry: false,
        }
      case 'timeout':
        return { ok: false, status: null, error: `Twenty did not answer within ${timeoutMs} ms`, retry: true }
      case 'failed':
        return {
          ok: false,
          status: null,
          error: redact(`Twenty could not be reached: ${result.reason}`),
          retry: true,
        }
      case 'response': {
        const { status } = result
        if (status >= 200 && status < 300) {
          try {
            const json: unknown = JSON.parse(result.body)
            if (isRecord(json)) return { ok: true, status, value: { json, text: result.body } }
          } catch {
            // Reported below.
          }
          return {
            ok: false,
            status,
            error: `Twenty answered ${status} with something that is not its API's JSON`,
            retry: true,
          }
        }
        const said = reasonOf(result.body)
        const redirect = status >= 300 && status < 400 ? ' (redirects are never followed)' : ''
        return {
          ok: false,
          status,
          error: redact(`Twenty answered ${status}${redirect}${said ? `: ${said}` : ''}`),
          retry: status >= 500 || status === 408 || status === 429,
        }
      }
    }
  }

  /** The record under `data.<key>` of a create or update answer, with its id. */
  function recordOf(
    answer: TwentyResult<{ json: Record<string, unknown>; text: string }>,
    key: string,
  ): TwentyResult<string> {
    if (!answer.ok) return answer
    const data = answer.value.json.data
    const record = isRecord(data) ? data[key] : undefined
    const id = isRecord(record) ? record.id : undefined
    if (typeof id === 'string' && id) return { ok: true, status: answer.status, value: id }
    return {
      ok: false,
      status: answer.status,
      error: `Twenty answered ${answer.status} without the record's id (data.${key}.id)`,
      retry: true,
    }
  }

  /** The id of the first record of a list answer (`data.<key>[0].id`), or null when it is empty. */
  async function firstId(
    connection: TwentyConnection,
    object: 'people' | 'companies',
    filter: string,
  ): Promise<TwentyResult<string | null>> {
    const query = new URLSearchParams({ filter, limit: '1', depth: '0' })
    const answer = await call(connection, 'GET', `/${object}?${query}`)
    if (!answer.ok) return answer
    const data = answer.value.json.data
    const list = isRecord(data) ? data[object] : undefined
    if (!Array.isArray(list)) {
      return {
        ok: false,
        status: answer.status,
        error: `Twenty answered ${answer.status} without a list (data.${object})`,
        retry: true,
      }
    }
    const id = isRecord(list[0]) ? list[0].id : undefined
    return { ok: true, status: answer.status, value: typeof id === 'string' && id ? id : null }
  }

  return {
    /** One cheap read with the credentials: whether Twenty answers, and takes the key. */
    async check(connection: TwentyConnection): Promise<ConnectionCheck> {
      const answer = await call(connection, 'GET', '/companies?limit=1&depth=0')
      if (!answer.ok) return { ok: false, status: answer.status, message: answer.error }
      if (!isRecord(answer.value.json.data)) {
        return {
          ok: false,
          status: answer.status,
          message: `The server answered ${answer.status}, but not as Twenty's REST API does (no data)`,
        }
      }
      return { ok: true, status: answer.status, message: 'Connected: Twenty accepted the API key' }
    },

    /** The person whose primary email this is, or null. */
    findPersonByEmail(connection: TwentyConnection, email: string): Promise<TwentyResult<string | null>> {
      const value = quoted(email)
      if (!value) return Promise.resolve({ ok: true, status: 200, value: null })
      return firstId(connection, 'people', `emails.primaryEmail[eq]:${value}`)
    },

    async createPerson(
      connection: TwentyConnection,
      person: TwentyPersonInput,
    ): Promise<TwentyResult<string>> {
      return recordOf(await call(connection, 'POST', '/people', person), 'createPerson')
    },

    /** Updates the person; `value` is false when Twenty has no person with this id (deleted there). */
    async updatePerson(
      connection: TwentyConnection,
      id: string,
      person: TwentyPersonInput,
    ): Promise<TwentyResult<boolean>> {
      const answer = await call(connection, 'PATCH', `/people/${encodeURIComponent(id)}`, person)
      if (!answer.ok) {
        const missing = answer.status !== null && isMissingRecord(answer.status, answer.error)
        return missing ? { ok: true, status: answer.status!, value: false } : answer
      }
      const updated = recordOf(answer, 'updatePerson')
      return updated.ok ? { ...updated, value: true } : updated
    },

    /** The company with exactly this name, or null. */
    findCompanyByName(connection: TwentyConnection, name: string): Promise<TwentyResult<string | null>> {
      const value = quoted(name)
      if (!value) return Promise.resolve({ ok: true, status: 200, value: null })
      return firstId(connection, 'companies', `name[eq]:${value}`)
    },

    async createCompany(
      connection: TwentyConnection,
      company: TwentyCompanyInput,
    ): Promise<TwentyResult<string>> {
      return recordOf(await call(connection, 'POST', '/companies', company), 'createCompany')
    },
  }
}

export type TwentyClient = ReturnType<typeof createTwentyClient>
