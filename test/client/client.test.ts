import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createDirectoryClient, createPlatformClient, type PlatformTokens } from '@curio/client'
import { ensureAdmin } from '../../src/directory/admin/bootstrap.ts'
import { type OpenAiFake, startOpenAiFake } from '../fakes/openai.ts'
import {
  type DirectoryHarness,
  type PlatformHarness,
  startDirectory,
  startPlatform,
} from '../helpers/apps.ts'
import { ROOT } from '../helpers/markdown.ts'
import { freePort } from '../helpers/ports.ts'
import { runNode } from '../helpers/run-node.ts'

const CLIENT = join(ROOT, 'packages/client')
const PASSWORD = 'a good password'
const ACCESS_TOKEN_TTL_MS = 15 * 60_000

let fake: OpenAiFake
let platform: PlatformHarness
let platformUrl: string
let directory: DirectoryHarness
let directoryUrl: string

before(async () => {
  fake = await startOpenAiFake()
  platform = await startPlatform({ env: { OPENAI_API_URL: fake.url, AI_PROVIDER_MAX_RETRIES: '0' } })
  platformUrl = await platform.app.listen({ port: 0, host: '127.0.0.1' })
  // The directory's own origin is APP_URL's: the port is chosen first so the app knows where it lives.
  const port = await freePort()
  directoryUrl = `http://127.0.0.1:${port}`
  directory = await startDirectory({ env: { APP_URL: directoryUrl, RATE_LIMIT_BYPASS_LOCALHOST: 'true' } })
  await directory.app.listen({ port, host: '127.0.0.1' })
})
after(async () => {
  await platform?.close()
  await directory?.close()
  await fake?.close()
})

/** A new platform account, registered through the client; answers its email and first token pair. */
async function account() {
  const email = `client-${randomUUID()}@example.com`
  const { data, error } = await createPlatformClient({ baseUrl: platformUrl }).POST('/api/auth/register', {
    body: { email, password: PASSWORD },
  })
  assert.equal(error, undefined)
  assert.ok(data)
  return { email, accessToken: data.accessToken, refreshToken: data.refreshToken }
}

/**
 * A fetch that counts the refresh requests going through it; with `holdFor`, a refresh waits until that
 * many 401s have come back, so that calls sent together all meet the expired token before any renewal.
 */
function countingRefreshes(holdFor = 0) {
  const counted = { refreshes: 0, unauthorized: 0 }
  const { promise: held, resolve: release } = Promise.withResolvers<void>()
  if (holdFor === 0) release()
  const fetch = async (request: Request) => {
    if (new URL(request.url).pathname === '/api/auth/refresh') {
      counted.refreshes++
      await held
      return globalThis.fetch(request)
    }
    const response = await globalThis.fetch(request)
    if (response.status === 401 && ++counted.unauthorized === holdFor) release()
    return response
  }
  return { counted, fetch }
}

/** A directory admin with a password, signed in by nobody yet. */
async function directoryAdmin() {
  const email = `admin-${randomUUID()}@example.com`
  await ensureAdmin({ db: directory.databases.directory.db, clock: directory.clock }, email, PASSWORD)
  return email
}

