import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { throttling } from '@octokit/plugin-throttling'
import { Octokit } from '@octokit/rest'
import sodium from 'libsodium-wrappers'
import { type FakeDispatch, type FakePush, type GitHubFake, startGitHubFake } from './github.ts'

const TOKEN = 'ghp_fake_bot_token'
const OTHER = 'ghp_fake_stranger_token'
const TEMPLATE = { template_owner: 'curio', template_repo: 'site-template' }
const DEPLOY = `name: Deploy to Vercel
on:
  push:
    branches: [main]
  workflow_dispatch:
    inputs:
      environment:
        description: Where to deploy
        required: true
        default: production
      site_id:
        required: true
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - name: Deploy
        run: npx vercel deploy --prod
`
const CHECK = `name: "Check"
on: [push]
jobs:
  check:
    runs-on: ubuntu-latest
`

/** Octokit logs each failed request; the tests expect many. */
const log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }

let github: GitHubFake
let bot: Octokit
let stranger: Octokit
const pushes: FakePush[] = []

/** The status of a failed octokit call (its RequestError), with the answer's body. */
async function failure(call: Promise<unknown>) {
  const error = await call.then(
    () => assert.fail('expected the call to fail'),
    (caught: unknown) => caught as { status: number; response?: { data?: unknown } },
  )
  return { status: error.status, data: error.response?.data as { message?: string; errors?: unknown[] } }
}

/** What `crypto_box_seal` against the repository's public key gives, as the deploy pipeline sends it. */
async function seal(octokit: Octokit, repo: { owner: string; repo: string }, value: string, keyOf = repo) {
  const { data: key } = await octokit.rest.actions.getRepoPublicKey(keyOf)
  const sealed = sodium.crypto_box_seal(value, sodium.from_base64(key.key, sodium.base64_variants.ORIGINAL))
  return { key_id: key.key_id, encrypted_value: sodium.to_base64(sealed, sodium.base64_variants.ORIGINAL) }
}

before(async () => {
  await sodium.ready
  github = await startGitHubFake({ token: TOKEN })
  github.addToken(OTHER, { login: 'stranger', scopes: ['public_repo'] })
  github.addOrg('curio', ['curio-bot'])
  github.addTemplate('curio/site-template', {
    'README.md': '# Site\n',
    '.github/workflows/deploy_vercel.yaml': DEPLOY,
    '.github/workflows/check.yml': CHECK,
  })
  github.onPush((push) => {
    pushes.push(push)
  })
  bot = new Octokit({ auth: TOKEN, baseUrl: github.url, log })
  stranger = new Octokit({ auth: OTHER, baseUrl: github.url, log })
})
after(() => github.close())

describe('github fake: tokens and users', () => {
  it('answers GET /user with the token’s user and its scopes in x-oauth-scopes', async () => {
    const { data, headers } = await bot.rest.users.getAuthenticated()
    assert.equal(data.login, 'curio-bot')
    assert.equal(data.type, 'User')
    assert.equal(typeof data.id, 'number')
    assert.equal(headers['x-oauth-scopes'], 'repo, workflow')
    const other = await stranger.rest.users.getAuthenticated()
    assert.equal(other.data.login, 'stranger')
    assert.equal(other.headers['x-oauth-scopes'], 'public_repo')
  })

  it('answers 401 Bad credentials for an unknown or revoked token', async () => {
    const unknown = await failure(
      new Octokit({ auth: 'ghp_nope', baseUrl: github.url, log }).rest.users.getAuthenticated(),
    )
    assert.equal(unknown.status, 401)
    assert.equal(unknown.data.message, 'Bad credentials')
    github.addToken('ghp_short_lived', { login: 'curio-bot' })
    const shortLived = new Octokit({ auth: 'ghp_short_lived', baseUrl: github.url, log })
    assert.equal((await shortLived.rest.users.getAuthenticated()).status, 200)
    github.revokeToken('ghp_short_lived')
    assert.equal((await failure(shortLived.rest.users.getAuthenticated())).status, 401)
  })

  it('answers GET /orgs/{org} for an organization, 404 for anything else', async () => {
    const { data } = await bot.rest.orgs.get({ org: 'curio' })
    assert.equal(data.login, 'curio')
    assert.equal((await failure(bot.rest.orgs.get({ org: 'curio-bot' }))).status, 404)
    assert.equal((await failure(bot.rest.orgs.get({ org: 'nobody' }))).status, 404)
  })
})

