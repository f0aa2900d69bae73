import type { App } from '../../http/app.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import { invalidField } from '../../http/schemas.ts'
import type { RateLimitRule } from '../../lib/rate-limiter.ts'
import { MINUTE_MS } from '../../lib/time.ts'
import { contextOf } from '../http/context.ts'
import { authOf } from '../http/guard.ts'
import { errors } from '../http/schemas.ts'
import { limitedPerAccount, perAccount } from '../rate-limit.ts'
import { BATCH_MAX_WORKS, type DeployBatch } from './batch.ts'
import type { DeployCredentials } from './credentials.ts'
import {
  BatchBody,
  BatchResult,
  CapabilityCheck,
  DeployBody,
  DeploymentHistory,
  DeployStarted,
  HistoryQuery,
  LookupResult,
  ProviderConfigured,
  ProviderList,
  ProviderParams,
  TeamList,
  TokenValidation,
  WorkParams,
} from './schemas.ts'
import type { DeployService } from './service.ts'

/** Per account: deploying runs GitHub and provider calls, so it is limited more than the reads. */
export const DEPLOY_RATE_LIMITS = {
  deploy: { limit: 20, windowMs: MINUTE_MS },
  batch: { limit: 5, windowMs: MINUTE_MS },
  provider: { limit: 30, windowMs: MINUTE_MS },
  other: { limit: 120, windowMs: MINUTE_MS },
} as const satisfies Record<string, RateLimitRule>

const tags = ['deploy']
const account = perAccount
const limited = limitedPerAccount
const workNotFound = [404, 'WORK_NOT_FOUND'] as const
const WHO =
  'You must own the work or edit it (anyone else, viewers included, gets 404); a shared work deploys with its ' +
  'owner’s provider and GitHub credentials.'

