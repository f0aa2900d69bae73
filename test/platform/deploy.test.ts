import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { after, before, beforeEach, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import type { Logger } from 'pino'
import { sendMany } from '../../src/jobs/index.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { deployments } from '../../src/platform/deploy/tables.ts'
import { VERIFICATION_JOB } from '../../src/platform/deploy/verification.ts'
import { type GitHubFake, startGitHubFake } from '../fakes/github.ts'
import { type Receiver, startReceiver } from '../fakes/receiver.ts'
import { startVercelFake, type VercelFake } from '../fakes/vercel.ts'
import { type PlatformHarness, startPlatform } from '../helpers/apps.ts'
import {
  type Account,
  call,
  createWork,
  enablePlugin,
  eventually,
  register,
  share,
} from '../helpers/platform.ts'

const GH_TOKEN = 'ghp_owner_token_0123456789'
const VERCEL_TOKEN = 'vercel_owner_token_0123456789'
const TEMPLATE = 'curio/website-template'
const NOT_FOUND_LIMIT = 3
/**
 * DEPLOY_TIMEOUT_MS, short: the harness clock stands still unless a test moves it, and the poll after a move
 * is due that much later in real time.
 */
const TIMEOUT_MS = 50

const workflow = (name: string, triggers = '  workflow_dispatch:\n  push:\n') =>
  `name: ${name}\non:\n${triggers}jobs: {}\n`

let h: PlatformHarness
let github: GitHubFake
let vercel: VercelFake
let receiver: Receiver
/** What a website repository's workflow does when it runs: a Vercel deployment of its project. */
let onWorkflow: (repo: string) => void

/** Another instance on the harness's database, its clock where the harness's is. */
const startPlatformLike = (other: PlatformHarness) => harness({}, other)

function harness(env: Record<string, string> = {}, other?: PlatformHarness, log?: Logger) {
  return startPlatform({
    ...(other ? { databases: other.databases, clockStart: other.clock.nowMs() } : {}),
    ...(log ? { log } : {}),
    env: {
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      GITHUB_API_URL: github.url,
      GITHUB_RETRY_BASE_MS: '1',
      VERCEL_API_URL: vercel.url,
      WEBSITE_TEMPLATE_REPOSITORY: TEMPLATE,
      // The harness clock stands still, so every poll after the first is due at once: a verification moves
      // as fast as the Vercel stand-in's states do.
      DEPLOY_POLL_INTERVAL_MS: '1',
      DEPLOY_NOT_FOUND_LIMIT: String(NOT_FOUND_LIMIT),
      DEPLOY_TIMEOUT_MS: String(TIMEOUT_MS),
      DEPLOY_DISPATCH_RETRY_DELAY_MS: '10',
      DEPLOY_BATCH_DELAY_MS: '20',
      ...env,
    },
  })
}

before(async () => {
  github = await startGitHubFake({ token: GH_TOKEN, login: 'ada' })
  github.addTemplate(TEMPLATE, {
    '.github/workflows/deploy_vercel.yaml': workflow('Deploy to Vercel'),
    '.github/workflows/deploy_prod.yaml': workflow('Deploy'),
    'package.json': '{"name":"website"}\n',
  })
  github.onDispatch(({ repo }) => onWorkflow(repo))
  // Deployments are stamped with the platform's clock: only one created after the dispatch counts.
  vercel = await startVercelFake({ token: VERCEL_TOKEN, now: () => h?.clock.nowMs() ?? Date.now() })
  receiver = await startReceiver()
  h = await harness()
})
after(async () => {
  await h?.close()
  await github?.close()
  await vercel?.close()
  await receiver?.close()
})
beforeEach(() => {
  onWorkflow = (repo) => {
    vercel.createDeployment(projectOf(repo), {
      states: ['QUEUED', 'BUILDING', 'READY'],
      advanceOnRead: true,
      url: `${projectOf(repo)}-abc123.vercel.app`,
    })
  }
})

const projectOf = (repo: string) => repo.split('/')[1]!

/** An account with both deploy plugins enabled with the stand-ins' tokens. */
async function deployer(target = h, tokens = { vercel: VERCEL_TOKEN, github: GH_TOKEN }): Promise<Account> {
  const account = await register(target, 'deploy')
  await enablePlugin(target, account, 'vercel', { secretSettings: { token: tokens.vercel } })
  await enablePlugin(target, account, 'github', { secretSettings: { token: tokens.github } })
  return account
}

async function deploy(account: Account, workId: string, body: object = {}, target = h) {
  return call(target, account, 'POST', `/api/deploy/works/${workId}`, body)
}

async function lookup(account: Account, workId: string, target = h) {
  const res = await call(target, account, 'POST', `/api/deploy/works/${workId}/lookup`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().deployment as {
    id: string
    state: string
    url: string | null
    error: string | null
    trigger: string
    polls: number
    providerDeploymentId: string | null
    deployedBy: string
  } | null
}

/**
 * A deployed work whose Vercel deployment stays BUILDING until the test moves it, once verification has
 * seen it: the owner, the work, the deployment's id and the Vercel deployment's uid.
 */
async function building(name: string, target = h) {
  const owner = await deployer()
  const work = await createWork(h, owner, name)
  let uid = ''
  onWorkflow = (repo) => {
    uid = vercel.createDeployment(projectOf(repo), { states: ['BUILDING'] }).uid
  }
  const started = await deploy(owner, work.id, {}, target)
  assert.equal(started.statusCode, 200, started.body)
  const seen = await eventually(
    () => lookup(owner, work.id, target),
    (deployment) => deployment !== null && deployment.providerDeploymentId === uid,
  )
  return { owner, work, deploymentId: started.json().deploymentId as string, uid, seen: seen! }
}

const FINAL = ['READY', 'ERROR', 'CANCELED', 'TIMEOUT']
const settled = (account: Account, workId: string, target = h) =>
  eventually(
    () => lookup(account, workId, target),
    (deployment) => deployment !== null && FINAL.includes(deployment.state),
  )

async function activities(account: Account, workId: string) {
  const res = await call(h, account, 'GET', `/api/activity-log?workId=${workId}&actionType=deployment`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().activities as { action: string; status: string; details: Record<string, unknown> }[]
}

async function subscribe(account: Account, workId?: string) {
  const res = await call(h, account, 'POST', '/api/webhooks', {
    url: receiver.url,
    ...(workId ? { workId } : {}),
  })
  assert.equal(res.statusCode, 200, res.body)
}

const eventsFor = (workId: string) =>
  receiver.received.map((request) => request.json).filter((body) => body.workId === workId)

describe('deploy: the pipeline and the verification', () => {
  it('deploys a new work: repository from the template, sealed secrets, variable, dispatch, then READY', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Coffee Guide')
    await subscribe(owner, work.id)
    const started = await deploy(owner, work.id)
    assert.equal(started.statusCode, 200, started.body)
    const body = started.json()
    assert.equal(body.status, 'pending')
    assert.equal(body.slug, work.slug)
    assert.equal(body.owner, 'ada')
    assert.equal(body.repository, `ada/${work.slug}-website`)
    assert.match(body.message, /deploy_vercel\.yaml/)

    const repo = `ada/${work.slug}-website`
    // The stand-in opens each secret with the key pair it gave the repository: the sealing is right.
    const secrets = github.secrets(repo)
    assert.equal(secrets.DATA_REPOSITORY, `ada/${work.slug}-data`)
    assert.equal(secrets.VERCEL_TOKEN, VERCEL_TOKEN)
    assert.equal(secrets.DEPLOY_TOKEN, VERCEL_TOKEN)
    assert.equal(secrets.GIT_TOKEN, GH_TOKEN)
    assert.match(secrets.CRON_SECRET ?? '', /^[0-9a-f]{64}$/)
    assert.equal(secrets.DEPLOY_TEAM_SCOPE, undefined)
    assert.deepEqual(github.variables(repo), { DEPLOY_PROVIDER: 'vercel' })
    assert.deepEqual(
      github.dispatches(repo).map((dispatch) => dispatch.workflow),
      ['deploy_vercel.yaml'],
    )

    const done = await settled(owner, work.id)
    assert.equal(done!.state, 'READY')
    assert.equal(done!.url, `https://${work.slug}-website-abc123.vercel.app`)
    assert.equal(done!.id, body.deploymentId)
    assert.match(done!.providerDeploymentId ?? '', /^dpl_/)
    assert.ok(done!.polls >= 3, `QUEUED, BUILDING, READY were each seen: ${done!.polls} polls`)

    const rows = await activities(owner, work.id)
    assert.equal(rows.length, 1, 'the dispatched row is updated in place')
    assert.equal(rows[0]!.action, 'deployment.succeeded')
    assert.equal(rows[0]!.status, 'completed')
    assert.equal(rows[0]!.details.url, done!.url)

    const events = await eventually(
      async () => eventsFor(work.id),
      (list) => list.length >= 2,
    )
    // Deliveries run in parallel: their order of arrival is not the events'.
    assert.deepEqual(events.map((event) => event.event).sort(), [
      'deployment.completed',
      'deployment.dispatched',
    ])
    const completed = events.find((event) => event.event === 'deployment.completed')!
    assert.equal(completed.url, done!.url)
    assert.equal(completed.providerId, 'vercel')
    assert.equal(completed.providerName, 'Vercel')

    const logged = JSON.stringify([rows, events, await lookup(owner, work.id)])
    for (const secret of [GH_TOKEN, VERCEL_TOKEN, secrets.CRON_SECRET!]) assert.ok(!logged.includes(secret))
  })

  it('an earlier READY deployment of the project does not end a new one: no new one → TIMEOUT', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Old Ready')
    const project = `${work.slug}-website`
    vercel.createDeployment(project, { states: ['READY'], createdAt: h.clock.nowMs() - 60_000 })
    onWorkflow = () => {}
    assert.equal((await deploy(owner, work.id)).statusCode, 200)
    const done = await settled(owner, work.id)
    assert.equal(done!.state, 'TIMEOUT')
    assert.match(done!.error ?? '', new RegExp(`no deployment of ${project} after ${NOT_FOUND_LIMIT} polls`))
    const [row] = await activities(owner, work.id)
    assert.equal(row!.action, 'deployment.failed')
    assert.equal(row!.details.terminalState, 'TIMEOUT')
  })

  it('Vercel never creating the project: every poll finds nothing, then TIMEOUT', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Never Created')
    onWorkflow = () => {}
    assert.equal((await deploy(owner, work.id)).statusCode, 200)
    const done = await settled(owner, work.id)
    assert.equal(done!.state, 'TIMEOUT')
    assert.equal(done!.polls, NOT_FOUND_LIMIT)
    const asked = vercel.requests.filter(
      (request) => request.path === '/v7/deployments' && request.query.projectId === `${work.slug}-website`,
    )
    assert.deepEqual(
      asked.map((request) => request.status),
      Array(NOT_FOUND_LIMIT).fill(404),
    )
  })

  it('a build that fails is ERROR with the provider’s reason, and a deployment.failed webhook', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Broken Build')
    await subscribe(owner, work.id)
    onWorkflow = (repo) => {
      vercel.createDeployment(projectOf(repo), {
        states: ['BUILDING', 'ERROR'],
        advanceOnRead: true,
        errorMessage: 'Command "npm run build" exited with 1',
      })
    }
    await deploy(owner, work.id)
    const done = await settled(owner, work.id)
    assert.equal(done!.state, 'ERROR')
    assert.match(done!.error ?? '', /npm run build/)
    const failed = await eventually(
      async () => eventsFor(work.id).find((event) => event.event === 'deployment.failed'),
      (event) => event !== undefined,
    )
    assert.equal(failed!.terminalState, 'ERROR')
    assert.match(String(failed!.error), /npm run build/)
  })

  it('a deployment cancelled at the provider is CANCELED; its activity row says cancelled', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Cancelled There')
    onWorkflow = (repo) => {
      vercel.createDeployment(projectOf(repo), { states: ['QUEUED', 'CANCELED'], advanceOnRead: true })
    }
    await deploy(owner, work.id)
    assert.equal((await settled(owner, work.id))!.state, 'CANCELED')
    const [row] = await activities(owner, work.id)
    assert.equal(row!.action, 'deployment.cancelled')
    assert.equal(row!.status, 'cancelled')
  })

  it('DEPLOY_TIMEOUT_MS (13 minutes) after the dispatch a running verification is TIMEOUT', async () => {
    const { owner, work } = await building('Slow Build')
    h.clock.advance(TIMEOUT_MS + 1)
    try {
      const done = await settled(owner, work.id)
      assert.equal(done!.state, 'TIMEOUT')
      assert.equal(done!.error, `Vercel did not finish the deployment within ${TIMEOUT_MS} ms`)
    } finally {
      h.clock.advance(-(TIMEOUT_MS + 1))
    }
  })

  it('a newer deploy cancels the earlier verification; only the newer one can end READY', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Twice')
    await subscribe(owner, work.id)
    onWorkflow = (repo) => {
      vercel.createDeployment(projectOf(repo), { states: ['BUILDING'] })
    }
    const first = (await deploy(owner, work.id)).json().deploymentId
    await eventually(
      () => lookup(owner, work.id),
      (deployment) => deployment?.providerDeploymentId !== null,
    )
    onWorkflow = (repo) => {
      vercel.createDeployment(projectOf(repo), { states: ['BUILDING', 'READY'], advanceOnRead: true })
    }
    // A later instant, as any real clock would have moved on between two deploys.
    h.clock.advance(1)
    const second = (await deploy(owner, work.id)).json().deploymentId
    const done = await settled(owner, work.id)
    assert.equal(done!.id, second)
    assert.equal(done!.state, 'READY')
    const [earlier] = await h.databases.platform.db
      .select()
      .from(deployments)
      .where(eq(deployments.id, first))
    assert.equal(earlier!.state, 'CANCELED')
    assert.match(earlier!.error ?? '', /newer deployment/)
    const rows = await activities(owner, work.id)
    assert.deepEqual(
      rows.map((row) => [row.action, row.details.deploymentId]).sort(),
      [
        ['deployment.cancelled', first],
        ['deployment.succeeded', second],
      ].sort(),
    )
    // Deliveries run in parallel: their order of arrival is not the events'.
    const events = await eventually(
      async () => eventsFor(work.id).map((event) => `${event.event}:${event.terminalState ?? ''}`),
      (list) => list.length >= 4,
    )
    assert.deepEqual(events.sort(), [
      'deployment.completed:',
      'deployment.dispatched:',
      'deployment.dispatched:',
      'deployment.failed:CANCELED',
    ])
  })

  it('a poll job run twice polls once', async () => {
    const { owner, work, deploymentId, uid, seen } = await building('Polled Once')
    // Stops the verification's own chain, then sends the same poll three times in one batch.
    await h.databases.platform.db
      .update(deployments)
      .set({ polls: 10_000 })
      .where(eq(deployments.id, deploymentId))
    const reads = () =>
      vercel.requests.filter((request) => request.path.endsWith(`/deployments/${uid}`)).length
    await eventually(
      async () => {
        const before = reads()
        await new Promise((resolve) => setTimeout(resolve, 30))
        return before === reads()
      },
      (quiet) => quiet,
    )
    // This poll finds the deployment READY: it ends the verification, so no poll follows it.
    vercel.advance(uid, 'READY')
    const before = reads()
    await sendMany(h.jobs, VERIFICATION_JOB, [
      { deploymentId, poll: 10_000 },
      { deploymentId, poll: 10_000 },
      { deploymentId, poll: 10_000 },
    ])
    await eventually(
      () => h.jobs.boss.findJobs(VERIFICATION_JOB, { data: { deploymentId, poll: 10_000 } }),
      (jobs) => jobs.length === 3 && jobs.every((job) => job.state === 'completed'),
    )
    assert.equal(reads(), before + 1)
    assert.ok(seen!.polls > 0)
    const done = await lookup(owner, work.id)
    assert.equal(done!.state, 'READY')
    assert.equal(done!.polls, 10_001)
  })

  it('Vercel failing during verification: a 5xx or garbage is retried, a rejected token is ERROR', async () => {
    const { owner, work, uid } = await building('Flaky Vercel')
    const path = `/v13/deployments/${uid}`
    const answers = () =>
      vercel.requests.filter((request) => request.path === path).map((request) => request.status)
    const before = answers().length
    vercel.failNext({ path }, { status: 503 })
    vercel.failNext({ path }, { status: 200, body: '<html>not json</html>' })
    // Both answers were polled past: the verification goes on.
    const seen = await eventually(
      async () => answers().slice(before),
      (statuses) => statuses.length >= 3,
    )
    assert.deepEqual(seen.slice(0, 3), [503, 200, 200])
    assert.equal((await lookup(owner, work.id))!.state, 'BUILDING')
    vercel.revokeToken(VERCEL_TOKEN)
    try {
      const done = await settled(owner, work.id)
      assert.equal(done!.state, 'ERROR')
      assert.match(done!.error ?? '', /Vercel rejected the token: Not authorized/)
    } finally {
      vercel.addToken(VERCEL_TOKEN, { username: vercel.user.username })
    }
  })

  it('Vercel unreachable during verification: each poll names the cause, and the TIMEOUT says it too', async () => {
    const { owner, work, uid } = await building('Unreachable Vercel')
    const path = `/v13/deployments/${uid}`
    vercel.dropNext({ path }, 1_000_000)
    try {
      const failing = await eventually(
        () => lookup(owner, work.id),
        (deployment) => deployment?.error != null,
      )
      assert.equal(failing!.state, 'BUILDING', 'not the deployment’s fault: polling goes on')
      assert.match(
        failing!.error ?? '',
        /^Poll \d+ could not read Vercel: no connection to Vercel \((UND_ERR_SOCKET: other side closed|ECONNRESET[^)]*)\)$/,
      )
      h.clock.advance(TIMEOUT_MS + 1)
      const done = await settled(owner, work.id)
      assert.equal(done!.state, 'TIMEOUT')
      assert.match(
        done!.error ?? '',
        new RegExp(
          `^Vercel did not finish the deployment within ${TIMEOUT_MS} ms\\. Poll \\d+ could not read Vercel: ` +
            'no connection to Vercel \\((UND_ERR_SOCKET: other side closed|ECONNRESET[^)]*)\\)$',
        ),
      )
    } finally {
      vercel.clearFaults()
      h.clock.advance(-(TIMEOUT_MS + 1))
    }
  })

  it('a poll whose job was lost (a crash between two polls) is queued again by the recovery', async () => {
    const { owner, work, deploymentId, uid } = await building('Lost Poll')
    // As a process killed after taking a poll leaves it: the poll number moved on, its next job never sent.
    const db = h.databases.platform.db
    const [row] = await db
      .update(deployments)
      .set({ polls: 50_000, nextPollAt: new Date(h.clock.nowMs() - 5 * 60_000) })
      .where(eq(deployments.id, deploymentId))
      .returning()
    assert.equal(row!.state, 'BUILDING')
    vercel.advance(uid, 'READY')
    assert.equal(await h.services.verification.recover(), 1)
    const done = await settled(owner, work.id)
    assert.equal(done!.state, 'READY')
    assert.equal(done!.polls, 50_001)
    assert.equal(await h.services.verification.recover(), 0, 'nothing is overdue any more')
  })

  it('a restart in the middle resumes the verification on another instance', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Restarted')
    let uid = ''
    onWorkflow = (repo) => {
      uid = vercel.createDeployment(projectOf(repo), { states: ['BUILDING'] }).uid
    }
    const first = await startPlatformLike(h)
    const { deploymentId } = (await deploy(owner, work.id, {}, first)).json()
    await eventually(
      () => lookup(owner, work.id, first),
      (deployment) => deployment?.providerDeploymentId === uid,
    )
    await first.close()
    vercel.advance(uid, 'READY')
    const done = await settled(owner, work.id)
    assert.equal(done!.id, deploymentId)
    assert.equal(done!.state, 'READY')
  })
})

