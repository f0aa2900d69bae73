/**
 * The directory API as the admin console calls it: `openapi-fetch` typed by the directory's OpenAPI
 * document (the types `@curio/client` is generated with), on the console's own origin with the admin's
 * session cookie. Nothing here is private to the console: every call is one a script could make.
 */
import createClient from 'openapi-fetch'
import type { components, paths } from '../../packages/client/src/generated/directory.ts'

export type Schemas = components['schemas']

export const api = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  headers: { accept: 'application/json' },
})

/** The data of a typed 200 answer of `path`'s GET. */
export type Answer<P extends keyof paths, M extends keyof paths[P] = 'get'> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer Body } } }
}
  ? Body
  : never

export type AdminItem = Answer<'/api/admin/items'>['data'][number]
export type ItemStatus = AdminItem['status']
