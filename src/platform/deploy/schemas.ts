import { type Static, Type } from 'typebox'
import { Query, Timestamp } from '../../http/schemas.ts'
import { BATCH_MAX_WORKS } from './batch.ts'
import { VERIFICATION_STATES } from './tables.ts'

const EXAMPLE_WORK_ID = '0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10'
const EXAMPLE_DEPLOYMENT_ID = '5e0c7a52-2b9d-4f0e-8d3b-6a1c9e2f4b70'
const EXAMPLE_REPOSITORY = 'curio-sites/coffee-guide-website'

const TeamScope = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'the provider team (id or slug) to deploy in; default: the vercel plugin’s `teamScope`',
  examples: ['my-team'],
})

export const WorkParams = Type.Object({
  id: Type.String({ description: 'the work id (a UUID)', examples: [EXAMPLE_WORK_ID] }),
})
export const ProviderParams = Type.Object({
  providerId: Type.String({ description: 'the provider’s plugin id', examples: ['vercel'] }),
})

export const DeployBody = Type.Object(
  { teamScope: Type.Optional(TeamScope) },
  { examples: [{ teamScope: 'my-team' }, {}] },
)

export const DeployStarted = Type.Object(
  {
    status: Type.Literal('pending', { description: 'started: verification follows the deployment' }),
    slug: Type.String({ examples: ['coffee-guide'] }),
    owner: Type.String({ description: 'the repository’s owner on GitHub', examples: ['curio-sites'] }),
    repository: Type.String({ description: '`<owner>/<slug>-website`', examples: [EXAMPLE_REPOSITORY] }),
    message: Type.String({
      examples: [
        `Deploying "Coffee Guide" to Vercel through the deploy_vercel.yaml workflow of ${EXAMPLE_REPOSITORY}`,
      ],
    }),
    deploymentId: Type.String({
      description: 'the deployment lookup and the activity log follow (`details.deploymentId`)',
      examples: [EXAMPLE_DEPLOYMENT_ID],
    }),
  },
  {
    description: 'The pipeline ran and the workflow was started; verification follows in the background',
    examples: [
      {
        status: 'pending',
        slug: 'coffee-guide',
        owner: 'curio-sites',
        repository: EXAMPLE_REPOSITORY,
        message: `Deploying "Coffee Guide" to Vercel through the deploy_vercel.yaml workflow of ${EXAMPLE_REPOSITORY}`,
        deploymentId: EXAMPLE_DEPLOYMENT_ID,
      },
    ],
  },
)

const Provider = Type.Object({
  id: Type.String({ examples: ['vercel'] }),
  name: Type.String({ examples: ['Vercel'] }),
  enabled: Type.Boolean({ description: 'you enabled its plugin', examples: [true] }),
})
export const ProviderList = Type.Object(
  { status: Type.Literal('success'), providers: Type.Array(Provider) },
  {
    description: 'The hosting providers works deploy to',
    examples: [{ status: 'success', providers: [{ id: 'vercel', name: 'Vercel', enabled: true }] }],
  },
)

export const ProviderConfigured = Type.Object(
  {
    status: Type.Literal('success'),
    providerId: Type.String({ examples: ['vercel'] }),
    name: Type.String({ examples: ['Vercel'] }),
    available: Type.Boolean({ description: 'this server can deploy to it', examples: [true] }),
    enabled: Type.Boolean({ description: 'you enabled its plugin', examples: [true] }),
    configured: Type.Boolean({
      description: 'a token is set for you (your settings or the server’s environment)',
      examples: [true],
    }),
  },
  {
    description: 'Whether you can deploy with the provider',
    examples: [
      {
        status: 'success',
        providerId: 'vercel',
        name: 'Vercel',
        available: true,
        enabled: true,
        configured: true,
      },
    ],
  },
)

