/**
 * The access matrix: every live route of both services, read from the app's route catalog, is called the
 * way its declared access level says it must refuse — anonymous, with forged credentials, as a signed-in
 * non-admin, with an API key where only an access token may go, and (platform) as another account on the
 * owner's resources. Each call also carries invalid params, query and body: the refusal must come first
 * and reveal nothing of the schema. A route added with no level cannot start, so it cannot be missed.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import type { AccessLevel, RouteEntry } from '../../src/http/access.ts'
import {
  APP_ORIGIN,
  type DirectoryHarness,
  type PlatformHarness,
  randomAddress,
  sessionCookie,
  startDirectory,
  startPlatform,
  uniqueEmail,
} from '../helpers/apps.ts'

let platform: PlatformHarness
let directory: DirectoryHarness

before(async () => {
  ;[platform, directory] = await Promise.all([
    startPlatform({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } }),
    startDirectory(),
  ])
})
after(async () => {
  await Promise.all([platform?.close(), directory?.close()])
})

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** The routes of an app a client can call (the test harness adds none). */
const routesOf = (catalog: readonly RouteEntry[]) =>
  catalog.filter((route) => route.method !== 'OPTIONS' && !route.url.startsWith('/docs'))

/** A path with every parameter filled with `value`. */
const fill = (url: string, value = 'x') => url.replace(/:[A-Za-z]+/g, value).replace('*', 'x')

const hasBody = (method: string) => method === 'POST' || method === 'PUT' || method === 'PATCH'

/**
 * A request that is wrong in every part the route could validate: the access refusal must come before any
 * of it is looked at.
 */