describe('github fake: repositories from a template', () => {
  it('generates a repository with the template’s files and workflows (201), reported by GET', async () => {
    const made = await bot.rest.repos.createUsingTemplate({
      ...TEMPLATE,
      owner: 'curio',
      name: 'site-one',
      private: true,
    })
    assert.equal(made.status, 201)
    assert.equal(made.data.full_name, 'curio/site-one')
    assert.deepEqual(made.data.owner && { login: made.data.owner.login, type: made.data.owner.type }, {
      login: 'curio',
      type: 'Organization',
    })
    assert.equal(made.data.private, true)
    assert.equal(made.data.is_template, false)
    assert.equal(made.data.default_branch, 'main')
    assert.equal(made.data.template_repository?.full_name, 'curio/site-template')
    assert.equal(made.headers.location, `${github.url}/repos/curio/site-one`)

    const { data } = await bot.rest.repos.get({ owner: 'curio', repo: 'site-one' })
    assert.equal(data.id, made.data.id)
    assert.equal(data.html_url, 'https://github.com/curio/site-one')
    assert.equal(github.readFile('curio/site-one', 'README.md'), '# Site\n')
    assert.equal(github.readFile('curio/site-one', '.github/workflows/deploy_vercel.yaml'), DEPLOY)
    assert.deepEqual(
      github.workflows('curio/site-one').map(({ name, state }) => ({ name, state })),
      [
        { name: 'Deploy to Vercel', state: 'active' },
        { name: 'Check', state: 'active' },
      ],
    )
    // The initial commit is a push, as GitHub runs push workflows on it.
    assert.deepEqual(
      pushes.filter((push) => push.repo === 'curio/site-one').map(({ ref, created }) => ({ ref, created })),
      [{ ref: 'refs/heads/main', created: true }],
    )
  })

  it('answers 422 for a name that exists, 422 for a repository that is not a template', async () => {
    const taken = await failure(
      bot.rest.repos.createUsingTemplate({ ...TEMPLATE, owner: 'curio', name: 'site-one' }),
    )
    assert.equal(taken.status, 422)
    assert.equal(taken.data.message, 'Repository creation failed.')
    assert.deepEqual(taken.data.errors, [
      {
        resource: 'Repository',
        code: 'custom',
        field: 'name',
        message: 'name already exists on this account',
      },
    ])
    const plain = await failure(
      bot.rest.repos.createUsingTemplate({
        template_owner: 'curio',
        template_repo: 'site-one',
        name: 'copy',
      }),
    )
    assert.equal(plain.status, 422)
    assert.equal(plain.data.message, 'curio/site-one is not a template repository')
  })

  it('hides a private repository from a token that cannot reach it (404), also as a template', async () => {
    assert.equal((await failure(stranger.rest.repos.get({ owner: 'curio', repo: 'site-one' }))).status, 404)
    assert.equal(
      (await failure(stranger.rest.repos.createUsingTemplate({ ...TEMPLATE, name: 'mine' }))).status,
      404,
    )
    assert.equal((await failure(bot.rest.repos.get({ owner: 'curio', repo: 'missing' }))).status, 404)
  })

  it('answers 403 when generating into an organization the user is not a member of', async () => {
    github.addTemplate(
      'stranger/public-template',
      { 'index.html': '<p>hi</p>' },
      { public: true, collaborators: [] },
    )
    const answer = await failure(
      bot.rest.repos.createUsingTemplate({
        template_owner: 'stranger',
        template_repo: 'public-template',
        owner: 'other-org',
        name: 'x',
      }),
    )
    assert.equal(answer.status, 403)
    // Into its own account it works, and a public template is readable by anyone.
    const mine = await bot.rest.repos.createUsingTemplate({
      template_owner: 'stranger',
      template_repo: 'public-template',
      name: 'from-public',
    })
    assert.equal(mine.data.full_name, 'curio-bot/from-public')
    assert.equal(mine.data.private, false)
  })
})