describe('deploy: dispatch order', () => {
  it('the guide’s sample deploy_vercel.yaml is dispatched, and pushing .deployment-trigger would start it', async () => {
    const guide = readFileSync(new URL('../../docs/deploying.md', import.meta.url), 'utf8')
    const sample = /```yaml\n([\s\S]*?)```/.exec(guide)?.[1]
    assert.ok(sample?.includes('workflow_dispatch'), 'the guide has a sample workflow')
    assert.match(sample!, /paths: \['\.deployment-trigger'\]/)
    for (const secret of [
      'VERCEL_TOKEN',
      'DEPLOY_TEAM_SCOPE',
      'DATA_REPOSITORY',
      'GIT_TOKEN',
      'CRON_SECRET',
    ]) {
      assert.ok(sample!.includes(`secrets.${secret}`), `the sample reads ${secret}`)
    }
    const owner = await deployer()
    const work = await createWork(h, owner, 'From The Guide')
    const repo = `ada/${work.slug}-website`
    github.addRepo(repo)
    github.writeFile(repo, '.github/workflows/deploy_vercel.yaml', sample!)
    assert.equal((await deploy(owner, work.id)).statusCode, 200)
    assert.deepEqual(
      github.dispatches(repo).map((dispatch) => dispatch.workflow),
      ['deploy_vercel.yaml'],
    )
    assert.equal((await settled(owner, work.id))!.state, 'READY')
  })

  it('without a dispatchable provider workflow, deploy_prod.yaml is dispatched; a disabled one is enabled', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Prod Only')
    const repo = `ada/${work.slug}-website`
    github.addRepo(repo)
    github.writeFile(repo, '.github/workflows/deploy_vercel.yaml', workflow('Vercel on push', '  push:\n'))
    github.writeFile(repo, '.github/workflows/deploy_prod.yaml', workflow('Deploy'))
    github.disableWorkflow(repo, 'deploy_prod.yaml')
    const res = await deploy(owner, work.id)
    assert.equal(res.statusCode, 200, res.body)
    assert.doesNotMatch(res.json().message, /created from the template/)
    assert.deepEqual(
      github.dispatches(repo).map((dispatch) => dispatch.workflow),
      ['deploy_prod.yaml'],
    )
    assert.ok(github.workflows(repo).every((found) => found.state === 'active'))
    assert.equal((await lookup(owner, work.id))!.trigger, 'deploy_prod.yaml')
  })

  it('a repository just created from the template is asked again until its workflows show', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Late Workflows')
    const repo = `ada/${work.slug}-website`
    const path = `/repos/${repo}/actions/workflows`
    // As GitHub answers while it is still copying the template's files.
    github.failNext({ method: 'GET', path }, { status: 200, body: { total_count: 0, workflows: [] } }, 2)
    const res = await deploy(owner, work.id)
    assert.equal(res.statusCode, 200, res.body)
    assert.match(res.json().message, /created from the template/)
    assert.equal(github.requests.filter((request) => request.path === path).length, 3)
    assert.deepEqual(
      github.dispatches(repo).map((dispatch) => dispatch.workflow),
      ['deploy_vercel.yaml'],
    )
  })

  it('when no workflow takes a dispatch: content updated, trigger commit pushed, dispatch retried, then push', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Push Only')
    const repo = `ada/${work.slug}-website`
    github.addRepo(repo)
    github.writeFile(repo, '.github/workflows/deploy_vercel.yaml', workflow('Vercel on push', '  push:\n'))
    const pushes: string[][] = []
    const stop = github.onPush(({ repo: pushed, paths }) => {
      if (pushed !== repo) return
      pushes.push(paths)
      if (paths.includes('.deployment-trigger')) onWorkflow(pushed)
    })
    try {
      const res = await deploy(owner, work.id)
      assert.equal(res.statusCode, 200, res.body)
      assert.match(res.json().message, /push of a trigger commit/)
      assert.deepEqual(pushes, [['.curio/deployment.json'], ['.deployment-trigger']])
      const settings = JSON.parse(github.readFile(repo, '.curio/deployment.json') ?? '{}')
      assert.equal(settings.dataRepository, `ada/${work.slug}-data`)
      assert.equal(settings.provider, 'vercel')
      const dispatchCalls = github.requests.filter(
        (request) =>
          request.method === 'POST' && request.path.startsWith(`/repos/${repo}/actions/workflows/`),
      )
      assert.deepEqual(
        dispatchCalls.map((request) => [request.path.split('/')[6], request.status]),
        [
          ['deploy_vercel.yaml', 422],
          ['deploy_prod.yaml', 404],
          ['deploy_vercel.yaml', 422],
          ['deploy_prod.yaml', 404],
        ],
      )
      const done = await settled(owner, work.id)
      assert.equal(done!.trigger, 'push')
      assert.equal(done!.state, 'READY')
    } finally {
      stop()
    }
  })
})