export const TokenValidation = Type.Object(
  {
    status: Type.Literal('success'),
    valid: Type.Boolean({ examples: [true] }),
    providerId: Type.String({ examples: ['vercel'] }),
    account: Type.Union(
      [
        Type.Object({
          id: Type.String({ examples: ['usr_2kT9aQ'] }),
          username: Type.String({ examples: ['ada'] }),
        }),
        Type.Null(),
      ],
      { description: 'the provider account the token belongs to; null when it is not valid' },
    ),
    message: Type.String({ examples: ['The Vercel token belongs to ada'] }),
  },
  {
    description: 'Whether your provider token is accepted by the provider (asked now)',
    examples: [
      {
        status: 'success',
        valid: true,
        providerId: 'vercel',
        account: { id: 'usr_2kT9aQ', username: 'ada' },
        message: 'The Vercel token belongs to ada',
      },
    ],
  },
)

export const TeamList = Type.Object(
  {
    status: Type.Literal('success'),
    providerId: Type.String({ examples: ['vercel'] }),
    teams: Type.Array(
      Type.Object({
        id: Type.String({ examples: ['team_8dK2'] }),
        slug: Type.String({ examples: ['my-team'] }),
        name: Type.String({ examples: ['My Team'] }),
      }),
    ),
  },
  {
    description: 'The provider teams the work’s deploy token (the owner’s) may deploy in',
    examples: [
      {
        status: 'success',
        providerId: 'vercel',
        teams: [{ id: 'team_8dK2', slug: 'my-team', name: 'My Team' }],
      },
    ],
  },
)

export const CapabilityCheck = Type.Object(
  {
    status: Type.Literal('success'),
    canDeploy: Type.Boolean({
      description: 'the owner’s provider and GitHub tokens are set',
      examples: [true],
    }),
    isShared: Type.Boolean({
      description: 'you are not the owner: the owner’s credentials are used',
      examples: [false],
    }),
    ownerHasToken: Type.Boolean({ examples: [true] }),
    userHasToken: Type.Boolean({ examples: [true] }),
  },
  {
    description: 'Whether the work can be deployed, and with whose credentials',
    examples: [
      { status: 'success', canDeploy: true, isShared: false, ownerHasToken: true, userHasToken: true },
    ],
  },
)

const EXAMPLE_DEPLOYMENT = {
  id: EXAMPLE_DEPLOYMENT_ID,
  workId: EXAMPLE_WORK_ID,
  providerId: 'vercel',
  providerName: 'Vercel',
  repository: EXAMPLE_REPOSITORY,
  teamScope: null,
  trigger: 'deploy_vercel.yaml',
  state: 'READY',
  url: 'https://coffee-guide-website.vercel.app',
  providerDeploymentId: 'dpl_7Gx2mQ',
  error: null,
  polls: 9,
  deployedBy: '7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  dispatchedAt: '2026-03-02T10:15:30.123Z',
  finishedAt: '2026-03-02T10:17:02.456Z',
  createdAt: '2026-03-02T10:15:31.001Z',
}

export const Deployment = Type.Object({
  id: Type.String({ examples: [EXAMPLE_DEPLOYMENT_ID] }),
  workId: Type.String({ examples: [EXAMPLE_WORK_ID] }),
  providerId: Type.String({ examples: ['vercel'] }),
  providerName: Type.String({ examples: ['Vercel'] }),
  repository: Type.String({ examples: [EXAMPLE_REPOSITORY] }),
  teamScope: Type.Union([Type.String(), Type.Null()], { examples: [null] }),
  trigger: Type.String({
    description:
      'how the workflow was started: the workflow file dispatched, `push` (the trigger commit), or `none` ' +
      '(the pipeline failed before)',
    examples: ['deploy_vercel.yaml'],
  }),
  state: Type.Enum(VERIFICATION_STATES, {
    description: 'The verification states; READY, ERROR, CANCELED and TIMEOUT are final',
    examples: ['READY'],
  }),
  url: Type.Union([Type.String(), Type.Null()], { examples: ['https://coffee-guide-website.vercel.app'] }),
  providerDeploymentId: Type.Union([Type.String(), Type.Null()], {
    description: 'the provider’s deployment created after the dispatch, once seen',
    examples: ['dpl_7Gx2mQ'],
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'why it failed, or what the last poll could not read',
    examples: [null],
  }),
  polls: Type.Integer({ examples: [9] }),
  deployedBy: Type.String({
    description: 'the user who deployed',
    examples: [EXAMPLE_DEPLOYMENT.deployedBy],
  }),
  dispatchedAt: Timestamp,
  finishedAt: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
})

