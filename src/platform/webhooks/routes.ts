import type { App } from '../../http/app.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import { described, invalidField, NoContent } from '../../http/schemas.ts'
import type { RateLimitRule } from '../../lib/rate-limiter.ts'
import { MINUTE_MS } from '../../lib/time.ts'
import { authOf } from '../http/guard.ts'
import { errors } from '../http/schemas.ts'
import { limitedPerAccount, perAccount } from '../rate-limit.ts'
import {
  CreateWebhookBody,
  DeliveryList,
  DeliveryParams,
  Redelivered,
  SecretRotated,
  TestResult,
  UpdateWebhookBody,
  Webhook,
  WebhookCreated,
  WebhookList,
  WebhookParams,
} from './schemas.ts'
import { DELIVERIES_SHOWN, MAX_ACTIVE_SUBSCRIPTIONS, type WebhookService } from './service.ts'

/** SPEC.md's limits of the webhook routes, per account; the others share a global one (not stated there). */
export const WEBHOOK_RATE_LIMITS = {
  create: { limit: 10, windowMs: MINUTE_MS },
  pause: { limit: 20, windowMs: MINUTE_MS },
  test: { limit: 5, windowMs: MINUTE_MS },
  rotate: { limit: 5, windowMs: MINUTE_MS },
  redeliver: { limit: 10, windowMs: MINUTE_MS },
  other: { limit: 120, windowMs: MINUTE_MS },
} as const satisfies Record<string, RateLimitRule>

const tags = ['webhooks']
const account = perAccount
const limited = limitedPerAccount
const notFound = [404, 'WEBHOOK_NOT_FOUND'] as const

