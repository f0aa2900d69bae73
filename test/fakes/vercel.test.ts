import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Vercel } from '@vercel/sdk'
import type { GetDeploymentResponseBody } from '@vercel/sdk/models/getdeploymentresponsebody.js'
import { ResponseValidationError } from '@vercel/sdk/models/responsevalidationerror.js'
import { SDKError } from '@vercel/sdk/models/sdkerror.js'
import { VercelError } from '@vercel/sdk/models/vercelerror.js'
import { startCountingDefaultToZeroValue } from '@vercel/sdk/types/defaultToZeroValue.js'
import { startCountingUnrecognized } from '@vercel/sdk/types/unrecognized.js'
import { startVercelFake, type VercelFakeOptions } from './vercel.ts'

const TOKEN = 'tok_curio'

async function setup(
  t: { after: (fn: () => Promise<void>) => void },
  options: Partial<VercelFakeOptions> = {},
) {
  const fake = await startVercelFake({ token: TOKEN, ...options })
  t.after(() => fake.close())
  const vercel = new Vercel({ bearerToken: TOKEN, serverURL: fake.url })
  return { fake, vercel }
}

/**
 * Runs one SDK call and asserts the SDK took the answer as it is: its schemas fill a missing required
 * field with a zero value (and count it), and count every value they had to coerce or did not recognise
 * (an unknown enum member, a null where the field may only be absent). Both counts must stay 0.
 */
async function strictly<T>(call: () => Promise<T>): Promise<T> {
  const defaulted = startCountingDefaultToZeroValue()
  const unrecognized = startCountingUnrecognized()
  let result: T
  let counts: { defaulted: number; unrecognized: number }
  try {
    result = await call()
  } finally {
    counts = { defaulted: defaulted.end(), unrecognized: unrecognized.end() }
  }
  assert.deepEqual(counts, { defaulted: 0, unrecognized: 0 }, 'the SDK defaulted or coerced fields')
  return result
}

/** The SDK error a call fails with, and the Vercel error body it carries. */
async function sdkError(call: () => Promise<unknown>) {
  try {
    await call()
  } catch (error) {
    assert.ok(error instanceof SDKError, `expected SDKError, got ${error}`)
    assert.ok(error instanceof VercelError)
    const parsed = JSON.parse(error.body) as {
      error: { code: string; message: string; [key: string]: unknown }
    }
    return { status: error.statusCode, error: parsed.error }
  }
  assert.fail('expected the call to fail')
}

/** `getAuthUser` through `strictly`; its type allows no body (a 302), the fake always sends one. */
async function authUser(vercel: Vercel) {
  const answer = await strictly(() => vercel.user.getAuthUser())
  assert.ok(answer)
  return answer.user
}

/** The owner's view of a deployment (not the limited one). */
function full(deployment: GetDeploymentResponseBody) {
  assert.ok('ownerId' in deployment, 'expected the full deployment')
  return deployment
}

test('getAuthUser answers the token’s user', async (t) => {
  const { fake, vercel } = await setup(t, {
    user: { id: 'usr_1', username: 'ada', email: 'ada@example.com', name: 'Ada' },
  })
  const user = await authUser(vercel)
  assert.equal(user.id, 'usr_1')
  assert.equal(user.username, 'ada')
  assert.equal(user.email, 'ada@example.com')
  assert.equal(user.name, 'Ada')
  assert.ok(!('limited' in user), 'the full user, not the limited one')
  assert.deepEqual(fake.requests, [{ method: 'GET', path: '/v2/user', query: {}, status: 200 }])

  fake.addToken('tok_bob', { username: 'bob' })
  const bob = new Vercel({ bearerToken: 'tok_bob', serverURL: fake.url })
  assert.equal((await authUser(bob)).username, 'bob')
})

test('an unknown or revoked token is 403 invalidToken; no token is 403 missingToken', async (t) => {
  const { fake, vercel } = await setup(t)
  const stranger = new Vercel({ bearerToken: 'nope', serverURL: fake.url })
  assert.deepEqual(await sdkError(() => stranger.user.getAuthUser()), {
    status: 403,
    error: { code: 'forbidden', message: 'Not authorized', invalidToken: true },
  })

  const anonymous = new Vercel({ serverURL: fake.url })
  assert.deepEqual(await sdkError(() => anonymous.deployments.getDeployments({})), {
    status: 403,
    error: {
      code: 'forbidden',
      message: 'The request is missing an authentication token',
      missingToken: true,
    },
  })

  await authUser(vercel)
  fake.revokeToken(TOKEN)
  const revoked = await sdkError(() => vercel.user.getAuthUser())
  assert.equal(revoked.status, 403)
  assert.equal(revoked.error.invalidToken, true)
})