describe('README and examples', () => {
  const readme = readFileSync(join(CLIENT, 'README.md'), 'utf8')

  for (const example of ['generate-work.ts', 'list-items.ts']) {
    it(`the README shows examples/${example} verbatim`, () => {
      const text = readFileSync(join(CLIENT, 'examples', example), 'utf8')
      const marker = `<!-- examples/${example} -->\n\`\`\`ts\n`
      const start = readme.indexOf(marker)
      assert.ok(start >= 0, `README.md has the marker ${marker.trim()}`)
      const body = readme.slice(start + marker.length)
      assert.equal(body.slice(0, body.indexOf('```\n')), text)
    })
  }

  it('generate-work.ts signs in, creates a work, generates its items and prints the activity log', async () => {
    const { email } = await account()
    const run = await runNode([join(CLIENT, 'examples/generate-work.ts')], {
      cwd: CLIENT,
      env: {
        ...process.env,
        CURIO_PLATFORM_URL: platformUrl,
        CURIO_EMAIL: email,
        CURIO_PASSWORD: PASSWORD,
        OPENAI_API_KEY: fake.apiKey,
      },
    })
    assert.equal(run.code, 0, run.stderr)
    const lines = run.stdout.trim().split('\n')
    assert.equal(lines[0], 'Created work Espresso grinders (espresso-grinders)')
    assert.equal(lines[1], 'Generation COMPLETED')
    const items = lines.filter((line) => line.startsWith('- '))
    assert.equal(items.length, 5)
    assert.match(items[0] as string, /^- Item 1 for /)
    assert.ok(
      lines.some((line) => /^generation completed: /.test(line)),
      run.stdout,
    )
    assert.ok(lines.includes('work_created completed: Created work "Espresso grinders"'), run.stdout)
  })

  it('list-items.ts prints every published item of a directory and their count', async () => {
    const admin = createDirectoryClient({ baseUrl: directoryUrl })
    assert.equal((await admin.signIn(await directoryAdmin(), PASSWORD)).error, undefined)
    for (const [name, status] of [
      ['Blue Bottle Coffee', 'published'],
      ['Tim Wendelboe', 'published'],
      ['Unfinished draft', 'draft'],
    ] as const) {
      const { error } = await admin.POST('/api/admin/items', {
        body: { name, status, url: `https://example.com/${encodeURIComponent(name)}` },
      })
      assert.equal(error, undefined)
    }
    const run = await runNode([join(CLIENT, 'examples/list-items.ts')], {
      cwd: CLIENT,
      env: { ...process.env, CURIO_DIRECTORY_URL: directoryUrl },
    })
    assert.equal(run.code, 0, run.stderr)
    const lines = run.stdout.trim().split('\n')
    assert.deepEqual(lines.slice(0, -1).sort(), [
      'Blue Bottle Coffee\thttps://example.com/Blue%20Bottle%20Coffee',
      'Tim Wendelboe\thttps://example.com/Tim%20Wendelboe',
    ])
    assert.equal(lines.at(-1), '2 published items')
  })
})

describe('platform client', () => {
  it('sends an API key as x-api-key, and a refusal arrives as the typed error body', async () => {
    const { email, accessToken } = await account()
    const owner = createPlatformClient({ baseUrl: platformUrl, accessToken })
    const created = await owner.POST('/api/auth/api-keys', { body: { name: 'script' } })
    assert.ok(created.data)
    const script = createPlatformClient({ baseUrl: platformUrl, apiKey: created.data.key })
    assert.equal((await script.GET('/api/auth/me')).data?.email, email)

    // Keys cannot manage keys (403), as the REST API says.
    const refused = await script.POST('/api/auth/api-keys', { body: { name: 'another' } })
    assert.equal(refused.response.status, 403)
    assert.equal(refused.data, undefined)
    assert.equal(refused.error?.code, 'API_KEY_NOT_ALLOWED')
    assert.equal(refused.error?.statusCode, 403)
  })

  it('an unknown work is 404 WORK_NOT_FOUND in the error, and the types refuse an unknown route', async () => {
    const { accessToken } = await account()
    const client = createPlatformClient({ baseUrl: platformUrl, accessToken })
    const { data, error, response } = await client.GET('/api/works/{id}', {
      params: { path: { id: randomUUID() } },
    })
    assert.equal(response.status, 404)
    assert.equal(data, undefined)
    assert.equal(error?.code, 'WORK_NOT_FOUND')
    if (false as boolean) {
      // @ts-expect-error: no such route in the platform's document
      await client.GET('/api/no-such-route')
      // @ts-expect-error: a work's name is a string
      await client.POST('/api/works', { body: { name: 42 } })
    }
  })

  it('an expired access token is renewed once for concurrent calls, each retried with the new token', async () => {
    const { accessToken, refreshToken } = await account()
    const told: PlatformTokens[] = []
    const { counted, fetch } = countingRefreshes(5)
    const client = createPlatformClient({
      baseUrl: platformUrl,
      accessToken,
      refreshToken,
      fetch,
      onTokens: (tokens) => {
        told.push(tokens)
      },
    })
    assert.equal((await client.GET('/api/works')).response.status, 200)
    assert.equal(counted.refreshes, 0)

    platform.clock.advance(ACCESS_TOKEN_TTL_MS + 1000)
    const answers = await Promise.all(Array.from({ length: 5 }, () => client.GET('/api/works')))
    assert.deepEqual(
      answers.map((answer) => answer.response.status),
      [200, 200, 200, 200, 200],
    )
    // Five 401s, one renewal: a second would have spent the refresh token again (401, every token revoked).
    assert.equal(counted.unauthorized, 5)
    assert.equal(counted.refreshes, 1)
    assert.equal(told.length, 1)
    const [renewed] = told
    assert.ok(renewed)
    assert.notEqual(renewed.accessToken, accessToken)
    assert.notEqual(renewed.refreshToken, refreshToken)
    assert.deepEqual(client.tokens(), {
      accessToken: renewed.accessToken,
      refreshToken: renewed.refreshToken,
    })

    // The first refresh token was spent by the renewal: it works once.
    const spent = await createPlatformClient({ baseUrl: platformUrl }).POST('/api/auth/refresh', {
      body: { refreshToken },
    })
    assert.equal(spent.response.status, 401)
  })

  it('a refused renewal leaves the 401 to the caller, and is not tried again', async () => {
    const { accessToken } = await account()
    const told: PlatformTokens[] = []
    const { counted, fetch } = countingRefreshes()
    const client = createPlatformClient({
      baseUrl: platformUrl,
      accessToken,
      refreshToken: 'not-a-refresh-token',
      fetch,
      onTokens: (tokens) => {
        told.push(tokens)
      },
    })
    platform.clock.advance(ACCESS_TOKEN_TTL_MS + 1000)
    const first = await client.GET('/api/works')
    assert.equal(first.response.status, 401)
    assert.equal(first.error?.code, 'INVALID_TOKEN')
    assert.equal((await client.GET('/api/works')).response.status, 401)
    assert.equal(counted.refreshes, 1)
    assert.deepEqual(told, [])
  })
})

