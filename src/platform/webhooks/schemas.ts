import { type Static, Type } from 'typebox'
import { Timestamp } from '../../http/schemas.ts'
import { DELIVERY_OUTCOMES, DELIVERY_STATUSES, SUBSCRIPTION_STATUSES } from './tables.ts'

export const MAX_URL_LENGTH = 2048
const EXAMPLE_ID = '3b8f2c1a-5d4e-4f6a-9b7c-8d9e0f1a2b3c'
const EXAMPLE_WORK_ID = '0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10'
const EXAMPLE_DELIVERY_ID = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d'
const EXAMPLE_BODY = JSON.stringify({
  event: 'work.created',
  workId: '0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10',
  workName: 'Café Guide',
  sentAt: '2026-11-22T10:00:00.000Z',
  accountId: '5f0c2a8e-7d3b-4e21-8a4c-9b1e6d2f7c30',
})
const EXAMPLE_SECRET = 'whsec_Xk3v9QnE2cR7yT1uP0oLmA5sD8fG4hJ6kZ2xC9vB7nM'
const EXAMPLE_URL = 'https://hooks.example.com/curio'

export const WebhookParams = Type.Object({
  id: Type.String({ description: 'the subscription id (a UUID)', examples: [EXAMPLE_ID] }),
})
export const DeliveryParams = Type.Object({
  deliveryId: Type.String({ description: 'the delivery id (a UUID)', examples: [EXAMPLE_DELIVERY_ID] }),
})

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: MAX_URL_LENGTH,
      description:
        'where events are POSTed: HTTPS (plain http only on a local instance), no user:password, and a host ' +
        'that resolves to public addresses (or is in WEBHOOK_ALLOWED_HOSTS)',
      examples: [EXAMPLE_URL],
    }),
    workId: Type.Optional(
      Type.String({
        description: 'only this work’s events; absent: the events of every work you own',
        examples: [EXAMPLE_WORK_ID],
      }),
    ),
  },
  { examples: [{ url: EXAMPLE_URL, workId: EXAMPLE_WORK_ID }] },
)
export type CreateWebhookBody = Static<typeof CreateWebhookBody>

export const UpdateWebhookBody = Type.Object(
  {
    status: Type.Enum(['paused', 'active'], {
      description: '`paused` stops deliveries; `active` (resuming) is not supported and answers 400',
      examples: ['paused'],
    }),
  },
  { examples: [{ status: 'paused' }] },
)
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>

const subscriptionFields = {
  id: Type.String({ examples: [EXAMPLE_ID] }),
  url: Type.String({ examples: [EXAMPLE_URL] }),
  workId: Type.Union([Type.String(), Type.Null()], {
    description: 'null for an account-wide subscription',
    examples: [EXAMPLE_WORK_ID],
  }),
  status: Type.Enum(SUBSCRIPTION_STATUSES, { examples: ['active'] }),
}

export const WebhookCreated = Type.Object(
  {
    ...subscriptionFields,
    signingSecret: Type.String({
      description: 'signs every delivery (HMAC-SHA256 of the body); shown only here',
      examples: [EXAMPLE_SECRET],
    }),
    createdAt: Timestamp,
  },
  {
    description: 'The subscription, with its signing secret: keep it now, it is never shown again',
    examples: [
      {
        id: EXAMPLE_ID,
        url: EXAMPLE_URL,
        workId: null,
        status: 'active',
        signingSecret: EXAMPLE_SECRET,
        createdAt: '2026-11-22T10:00:00.000Z',
      },
    ],
  },
)