describe('deploy: bad input and faults', () => {
  it('no provider token, a rejected one, no GitHub token: a clear 400 and nothing started', async () => {
    const bare = await register(h, 'deploy')
    const work = await createWork(h, bare, 'Unconfigured')
    const none = await deploy(bare, work.id)
    assert.equal(none.statusCode, 400)
    assert.equal(none.json().code, 'DEPLOY_NOT_CONFIGURED')

    await enablePlugin(h, bare, 'vercel', { secretSettings: { token: 'vercel_revoked' } })
    const rejected = await deploy(bare, work.id)
    assert.equal(rejected.statusCode, 400)
    assert.equal(rejected.json().code, 'DEPLOY_TOKEN_INVALID')
    assert.match(rejected.json().message, /Vercel rejected the token/)

    await enablePlugin(h, bare, 'vercel', { secretSettings: { token: VERCEL_TOKEN } })
    const noGit = await deploy(bare, work.id)
    assert.equal(noGit.statusCode, 400)
    assert.equal(noGit.json().code, 'GIT_HOST_NOT_CONFIGURED')
    assert.equal(await lookup(bare, work.id), null)
  })

  it('Vercel that cannot be reached: 502 naming the cause (the refused connection), on deploy and the token check', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    const offline = await harness({ VERCEL_API_URL: `http://127.0.0.1:${port}` })
    try {
      const owner = await deployer(offline)
      const work = await createWork(offline, owner, 'Vercel offline')
      const cause = `no connection to Vercel (connect ECONNREFUSED 127.0.0.1:${port})`
      for (const res of [
        await deploy(owner, work.id, {}, offline),
        await call(offline, owner, 'POST', '/api/deploy/validate-token'),
      ]) {
        assert.equal(res.statusCode, 502, res.body)
        assert.deepEqual(res.json(), {
          statusCode: 502,
          error: 'Bad Gateway',
          code: 'DEPLOY_PROVIDER_UNAVAILABLE',
          message: `Vercel could not be asked: ${cause}`,
        })
      }
      assert.equal(await lookup(owner, work.id, offline), null, 'nothing started')
    } finally {
      await offline.close()
    }
  })

  it('GitHub rejecting the token: 400, the owner notified; a later deploy that authenticates clears it', async () => {
    const badToken = 'ghp_expired_token_000'
    const owner = await deployer(h, { vercel: VERCEL_TOKEN, github: badToken })
    const work = await createWork(h, owner, 'Expired Git')
    const res = await deploy(owner, work.id)
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().code, 'GIT_TOKEN_REJECTED')
    const notices = async () =>
      (await call(h, owner, 'GET', '/api/notifications')).json().notifications as {
        deduplicationKey: string
      }[]
    assert.deepEqual(
      (await notices()).map((notice) => notice.deduplicationKey),
      ['git-auth:github'],
    )
    github.addToken(badToken, { login: 'ada' })
    try {
      assert.equal((await deploy(owner, work.id)).statusCode, 200)
      assert.deepEqual(await notices(), [])
    } finally {
      github.revokeToken(badToken)
    }
  })

  it('GitHub refusing a step: 400 naming it, a failed deployment with its activity row and webhook', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Refused Secret')
    await subscribe(owner, work.id)
    const repo = `ada/${work.slug}-website`
    github.failNext(
      { method: 'PUT', path: new RegExp(`^/repos/${repo}/actions/secrets/`) },
      { status: 422, body: { message: 'Bad request - encrypted_value is not valid' } },
    )
    const res = await deploy(owner, work.id)
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().code, 'DEPLOY_STEP_FAILED')
    assert.equal(
      res.json().message,
      'Deploy step "set the required secrets" failed: GitHub answered 422: Bad request - encrypted_value is not valid',
    )
    const failed = await lookup(owner, work.id)
    assert.equal(failed!.state, 'ERROR')
    assert.equal(failed!.trigger, 'none')
    assert.equal(failed!.error, res.json().message)
    const [row] = await activities(owner, work.id)
    assert.equal(row!.action, 'deployment.failed')
    assert.equal(row!.details.error, res.json().message)
    const event = await eventually(
      async () => eventsFor(work.id).find((body) => body.event === 'deployment.failed'),
      (found) => found !== undefined,
    )
    assert.equal(event!.terminalState, 'ERROR')
    assert.equal(event!.error, res.json().message)
    assert.equal(github.dispatches(repo).length, 0)
  })

  it('GitHub failing a step with 5xx every time: retried, then 502 naming the step', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'GitHub Down')
    const repo = `ada/${work.slug}-website`
    const path = `/repos/${repo}/actions/workflows`
    github.failNext({ method: 'GET', path }, { status: 502 }, 4)
    const res = await deploy(owner, work.id)
    assert.equal(res.statusCode, 502, res.body)
    assert.equal(res.json().code, 'DEPLOY_STEP_FAILED')
    assert.match(res.json().message, /^Deploy step "enable the workflows" failed: GitHub answered 502/)
    assert.equal(github.requests.filter((request) => request.path === path).length, 4, 'tried 1 + 3 times')
  })

  it('a rate-limited GitHub answer is waited out, not failed', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Rate Limited')
    github.failNext(
      { method: 'GET', path: `/repos/ada/${work.slug}-website/actions/secrets/public-key` },
      { status: 429, headers: { 'retry-after': '1' } },
    )
    const res = await deploy(owner, work.id)
    assert.equal(res.statusCode, 200, res.body)
  })

  it('a repository the token cannot reach names the step and GitHub’s answer', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Not Mine')
    // Someone else's private repository under the owner name the github plugin points at.
    github.addOrg('elsewhere', ['zoe'])
    github.addRepo(`elsewhere/${work.slug}-website`, 'main', { collaborators: ['zoe'] })
    await call(h, owner, 'PATCH', '/api/plugins/github/settings', { settings: { owner: 'elsewhere' } })
    const res = await deploy(owner, work.id)
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().code, 'DEPLOY_STEP_FAILED')
    assert.match(
      res.json().message,
      /^Deploy step "build the repository context" failed: GitHub answered 403/,
    )
  })

  it('bad bodies are 400 naming the field; another account’s work and a viewer’s are 404', async () => {
    const owner = await deployer()
    const viewer = await register(h, 'viewer')
    const stranger = await register(h, 'stranger')
    const work = await createWork(h, owner, 'Guarded')
    await share(h, owner, work.id, viewer, 'viewer')
    const blank = await deploy(owner, work.id, { teamScope: '' })
    assert.equal(blank.statusCode, 400)
    assert.equal(blank.json().details[0].field, 'body.teamScope')
    for (const caller of [viewer, stranger]) {
      for (const path of ['', '/teams', '/check', '/lookup']) {
        const res = await call(h, caller, 'POST', `/api/deploy/works/${work.id}${path}`, {})
        assert.equal(res.statusCode, 404, `${path}: ${res.body}`)
        assert.equal(res.json().code, 'WORK_NOT_FOUND')
      }
      const history = await call(h, caller, 'GET', `/api/deploy/works/${work.id}/deployments`)
      assert.equal(history.statusCode, 404, history.body)
      assert.equal(history.json().code, 'WORK_NOT_FOUND')
    }
    for (const query of ['limit=0', 'limit=51', 'offset=-1', 'limit=two']) {
      const res = await call(h, owner, 'GET', `/api/deploy/works/${work.id}/deployments?${query}`)
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`)
      assert.match(res.json().details[0].field, /^query\.(limit|offset)$/)
    }
    const unknown = await call(h, owner, 'GET', '/api/deploy/providers/netlify/configured')
    assert.equal(unknown.statusCode, 404)
    assert.equal(unknown.json().code, 'DEPLOY_PROVIDER_NOT_FOUND')
  })
})

describe('deploy: secrets', () => {
  it('no token or generated secret reaches a log line, at debug level, in success and failure', async () => {
    const lines: string[] = []
    const logged = await harness(
      {},
      h,
      createLogger('debug', { write: (line: string) => void lines.push(line) }),
    )
    try {
      const owner = await deployer(logged)
      const work = await createWork(logged, owner, 'Logged Deploy')
      assert.equal((await deploy(owner, work.id, {}, logged)).statusCode, 200)
      assert.equal((await settled(owner, work.id, logged))!.state, 'READY')
      const failing = await createWork(logged, owner, 'Logged Failure')
      github.failNext(
        { method: 'PUT', path: new RegExp(`^/repos/ada/${failing.slug}-website/actions/secrets/`) },
        { status: 422, body: { message: 'Bad request - encrypted_value is not valid' } },
      )
      assert.equal((await deploy(owner, failing.id, {}, logged)).statusCode, 400)
      const cron = github.secrets(`ada/${work.slug}-website`).CRON_SECRET!
      // Its polls may run on the other instance of the database; the pipeline's failure is this one's.
      assert.ok(
        lines.some((line) => line.includes('deploy pipeline failed')),
        'the deploy was logged',
      )
      for (const secret of [GH_TOKEN, VERCEL_TOKEN, cron]) {
        assert.ok(!lines.some((line) => line.includes(secret)), 'a secret reached the logs')
      }
    } finally {
      await logged.close()
    }
  })
})

describe('deploy: shared works, checks and reads', () => {
  it('an editor deploys a shared work with the owner’s credentials, in their own activity log', async () => {
    const owner = await deployer()
    const editor = await register(h, 'editor')
    const work = await createWork(h, owner, 'Shared Site')
    await share(h, owner, work.id, editor, 'editor')
    const check = await call(h, editor, 'POST', `/api/deploy/works/${work.id}/check`)
    assert.deepEqual(check.json(), {
      status: 'success',
      canDeploy: true,
      isShared: true,
      ownerHasToken: true,
      userHasToken: false,
    })
    const res = await deploy(editor, work.id)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().repository, `ada/${work.slug}-website`)
    const done = await settled(editor, work.id)
    assert.equal(done!.state, 'READY')
    assert.equal(done!.deployedBy, editor.userId)
    const rows = await activities(editor, work.id)
    assert.equal(rows[0]!.action, 'deployment.succeeded')

    // The work's history shows every deployment, whoever deployed it, newest first, to owner and editor alike.
    h.clock.advance(1000)
    const second = await deploy(owner, work.id)
    assert.equal(second.statusCode, 200, second.body)
    await settled(owner, work.id)
    for (const reader of [owner, editor]) {
      const history = await call(h, reader, 'GET', `/api/deploy/works/${work.id}/deployments`)
      assert.equal(history.statusCode, 200, history.body)
      const { deployments, total } = history.json() as {
        deployments: { id: string; deployedBy: string }[]
        total: number
      }
      assert.equal(total, 2)
      assert.deepEqual(
        deployments.map((d) => [d.id, d.deployedBy]),
        [
          [second.json().deploymentId, owner.userId],
          [res.json().deploymentId, editor.userId],
        ],
      )
    }
    const paged = await call(h, editor, 'GET', `/api/deploy/works/${work.id}/deployments?limit=1&offset=1`)
    assert.deepEqual(
      paged.json().deployments.map((d: { id: string }) => d.id),
      [res.json().deploymentId],
    )
    assert.equal(paged.json().total, 2)
  })

  it('providers, configured, validate-token and teams answer from the caller’s (or owner’s) configuration', async () => {
    const owner = await deployer()
    vercel.addTeam({ id: 'team_curio', slug: 'curio-team', name: 'Curio Team' }, [vercel.user.username])
    const providers = await call(h, owner, 'GET', '/api/deploy/providers')
    assert.deepEqual(providers.json(), {
      status: 'success',
      providers: [{ id: 'vercel', name: 'Vercel', enabled: true }],
    })
    const configured = await call(h, owner, 'GET', '/api/deploy/providers/vercel/configured')
    assert.deepEqual(configured.json(), {
      status: 'success',
      providerId: 'vercel',
      name: 'Vercel',
      available: true,
      enabled: true,
      configured: true,
    })
    const valid = await call(h, owner, 'POST', '/api/deploy/validate-token')
    assert.equal(valid.json().valid, true)
    assert.equal(valid.json().account.username, vercel.user.username)
    const work = await createWork(h, owner, 'Teams')
    const teams = await call(h, owner, 'POST', `/api/deploy/works/${work.id}/teams`)
    assert.deepEqual(teams.json().teams, [{ id: 'team_curio', slug: 'curio-team', name: 'Curio Team' }])

    const bare = await register(h, 'bare')
    const invalid = await call(h, bare, 'POST', '/api/deploy/validate-token')
    assert.equal(invalid.json().valid, false)
    assert.equal(invalid.json().account, null)
    assert.equal(
      (await call(h, bare, 'GET', '/api/deploy/providers/vercel/configured')).json().configured,
      false,
    )
  })

  it('a team scope from the request reaches the repository secret', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Team Scoped')
    vercel.addTeam({ id: 'team_scope', slug: 'scoped', name: 'Scoped' }, [vercel.user.username])
    onWorkflow = (repo) => {
      vercel.createDeployment(projectOf(repo), {
        teamId: 'team_scope',
        states: ['READY'],
      })
    }
    assert.equal((await deploy(owner, work.id, { teamScope: 'scoped' })).statusCode, 200)
    assert.equal(github.secrets(`ada/${work.slug}-website`).DEPLOY_TEAM_SCOPE, 'scoped')
    assert.equal((await settled(owner, work.id))!.state, 'READY')
  })
})

describe('deploy: batch', () => {
  it('deploys in groups of DEPLOY_BATCH_CONCURRENCY, answering each work’s outcome', async () => {
    const owner = await deployer()
    const stranger = await register(h, 'stranger')
    const mine = []
    for (let n = 0; n < 7; n++) mine.push(await createWork(h, owner, `Batch ${n}`))
    const theirs = await createWork(h, stranger, 'Not yours')
    const order = [...mine.slice(0, 3), theirs, ...mine.slice(3)]
    const res = await call(h, owner, 'POST', '/api/deploy/batch', {
      works: order.map((work) => ({ workId: work.id })),
    })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.status, 'partial')
    assert.equal(body.totalRequested, 8)
    assert.equal(body.successfullyStarted, 7)
    assert.equal(body.failed, 1)
    assert.deepEqual(
      body.results.map((result: { workId: string; status: string; slug: string | null }) => [
        result.workId,
        result.status,
        result.slug,
      ]),
      order.map((work) => [
        work.id,
        work === theirs ? 'error' : 'pending',
        work === theirs ? null : work.slug,
      ]),
    )
    // The second group starts after every work of the first was dispatched.
    const firstRequest = (work: { slug: string }) =>
      github.requests.findIndex((request) => request.path === `/repos/ada/${work.slug}-website`)
    const dispatched = (work: { slug: string }) =>
      github.requests.findIndex(
        (request) =>
          request.method === 'POST' &&
          request.path.startsWith(`/repos/ada/${work.slug}-website/actions/workflows/`),
      )
    const firstGroup = order.slice(0, 5).filter((work) => work !== theirs)
    const secondGroup = order.slice(5)
    const lastOfFirst = Math.max(...firstGroup.map(dispatched))
    for (const work of secondGroup) assert.ok(firstRequest(work) > lastOfFirst, `${work.slug} waited`)
    for (const work of mine) assert.equal((await settled(owner, work.id))!.state, 'READY')
  })

  it('a work named twice, no works, or more than 100 is 400', async () => {
    const owner = await deployer()
    const work = await createWork(h, owner, 'Once')
    const twice = await call(h, owner, 'POST', '/api/deploy/batch', {
      works: [{ workId: work.id }, { workId: work.id }],
    })
    assert.equal(twice.statusCode, 400)
    assert.equal(twice.json().details[0].field, 'body.works.1.workId')
    const none = await call(h, owner, 'POST', '/api/deploy/batch', { works: [] })
    assert.equal(none.statusCode, 400)
    const many = await call(h, owner, 'POST', '/api/deploy/batch', {
      works: Array.from({ length: 101 }, (_, n) => ({ workId: `w${n}` })),
    })
    assert.equal(many.statusCode, 400)
    assert.equal(await lookup(owner, work.id), null)
  })
})
