import { randomBytes } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'
import { type GitHubClient, gitHostStatus } from '../../integrations/github/client.ts'
import type { Clock } from '../../lib/clock.ts'
import { loadOnce } from '../../lib/load-once.ts'

/** SPEC.md "Pipeline steps", as named in errors and logs. */
export const PIPELINE_STEPS = {
  repository: 'build the repository context',
  workflows: 'enable the workflows',
  requiredSecrets: 'set the required secrets',
  optionalSecrets: 'set the optional secrets',
  cronSecret: 'set CRON_SECRET',
  variable: 'set the DEPLOY_PROVIDER variable',
  dispatch: 'dispatch the workflow',
} as const
export type PipelineStep = keyof typeof PIPELINE_STEPS

/** The fallback dispatch's files (SPEC.md "Workflow dispatch order" step 3). */
export const TRIGGER_FILE = '.deployment-trigger'
export const DEPLOYMENT_FILE = '.curio/deployment.json'
export const PROD_WORKFLOW = 'deploy_prod.yaml'
export const workflowFileOf = (providerId: string) => `deploy_${providerId}.yaml`

/** A step GitHub refused or could not do: which step, and GitHub's answer. */
export class PipelineError extends Error {
  override name = 'PipelineError'
  readonly step: PipelineStep
  /** GitHub's HTTP status; undefined when no answer came (network, timeout). */
  readonly status: number | undefined

  constructor(step: PipelineStep, status: number | undefined, reason: string) {
    super(`Deploy step "${PIPELINE_STEPS[step]}" failed: ${reason}`)
    this.step = step
    this.status = status
  }

  /** GitHub rejected the token itself (401): the user must reconnect GitHub. */
  get authFailed() {
    return this.status === 401
  }
}

/** GitHub's own words for a failed call, never the request (which carries the token or a sealed secret). */
function reasonOf(error: unknown): string {
  const status = gitHostStatus(error)
  const data = (error as { response?: { data?: unknown } }).response?.data
  const said =
    typeof data === 'object' && data !== null && 'message' in data
      ? String((data as { message: unknown }).message)
      : ''
  if (status !== undefined) return `GitHub answered ${status}${said ? `: ${said}` : ''}`
  const message = error instanceof Error ? error.message : String(error)
  return `GitHub could not be reached (${message.slice(0, 200)})`
}

async function step<T>(name: PipelineStep, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof PipelineError) throw error
    throw new PipelineError(name, gitHostStatus(error), reasonOf(error))
  }
}

/** libsodium, loaded (and its WebAssembly made ready) at the first secret sealed, not at start. */
const sodiumReady = loadOnce(async () => {
  const { default: sodium } = await import('libsodium-wrappers')
  await sodium.ready
  return sodium
})

/** `crypto_box_seal` of `value` against the repository's Actions public key (base64), as GitHub requires. */
export async function sealForGitHub(publicKey: string, value: string): Promise<string> {
  const sodium = await sodiumReady()
  const key = sodium.from_base64(publicKey, sodium.base64_variants.ORIGINAL)
  return sodium.to_base64(
    sodium.crypto_box_seal(sodium.from_string(value), key),
    sodium.base64_variants.ORIGINAL,
  )
}

export interface PipelineInput {
  work: { id: string; slug: string; name: string }
  provider: { id: string; name: string; token: string; teamScope: string | undefined }
  git: {
    client: GitHubClient
    token: string
    /** The organisation or user the repository belongs to (the github plugin's `owner`, else the token's user). */
    owner: string
  }
  /** `owner/name` of the template a missing repository is created from; undefined: none configured. */
  templateRepository: string | undefined
}

export interface PipelineResult {
  owner: string
  repository: string
  /** How the workflow was started: the dispatched file, or `push` (the trigger commit's push). */
  trigger: string
  /** The instant before the first dispatch: the provider deployment of this run is created after it. */
  dispatchedAt: Date
  /** The repository was created from the template by this run. */
  created: boolean
}

export interface PipelineDeps {
  clock: Clock
  /** SPEC.md: wait before the second dispatch (DEPLOY_DISPATCH_RETRY_DELAY_MS). */
  dispatchRetryDelayMs: number
}

/**
 * SPEC.md's pipeline from step 3 on, against the GitHub REST API: the repository (`<owner>/<slug>-website`,
 * created from the template when missing) and its Actions public key, its deploy workflows enabled, the
 * secrets sealed against that key, `CRON_SECRET`, the `DEPLOY_PROVIDER` variable, and the dispatch in
 * SPEC.md's order. A failing step throws PipelineError naming it.
 */