describe('github fake: Actions secrets and variables', () => {
  const repo = { owner: 'curio', repo: 'site-one' }

  it('gives a per-repository Curve25519 public key and opens secrets sealed to it (201, then 204)', async () => {
    const { data: key } = await bot.rest.actions.getRepoPublicKey(repo)
    assert.match(key.key_id, /^\d+$/)
    assert.equal(sodium.from_base64(key.key, sodium.base64_variants.ORIGINAL).length, 32)
    const created = await bot.rest.actions.createOrUpdateRepoSecret({
      ...repo,
      secret_name: 'VERCEL_TOKEN',
      ...(await seal(bot, repo, 'vercel-secret-1')),
    })
    assert.equal(created.status, 201)
    const updated = await bot.rest.actions.createOrUpdateRepoSecret({
      ...repo,
      secret_name: 'VERCEL_TOKEN',
      ...(await seal(bot, repo, 'vercel-secret-2 ✓')),
    })
    assert.equal(updated.status, 204)
    assert.deepEqual(github.secrets('curio/site-one'), { VERCEL_TOKEN: 'vercel-secret-2 ✓' })
    const other = (await bot.rest.actions.getRepoPublicKey({ owner: 'curio-bot', repo: 'from-public' })).data
    assert.notEqual(other.key, key.key)
  })

  it('answers 422 for a wrong key_id, a value sealed to another key, or a bad name', async () => {
    const sealed = await seal(bot, repo, 'value')
    const wrongId = await failure(
      bot.rest.actions.createOrUpdateRepoSecret({ ...repo, secret_name: 'A', ...sealed, key_id: '123' }),
    )
    assert.equal(wrongId.status, 422)
    const otherKey = await seal(bot, repo, 'value', { owner: 'curio-bot', repo: 'from-public' })
    const unopened = await failure(
      bot.rest.actions.createOrUpdateRepoSecret({
        ...repo,
        secret_name: 'A',
        ...otherKey,
        key_id: sealed.key_id,
      }),
    )
    assert.equal(unopened.status, 422)
    for (const secret_name of ['GITHUB_TOKEN', '1ST', 'has-dash']) {
      assert.equal(
        (await failure(bot.rest.actions.createOrUpdateRepoSecret({ ...repo, secret_name, ...sealed })))
          .status,
        422,
      )
    }
    assert.deepEqual(Object.keys(github.secrets('curio/site-one')), ['VERCEL_TOKEN'])
  })

  it('creates (201, then 409), updates (204, 404 when missing) and reads variables', async () => {
    assert.equal(
      (await bot.rest.actions.createRepoVariable({ ...repo, name: 'SITE_ID', value: 'one' })).status,
      201,
    )
    assert.equal(
      (await failure(bot.rest.actions.createRepoVariable({ ...repo, name: 'SITE_ID', value: 'x' }))).status,
      409,
    )
    assert.equal(
      (await bot.rest.actions.updateRepoVariable({ ...repo, name: 'SITE_ID', value: 'two' })).status,
      204,
    )
    const { data } = await bot.rest.actions.getRepoVariable({ ...repo, name: 'SITE_ID' })
    assert.equal(data.name, 'SITE_ID')
    assert.equal(data.value, 'two')
    assert.ok(data.updated_at > data.created_at)
    assert.equal(
      (await failure(bot.rest.actions.updateRepoVariable({ ...repo, name: 'NOPE', value: 'x' }))).status,
      404,
    )
    assert.equal((await failure(bot.rest.actions.getRepoVariable({ ...repo, name: 'NOPE' }))).status, 404)
    assert.deepEqual(github.variables('curio/site-one'), { SITE_ID: 'two' })
  })

  it('answers 403 to a token that may only read a public repository', async () => {
    const answer = await failure(
      stranger.rest.actions.getRepoPublicKey({ owner: 'curio-bot', repo: 'from-public' }),
    )
    assert.equal(answer.status, 403)
    assert.equal((await stranger.rest.repos.get({ owner: 'curio-bot', repo: 'from-public' })).status, 200)
  })
})