export const LookupResult = Type.Object(
  {
    status: Type.Literal('success'),
    deployment: Type.Union([Deployment, Type.Null()], {
      description: 'the latest; null when never deployed',
    }),
  },
  {
    description: 'The work’s latest deployment and where its verification stands',
    examples: [{ status: 'success', deployment: EXAMPLE_DEPLOYMENT }],
  },
)

export const HistoryQuery = Query({
  limit: Type.Integer({
    minimum: 1,
    maximum: 50,
    default: 10,
    description: 'deployments per page (1 to 50)',
    examples: [10],
  }),
  offset: Type.Integer({ minimum: 0, default: 0, description: 'deployments to skip', examples: [0] }),
})
export type HistoryQuery = Static<typeof HistoryQuery>

export const DeploymentHistory = Type.Object(
  {
    status: Type.Literal('success'),
    deployments: Type.Array(Deployment, { description: 'newest first' }),
    total: Type.Integer({ description: 'the work’s deployments over all pages', examples: [1] }),
  },
  {
    description: 'A page of the work’s deployments, by whoever deployed it, newest first',
    examples: [{ status: 'success', deployments: [EXAMPLE_DEPLOYMENT], total: 1 }],
  },
)

export const BatchBody = Type.Object(
  {
    works: Type.Array(
      Type.Object({
        workId: Type.String({ minLength: 1, maxLength: 64, examples: [EXAMPLE_WORK_ID] }),
        teamScope: Type.Optional(TeamScope),
      }),
      { minItems: 1, maxItems: BATCH_MAX_WORKS, description: `1 to ${BATCH_MAX_WORKS} works, each once` },
    ),
    teamScope: Type.Optional(TeamScope),
  },
  { examples: [{ works: [{ workId: EXAMPLE_WORK_ID }], teamScope: 'my-team' }] },
)
export type BatchBody = Static<typeof BatchBody>

export const BatchResult = Type.Object(
  {
    status: Type.Enum(['success', 'partial', 'error'], {
      description: '`success`: every deployment started; `partial`: some; `error`: none',
      examples: ['partial'],
    }),
    message: Type.String({ examples: ['Started 1 of 2 deployments; 1 failed'] }),
    totalRequested: Type.Integer({ examples: [2] }),
    successfullyStarted: Type.Integer({ examples: [1] }),
    failed: Type.Integer({ examples: [1] }),
    results: Type.Array(
      Type.Object({
        workId: Type.String({ examples: [EXAMPLE_WORK_ID] }),
        slug: Type.Union([Type.String(), Type.Null()], {
          description: 'null for a work you may not see',
          examples: ['coffee-guide'],
        }),
        status: Type.Enum(['pending', 'error'], { examples: ['pending'] }),
        message: Type.String({ examples: ['Deploying "Coffee Guide" to Vercel'] }),
      }),
    ),
  },
  {
    description: 'Each work’s outcome, in the order requested',
    examples: [
      {
        status: 'partial',
        message: 'Started 1 of 2 deployments; 1 failed',
        totalRequested: 2,
        successfullyStarted: 1,
        failed: 1,
        results: [
          {
            workId: EXAMPLE_WORK_ID,
            slug: 'coffee-guide',
            status: 'pending',
            message: `Deploying "Coffee Guide" to Vercel through the deploy_vercel.yaml workflow of ${EXAMPLE_REPOSITORY}`,
          },
          {
            workId: '6f2a9c1d-8e3b-4a7c-9d5e-1f0b2c3d4e5f',
            slug: null,
            status: 'error',
            message: 'Work not found',
          },
        ],
      },
    ],
  },
)