test('getTeams lists the teams the token’s user is in, newest first, paged by creation', async (t) => {
  let clock = 1_000
  const { fake, vercel } = await setup(t, { now: () => clock })
  fake.addTeam({ id: 'team_a', slug: 'alpha', name: 'Alpha' }, ['curio'])
  clock = 2_000
  fake.addToken('tok_eve', { username: 'eve' })
  fake.addTeam({ id: 'team_x', slug: 'xeno', name: 'Xeno' }, ['eve'])
  clock = 3_000
  fake.addTeam({ id: 'team_b', slug: 'beta', name: 'Beta' }, ['eve', TOKEN])

  const { teams, pagination } = await strictly(() => vercel.teams.getTeams({}))
  assert.deepEqual(
    teams.map((team) => [team.id, team.slug, team.name]),
    [
      ['team_b', 'beta', 'Beta'],
      ['team_a', 'alpha', 'Alpha'],
    ],
  )
  assert.deepEqual(pagination, { count: 2, next: null, prev: 3_000 })
  const beta = teams[0]!
  assert.ok('membership' in beta && beta.membership)
  assert.equal(beta.membership.role, 'MEMBER')

  const first = await strictly(() => vercel.teams.getTeams({ limit: 1 }))
  assert.deepEqual(
    first.teams.map((team) => team.id),
    ['team_b'],
  )
  assert.equal(first.pagination.next, 3_000)
  const second = await strictly(() => vercel.teams.getTeams({ limit: 1, until: first.pagination.next! }))
  assert.deepEqual(
    second.teams.map((team) => team.id),
    ['team_a'],
  )
  const since = await strictly(() => vercel.teams.getTeams({ since: 1_000 }))
  assert.deepEqual(
    since.teams.map((team) => team.id),
    ['team_b'],
  )
})

test('getProject finds a project by name or id in its scope; elsewhere it is 404 not_found', async (t) => {
  const { fake, vercel } = await setup(t)
  const team = fake.addTeam({ slug: 'acme', name: 'Acme' }, ['curio'])
  const mine = fake.createProject('site')
  const theirs = fake.createProject('site', { teamId: 'acme' })
  assert.match(mine.id, /^prj_[A-Za-z0-9]{28}$/)
  assert.notEqual(mine.id, theirs.id)

  const byName = await strictly(() => vercel.projects.getProject({ idOrName: 'site' }))
  assert.equal(byName.id, mine.id)
  assert.equal(byName.name, 'site')
  assert.equal(byName.accountId, fake.user.id)
  assert.equal((await strictly(() => vercel.projects.getProject({ idOrName: mine.id }))).name, 'site')

  const inTeam = await strictly(() => vercel.projects.getProject({ idOrName: 'site', teamId: team.id }))
  assert.equal(inTeam.id, theirs.id)
  assert.equal(inTeam.accountId, team.id)
  assert.equal(
    (await strictly(() => vercel.projects.getProject({ idOrName: 'site', slug: 'acme' }))).id,
    theirs.id,
  )
  assert.equal(
    (await strictly(() => vercel.projects.getProject({ idOrName: 'site', teamId: 'acme' }))).id,
    theirs.id,
  )

  assert.deepEqual(await sdkError(() => vercel.projects.getProject({ idOrName: 'missing' })), {
    status: 404,
    error: { code: 'not_found', message: 'Project not found' },
  })
  // The team's project is not the user's own.
  const elsewhere = await sdkError(() => vercel.projects.getProject({ idOrName: theirs.id }))
  assert.equal(elsewhere.status, 404)

  const listed = await strictly(() => vercel.projects.getProjects({ search: 'sit' }))
  assert.ok('projects' in listed, 'the paged answer, not a bare array')
  const { projects } = listed
  assert.deepEqual(
    projects.map((project) => project.id),
    [mine.id],
  )
})