describe('directory client', () => {
  it('keeps the session cookie from sign-in, sends it back with the app’s Origin on writes, forgets it on sign-out', async () => {
    const email = await directoryAdmin()
    const client = createDirectoryClient({ baseUrl: directoryUrl })
    assert.equal(client.cookies(), undefined)
    assert.equal((await client.GET('/api/current-user')).data, null)

    const signedIn = await client.signIn(email, PASSWORD)
    assert.equal(signedIn.data?.user.email, email)
    assert.match(client.cookies() ?? '', /^curio_session=[^;]+$/)
    assert.equal((await client.GET('/api/current-user')).data?.email, email)

    const created = await client.POST('/api/admin/items', {
      body: { name: 'Origin checked', status: 'draft' },
    })
    assert.equal(created.response.status, 201)
    assert.equal(created.data?.data.name, 'Origin checked')

    // The same session from another origin is refused: the client's Origin is what lets its writes in.
    const cookie = client.cookies() as string
    const foreign = createDirectoryClient({ baseUrl: directoryUrl, origin: 'https://elsewhere.example' })
    const refused = await foreign.POST('/api/admin/items', {
      body: { name: 'Cross-site', status: 'draft' },
      headers: { cookie },
    })
    assert.equal(refused.response.status, 403)
    assert.equal(refused.error?.code, 'CROSS_ORIGIN')
    assert.equal(refused.error?.success, false)

    const signedOut = await client.signOut()
    assert.equal(signedOut.data?.success, true)
    assert.equal(client.cookies(), undefined)
    assert.equal((await client.GET('/api/current-user')).data, null)
    // The session itself is gone, not only forgotten by the client.
    const stale = createDirectoryClient({ baseUrl: directoryUrl })
    assert.equal((await stale.GET('/api/current-user', { headers: { cookie } })).data, null)
  })

  it('a wrong password is 401 in the typed error and keeps no cookie', async () => {
    const email = await directoryAdmin()
    const client = createDirectoryClient({ baseUrl: directoryUrl })
    const { data, error, response } = await client.signIn(email, 'not the password')
    assert.equal(response.status, 401)
    assert.equal(data, undefined)
    assert.equal(error?.success, false)
    assert.equal(typeof error?.code, 'string')
    assert.equal(client.cookies(), undefined)
  })
})
