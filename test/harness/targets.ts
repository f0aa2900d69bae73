import assert from 'node:assert/strict'
import { eq } from 'drizzle-orm'
import type { InjectOptions } from 'fastify'
import { users } from '../../src/directory/accounts/tables.ts'
import type { App } from '../../src/http/app.ts'
import { startGitHubFake } from '../fakes/github.ts'
import { startGoogleMapsFake } from '../fakes/google-maps.ts'
import { startMapboxFake } from '../fakes/mapbox.ts'
import { startOpenAiFake } from '../fakes/openai.ts'
import { startReceiver } from '../fakes/receiver.ts'
import { startTwentyFake } from '../fakes/twenty.ts'
import { startVercelFake } from '../fakes/vercel.ts'
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
import {
  type AnswerRules,
  directoryErrorShape,
  paymentWebhookErrorShape,
  platformErrorShape,
} from './answers.ts'
import type { FuzzRequest } from './requests.ts'
import { type Answer, Pools } from './send.ts'

/** A service under the harness: its app, its callers, and what it answers by specification. */
export interface Target {
  name: 'platform' | 'directory'
  app: App
  pools: Pools
  /** Credential names with how often each sends a request; the first is anonymous. */
  auths: readonly (readonly [string, number])[]
  credentials(auth: string): Record<string, string>
  errorShape: AnswerRules['errorShape']
  errorShapeOf?: AnswerRules['errorShapeOf']
  prescribedServerError?: AnswerRules['prescribedServerError']
  /** Makes sure the signed-in callers still are (a generated request may sign one out). */
  refresh(): Promise<void>
  afterAnswer?(request: FuzzRequest, answer: Answer): Promise<void>
  close(): Promise<void>
}

const PASSWORD = 'a good password'
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
// Rate limits would turn most of a long run into 429s; their own tests cover them.
const env = { RATE_LIMIT_BYPASS_LOCALHOST: 'true' }

/** Runs a target's setup, closing its harness if the setup fails. */
async function closingOnFailure(h: { close(): Promise<void> }, setup: () => Promise<void>) {
  try {
    await setup()
  } catch (error) {
    await h.close()
    throw error
  }
}

async function ok(app: App, options: InjectOptions, pools?: Pools, path?: string) {
  const res = await app.inject(options)
  assert.ok(res.statusCode < 300, `${res.statusCode} ${res.body}`)
  const body = res.body ? res.json() : undefined
  if (pools && path) pools.harvest(path, body)
  return { res, body }
}

const FUZZ_GITHUB_TOKEN = 'ghp_fuzz_token_0123456789'
const FUZZ_VERCEL_TOKEN = 'vercel_fuzz_token_0123456789'

/**
 * The platform, with an owner signed in by /api/auth/login, their API key, and another account; a few
 * works of each so generated ids hit real rows.
 */
