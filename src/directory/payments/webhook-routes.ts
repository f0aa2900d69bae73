import type { Logger } from 'pino'
import { Type } from 'typebox'
import type { App } from '../../http/app.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { headerValues } from '../../integrations/payments/contract/signature.ts'
import { PAYMENT_PROVIDERS, type PaymentProvider } from '../../integrations/payments/registry.ts'
import type { Clock } from '../../lib/clock.ts'
import { errors } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'
import type { PaymentProcessing } from './processing.ts'

/** The `{provider}` of `/api/{provider}/webhook`, in the registry's order. */
export const WEBHOOK_PROVIDERS: readonly PaymentProvider[] = PAYMENT_PROVIDERS.map((provider) => provider.id)

const WebhookError = Type.Object(
  { error: Type.String({ examples: ['No signature provided'] }) },
  { description: 'The error body of a payment webhook' },
)

const Received = Type.Object(
  { received: Type.Literal(true) },
  {
    description: 'Verified and stored: it applies once, however often it is sent',
    examples: [{ received: true }],
  },
)

const Diagnostic = Type.Object({
  message: Type.String(),
  instructions: Type.String(),
  method: Type.Literal('POST'),
})

const RefusedAnswer = Type.Object(WebhookError.properties, {
  description: 'No signature, a bad one, a body that is not an event, or no secret configured',
  examples: [
    { error: 'No signature provided' },
    { error: 'Invalid signature' },
    { error: 'Invalid JSON body' },
  ],
})
const NotStoredAnswer = Type.Object(WebhookError.properties, {
  description: 'Not stored: the provider should send it again',
  examples: [{ error: 'The event could not be stored; send it again' }],
})

export interface PaymentWebhookDeps {
  processing: PaymentProcessing
  rateLimit: RateLimit
  clock: Clock
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  /** Each provider's signing secret; a provider without one refuses every event. */
  secrets: Record<PaymentProvider, string | undefined>
  appUrl: string
}

/**
 * `POST /api/{provider}/webhook` for the four providers, and the `GET` that says how to set each up. The
 * routes take the body as raw bytes (any content type): signatures are checked on exactly what was sent.
 */
export function paymentWebhookRoutes(app: App, deps: PaymentWebhookDeps) {
  const { processing, rateLimit, clock, log, secrets } = deps
  const limit = rateLimit('POST /api/webhook/*', RATE_LIMITS.webhook)
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))

    for (const { id: provider, name, webhook } of PAYMENT_PROVIDERS) {
      const { setup } = webhook
      const url = `/api/${provider}/webhook`
      scope.post(
        url,
        {
          config: { access: 'public' },
          preHandler: limit,
          schema: {
            tags: ['payment-webhooks'],
            summary: `Receive a ${name} event`,
            description:
              `${name} calls this with each event, signed with ${setup.signature} under \`${setup.secret}\`. ` +
              'The signature is checked on the raw bytes, in constant time. A verified event is stored before ' +
              'it is answered `{received:true}`, and applied once: its id (the body’s `id`, or the provider’s ' +
              'id header) seen again within 24 hours is acknowledged and not applied again, also when two ' +
              'instances receive it at once. An event whose handling fails is still acknowledged, and retried ' +
              'from its stored copy. Answers 400 `{error}` without a signature, for a bad or expired ' +
              `signature, an unparseable body or no configured secret. ${describeRule(RATE_LIMITS.webhook)}, ` +
              'per client (`RATE_LIMIT_BYPASS_LOCALHOST` lets a local relay skip it).',
            response: {
              200: Received,
              400: RefusedAnswer,
              ...errors(413, 429),
              500: NotStoredAnswer,
            },
          },
        },
        async (req, reply) => {
          const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
          const signed = webhook.signatureHeaders.some((name) => headerValues(req.headers, name).length > 0)
          if (!signed) return reply.code(400).send({ error: 'No signature provided' })
          const secret = secrets[provider]
          if (!secret) {
            log.error({ provider }, `${name} webhook received but ${setup.secret} is not set`)
            return reply.code(400).send({ error: `${name} webhooks are not configured on this site` })
          }
          const verdict = webhook.verify(raw, req.headers, secret, clock.now())
          if (!verdict.ok) {
            log.warn({ provider, reason: verdict.message }, 'payment webhook refused: signature')
            return reply.code(400).send({
              error:
                verdict.reason === 'expired'
                  ? 'Signature timestamp outside the tolerance'
                  : 'Invalid signature',
            })
          }
          let payload: unknown
          try {
            payload = JSON.parse(raw.toString('utf8'))
          } catch {
            return reply.code(400).send({ error: 'Invalid JSON body' })
          }
          // The id a provider sends outside the body, in the header its descriptor names.
          const headerId =
            'idHeader' in webhook ? headerValues(req.headers, webhook.idHeader)[0]?.slice(0, 255) : undefined
          const normalised = webhook.normalise(payload, headerId)
          if (!normalised.ok) return reply.code(400).send({ error: normalised.message })
          const event = normalised.event
          try {
            const outcome = await processing.receive(event, raw)
            req.log.info(
              { provider, eventId: event.id, type: event.providerType, outcome },
              'payment webhook',
            )
          } catch (error) {
            // Not stored: the provider must send it again, so it is not acknowledged.
            log.error(
              { provider, eventId: event.id, err: error instanceof Error ? error.message : String(error) },
              'payment webhook not stored',
            )
            return reply.code(500).send({ error: 'The event could not be stored; send it again' })
          }
          return { received: true as const }
        },
      )

      scope.get(
        url,
        {
          config: { access: 'public' },
          schema: {
            tags: ['payment-webhooks'],
            summary: `How to point ${name} here`,
            description:
              'A diagnostic: this endpoint takes POSTs from the provider; the answer says how to set it up.',
            response: {
              200: Type.Object(Diagnostic.properties, {
                description: 'How to set the provider up',
                examples: [
                  {
                    message: `${name} webhook endpoint`,
                    instructions: `At ${name}, add a webhook to ${new URL(url, 'https://directory.example.com')} …`,
                    method: 'POST',
                  },
                ],
              }),
            },
          },
        },
        async () => ({
          message: `${name} webhook endpoint`,
          instructions:
            `At ${name}, add a webhook to ${new URL(url, deps.appUrl)} sending ${setup.events.join(', ')}, ` +
            `and set ${setup.secret} to its signing secret. Events are signed with ${setup.signature.replace(/`/g, '')}.`,
          method: 'POST' as const,
        }),
      )
    }
  })
}