function invalidRequest(route: RouteEntry, headers: Record<string, string>) {
  return {
    method: route.method as Method,
    url: `${fill(route.url, '%20not-an-id%20')}?limit=not-a-number&page=-5&status=bogus`,
    headers: { ...headers, ...(hasBody(route.method) ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody(route.method) ? { payload: '{"name": 42, "email": false, "unexpected": [1, 2]}' } : {}),
    remoteAddress: randomAddress(),
  }
}

/** The refusal: status, code, and nothing of the route's schema. */
function assertRefused(res: LightMyRequestResponse, status: number, code: string, label: string) {
  assert.equal(res.statusCode, status, `${label}: ${res.body}`)
  if (label.startsWith('HEAD ')) return
  const body = res.json()
  assert.equal(body.code, code, `${label}: code`)
  assert.equal(body.details, undefined, `${label}: a refusal names no field`)
}

/** What each level answers, per service: a new level must be added here before it can be used. */
const PLATFORM_LEVELS: readonly AccessLevel[] = ['public', 'jwt', 'jwt-or-api-key', 'api-key']
const DIRECTORY_LEVELS: readonly AccessLevel[] = ['public', 'session', 'admin', 'admin-401']

describe('access matrix: the platform', () => {
  interface Account {
    userId: string
    token: string
    apiKey: string
    apiKeyId: string
  }
  let owner: Account
  let stranger: Account
  let member: Account
  let workId: string
  let activityId: string
  let notificationId: string
  let webhookId: string
  let deliveryId: string

  const call = (options: {
    method: string
    url: string
    token?: string
    apiKey?: string
    payload?: unknown
  }) =>
    platform.app.inject({
      method: options.method as Method,
      url: options.url,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
      },
      ...(options.payload === undefined ? {} : { payload: options.payload as object }),
    })

  async function account(): Promise<Account> {
    const registered = await call({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: uniqueEmail('matrix'), password: 'a good password' },
    })
    assert.equal(registered.statusCode, 201, registered.body)
    const { user, accessToken } = registered.json()
    const key = await call({
      method: 'POST',
      url: '/api/auth/api-keys',
      token: accessToken,
      payload: { name: 'matrix' },
    })
    assert.equal(key.statusCode, 200, key.body)
    return { userId: user.id, token: accessToken, apiKey: key.json().key, apiKeyId: key.json().id }
  }

  before(async () => {
    ;[owner, stranger, member] = await Promise.all([account(), account(), account()])
    // Enabled before the work exists, so the work gets it as its AI provider.
    const enabled = await call({
      method: 'POST',
      url: '/api/plugins/openai/enable',
      token: owner.token,
      payload: { settings: { model: 'owner-model' }, secretSettings: { apiKey: 'sk-owner-secret-0000' } },
    })
    assert.equal(enabled.statusCode, 200, enabled.body)
    const work = await call({
      method: 'POST',
      url: '/api/works',
      token: owner.token,
      payload: { name: 'Owned' },
    })
    assert.equal(work.statusCode, 201, work.body)
    workId = work.json().id
    const me = await call({ method: 'GET', url: '/api/auth/me', token: member.token })
    const shared = await call({
      method: 'POST',
      url: `/api/works/${workId}/members`,
      token: owner.token,
      payload: { email: me.json().email, role: 'editor' },
    })
    assert.equal(shared.statusCode, 201, shared.body)
    const activity = await call({ method: 'GET', url: '/api/activity-log', token: owner.token })
    activityId = activity.json().activities[0].id
    const notification = await platform.services.notifications.create({
      userId: owner.userId,
      type: 'WARNING',
      category: 'generation',
      title: 'Owned',
      message: 'The owner’s notification',
    })
    assert.ok(notification)
    notificationId = notification.id
    // A receiver nothing listens on: the test delivery fails, and is still a delivery of the owner's.
    const webhook = await call({
      method: 'POST',
      url: '/api/webhooks',
      token: owner.token,
      payload: { url: 'http://127.0.0.1:9/hook' },
    })
    assert.equal(webhook.statusCode, 200, webhook.body)
    webhookId = webhook.json().id
    const tested = await call({ method: 'POST', url: `/api/webhooks/${webhookId}/test`, token: owner.token })
    assert.equal(tested.statusCode, 200, tested.body)
    deliveryId = tested.json().deliveryId
  })

  it('every route declares a level the platform knows', () => {
    const routes = routesOf(platform.app.routeCatalog)
    assert.ok(routes.length >= 20, `the catalog lists the routes (${routes.length})`)
    for (const route of routes) {
      assert.ok(PLATFORM_LEVELS.includes(route.access), `${route.method} ${route.url}: ${route.access}`)
    }
  })

  it('anonymous, a forged token and a forged key are 401 before any input is validated', async () => {
    for (const route of routesOf(platform.app.routeCatalog)) {
      if (route.access === 'public') continue
      const label = `${route.method} ${route.url}`
      const anonymous = await platform.app.inject(invalidRequest(route, {}))
      assertRefused(anonymous, 401, 'UNAUTHORIZED', `${label} anonymous`)
      const forged = await platform.app.inject(
        invalidRequest(route, { authorization: 'Bearer forged.token.here' }),
      )
      // A route for API keys only sees no key in a token, forged or not.
      const tokenCode = route.access === 'api-key' ? 'UNAUTHORIZED' : 'INVALID_TOKEN'
      assertRefused(forged, 401, tokenCode, `${label} with a forged token`)
      if (route.access === 'jwt-or-api-key' || route.access === 'api-key') {
        const key = await platform.app.inject(
          invalidRequest(route, { 'x-api-key': `svc_live_${'0'.repeat(64)}` }),
        )
        assertRefused(key, 401, 'INVALID_API_KEY', `${label} with a forged key`)
      }
    }
  })

  it('routes for API keys only refuse a valid access token with 401', async () => {
    const keyOnly = routesOf(platform.app.routeCatalog).filter((route) => route.access === 'api-key')
    assert.ok(keyOnly.length > 0)
    for (const route of keyOnly) {
      const res = await platform.app.inject(
        invalidRequest(route, { authorization: `Bearer ${stranger.token}` }),
      )
      assertRefused(res, 401, 'UNAUTHORIZED', `${route.method} ${route.url} with an access token`)
    }
  })

  it('routes for access tokens only refuse a valid API key with 403, naming what keys cannot do', async () => {
    const jwtOnly = routesOf(platform.app.routeCatalog).filter((route) => route.access === 'jwt')
    assert.ok(jwtOnly.length > 0)
    // What the message calls each family of routes keys may not use; a new family must be named in it.
    const named: [RegExp, string][] = [
      [/^\/api\/auth\/api-keys/, 'API keys'],
      [/^\/api\/auth\/change-password/, 'passwords'],
      [/^\/api\/(works\/:workId\/)?plugins/, 'plugins'],
      [/^\/api\/notifications/, 'notifications'],
      [/^\/api\/deploy/, 'deployments'],
    ]
    for (const route of jwtOnly) {
      const label = `${route.method} ${route.url} with an API key`
      const res = await platform.app.inject(invalidRequest(route, { 'x-api-key': stranger.apiKey }))
      assertRefused(res, 403, 'API_KEY_NOT_ALLOWED', label)
      if (route.method === 'HEAD') continue
      const family = named.find(([routes]) => routes.test(route.url))
      assert.ok(family, `${label}: name its routes in API_KEY_NOT_ALLOWED's message`)
      assert.equal(
        res.json().message,
        'API keys cannot manage API keys, passwords, plugins, notifications or deployments: use an access token',
      )
      assert.ok(res.json().message.includes(family[1]), `${label}: the message names ${family[1]}`)
    }
  })

  it('public routes never ask who is calling', async () => {
    for (const route of routesOf(platform.app.routeCatalog)) {
      if (route.access !== 'public') continue
      const res = await platform.app.inject(invalidRequest(route, {}))
      assert.ok(![401, 403].includes(res.statusCode), `${route.method} ${route.url}: ${res.statusCode}`)
    }
  })

  /**
   * The owner's resource behind each path parameter, and a body valid enough to reach the ownership
   * check. A new route with a parameter must say here what it names, or this test fails.
   */
  const OWNED: Record<string, () => { params: Record<string, string>; payload?: unknown }> = {
    'GET /api/works/:id': () => ({ params: { id: workId } }),
    'PATCH /api/works/:id': () => ({ params: { id: workId }, payload: { name: 'Taken over' } }),
    'DELETE /api/works/:id': () => ({ params: { id: workId } }),
    'GET /api/works/:id/members': () => ({ params: { id: workId } }),
    'POST /api/works/:id/members': () => ({
      params: { id: workId },
      payload: { email: uniqueEmail('nobody'), role: 'viewer' },
    }),
    'PATCH /api/works/:id/members/:userId': () => ({
      params: { id: workId, userId: member.userId },
      payload: { role: 'viewer' },
    }),
    'DELETE /api/works/:id/members/:userId': () => ({ params: { id: workId, userId: member.userId } }),
    'DELETE /api/auth/api-keys/:id': () => ({ params: { id: owner.apiKeyId } }),
    'GET /api/activity-log/:id': () => ({ params: { id: activityId } }),
    'POST /api/notifications/:id/read': () => ({ params: { id: notificationId } }),
    'POST /api/notifications/:id/dismiss': () => ({ params: { id: notificationId } }),
    'GET /api/works/:workId/plugins': () => ({ params: { workId } }),
    'POST /api/works/:workId/plugins/:pluginId/enable': () => ({
      params: { workId, pluginId: 'openai' },
      payload: { activeCapability: 'ai-provider' },
    }),
    'POST /api/works/:workId/plugins/:pluginId/disable': () => ({ params: { workId, pluginId: 'openai' } }),
    'PATCH /api/works/:workId/plugins/:pluginId/settings': () => ({
      params: { workId, pluginId: 'openai' },
      payload: { settings: { model: 'taken-over' } },
    }),
    'POST /api/works/:workId/plugins/:pluginId/capability': () => ({
      params: { workId, pluginId: 'openai' },
      payload: { capability: 'ai-provider' },
    }),
    'POST /api/works/:id/generate': () => ({ params: { id: workId }, payload: {} }),
    'POST /api/works/:id/generate/cancel': () => ({ params: { id: workId } }),
    'GET /api/works/:id/items': () => ({ params: { id: workId } }),
    'PATCH /api/webhooks/:id': () => ({ params: { id: webhookId }, payload: { status: 'paused' } }),
    'DELETE /api/webhooks/:id': () => ({ params: { id: webhookId } }),
    'POST /api/webhooks/:id/test': () => ({ params: { id: webhookId } }),
    'POST /api/webhooks/:id/rotate-secret': () => ({ params: { id: webhookId } }),
    'POST /api/webhooks/deliveries/:deliveryId/redeliver': () => ({ params: { deliveryId } }),
    'POST /api/deploy/works/:id': () => ({ params: { id: workId }, payload: {} }),
    'POST /api/deploy/works/:id/teams': () => ({ params: { id: workId } }),
    'POST /api/deploy/works/:id/check': () => ({ params: { id: workId } }),
    'POST /api/deploy/works/:id/lookup': () => ({ params: { id: workId } }),
    'GET /api/deploy/works/:id/deployments': () => ({ params: { id: workId } }),
  }

  /**
   * Routes whose parameter names an entry of the shared plugin catalogue, not someone's resource: each
   * caller reads and changes their own state of it, so another account's state must neither show nor move.
   */
  const CALLERS_OWN: Record<string, { payload?: unknown }> = {
    'GET /api/plugins/:pluginId': {},
    'GET /api/plugins/:pluginId/models': {},
    'POST /api/plugins/:pluginId/enable': { payload: {} },
    'POST /api/plugins/:pluginId/disable': {},
    'PATCH /api/plugins/:pluginId/settings': { payload: { settings: { model: 'stranger-model' } } },
    'GET /api/deploy/providers/:providerId/configured': {},
  }

  it('a plugin route shows and changes only the caller’s own state of the plugin', async () => {
    const routes = routesOf(platform.app.routeCatalog).filter(
      (route) => route.url.startsWith('/api/plugins/:') || route.url.startsWith('/api/deploy/providers/:'),
    )
    for (const route of routes) {
      const name = `${route.method === 'HEAD' ? 'GET' : route.method} ${route.url}`
      const own = CALLERS_OWN[name]
      assert.ok(own, `${name}: add it to OWNED or CALLERS_OWN`)
      const res = await call({
        method: route.method,
        url: route.url.replace(':pluginId', 'openai').replace(':providerId', 'vercel'),
        payload: own.payload,
        token: stranger.token,
      })
      assert.ok(res.statusCode < 500, `${name}: ${res.body}`)
      assert.ok(!res.body.includes('owner-model') && !res.body.includes('sk-owner'), `${name}: ${res.body}`)
    }
    const owners = await call({ method: 'GET', url: '/api/plugins/openai', token: owner.token })
    assert.equal(owners.json().enabled, true)
    assert.equal(owners.json().settings.model, 'owner-model')
  })

  it("another account's resource is 404 on every route with a parameter, by token and by key", async () => {
    const routes = routesOf(platform.app.routeCatalog).filter(
      (route) => route.access !== 'public' && route.url.includes(':'),
    )
    for (const route of routes) {
      const name = `${route.method === 'HEAD' ? 'GET' : route.method} ${route.url}`
      if (name in CALLERS_OWN) continue
      const owned = OWNED[name]
      assert.ok(owned, `${name}: add the owner's resource it names to OWNED`)
      const { params, payload } = owned()
      const url = route.url.replace(/:([A-Za-z]+)/g, (_, param: string) => params[param] ?? 'missing')
      const credentials =
        route.access === 'jwt'
          ? [{ token: stranger.token }]
          : [{ token: stranger.token }, { apiKey: stranger.apiKey }]
      for (const credential of credentials) {
        const res = await call({ method: route.method, url, payload, ...credential })
        assert.equal(res.statusCode, 404, `${route.method} ${route.url} as another account: ${res.body}`)
      }
    }
    // The owner's things are all still there.
    const work = await call({ method: 'GET', url: `/api/works/${workId}`, token: owner.token })
    assert.equal(work.json().name, 'Owned')
    const members = await call({ method: 'GET', url: `/api/works/${workId}/members`, token: owner.token })
    assert.deepEqual(
      members.json().members.map((m: { userId: string; role: string }) => [m.userId, m.role]),
      [
        [owner.userId, 'owner'],
        [member.userId, 'editor'],
      ],
    )
    const keys = await call({ method: 'GET', url: '/api/auth/api-keys', token: owner.token })
    assert.ok(
      keys.json().some((key: { id: string }) => key.id === owner.apiKeyId),
      keys.body,
    )
    const notifications = await call({ method: 'GET', url: '/api/notifications', token: owner.token })
    assert.deepEqual(
      notifications.json().notifications.map((n: { id: string; isRead: boolean }) => [n.id, n.isRead]),
      [[notificationId, false]],
    )
  })
})