export async function platformTarget(): Promise<Target> {
  // The openai plugin talks to a local stand-in: models and generation answer for real.
  const fake = await startOpenAiFake()
  // Webhooks go to a local receiver the instance is allowed to reach.
  const receiver = await startReceiver()
  // Deploys go to the GitHub and Vercel stand-ins: the pipeline runs for real on the owner's works.
  const github = await startGitHubFake({ token: FUZZ_GITHUB_TOKEN })
  github.addTemplate('curio/website-template', {
    '.github/workflows/deploy_vercel.yaml': 'name: Deploy\non:\n  workflow_dispatch:\njobs: {}\n',
  })
  const vercel = await startVercelFake({ token: FUZZ_VERCEL_TOKEN })
  const h: PlatformHarness = await startPlatform({
    env: {
      ...env,
      OPENAI_API_URL: fake.url,
      AI_PROVIDER_MAX_RETRIES: '0',
      AI_PROVIDER_TIMEOUT_MS: '2000',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      GITHUB_API_URL: github.url,
      GITHUB_RETRY_BASE_MS: '1',
      VERCEL_API_URL: vercel.url,
      WEBSITE_TEMPLATE_REPOSITORY: 'curio/website-template',
      // Verification is not what is fuzzed: its first poll comes after the run.
      DEPLOY_POLL_INTERVAL_MS: '3600000',
      DEPLOY_BATCH_DELAY_MS: '0',
    },
  })
  const { app } = h
  const pools = new Pools()
  pools.add('password', PASSWORD)
  const account = async () => {
    const email = uniqueEmail('fuzz')
    await ok(
      app,
      { method: 'POST', url: '/api/auth/register', payload: { email, password: PASSWORD } },
      pools,
      '/api/auth/register',
    )
    const { body } = await ok(app, {
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: PASSWORD },
    })
    return body as { accessToken: string; user: { id: string } }
  }
  const credentials: Record<string, Record<string, string>> = {
    anonymous: {},
    'a forged token': bearer('eyJhbGciOiJIUzI1NiJ9.e30.forged'),
    'an API key with NUL': { 'x-api-key': `svc_live_\u0000${'0'.repeat(63)}` },
  }
  await closingOnFailure(h, async () => {
    const owner = await account()
    const other = await account()
    const { body: key } = await ok(app, {
      method: 'POST',
      url: '/api/auth/api-keys',
      payload: { name: 'fuzz' },
      headers: bearer(owner.accessToken),
    })
    pools.protect(key.id)
    credentials['owner (JWT)'] = bearer(owner.accessToken)
    credentials['owner (API key)'] = { 'x-api-key': key.key }
    credentials['another account'] = bearer(other.accessToken)
    for (const [plugin, token] of [
      ['github', FUZZ_GITHUB_TOKEN],
      ['vercel', FUZZ_VERCEL_TOKEN],
    ] as const) {
      await ok(app, {
        method: 'POST',
        url: `/api/plugins/${plugin}/enable`,
        payload: { secretSettings: { token } },
        headers: bearer(owner.accessToken),
      })
    }
    // Enabled before the works exist, so each work gets it as its AI provider.
    await ok(app, {
      method: 'POST',
      url: '/api/plugins/openai/enable',
      payload: { secretSettings: { apiKey: fake.apiKey } },
      headers: bearer(owner.accessToken),
    })
    for (const [token, name] of [
      [owner.accessToken, 'Owned'],
      [owner.accessToken, 'Shared'],
      [other.accessToken, 'Theirs'],
    ] as const) {
      await ok(
        app,
        { method: 'POST', url: '/api/works', payload: { name }, headers: bearer(token) },
        pools,
        '/api/works',
      )
    }
    await ok(
      app,
      { url: '/api/activity-log', headers: bearer(owner.accessToken) },
      pools,
      '/api/activity-log',
    )
    // Notifications are made by other modules, never by a route: the service makes a few of each kind.
    for (const [userId, title, isPersistent] of [
      [owner.user.id, 'Owned', false],
      [owner.user.id, 'Owned banner', true],
      [owner.user.id, 'Owned, second', false],
      [other.user.id, 'Theirs', false],
    ] as const) {
      await h.services.notifications.create({
        userId,
        type: 'WARNING',
        category: 'generation',
        title,
        message: 'fuzz',
        isPersistent,
      })
    }
    await ok(
      app,
      { url: '/api/notifications', headers: bearer(owner.accessToken) },
      pools,
      '/api/notifications',
    )
    const { body: webhook } = await ok(
      app,
      {
        method: 'POST',
        url: '/api/webhooks',
        payload: { url: receiver.url },
        headers: bearer(owner.accessToken),
      },
      pools,
      '/api/webhooks',
    )
    await ok(
      app,
      { method: 'POST', url: `/api/webhooks/${webhook.id}/test`, headers: bearer(owner.accessToken) },
      pools,
      '/api/webhooks/{id}/test',
    )
  })
  return {
    name: 'platform',
    app,
    pools,
    auths: [
      ['anonymous', 2],
      ['owner (JWT)', 6],
      ['owner (API key)', 4],
      ['another account', 2],
      ['a forged token', 1],
      ['an API key with NUL', 1],
    ],
    credentials: (auth) => credentials[auth] ?? {},
    errorShape: platformErrorShape,
    refresh: async () => {},
    close: async () => {
      await h.close()
      await fake.close()
      await receiver.close()
      await github.close()
      await vercel.close()
    },
  }
}

const GIT_PATH = '/api/admin/categories/git'

/**
 * The directory, with an admin and a signed-in member, both sending the app's Origin as the web app does.
 */