export function webhookRoutes(
  app: App,
  { webhooks, rateLimit }: { webhooks: WebhookService; rateLimit: RateLimit },
) {
  const limit = (route: string, rule: RateLimitRule) => rateLimit(route, rule, account)
  const other = (route: string) => limit(route, WEBHOOK_RATE_LIMITS.other)

  app.post(
    '/api/webhooks',
    {
      config: { access: 'jwt-or-api-key' },
      preHandler: limit('POST /api/webhooks', WEBHOOK_RATE_LIMITS.create),
      schema: {
        tags,
        summary: 'Create a webhook subscription',
        description:
          'Every event of your works (or of `workId` only, a work you may view: 404 otherwise) is POSTed to ' +
          '`url`, signed with the secret in this answer, shown only here. The URL must be HTTPS (plain http ' +
          'only on a local instance), carry no user:password, and resolve to public addresses only (400 ' +
          `\`WEBHOOK_URL_REFUSED\`). At most ${MAX_ACTIVE_SUBSCRIPTIONS} active subscriptions per account ` +
          `(400 \`WEBHOOK_LIMIT\`). A production instance without \`PLATFORM_ENCRYPTION_KEY\` cannot store the ` +
          `secret (400 \`ENCRYPTION_KEY_MISSING\`).${limited(WEBHOOK_RATE_LIMITS.create)}`,
        body: CreateWebhookBody,
        response: {
          200: WebhookCreated,
          ...errors(
            [
              400,
              invalidField('body.url', 'must use https'),
              'WEBHOOK_URL_REFUSED',
              'WEBHOOK_LIMIT',
              'ENCRYPTION_KEY_MISSING',
            ],
            401,
            [404, 'WORK_NOT_FOUND'],
            413,
            415,
            429,
          ),
        },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store')
      return webhooks.create(authOf(req).userId, req.body)
    },
  )

  app.get(
    '/api/webhooks',
    {
      config: { access: 'jwt-or-api-key' },
      preHandler: other('GET /api/webhooks'),
      schema: {
        tags,
        summary: 'List webhook subscriptions',
        description: `Your active and paused subscriptions; never failed ones, never a secret.${limited(WEBHOOK_RATE_LIMITS.other)}`,
        response: { 200: WebhookList, ...errors(401, 429) },
      },
    },
    async (req) => ({ webhooks: await webhooks.list(authOf(req).userId) }),
  )

  app.patch(
    '/api/webhooks/:id',
    {
      config: { access: 'jwt-or-api-key' },
      preHandler: limit('PATCH /api/webhooks/:id', WEBHOOK_RATE_LIMITS.pause),
      schema: {
        tags,
        summary: 'Pause a webhook subscription',
        description:
          '`{status: "paused"}` stops its deliveries, pending retries included. Resuming is not supported: ' +
          '`{status: "active"}` is 400 `WEBHOOK_RESUME_UNSUPPORTED`; a failed subscription is 400 ' +
          `\`WEBHOOK_FAILED\`.${limited(WEBHOOK_RATE_LIMITS.pause)}`,
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: {
          200: described(Webhook, 'The subscription, paused'),
          ...errors([400, 'WEBHOOK_RESUME_UNSUPPORTED', 'WEBHOOK_FAILED'], 401, notFound, 413, 415, 429),
        },
      },
    },
    async (req) => webhooks.update(authOf(req).userId, req.params.id, req.body),
  )

  app.delete(
    '/api/webhooks/:id',
    {
      config: { access: 'jwt-or-api-key' },
      preHandler: other('DELETE /api/webhooks/:id'),
      schema: {
        tags,
        summary: 'Delete a webhook subscription',
        description: `Irreversible; its pending deliveries stop, its past ones stay listed.${limited(WEBHOOK_RATE_LIMITS.other)}`,
        params: WebhookParams,
        response: { 204: NoContent, ...errors(401, notFound, 429) },
      },
    },
    async (req, reply) => {
      await webhooks.delete(authOf(req).userId, req.params.id)
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/api/webhooks/:id/test',
    {
      config: { access: 'jwt-or-api-key' },
      preHandler: limit('POST /api/webhooks/:id/test', WEBHOOK_RATE_LIMITS.test),
      schema: {
        tags,
        summary: 'Send a test delivery',
        description:
          'Sends a signed `webhook.test` event at once (not retried), logs it as a delivery and answers what ' +
          'the endpoint made of it: `outcome`, its HTTP `status`, and `ok` for a 2xx. The subscription must ' +
          `be active (400 \`WEBHOOK_NOT_ACTIVE\`).${limited(WEBHOOK_RATE_LIMITS.test)}`,
        params: WebhookParams,
        response: { 200: TestResult, ...errors([400, 'WEBHOOK_NOT_ACTIVE'], 401, notFound, 429) },
      },
    },
    async (req) => webhooks.test(authOf(req).userId, req.params.id),
  )

  app.post(
    '/api/webhooks/:id/rotate-secret',
    {
      config: { access: 'jwt-or-api-key' },
      preHandler: limit('POST /api/webhooks/:id/rotate-secret', WEBHOOK_RATE_LIMITS.rotate),
      schema: {
        tags,
        summary: 'Rotate a signing secret',
        description:
          'A new signing secret, shown only here; the old one signs nothing from now on, pending retries ' +
          `included.${limited(WEBHOOK_RATE_LIMITS.rotate)}`,
        params: WebhookParams,
        response: { 200: SecretRotated, ...errors([400, 'ENCRYPTION_KEY_MISSING'], 401, notFound, 429) },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store')
      return webhooks.rotateSecret(authOf(req).userId, req.params.id)
    },
  )

  app.get(
    '/api/webhooks/deliveries',
    {
      config: { access: 'jwt-or-api-key' },
      preHandler: other('GET /api/webhooks/deliveries'),
      schema: {
        tags,
        summary: 'Recent deliveries',
        description: `The ${DELIVERIES_SHOWN} newest deliveries across your subscriptions, newest first, each with the body it sends and the outcome of its last attempt.${limited(WEBHOOK_RATE_LIMITS.other)}`,
        response: { 200: DeliveryList, ...errors(401, 429) },
      },
    },
    async (req) => ({ deliveries: await webhooks.deliveries(authOf(req).userId) }),
  )

  app.post(
    '/api/webhooks/deliveries/:deliveryId/redeliver',
    {
      config: { access: 'jwt-or-api-key' },
      preHandler: limit('POST /api/webhooks/deliveries/:deliveryId/redeliver', WEBHOOK_RATE_LIMITS.redeliver),
      schema: {
        tags,
        summary: 'Redeliver a delivery',
        description:
          'Queues the delivery’s original body again, signed with the current secret, as a new delivery: 202 ' +
          'with its id and the job that will send it. Its subscription must be active (400 ' +
          `\`WEBHOOK_NOT_ACTIVE\`).${limited(WEBHOOK_RATE_LIMITS.redeliver)}`,
        params: DeliveryParams,
        response: {
          202: Redelivered,
          ...errors([400, 'WEBHOOK_NOT_ACTIVE'], 401, [404, 'DELIVERY_NOT_FOUND'], 429),
        },
      },
    },
    async (req, reply) =>
      reply.code(202).send(await webhooks.redeliver(authOf(req).userId, req.params.deliveryId)),
  )
}