describe('access matrix: the directory', () => {
  let visitor: string

  before(async () => {
    const registered = await directory.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      payload: { email: uniqueEmail('visitor'), password: 'a good password', name: 'A Visitor' },
    })
    visitor = sessionCookie(registered)
  })

  const withCookie = (cookie?: string): Record<string, string> => ({
    origin: APP_ORIGIN,
    ...(cookie ? { cookie } : {}),
  })

  it('every route declares a level the directory knows', () => {
    const routes = routesOf(directory.app.routeCatalog)
    assert.ok(routes.length >= 30, `the catalog lists the routes (${routes.length})`)
    for (const route of routes) {
      assert.ok(DIRECTORY_LEVELS.includes(route.access), `${route.method} ${route.url}: ${route.access}`)
    }
  })

  it('anonymous and a forged cookie are 401, a non-admin 403 (401 where SPEC.md says), before any input', async () => {
    for (const route of routesOf(directory.app.routeCatalog)) {
      if (route.access === 'public') continue
      const label = `${route.method} ${route.url}`
      assertRefused(
        await directory.app.inject(invalidRequest(route, withCookie())),
        401,
        'UNAUTHORIZED',
        label,
      )
      const forged = await directory.app.inject(invalidRequest(route, withCookie('curio_session=forged')))
      assertRefused(forged, 401, 'UNAUTHORIZED', `${label} with a forged cookie`)
      if (route.access === 'session') continue
      const nonAdmin = await directory.app.inject(invalidRequest(route, withCookie(visitor)))
      if (route.access === 'admin') assertRefused(nonAdmin, 403, 'FORBIDDEN', `${label} as a non-admin`)
      else assertRefused(nonAdmin, 401, 'UNAUTHORIZED', `${label} as a non-admin`)
    }
  })

  it('public routes never ask who is calling', async () => {
    for (const route of routesOf(directory.app.routeCatalog)) {
      if (route.access !== 'public') continue
      const res = await directory.app.inject(invalidRequest(route, withCookie()))
      assert.ok(![401, 403].includes(res.statusCode), `${route.method} ${route.url}: ${res.statusCode}`)
    }
  })
})