export async function directoryTarget(): Promise<Target> {
  // The CRM talks to a local stand-in of Twenty: generated tests and syncs never reach the internet.
  const twenty = await startTwentyFake()
  // Geocoding asks local stand-ins of Mapbox and Google, so its routes answer as they would in production.
  const mapbox = await startMapboxFake()
  const google = await startGoogleMapsFake()
  const h: DirectoryHarness = await startDirectory({
    env: {
      ...env,
      TWENTY_API_URL: twenty.url,
      CRM_TIMEOUT_MS: '2000',
      MAPBOX_ACCESS_TOKEN: mapbox.accessToken,
      MAPBOX_API_URL: mapbox.url,
      GOOGLE_MAPS_API_KEY: google.apiKey,
      GOOGLE_MAPS_API_URL: google.url,
    },
  }).catch(async (error: unknown) => {
    await twenty.close()
    await mapbox.close()
    await google.close()
    throw error
  })
  const { app } = h
  const pools = new Pools()
  pools.add('password', PASSWORD)
  const credentials: Record<string, Record<string, string>> = {
    anonymous: { origin: APP_ORIGIN },
    'a forged cookie': { cookie: 'curio_session=forged', origin: APP_ORIGIN },
    'a cookie with NUL': { cookie: 'curio_session=%00forged', origin: APP_ORIGIN },
  }

  async function signInAdmin() {
    const cookie = await h.adminCookie()
    credentials.admin = { cookie, origin: APP_ORIGIN }
    const { body: viewer } = await ok(app, { url: '/api/current-user', headers: { cookie } })
    const [admin] = await h.databases.directory.db
      .select({ roleId: users.roleId })
      .from(users)
      .where(eq(users.id, viewer.id))
    pools.protect(viewer.id, admin?.roleId ?? undefined)
  }
  async function signInMember() {
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      payload: { email: uniqueEmail('member'), password: PASSWORD, name: 'A Member' },
    })
    const cookie = sessionCookie(res)
    credentials.member = { cookie, origin: APP_ORIGIN }
    pools.protect(res.json().user?.id)
  }
  const stillAdmin = async () =>
    (await app.inject({ url: '/api/admin/users/stats', headers: credentials.admin })).statusCode === 200
  const stillMember = async () =>
    (await app.inject({ url: '/api/current-user', headers: credentials.member })).json() !== null

  const closeAll = {
    close: async () => {
      await h.close()
      await twenty.close()
      await mapbox.close()
      await google.close()
    },
  }
  await closingOnFailure(closeAll, async () => {
    await signInAdmin()
    await signInMember()
    // The CRM sync on, so generated requests reach its routes past CRM_NOT_ENABLED and client writes sync.
    await ok(app, {
      method: 'PUT',
      url: '/api/admin/crm/config',
      payload: { enabled: true, apiKey: twenty.apiKey },
      headers: credentials.admin,
    })
    for (const path of [
      '/api/admin/users',
      '/api/admin/roles',
      '/api/admin/categories',
      '/api/admin/clients',
    ]) {
      await ok(app, { url: path, headers: credentials.admin }, pools, path)
    }
    // A collection of its own, so generated requests reach the collection routes past their 404s.
    await ok(
      app,
      {
        method: 'POST',
        url: '/api/admin/collections',
        payload: { name: 'Fuzz picks' },
        headers: credentials.admin,
      },
      pools,
      '/api/admin/collections',
    )
    // And content of each kind, so they reach the item, tag, company and featured routes too.
    for (const [url, payload] of [
      ['/api/admin/tags', { name: 'Fuzz tag' }],
      ['/api/admin/companies', { name: 'Fuzz company' }],
      ['/api/admin/items', { name: 'Fuzz item', status: 'published', tagIds: ['fuzz-tag'] }],
      ['/api/admin/featured-items', { itemSlug: 'fuzz-item' }],
      ['/api/contact', { name: 'Fuzz', email: 'fuzz@example.com', message: 'Hello' }],
    ] as const) {
      await ok(app, { method: 'POST', url, payload, headers: credentials.admin }, pools, url)
    }
    // A member's comment on that item, kept under the admin routes that take its id.
    await ok(
      app,
      {
        method: 'POST',
        url: '/api/comments',
        payload: { itemSlug: 'fuzz-item', body: 'Fuzz comment' },
        headers: credentials.member,
      },
      pools,
      '/api/admin/comments',
    )
    // The public item routes take a slug, not an id.
    pools.add('slug', 'fuzz-item')
  })

  return {
    name: 'directory',
    app,
    pools,
    auths: [
      ['anonymous', 2],
      ['admin', 8],
      ['member', 2],
      ['a forged cookie', 1],
      ['a cookie with NUL', 1],
    ],
    credentials: (auth) => credentials[auth] ?? {},
    errorShape: directoryErrorShape,
    // SPEC.md: the payment webhooks answer their own refusals `{error}`.
    errorShapeOf: (request, status) =>
      status === 400 && /^\/api\/[a-z]+\/webhook$/.test(request.path) ? paymentWebhookErrorShape : undefined,
    // SPEC.md: the Git routes answer 500 while DATA_REPOSITORY or GIT_TOKEN is unset, and the location
    // features 503 while the settings (which generated requests change) turn them off.
    prescribedServerError: (request, answer, body) => {
      const code = (body as { code?: unknown }).code
      return (
        (request.path === GIT_PATH && answer.status === 500 && code === 'GIT_NOT_CONFIGURED') ||
        (answer.status === 503 && code === 'LOCATION_DISABLED')
      )
    },
    refresh: async () => {
      if (!(await stillAdmin())) await signInAdmin()
      if (!(await stillMember())) await signInMember()
    },
    // Signing out, in or up replaces the session the request carried.
    afterAnswer: async (request) => {
      if (request.path.startsWith('/api/auth/')) {
        if (!(await stillAdmin())) await signInAdmin()
        if (!(await stillMember())) await signInMember()
      }
    },
    close: closeAll.close,
  }
}