test('a first deploy creates the project; the project shows its latest and production deployments', async (t) => {
  const { fake, vercel } = await setup(t)
  assert.throws(() => fake.createDeployment('blog', { createProject: false }), /no project blog/)
  assert.throws(
    () => fake.createDeployment('blog', { states: ['DONE' as 'READY'] }),
    /not a deployment state/,
  )
  const deployment = fake.createDeployment('blog', { target: 'production', states: ['BUILDING', 'READY'] })
  assert.match(deployment.uid, /^dpl_[A-Za-z0-9]{28}$/)
  assert.equal(deployment.readyState, 'BUILDING')
  assert.throws(() => fake.createProject('blog'), /exists already/)

  const project = await strictly(() => vercel.projects.getProject({ idOrName: 'blog' }))
  assert.equal(project.id, deployment.projectId)
  assert.equal(project.latestDeployments?.[0]?.id, deployment.uid)
  assert.equal(project.latestDeployments?.[0]?.readyState, 'BUILDING')
  assert.equal(project.targets?.production?.id, deployment.uid)
  fake.advance(deployment.uid)
  const later = await strictly(() => vercel.projects.getProject({ idOrName: 'blog' }))
  assert.equal(later.targets?.production?.readyState, 'READY')
})

test('getDeployments lists the project’s deployments newest first, filtered by since, state and target', async (t) => {
  const { fake, vercel } = await setup(t, { now: () => 10_000 })
  const old = fake.createDeployment('site', { createdAt: 1_000, states: ['READY'], target: 'production' })
  const middle = fake.createDeployment('site', { createdAt: 2_000, states: ['ERROR'] })
  const recent = fake.createDeployment('site', { createdAt: 3_000 })
  fake.createDeployment('other', { createdAt: 4_000 })

  const all = await strictly(() => vercel.deployments.getDeployments({ projectId: 'site' }))
  assert.deepEqual(
    all.deployments.map((deployment) => deployment.uid),
    [recent.uid, middle.uid, old.uid],
  )
  assert.deepEqual(all.pagination, { count: 3, next: null, prev: 3_000 })
  const [first] = all.deployments
  assert.ok(first)
  assert.equal(first.readyState, 'QUEUED')
  assert.equal(first.state, 'QUEUED')
  assert.equal(first.type, 'LAMBDAS')
  assert.equal(first.url, recent.url)
  assert.equal(first.projectId, recent.projectId)
  assert.equal(first.created, 3_000)
  assert.equal(first.createdAt, 3_000)
  assert.equal(first.creator.uid, fake.user.id)
  assert.match(first.inspectorUrl ?? '', /^https:\/\/vercel\.com\/curio\/site\//)
  assert.equal(all.deployments[1]!.errorMessage, 'Command "npm run build" exited with 1')

  // By project id too, and `since` is strictly after.
  const since = await strictly(() =>
    vercel.deployments.getDeployments({ projectId: recent.projectId, since: 2_000 }),
  )
  assert.deepEqual(
    since.deployments.map((deployment) => deployment.uid),
    [recent.uid],
  )
  const until = await strictly(() => vercel.deployments.getDeployments({ projectId: 'site', until: 3_000 }))
  assert.deepEqual(
    until.deployments.map((deployment) => deployment.uid),
    [middle.uid, old.uid],
  )

  const page = await strictly(() => vercel.deployments.getDeployments({ projectId: 'site', limit: 2 }))
  assert.equal(page.pagination.next, 2_000)
  const rest = await strictly(() =>
    vercel.deployments.getDeployments({ projectId: 'site', limit: 2, until: page.pagination.next! }),
  )
  assert.deepEqual(
    rest.deployments.map((deployment) => deployment.uid),
    [old.uid],
  )
  assert.equal(rest.pagination.next, null)

  const production = await strictly(() =>
    vercel.deployments.getDeployments({ projectId: 'site', target: 'production' }),
  )
  assert.deepEqual(
    production.deployments.map((deployment) => [deployment.uid, deployment.target]),
    [[old.uid, 'production']],
  )
  const failedOrQueued = await strictly(() =>
    vercel.deployments.getDeployments({ projectId: 'site', state: 'ERROR,QUEUED' }),
  )
  assert.deepEqual(
    failedOrQueued.deployments.map((deployment) => deployment.uid),
    [recent.uid, middle.uid],
  )
  const everything = await strictly(() => vercel.deployments.getDeployments({}))
  assert.equal(everything.deployments.length, 4)

  assert.deepEqual(await sdkError(() => vercel.deployments.getDeployments({ projectId: 'nope' })), {
    status: 404,
    error: { code: 'not_found', message: 'Project not found' },
  })
  const tooMany = await sdkError(() => vercel.deployments.getDeployments({ limit: 101 }))
  assert.equal(tooMany.status, 400)
  assert.equal(tooMany.error.code, 'bad_request')
  assert.equal(fake.requests.at(-1)?.path, '/v7/deployments')
  assert.deepEqual(fake.requests.at(-1)?.query, { limit: '101' })
})

test('getDeployment finds a deployment by id or hostname and follows advance()', async (t) => {
  const { fake, vercel } = await setup(t)
  const deployment = fake.createDeployment('site', { target: 'production' })

  const queued = full(await strictly(() => vercel.deployments.getDeployment({ idOrUrl: deployment.uid })))
  assert.equal(queued.id, deployment.uid)
  assert.equal(queued.readyState, 'QUEUED')
  assert.equal(queued.status, 'QUEUED')
  assert.equal(queued.url, deployment.url)
  assert.equal(queued.projectId, deployment.projectId)
  assert.equal(queued.ownerId, fake.user.id)
  assert.equal(queued.target, 'production')
  assert.deepEqual(queued.alias, [])
  assert.equal(queued.aliasAssigned, false)

  assert.equal(fake.advance(deployment.uid), 'BUILDING')
  const byUrl = full(await strictly(() => vercel.deployments.getDeployment({ idOrUrl: deployment.url })))
  assert.equal(byUrl.readyState, 'BUILDING')
  assert.equal(fake.advance(deployment.uid), 'READY')
  assert.equal(fake.advance(deployment.uid), 'READY', 'the last state stays')
  const ready = full(
    await strictly(() => vercel.deployments.getDeployment({ idOrUrl: `https://${deployment.url}` })),
  )
  assert.equal(ready.readyState, 'READY')
  assert.equal(ready.readySubstate, 'PROMOTED')
  assert.deepEqual(ready.alias, ['site.vercel.app'])
  assert.equal(ready.aliasAssigned, true)
  assert.equal(typeof ready.ready, 'number')

  // To a given state, even one off the walk.
  const failing = fake.createDeployment('site')
  assert.equal(fake.advance(failing.uid, 'ERROR'), 'ERROR')
  const errored = full(await strictly(() => vercel.deployments.getDeployment({ idOrUrl: failing.uid })))
  assert.equal(errored.readyState, 'ERROR')
  assert.equal(errored.errorMessage, 'Command "npm run build" exited with 1')
  const skipping = fake.createDeployment('site')
  assert.equal(fake.advance(skipping.uid, 'READY'), 'READY')

  assert.deepEqual(await sdkError(() => vercel.deployments.getDeployment({ idOrUrl: 'dpl_nope' })), {
    status: 404,
    error: { code: 'not_found', message: 'Deployment not found' },
  })
})

test('advanceOnRead: each read answers the current state, then moves it one step', async (t) => {
  const { fake, vercel } = await setup(t, { advanceOnRead: true })
  const deployment = fake.createDeployment('site')

  const seen: string[] = []
  for (let polls = 0; polls < 10; polls++) {
    const current = await strictly(() => vercel.deployments.getDeployment({ idOrUrl: deployment.uid }))
    seen.push(current.readyState)
    if (current.readyState === 'READY') break
  }
  assert.deepEqual(seen, ['QUEUED', 'BUILDING', 'READY'])

  // A list read counts for every deployment it answers.
  const a = fake.createDeployment('site', { states: ['BUILDING', 'ERROR'] })
  const b = fake.createDeployment('site', { advanceOnRead: false })
  const listed = await strictly(() => vercel.deployments.getDeployments({ projectId: 'site', limit: 2 }))
  assert.deepEqual(
    listed.deployments.map((deployment) => deployment.readyState),
    ['QUEUED', 'BUILDING'],
  )
  assert.equal(fake.deployment(a.uid).readyState, 'ERROR')
  assert.equal(fake.deployment(b.uid).readyState, 'QUEUED', 'its own option wins')
  assert.equal(fake.deployment(deployment.uid).readyState, 'READY', 'not in that page')
})

test('advanceAfterMs: states follow the injected clock', async (t) => {
  let clock = 0
  const { fake, vercel } = await setup(t, { now: () => clock, advanceAfterMs: [100, 1_000] })
  const deployment = fake.createDeployment('site')
  const state = async () =>
    (await strictly(() => vercel.deployments.getDeployment({ idOrUrl: deployment.uid }))).readyState

  assert.equal(await state(), 'QUEUED')
  clock = 99
  assert.equal(await state(), 'QUEUED')
  clock = 100
  assert.equal(await state(), 'BUILDING')
  clock = 1_099
  assert.equal(await state(), 'BUILDING')
  clock = 5_000
  const ready = full(await strictly(() => vercel.deployments.getDeployment({ idOrUrl: deployment.uid })))
  assert.equal(ready.readyState, 'READY')
  assert.equal(ready.buildingAt, 100)
  assert.equal(ready.ready, 1_100, 'each step at the time it came, not when it was looked at')

  const quick = fake.createDeployment('site', { advanceAfterMs: 0 })
  assert.equal(fake.deployment(quick.uid).readyState, 'READY')
})

test('team scope: teamId is an id or a slug; a team the user is not in is 403', async (t) => {
  const { fake, vercel } = await setup(t)
  const acme = fake.addTeam({ id: 'team_acme', slug: 'acme', name: 'Acme' }, ['curio'])
  fake.addToken('tok_mallory', { username: 'mallory' })
  const mallory = new Vercel({ bearerToken: 'tok_mallory', serverURL: fake.url })
  const deployment = fake.createDeployment('shop', { teamId: 'acme' })
  assert.equal(deployment.teamId, acme.id)
  assert.equal(deployment.ownerId, acme.id)

  for (const teamId of [acme.id, 'acme']) {
    const { deployments } = await strictly(() =>
      vercel.deployments.getDeployments({ projectId: 'shop', teamId }),
    )
    assert.deepEqual(
      deployments.map((listed) => listed.uid),
      [deployment.uid],
    )
    const single = full(
      await strictly(() => vercel.deployments.getDeployment({ idOrUrl: deployment.uid, teamId })),
    )
    assert.equal(single.team?.slug, 'acme')
    assert.equal(single.plan, 'pro')
  }
  // Without the team: the project is not the user's own, and the deployment is shown limited.
  assert.equal((await sdkError(() => vercel.deployments.getDeployments({ projectId: 'shop' }))).status, 404)
  const limited = await strictly(() => vercel.deployments.getDeployment({ idOrUrl: deployment.uid }))
  assert.ok(!('url' in limited))
  assert.equal(limited.id, deployment.uid)
  assert.equal(limited.readyState, 'QUEUED')

  const outsider = await sdkError(() =>
    mallory.deployments.getDeployments({ projectId: 'shop', teamId: 'acme' }),
  )
  assert.equal(outsider.status, 403)
  assert.equal(outsider.error.code, 'forbidden')
  assert.match(outsider.error.message, /^Not authorized: Trying to access resource under scope "acme"/)
  assert.equal(
    (await sdkError(() => mallory.projects.getProject({ idOrName: 'shop', teamId: 'team_acme' }))).status,
    403,
  )
  assert.equal(
    (await sdkError(() => vercel.deployments.getDeployment({ idOrUrl: deployment.uid, teamId: 'nope' })))
      .status,
    403,
  )
  assert.deepEqual((await strictly(() => mallory.teams.getTeams({}))).teams, [])

  fake.addToken('tok_mallory', { username: 'mallory', teams: ['acme'] })
  assert.equal(
    (await strictly(() => mallory.deployments.getDeployments({ projectId: 'shop', teamId: 'acme' })))
      .deployments.length,
    1,
  )
})

test('failNext: faults, garbage and rate limits, as many times as asked, then normal answers', async (t) => {
  const { fake, vercel } = await setup(t)
  fake.createDeployment('site')

  fake.failNext({ path: '/v7/deployments' }, { status: 500 }, 2)
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(await sdkError(() => vercel.deployments.getDeployments({})), {
      status: 500,
      error: { code: 'internal_server_error', message: 'An unexpected internal error occurred' },
    })
  }
  assert.equal((await strictly(() => vercel.deployments.getDeployments({}))).deployments.length, 1)

  fake.failNext({ method: 'GET', path: /^\/v13\/deployments\// }, { status: 429 })
  try {
    await vercel.deployments.getDeployment({ idOrUrl: 'dpl_x' })
    assert.fail('expected a 429')
  } catch (error) {
    assert.ok(error instanceof SDKError)
    assert.equal(error.statusCode, 429)
    assert.equal(error.headers.get('x-ratelimit-remaining'), '0')
    assert.equal(JSON.parse(error.body).error.code, 'rate_limited')
  }

  // A proxy's HTML page.
  fake.failNext(
    { path: '/v2/user' },
    { status: 502, body: '<html>Bad Gateway</html>', headers: { 'content-type': 'text/html' } },
  )
  await assert.rejects(vercel.user.getAuthUser(), (error) => {
    assert.ok(error instanceof SDKError)
    assert.equal(error.statusCode, 502)
    assert.equal(error.body, '<html>Bad Gateway</html>')
    return true
  })
  // A 200 that is not the JSON it claims to be: the SDK's JSON.parse throws.
  fake.failNext(
    { path: '/v2/user' },
    { status: 200, body: '{"user": {', headers: { 'content-type': 'application/json' } },
  )
  await assert.rejects(vercel.user.getAuthUser(), SyntaxError)
  // A 200 of another content type: the SDK's "Unexpected Status or Content-Type".
  fake.failNext({ path: '/v2/user' }, { status: 200, body: 'ok' })
  await assert.rejects(vercel.user.getAuthUser(), (error) => {
    assert.ok(error instanceof SDKError)
    assert.equal(error.statusCode, 200)
    assert.match(error.message, /Unexpected Status or Content-Type/)
    return true
  })

  // The SDK's own retries get past a transient 503.
  fake.failNext({ path: '/v2/user' }, { status: 503 })
  const retrying = new Vercel({
    bearerToken: TOKEN,
    serverURL: fake.url,
    retryConfig: {
      strategy: 'backoff',
      backoff: { initialInterval: 1, maxInterval: 1, exponent: 1, maxElapsedTime: 1_000 },
    },
  })
  assert.equal((await authUser(retrying)).username, 'curio')
  assert.deepEqual(
    fake.requests.map((request) => `${request.path} ${request.status}`),
    [
      '/v7/deployments 500',
      '/v7/deployments 500',
      '/v7/deployments 200',
      '/v13/deployments/dpl_x 429',
      '/v2/user 502',
      '/v2/user 200',
      '/v2/user 200',
      '/v2/user 503',
      '/v2/user 200',
    ],
  )
})

test('strictly() notices an answer missing a field the SDK requires', async (t) => {
  const { fake, vercel } = await setup(t)
  const sparse = {
    deployments: [{ uid: 'dpl_1', readyState: 'READY', type: 'LAMBDAS', creator: { uid: 'u' } }],
    pagination: { count: 1 },
  }
  // The SDK itself takes it: zero values for the missing scalars (url, name, created, next, …).
  fake.failNext({ path: '/v7/deployments' }, { status: 200, body: sparse })
  const { deployments, pagination } = await vercel.deployments.getDeployments({})
  assert.equal(deployments[0]!.url, '')
  assert.equal(pagination.next, null)
  fake.failNext({ path: '/v7/deployments' }, { status: 200, body: sparse })
  await assert.rejects(
    strictly(() => vercel.deployments.getDeployments({})),
    /defaulted or coerced/,
  )
  // A missing object, or a value outside an enum, is the SDK's ResponseValidationError.
  fake.failNext(
    { path: '/v7/deployments' },
    { status: 200, body: { ...sparse, deployments: [{ ...sparse.deployments[0], creator: undefined }] } },
  )
  await assert.rejects(vercel.deployments.getDeployments({}), ResponseValidationError)
  fake.failNext(
    { path: '/v7/deployments' },
    { status: 200, body: { ...sparse, deployments: [{ ...sparse.deployments[0], readyState: 'DONE' }] } },
  )
  await assert.rejects(vercel.deployments.getDeployments({}), ResponseValidationError)

  fake.failNext(
    { path: '/v7/deployments' },
    { status: 200, body: { deployments: [], pagination: { count: 0, next: null, prev: null } } },
  )
  await strictly(() => vercel.deployments.getDeployments({}))
})