export const Webhook = Type.Object(
  {
    ...subscriptionFields,
    consecutiveFailures: Type.Integer({
      description:
        'failed attempts in a row; a success resets it, reaching the maximum fails the subscription',
      examples: [0],
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    examples: [
      {
        id: EXAMPLE_ID,
        url: EXAMPLE_URL,
        workId: null,
        status: 'paused',
        consecutiveFailures: 0,
        createdAt: '2026-11-22T10:00:00.000Z',
        updatedAt: '2026-11-22T11:00:00.000Z',
      },
    ],
  },
)
export type Webhook = Static<typeof Webhook>

export const WebhookList = Type.Object(
  { webhooks: Type.Array(Webhook) },
  {
    description: 'Your active and paused subscriptions, newest first; never failed ones, never a secret',
    examples: [
      {
        webhooks: [
          {
            id: EXAMPLE_ID,
            url: EXAMPLE_URL,
            workId: null,
            status: 'active',
            consecutiveFailures: 0,
            createdAt: '2026-11-22T10:00:00.000Z',
            updatedAt: '2026-11-22T10:00:00.000Z',
          },
        ],
      },
    ],
  },
)

export const SecretRotated = Type.Object(
  {
    id: Type.String({ examples: [EXAMPLE_ID] }),
    signingSecret: Type.String({
      description: 'the new secret; the old one no longer signs',
      examples: [EXAMPLE_SECRET],
    }),
  },
  {
    description: 'The new signing secret, shown only here',
    examples: [{ id: EXAMPLE_ID, signingSecret: EXAMPLE_SECRET }],
  },
)

export const TestResult = Type.Object(
  {
    deliveryId: Type.String({ examples: [EXAMPLE_DELIVERY_ID] }),
    outcome: Type.Enum(DELIVERY_OUTCOMES, { examples: ['success'] }),
    status: Type.Union([Type.Integer(), Type.Null()], {
      description: 'the endpoint’s HTTP status, or null when it gave none',
      examples: [200],
    }),
    ok: Type.Boolean({ description: 'the endpoint answered 2xx', examples: [true] }),
  },
  {
    description: 'What the endpoint made of a `webhook.test` delivery, sent at once and not retried',
    examples: [{ deliveryId: EXAMPLE_DELIVERY_ID, outcome: 'success', status: 200, ok: true }],
  },
)

export const Delivery = Type.Object({
  id: Type.String({ examples: [EXAMPLE_DELIVERY_ID] }),
  subscriptionId: Type.Union([Type.String(), Type.Null()], {
    description: 'null once the subscription was deleted',
    examples: [EXAMPLE_ID],
  }),
  event: Type.String({ examples: ['work.created'] }),
  body: Type.String({
    description:
      'the JSON body sent to the endpoint, exactly as signed and sent (every attempt and a redelivery send these bytes)',
    examples: [EXAMPLE_BODY],
  }),
  status: Type.Enum(DELIVERY_STATUSES, { examples: ['succeeded'] }),
  attempts: Type.Integer({ examples: [1] }),
  lastResponseStatus: Type.Union([Type.Integer(), Type.Null()], { examples: [200] }),
  lastOutcome: Type.Union([Type.Enum(DELIVERY_OUTCOMES), Type.Null()], { examples: ['success'] }),
  lastError: Type.Union([Type.String(), Type.Null()], { examples: [null] }),
  durationMs: Type.Union([Type.Integer(), Type.Null()], { examples: [84] }),
  triggerRunId: Type.Union([Type.String(), Type.Null()], {
    description: 'the background job that made the last attempt',
    examples: ['5c0f3d8e-2a4b-4c6d-8e0f-1a2b3c4d5e6f'],
  }),
  createdAt: Timestamp,
})
export type Delivery = Static<typeof Delivery>

export const DeliveryList = Type.Object(
  { deliveries: Type.Array(Delivery) },
  {
    description: 'The 50 newest deliveries across your subscriptions, newest first',
    examples: [
      {
        deliveries: [
          {
            id: EXAMPLE_DELIVERY_ID,
            subscriptionId: EXAMPLE_ID,
            event: 'work.created',
            body: EXAMPLE_BODY,
            status: 'succeeded',
            attempts: 1,
            lastResponseStatus: 200,
            lastOutcome: 'success',
            lastError: null,
            durationMs: 84,
            triggerRunId: '5c0f3d8e-2a4b-4c6d-8e0f-1a2b3c4d5e6f',
            createdAt: '2026-11-22T10:00:00.000Z',
          },
        ],
      },
    ],
  },
)

export const Redelivered = Type.Object(
  {
    deliveryId: Type.String({ examples: [EXAMPLE_DELIVERY_ID] }),
    runId: Type.Union([Type.String(), Type.Null()], {
      description: 'the background job that will make the attempt',
      examples: ['5c0f3d8e-2a4b-4c6d-8e0f-1a2b3c4d5e6f'],
    }),
  },
  {
    description: 'The new delivery, queued with the original body',
    examples: [{ deliveryId: EXAMPLE_DELIVERY_ID, runId: '5c0f3d8e-2a4b-4c6d-8e0f-1a2b3c4d5e6f' }],
  },
)
