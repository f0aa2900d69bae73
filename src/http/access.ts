import type { FastifyRequest, RouteOptions } from 'fastify'

/**
 * Who may call a route, declared by every route as `config: { access }`:
 * - `public`: anyone.
 * - `session`: a signed-in directory user (401 otherwise).
 * - `admin`: a directory admin (401 without a session, 403 for a non-admin).
 * - `admin-401`: a directory admin, 401 for a non-admin too (SPEC.md: categories).
 * - `jwt`: a platform access token only (401 without; 403 for an API key).
 * - `jwt-or-api-key`: a platform access token or API key (401 without).
 * - `api-key`: a platform API key only (401 without, and for an access token): the MCP endpoint.
 */
export type AccessLevel = 'public' | 'session' | 'admin' | 'admin-401' | 'jwt' | 'jwt-or-api-key' | 'api-key'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; a route without one does not start. */
    access?: AccessLevel
    /** The body may be left out (every field of its schema is optional): a missing one is `{}`. */
    optionalBody?: boolean
  }
}

type SecurityRequirement = Record<string, string[]>

/** How a service enforces one access level. */
export interface AccessRule {
  /** Establishes the caller or throws 401/403; public routes have none. */
  guard?: (req: FastifyRequest) => Promise<void>
  /** The route's OpenAPI `security`, unless it states its own. */
  security?: SecurityRequirement[]
  /** Said in every route description at this level. */
  says: string
}

export type AccessRules = Partial<Record<AccessLevel, AccessRule>>

/** One route as the access hook saw it registered. */
export interface RouteEntry {
  method: string
  url: string
  access: AccessLevel
}

export const toArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value]

/**
 * The `onRoute` hook that makes access a declaration: each route names its level, the level's guard runs
 * as the route's first `preValidation` hook (so the caller is known before params, query or body are
 * validated, and an anonymous caller learns nothing of the schema), and OpenAPI shows the level's
 * security. A route that names no level, or one the service does not have, stops the app from starting.
 * `catalog` collects the routes, for the not-found handler's 405 and for the access matrix.
 */
export function accessHook(serviceRules: AccessRules, catalog: RouteEntry[]) {
  const rules: AccessRules = { public: { says: 'Access: public.' }, ...serviceRules }
  const levels = Object.keys(rules).join(', ')
  return (route: RouteOptions) => {
    const access = route.config?.access
    const rule = access ? rules[access] : undefined
    const methods = toArray(route.method)
    if (!access || !rule) {
      throw new Error(
        `${methods.join(',')} ${route.url}: ${access ? `unknown access level "${access}"` : 'no access level'}; ` +
          `declare config: { access } as one of ${levels}`,
      )
    }
    if (rule.guard) route.preValidation = [rule.guard, ...toArray(route.preValidation)]
    if (route.schema && !route.schema.hide) {
      const schema = route.schema as { security?: SecurityRequirement[]; description?: string }
      if (rule.security && !schema.security) schema.security = rule.security
      if (access !== 'public' && schema.description && !schema.description.includes(rule.says)) {
        schema.description = `${schema.description}\n\n${rule.says}`
      }
    }
    for (const method of methods) catalog.push({ method, url: route.url, access })
  }
}

/** `/api/works/:id/members` → a regular expression matching its paths. */
function pathPattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((part) =>
      part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/')
  return new RegExp(`^${source}$`)
}

/**
 * The methods a path answers to, from the catalog: what a 405 lists in `Allow` when the path exists
 * with another method. Compiled on first use, once every route is registered.
 */
export function allowedMethods(catalog: readonly RouteEntry[]) {
  let patterns: { pattern: RegExp; method: string }[] | undefined
  return (path: string): string[] => {
    patterns ??= catalog.map((entry) => ({ pattern: pathPattern(entry.url), method: entry.method }))
    const methods = new Set<string>()
    for (const { pattern, method } of patterns) if (pattern.test(path)) methods.add(method)
    return [...methods]
  }
}