describe('github fake: workflows', () => {
  const repo = { owner: 'curio', repo: 'site-one' }

  it('lists the workflows of .github/workflows with GitHub’s shape', async () => {
    const { data } = await bot.rest.actions.listRepoWorkflows(repo)
    assert.equal(data.total_count, 2)
    const deploy = data.workflows.find((workflow) => workflow.path === '.github/workflows/deploy_vercel.yaml')
    assert.ok(deploy)
    assert.equal(deploy.name, 'Deploy to Vercel')
    assert.equal(deploy.state, 'active')
    assert.equal(
      deploy.html_url,
      'https://github.com/curio/site-one/blob/main/.github/workflows/deploy_vercel.yaml',
    )
    assert.equal(deploy.url, `${github.url}/repos/curio/site-one/actions/workflows/${deploy.id}`)
    assert.ok(deploy.node_id && deploy.badge_url && deploy.created_at && deploy.updated_at)
  })

  it('enables a disabled workflow by file name or id (204), 404 for an unknown one', async () => {
    github.disableWorkflow('curio/site-one', 'deploy_vercel.yaml')
    const disabled = await failure(
      bot.rest.actions.createWorkflowDispatch({
        ...repo,
        workflow_id: 'deploy_vercel.yaml',
        ref: 'main',
        inputs: { site_id: 's' },
      }),
    )
    assert.equal(disabled.status, 422)
    assert.equal(
      (await bot.rest.actions.enableWorkflow({ ...repo, workflow_id: 'deploy_vercel.yaml' })).status,
      204,
    )
    const id = github.workflows('curio/site-one').find((workflow) => workflow.path.endsWith('check.yml'))?.id
    assert.ok(id)
    assert.equal((await bot.rest.actions.enableWorkflow({ ...repo, workflow_id: id })).status, 204)
    assert.deepEqual(
      github.workflows('curio/site-one').map((workflow) => workflow.state),
      ['active', 'active'],
    )
    assert.equal(
      (await failure(bot.rest.actions.enableWorkflow({ ...repo, workflow_id: 'nope.yaml' }))).status,
      404,
    )
  })

  it('accepts a dispatch (204), records it and calls onDispatch before answering', async () => {
    const seen: FakeDispatch[] = []
    const stop = github.onDispatch((dispatch) => {
      seen.push(dispatch)
    })
    const answer = await bot.rest.actions.createWorkflowDispatch({
      ...repo,
      workflow_id: 'deploy_vercel.yaml',
      ref: 'main',
      inputs: { site_id: 'site_1' },
    })
    stop()
    assert.equal(answer.status, 204)
    assert.deepEqual(seen, [
      { repo: 'curio/site-one', workflow: 'deploy_vercel.yaml', ref: 'main', inputs: { site_id: 'site_1' } },
    ])
    assert.deepEqual(
      github.dispatches('curio/site-one').map(({ workflow, ref, inputs }) => ({ workflow, ref, inputs })),
      [{ workflow: 'deploy_vercel.yaml', ref: 'main', inputs: { site_id: 'site_1' } }],
    )
  })

  it('refuses a dispatch: no trigger, unknown ref, unknown workflow, undeclared or missing inputs', async () => {
    const dispatch = (workflow_id: string, ref: string, inputs?: Record<string, string>) =>
      failure(bot.rest.actions.createWorkflowDispatch({ ...repo, workflow_id, ref, inputs }))
    const noTrigger = await dispatch('check.yml', 'main')
    assert.equal(noTrigger.status, 422)
    assert.equal(noTrigger.data.message, "Workflow does not have 'workflow_dispatch' trigger")
    const noRef = await dispatch('deploy_vercel.yaml', 'nope', { site_id: 's' })
    assert.equal(noRef.status, 422)
    assert.equal(noRef.data.message, 'No ref found for: nope')
    assert.equal((await dispatch('missing.yaml', 'main')).status, 404)
    const unexpected = await dispatch('deploy_vercel.yaml', 'main', { site_id: 's', extra: 'x' })
    assert.equal(unexpected.data.message, 'Unexpected inputs provided: ["extra"]')
    const absent = await dispatch('deploy_vercel.yaml', 'main')
    assert.equal(absent.data.message, "Required input 'site_id' not provided")
    assert.equal(github.dispatches('curio/site-one').length, 1)
  })

  it('calls onPush for a contents PUT to the default branch, and makes a workflow of a new workflow file', async () => {
    const before = pushes.length
    const { data } = await bot.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: '.github/workflows/nightly.yaml',
      message: 'Add nightly',
      content: Buffer.from('on:\n  workflow_dispatch:\n').toString('base64'),
    })
    assert.deepEqual(pushes.slice(before), [
      {
        repo: 'curio/site-one',
        ref: 'refs/heads/main',
        sha: data.commit.sha,
        paths: ['.github/workflows/nightly.yaml'],
        created: false,
      },
    ])
    const nightly = github
      .workflows('curio/site-one')
      .find((workflow) => workflow.path.endsWith('nightly.yaml'))
    assert.equal(nightly?.name, '.github/workflows/nightly.yaml')
    const answer = await bot.rest.actions.createWorkflowDispatch({
      ...repo,
      workflow_id: 'nightly.yaml',
      ref: 'main',
    })
    assert.equal(answer.status, 204)
  })
})