export function createPipeline({ clock, dispatchRetryDelayMs }: PipelineDeps) {
  return async function run(input: PipelineInput): Promise<PipelineResult> {
    const { work, provider, git } = input
    const octokit = git.client
    const owner = git.owner
    const repo = `${work.slug}-website`
    const target = { owner, repo }

    const context = await step('repository', async () => {
      let created = false
      const found = await octokit.rest.repos.get(target).catch((error: unknown) => {
        if (gitHostStatus(error) === 404) return undefined
        throw error
      })
      let defaultBranch = found?.data.default_branch
      if (!found) {
        if (!input.templateRepository) {
          throw new PipelineError(
            'repository',
            404,
            `${owner}/${repo} does not exist (or the token cannot reach it) and no WEBSITE_TEMPLATE_REPOSITORY is configured to create it from`,
          )
        }
        const [templateOwner = '', templateRepo = ''] = input.templateRepository.split('/')
        const made = await octokit.rest.repos.createUsingTemplate({
          template_owner: templateOwner,
          template_repo: templateRepo,
          owner,
          name: repo,
          description: `The website of ${work.name}, deployed by Curio`,
          private: true,
        })
        defaultBranch = made.data.default_branch
        created = true
      }
      const { data: key } = await octokit.rest.actions.getRepoPublicKey(target)
      return { defaultBranch: defaultBranch ?? 'main', key, created }
    })

    const workflowFile = workflowFileOf(provider.id)
    await step('workflows', async () => {
      const list = async () => {
        const { data } = await octokit.rest.actions.listRepoWorkflows({ ...target, per_page: 100 })
        return data.workflows.filter((workflow) =>
          [workflowFile, PROD_WORKFLOW].some((file) => workflow.path.endsWith(`/${file}`)),
        )
      }
      let deploying = await list()
      // GitHub copies a template's files after it answers the creation: its workflows may take a moment.
      for (let attempt = 0; context.created && deploying.length === 0 && attempt < 3; attempt++) {
        await delay(dispatchRetryDelayMs)
        deploying = await list()
      }
      for (const workflow of deploying) {
        if (workflow.state !== 'active') {
          await octokit.rest.actions.enableWorkflow({ ...target, workflow_id: workflow.id })
        }
      }
    })

    const setSecrets = async (secrets: Record<string, string>) => {
      await Promise.all(
        Object.entries(secrets).map(async ([name, value]) =>
          octokit.rest.actions.createOrUpdateRepoSecret({
            ...target,
            secret_name: name,
            key_id: context.key.key_id,
            encrypted_value: await sealForGitHub(context.key.key, value),
          }),
        ),
      )
    }
    const providerSecret = `${provider.id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_TOKEN`
    await step('requiredSecrets', () =>
      setSecrets({
        DATA_REPOSITORY: `${owner}/${work.slug}-data`,
        [providerSecret]: provider.token,
        DEPLOY_TOKEN: provider.token,
      }),
    )
    await step('optionalSecrets', () =>
      setSecrets({
        GIT_TOKEN: git.token,
        ...(provider.teamScope ? { DEPLOY_TEAM_SCOPE: provider.teamScope } : {}),
      }),
    )
    await step('cronSecret', () => setSecrets({ CRON_SECRET: randomBytes(32).toString('hex') }))
    await step('variable', async () => {
      const variable = { ...target, name: 'DEPLOY_PROVIDER', value: provider.id }
      try {
        await octokit.rest.actions.updateRepoVariable(variable)
      } catch (error) {
        if (gitHostStatus(error) !== 404) throw error
        await octokit.rest.actions.createRepoVariable(variable)
      }
    })

    const dispatchedAt = clock.now()
    const trigger = await step('dispatch', async () => {
      const ref = context.defaultBranch
      /** The first workflow file that accepts a dispatch, or undefined when none does. */
      const dispatch = async () => {
        for (const file of [workflowFile, PROD_WORKFLOW]) {
          try {
            await octokit.rest.actions.createWorkflowDispatch({ ...target, workflow_id: file, ref })
            return file
          } catch (error) {
            // A rejected token is no reason to try the next file.
            if (gitHostStatus(error) === 401) throw error
          }
        }
        return undefined
      }
      const first = await dispatch()
      if (first) return first
      // Neither file takes a dispatch: the content is updated and a trigger commit pushed, which starts a
      // push-triggered workflow; a second dispatch is tried once GitHub had time to see the new commit.
      await writeFile(
        octokit,
        target,
        ref,
        DEPLOYMENT_FILE,
        deploymentFile(input, owner, clock),
        'Update the deployment settings',
      )
      await writeFile(
        octokit,
        target,
        ref,
        TRIGGER_FILE,
        `${clock.now().toISOString()}\n`,
        `Deploy ${work.name} to ${provider.name}`,
      )
      await delay(dispatchRetryDelayMs)
      return (await dispatch()) ?? 'push'
    })

    return { owner, repository: `${owner}/${repo}`, trigger, dispatchedAt, created: context.created }
  }
}

function deploymentFile(input: PipelineInput, owner: string, clock: Clock) {
  return `${JSON.stringify(
    {
      workId: input.work.id,
      name: input.work.name,
      slug: input.work.slug,
      dataRepository: `${owner}/${input.work.slug}-data`,
      provider: input.provider.id,
      ...(input.provider.teamScope ? { teamScope: input.provider.teamScope } : {}),
      updatedAt: clock.now().toISOString(),
    },
    null,
    2,
  )}\n`
}

/** Creates or replaces a file on the branch (the contents API needs the current blob's sha to replace it). */
async function writeFile(
  octokit: GitHubClient,
  target: { owner: string; repo: string },
  branch: string,
  path: string,
  text: string,
  message: string,
) {
  const current = await octokit.rest.repos
    .getContent({ ...target, path, ref: branch })
    .catch((error: unknown) => {
      if (gitHostStatus(error) === 404) return undefined
      throw error
    })
  const sha = current && !Array.isArray(current.data) ? current.data.sha : undefined
  await octokit.rest.repos.createOrUpdateFileContents({
    ...target,
    path,
    branch,
    message,
    content: Buffer.from(text, 'utf8').toString('base64'),
    ...(sha ? { sha } : {}),
  })
}

export type Pipeline = ReturnType<typeof createPipeline>
