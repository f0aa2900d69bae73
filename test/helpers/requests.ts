import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { APP_ORIGIN, randomAddress } from './apps.ts'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** Who sends a request, and from where. Given to `requests` as defaults, and per call over them. */
export interface Sender {
  /** A platform access token, sent as `Authorization: Bearer …`; null sends none. */
  token?: string | null
  /** A platform API key, sent as `x-api-key` exactly as given (an empty key too); null sends none. */
  apiKey?: string | null
  /** A directory session cookie (`name=value`, see `sessionCookie`); null sends none. */
  cookie?: string | null
  /** The Origin header; null sends none. */
  origin?: string | null
  /** The client address, or a function giving one per request; unset: inject's 127.0.0.1. */
  address?: string | (() => string)
  /** Further headers, sent as given (empty values too), over the ones above. */
  headers?: Record<string, string>
}

export interface RequestOptions extends Sender {
  /** An object or array is sent as JSON; a string or Buffer as it is, with the content type of `headers`. */
  body?: unknown
  /** Added to the URL's query string. */
  query?: Record<string, string>
}

/** What `json()` answers unless the test names a type: anything, as light-my-request's own `json()`. */
// biome-ignore lint/suspicious/noExplicitAny: an untyped body is read like light-my-request's `json()`
type Json = any

/** The light-my-request response, its `json()` typed as the caller declared. */
export interface Response<T = Json> extends Omit<LightMyRequestResponse, 'json'> {
  json<U = T>(): U
}

export interface Requests {
  /** `method url`, for tests that choose the method (e.g. one helper for every write). */
  request<T = Json>(method: Method, url: string, options?: RequestOptions): Promise<Response<T>>
  get<T = Json>(url: string, options?: Omit<RequestOptions, 'body'>): Promise<Response<T>>
  delete<T = Json>(url: string, options?: RequestOptions): Promise<Response<T>>
  post<T = Json>(url: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<Response<T>>
  put<T = Json>(url: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<Response<T>>
  patch<T = Json>(url: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<Response<T>>
  /** The same requests with other defaults over these (another account, another instance's app). */
  as(sender: Sender): Requests
  /** The same requests to another app, e.g. another instance on the same database. */
  on(target: Target): Requests
}

/** Anything that injects a request: a harness, or an app. */
export type Target = { app: Injector } | Injector
interface Injector {
  inject(options: InjectOptions): Promise<LightMyRequestResponse>
}

/**
 * The one way route tests send requests: `requests(h, { token })` or `siteRequests(h, { cookie })`, then
 * `.get(url)`, `.post(url, body)`, … Each call sends the defaults with the call's options over them, and
 * only what was given: an unset body sends no body, an empty header value is sent as an empty header.
 */
export function requests(target: Target, defaults: Sender = {}): Requests {
  const app = 'app' in target ? target.app : target
  const request = <T>(method: Method, url: string, options: RequestOptions = {}) => {
    const sender: RequestOptions = over(defaults, options)
    const { token, apiKey, cookie, origin, address, body, query } = sender
    const headers: Record<string, string> = {
      ...(origin != null ? { origin } : {}),
      ...(cookie ? { cookie } : {}),
      ...(token != null ? { authorization: `Bearer ${token}` } : {}),
      ...(apiKey != null ? { 'x-api-key': apiKey } : {}),
      ...sender.headers,
    }
    return app.inject({
      method,
      url,
      headers,
      ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }),
      ...(query ? { query } : {}),
      ...(address === undefined
        ? {}
        : { remoteAddress: typeof address === 'function' ? address() : address }),
    }) as Promise<Response<T>>
  }
  return {
    request,
    get: (url, options) => request('GET', url, options),
    delete: (url, options) => request('DELETE', url, options),
    post: (url, body, options) => request('POST', url, { ...options, body }),
    put: (url, body, options) => request('PUT', url, { ...options, body }),
    patch: (url, body, options) => request('PATCH', url, { ...options, body }),
    as: (sender) => requests(app, over(defaults, sender)),
    on: (other) => requests(other, defaults),
  }
}

/** `options` over `defaults`, as default parameters work: an option given as undefined keeps the default. */
function over<T extends Sender>(defaults: Sender, options: T): T {
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))
  return { ...defaults, ...given, headers: { ...defaults.headers, ...options.headers } } as T
}

/**
 * Requests as a directory's web app sends them: with the app's Origin, each from a fresh client address
 * (so one test's rate limits never reach another's), with the defaults given (e.g. an admin's cookie).
 */
export function siteRequests(target: Target, defaults: Sender = {}): Requests {
  return requests(target, over({ origin: APP_ORIGIN, address: randomAddress }, defaults))
}
