import { randomBytes } from 'node:crypto'
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Envelope } from '../../lib/crypto.ts'
import { badRequest, invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { type AddressPolicy, checkUrl, resolveAndCheck } from '../../lib/safe-http.ts'
import { users } from '../auth/tables.ts'
import type { WorkAccess } from '../works/access.ts'
import type { WebhookDelivery } from './delivery.ts'
import type { CreateWebhookBody, Delivery, UpdateWebhookBody, Webhook } from './schemas.ts'
import { secretContext } from './send.ts'
import { webhookDeliveries, webhookSubscriptions } from './tables.ts'

/** SPEC.md: at most 25 active subscriptions per account. */
export const MAX_ACTIVE_SUBSCRIPTIONS = 25
/** SPEC.md: the deliveries read shows the 50 newest. */
export const DELIVERIES_SHOWN = 50
const TEST_NOTE = 'A test delivery from Curio: your endpoint received and can verify it.'

type Subscription = typeof webhookSubscriptions.$inferSelect

export interface WebhookServiceDeps {
  db: Db
  clock: Clock
  envelope: Envelope
  access: Pick<WorkAccess, 'requireView'>
  delivery: Pick<WebhookDelivery, 'sendNow' | 'redeliver' | 'stopPending'>
  policy: AddressPolicy
  requireHttps: boolean
}

const subscriptionNotFound = () => notFound('Webhook subscription not found', 'WEBHOOK_NOT_FOUND')

const webhookOf = (row: Subscription): Webhook => ({
  id: row.id,
  url: row.url,
  workId: row.workId,
  status: row.status,
  consecutiveFailures: row.consecutiveFailures,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

/** A new signing secret: 32 random bytes, recognisable by its prefix. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`

/** Webhook subscriptions of an account and their deliveries; another account's ids are 404. */
export function createWebhookService({
  db,
  clock,
  envelope,
  access,
  delivery,
  policy,
  requireHttps,
}: WebhookServiceDeps) {
  async function own(userId: string, id: string): Promise<Subscription> {
    if (!isUuid(id)) throw subscriptionNotFound()
    const [row] = await db
      .select()
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.userId, userId)))
    if (!row) throw subscriptionNotFound()
    return row
  }

  /** The URL as a subscription may have it, or 400 naming why not. */
  async function checkedUrl(raw: string): Promise<string> {
    const checked = checkUrl(raw, { requireHttps, policy })
    if (!checked.ok) throw invalidInput('url', checked.reason, 'WEBHOOK_URL_REFUSED')
    const resolved = await resolveAndCheck(checked.url, policy)
    if (!resolved.ok) throw invalidInput('url', resolved.reason, 'WEBHOOK_URL_REFUSED')
    return checked.url.href
  }

  return {
    /** Creates an active subscription; its signing secret is in this answer only. */
    async create(userId: string, body: CreateWebhookBody) {
      if (body.workId !== undefined) await access.requireView(body.workId, userId)
      const url = await checkedUrl(body.url)
      const secret = newSecret()
      const row = await db.transaction(async (tx) => {
        // One account's creates take turns, so concurrent ones cannot pass the limit together.
        await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update')
        const [active] = await tx
          .select({ count: sql<number>`count(*)::int` })
          .from(webhookSubscriptions)
          .where(and(eq(webhookSubscriptions.userId, userId), eq(webhookSubscriptions.status, 'active')))
        if ((active?.count ?? 0) >= MAX_ACTIVE_SUBSCRIPTIONS) {
          throw badRequest(
            `At most ${MAX_ACTIVE_SUBSCRIPTIONS} active webhook subscriptions per account`,
            'WEBHOOK_LIMIT',
          )
        }
        const now = clock.now()
        const id = crypto.randomUUID()
        const [created] = await tx
          .insert(webhookSubscriptions)
          .values({
            id,
            userId,
            workId: body.workId ?? null,
            url,
            status: 'active',
            signingSecret: envelope.seal(secret, secretContext(id)),
            createdAt: now,
            updatedAt: now,
          })
          .returning()
        return created!
      })
      return {
        id: row.id,
        url: row.url,
        workId: row.workId,
        status: row.status,
        signingSecret: secret,
        createdAt: row.createdAt,
      }
    },

    async list(userId: string): Promise<Webhook[]> {
      const rows = await db
        .select()
        .from(webhookSubscriptions)
        .where(
          and(
            eq(webhookSubscriptions.userId, userId),
            inArray(webhookSubscriptions.status, ['active', 'paused']),
          ),
        )
        .orderBy(desc(webhookSubscriptions.createdAt), desc(webhookSubscriptions.id))
      return rows.map(webhookOf)
    },

    /** Pauses: its deliveries stop. Resuming is not supported (SPEC.md): `active` is 400. */
    async update(userId: string, id: string, body: UpdateWebhookBody): Promise<Webhook> {
      const row = await own(userId, id)
      if (body.status === 'active') {
        throw badRequest(
          'Resuming a subscription is not supported: create a new one',
          'WEBHOOK_RESUME_UNSUPPORTED',
        )
      }
      if (row.status === 'failed') {
        throw badRequest('A failed subscription cannot be changed: create a new one', 'WEBHOOK_FAILED')
      }
      const updated = await db.transaction(async (tx) => {
        const [paused] = await tx
          .update(webhookSubscriptions)
          .set({ status: 'paused', updatedAt: clock.now() })
          .where(and(eq(webhookSubscriptions.id, row.id), eq(webhookSubscriptions.status, row.status)))
          .returning()
        await delivery.stopPending(tx, row.id, 'The subscription was paused')
        return paused ?? row
      })
      return webhookOf(updated)
    },

    /** Deletes for good; its pending deliveries stop, its past ones stay in the log. */
    async delete(userId: string, id: string): Promise<void> {
      const row = await own(userId, id)
      await db.transaction(async (tx) => {
        await delivery.stopPending(tx, row.id, 'The subscription was deleted')
        await tx.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, row.id))
      })
    },

    /** A new signing secret, in this answer only; the old one signs nothing from now on. */
    async rotateSecret(userId: string, id: string) {
      const row = await own(userId, id)
      const secret = newSecret()
      await db
        .update(webhookSubscriptions)
        .set({ signingSecret: envelope.seal(secret, secretContext(row.id)), updatedAt: clock.now() })
        .where(eq(webhookSubscriptions.id, row.id))
      return { id: row.id, signingSecret: secret }
    },

    /** Sends a `webhook.test` delivery at once (not retried) and says what the endpoint made of it. */
    async test(userId: string, id: string) {
      const row = await own(userId, id)
      if (row.status !== 'active') {
        throw badRequest(`The subscription is ${row.status}: it receives no deliveries`, 'WEBHOOK_NOT_ACTIVE')
      }
      const result = await delivery.sendNow(row, { event: 'webhook.test', note: TEST_NOTE })
      return {
        deliveryId: result.deliveryId,
        outcome: result.outcome,
        status: result.status,
        ok: result.outcome === 'success',
      }
    },

    async deliveries(userId: string): Promise<Delivery[]> {
      return db
        .select({
          id: webhookDeliveries.id,
          subscriptionId: webhookDeliveries.subscriptionId,
          event: webhookDeliveries.event,
          body: webhookDeliveries.body,
          status: webhookDeliveries.status,
          attempts: webhookDeliveries.attempts,
          lastResponseStatus: webhookDeliveries.lastResponseStatus,
          lastOutcome: webhookDeliveries.lastOutcome,
          lastError: webhookDeliveries.lastError,
          durationMs: webhookDeliveries.durationMs,
          triggerRunId: webhookDeliveries.triggerRunId,
          createdAt: webhookDeliveries.createdAt,
        })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.userId, userId))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(DELIVERIES_SHOWN)
    },

    /** Queues the delivery's body again to its subscription, as a new delivery: 202. */
    async redeliver(userId: string, deliveryId: string) {
      if (!isUuid(deliveryId)) throw notFound('Delivery not found', 'DELIVERY_NOT_FOUND')
      const [original] = await db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.userId, userId)))
      if (!original) throw notFound('Delivery not found', 'DELIVERY_NOT_FOUND')
      const subscription = original.subscriptionId
        ? (
            await db
              .select()
              .from(webhookSubscriptions)
              .where(eq(webhookSubscriptions.id, original.subscriptionId))
          )[0]
        : undefined
      if (subscription?.status !== 'active') {
        throw badRequest(
          subscription
            ? `The subscription is ${subscription.status}: it receives no deliveries`
            : 'The subscription of this delivery was deleted',
          'WEBHOOK_NOT_ACTIVE',
        )
      }
      return delivery.redeliver(original)
    },
  }
}

export type WebhookService = ReturnType<typeof createWebhookService>