export function deployRoutes(
  app: App,
  {
    credentials,
    deploy,
    batch,
    rateLimit,
  }: { credentials: DeployCredentials; deploy: DeployService; batch: DeployBatch; rateLimit: RateLimit },
) {
  const limit = (route: string, rule: RateLimitRule) => rateLimit(route, rule, account)

  app.get(
    '/api/deploy/providers',
    {
      config: { access: 'jwt' },
      preHandler: limit('GET /api/deploy/providers', DEPLOY_RATE_LIMITS.other),
      schema: {
        tags,
        summary: 'List hosting providers',
        description: `The providers works deploy to, and whether you enabled each one’s plugin.${limited(DEPLOY_RATE_LIMITS.other)}`,
        response: { 200: ProviderList, ...errors(401, 403, 429) },
      },
    },
    async (req) => credentials.providers(authOf(req).userId),
  )

  app.get(
    '/api/deploy/providers/:providerId/configured',
    {
      config: { access: 'jwt' },
      preHandler: limit('GET /api/deploy/providers/:providerId/configured', DEPLOY_RATE_LIMITS.other),
      schema: {
        tags,
        summary: 'Whether a provider is available and configured for you',
        description:
          'Available on this server, its plugin enabled by you, and a token set (your settings or the ' +
          `server’s environment). An unknown provider is 404.${limited(DEPLOY_RATE_LIMITS.other)}`,
        params: ProviderParams,
        response: {
          200: ProviderConfigured,
          ...errors(401, 403, [404, 'DEPLOY_PROVIDER_NOT_FOUND'], 429),
        },
      },
    },
    async (req) => credentials.configured(authOf(req).userId, req.params.providerId),
  )

  app.post(
    '/api/deploy/works/:id',
    {
      config: { access: 'jwt' },
      preHandler: limit('POST /api/deploy/works/:id', DEPLOY_RATE_LIMITS.deploy),
      schema: {
        tags,
        summary: 'Deploy a work',
        description:
          `${WHO} Checks the provider token (400 \`DEPLOY_NOT_CONFIGURED\`, \`DEPLOY_TOKEN_INVALID\`) and the ` +
          'GitHub token (400 `GIT_HOST_NOT_CONFIGURED`, `GIT_TOKEN_REJECTED`, which also notifies the owner), ' +
          'then runs the pipeline on `<owner>/<slug>-website` (created from WEBSITE_TEMPLATE_REPOSITORY when ' +
          'missing): workflows enabled, secrets set sealed with the repository’s key, `CRON_SECRET`, the ' +
          '`DEPLOY_PROVIDER` variable, and the workflow dispatched (`deploy_<provider>.yaml`, then ' +
          '`deploy_prod.yaml`, then a trigger commit). A failed step is 400 `DEPLOY_STEP_FAILED` naming it ' +
          '(502 when GitHub failed or did not answer) and is recorded as a failed deployment. Verification ' +
          'then follows the deployment in the background (lookup, activity log, webhooks); a newer deploy of ' +
          `the work cancels the earlier verification.${limited(DEPLOY_RATE_LIMITS.deploy)}`,
        params: WorkParams,
        body: DeployBody,
        response: {
          200: DeployStarted,
          ...errors(
            [
              400,
              invalidField('body.teamScope', 'must be at least 1 character long'),
              'DEPLOY_NOT_CONFIGURED',
              'DEPLOY_TOKEN_INVALID',
              'GIT_HOST_NOT_CONFIGURED',
              'GIT_TOKEN_REJECTED',
              'DEPLOY_STEP_FAILED',
            ],
            401,
            403,
            workNotFound,
            413,
            415,
            429,
            [502, 'DEPLOY_STEP_FAILED', 'DEPLOY_PROVIDER_UNAVAILABLE'],
          ),
        },
      },
    },
    async (req) => deploy.deploy(authOf(req).userId, req.params.id, req.body ?? {}, contextOf(req)),
  )

  app.post(
    '/api/deploy/validate-token',
    {
      config: { access: 'jwt' },
      preHandler: limit('POST /api/deploy/validate-token', DEPLOY_RATE_LIMITS.provider),
      schema: {
        tags,
        summary: 'Check your provider token',
        description:
          'Asks the provider whom your token (your settings, else the server’s environment) belongs to. ' +
          `\`valid: false\` when none is set or the provider rejects it; 502 when it does not answer.${limited(DEPLOY_RATE_LIMITS.provider)}`,
        response: { 200: TokenValidation, ...errors(401, 403, 429, [502, 'DEPLOY_PROVIDER_UNAVAILABLE']) },
      },
    },
    async (req) => credentials.validateToken(authOf(req).userId),
  )

  app.post(
    '/api/deploy/works/:id/teams',
    {
      config: { access: 'jwt' },
      preHandler: limit('POST /api/deploy/works/:id/teams', DEPLOY_RATE_LIMITS.provider),
      schema: {
        tags,
        summary: 'List the provider teams a work can deploy in',
        description: `${WHO} The teams of the work’s deploy token.${limited(DEPLOY_RATE_LIMITS.provider)}`,
        params: WorkParams,
        response: {
          200: TeamList,
          ...errors([400, 'DEPLOY_NOT_CONFIGURED', 'DEPLOY_TOKEN_INVALID'], 401, 403, workNotFound, 429, [
            502,
            'DEPLOY_PROVIDER_UNAVAILABLE',
          ]),
        },
      },
    },
    async (req) => credentials.teams(authOf(req).userId, req.params.id),
  )

  app.post(
    '/api/deploy/works/:id/check',
    {
      config: { access: 'jwt' },
      preHandler: limit('POST /api/deploy/works/:id/check', DEPLOY_RATE_LIMITS.other),
      schema: {
        tags,
        summary: 'Check whether a work can be deployed',
        description: `${WHO} Reads the configuration only; nothing is asked of the provider.${limited(DEPLOY_RATE_LIMITS.other)}`,
        params: WorkParams,
        response: { 200: CapabilityCheck, ...errors(401, 403, workNotFound, 429) },
      },
    },
    async (req) => credentials.check(authOf(req).userId, req.params.id),
  )

  app.post(
    '/api/deploy/works/:id/lookup',
    {
      config: { access: 'jwt' },
      preHandler: limit('POST /api/deploy/works/:id/lookup', DEPLOY_RATE_LIMITS.other),
      schema: {
        tags,
        summary: 'The work’s latest deployment',
        description:
          `${WHO} Its verification state (INITIALIZING, QUEUED, BUILDING, then READY, ERROR, CANCELED or ` +
          `TIMEOUT), URL and error; null when the work was never deployed.${limited(DEPLOY_RATE_LIMITS.other)}`,
        params: WorkParams,
        response: { 200: LookupResult, ...errors(401, 403, workNotFound, 429) },
      },
    },
    async (req) => deploy.lookup(authOf(req).userId, req.params.id),
  )

  app.get(
    '/api/deploy/works/:id/deployments',
    {
      config: { access: 'jwt' },
      preHandler: limit('GET /api/deploy/works/:id/deployments', DEPLOY_RATE_LIMITS.other),
      schema: {
        tags,
        summary: 'The work’s deployments',
        description:
          `${WHO} Every deployment of the work, by whoever deployed it, newest first: the history the latest ` +
          `lookup is the head of, paged by \`limit\` (1 to 50, 10 by default) and \`offset\`, with the total.` +
          limited(DEPLOY_RATE_LIMITS.other),
        params: WorkParams,
        querystring: HistoryQuery,
        response: { 200: DeploymentHistory, ...errors(400, 401, 403, workNotFound, 429) },
      },
    },
    async (req) => deploy.history(authOf(req).userId, req.params.id, req.query),
  )

  app.post(
    '/api/deploy/batch',
    {
      config: { access: 'jwt' },
      preHandler: limit('POST /api/deploy/batch', DEPLOY_RATE_LIMITS.batch),
      schema: {
        tags,
        summary: 'Deploy several works',
        description:
          `Up to ${BATCH_MAX_WORKS} works, each once, deployed as the single deploy does, DEPLOY_BATCH_CONCURRENCY ` +
          '(5) at a time, each group starting DEPLOY_BATCH_DELAY_MS (2 s) after the previous one started and not ' +
          'before it ended. Answers when every one has started ' +
          'or failed, with each one’s outcome: `success` when all started, `partial` when some did, `error` ' +
          `when none did. An item's \`teamScope\` overrides the batch's.${limited(DEPLOY_RATE_LIMITS.batch)}`,
        body: BatchBody,
        response: {
          200: BatchResult,
          ...errors([400, invalidField('body.works', 'must have at least 1 item')], 401, 403, 413, 415, 429),
        },
      },
    },
    async (req) => batch(authOf(req).userId, req.body, contextOf(req)),
  )
}