describe('access matrix: the reference', () => {
  const SECURITY: Partial<Record<AccessLevel, unknown>> = {
    jwt: [{ bearerAuth: [] }],
    'jwt-or-api-key': [{ bearerAuth: [] }, { apiKey: [] }],
    'api-key': [{ apiKey: [] }],
    session: [{ sessionCookie: [] }],
    admin: [{ sessionCookie: [] }],
    'admin-401': [{ sessionCookie: [] }],
  }

  it('every route that needs a caller shows its security and says who may call it', () => {
    for (const harness of [platform, directory]) {
      const document = harness.app.swagger() as {
        paths: Record<string, Record<string, { security?: unknown[]; description?: string }>>
      }
      for (const route of routesOf(harness.app.routeCatalog)) {
        if (route.access === 'public' || route.method === 'HEAD') continue
        const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}')
        const operation = document.paths[path]?.[route.method.toLowerCase()]
        if (!operation) continue // hidden from the reference
        const label = `${route.method} ${route.url}`
        assert.deepEqual(operation.security, SECURITY[route.access], label)
        assert.match(operation.description ?? '', /\n\nAccess: /, `${label} states its access`)
      }
    }
  })
})

describe('access matrix: a route must declare its access', () => {
  it('a route without a level stops the app from starting, naming the route', async () => {
    await assert.rejects(
      startPlatform({ extend: (app) => app.get('/test/undeclared', async () => ({ ok: true })) }),
      /GET,HEAD \/test\/undeclared: no access level|GET \/test\/undeclared: no access level/,
    )
  })

  it('a level the service does not have stops it too', async () => {
    await assert.rejects(
      startDirectory({
        extend: (app) => app.get('/test/wrong', { config: { access: 'jwt' } }, async () => ({ ok: true })),
      }),
      /\/test\/wrong: unknown access level "jwt"/,
    )
  })
})