describe('github fake: fault injection and the request log', () => {
  it('answers an injected failure the given number of times, then normally, and logs every answer', async () => {
    const start = github.requests.length
    github.failNext({ method: 'GET', path: '/repos/curio/site-one' }, { status: 502 }, 2)
    const repo = { owner: 'curio', repo: 'site-one' }
    assert.equal((await failure(bot.rest.repos.get(repo))).status, 502)
    assert.equal((await failure(bot.rest.repos.get(repo))).status, 502)
    assert.equal((await bot.rest.repos.get(repo)).status, 200)
    github.failNext({ path: /\/actions\/variables$/ }, { status: 500, body: { message: 'boom' } })
    const boom = await failure(bot.rest.actions.createRepoVariable({ ...repo, name: 'LATER', value: 'x' }))
    assert.deepEqual([boom.status, boom.data.message], [500, 'boom'])
    assert.deepEqual(github.requests.slice(start), [
      { method: 'GET', path: '/repos/curio/site-one', status: 502 },
      { method: 'GET', path: '/repos/curio/site-one', status: 502 },
      { method: 'GET', path: '/repos/curio/site-one', status: 200 },
      { method: 'POST', path: '/repos/curio/site-one/actions/variables', status: 500 },
    ])
  })

  it('produces the primary and secondary rate limits octokit’s throttling plugin retries after', async () => {
    const limits: string[] = []
    const Throttled = Octokit.plugin(throttling)
    const octokit = new Throttled({
      auth: TOKEN,
      baseUrl: github.url,
      log,
      throttle: {
        retryAfterBaseValue: 1, // milliseconds instead of seconds: no waiting in the test
        onRateLimit: (retryAfter) => {
          limits.push(`primary ${retryAfter}`)
          return true
        },
        onSecondaryRateLimit: (retryAfter) => {
          limits.push(`secondary ${retryAfter}`)
          return true
        },
      },
    })
    const reset = String(Math.floor(Date.now() / 1000) + 2)
    github.failNext(
      { path: '/user' },
      { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } },
    )
    github.failNext({ path: '/user' }, { status: 429, headers: { 'retry-after': '7' } })
    const { data } = await octokit.rest.users.getAuthenticated()
    assert.equal(data.login, 'curio-bot')
    assert.equal(limits.length, 2)
    assert.match(limits[0] ?? '', /^primary [23]$/)
    assert.equal(limits[1], 'secondary 7')
  })
})
