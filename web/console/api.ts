/**
 * The platform API as the console calls it: `openapi-fetch` typed by the platform's OpenAPI document (the
 * types `@curio/client` is generated with), on the console's own origin, with the user's access token
 * (auth.ts). Nothing here is private to the console: every call is one a script could make.
 */
import createClient from 'openapi-fetch'
import type { paths } from '../../packages/client/src/generated/platform.ts'
import { authedFetch } from './auth.ts'

export const api = createClient<paths>({
  baseUrl: window.location.origin,
  fetch: authedFetch,
  headers: { accept: 'application/json' },
})

/** The data of a typed 2xx JSON answer of `path`'s `method` (GET by default). */
export type Answer<P extends keyof paths, M extends keyof paths[P] = 'get'> = paths[P][M] extends {
  responses: infer R
}
  ? R extends { 200: { content: { 'application/json': infer Body } } }
    ? Body
    : R extends { 201: { content: { 'application/json': infer Body } } }
      ? Body
      : R extends { 202: { content: { 'application/json': infer Body } } }
        ? Body
        : never
  : never

/** The JSON body `path`'s `method` takes. */
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } }
}
  ? B
  : never

export type Work = Answer<'/api/works/{id}'>
export type User = Answer<'/api/auth/me'>
