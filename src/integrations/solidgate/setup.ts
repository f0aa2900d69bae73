import type { WebhookSetup } from '../payments/contract/provider.ts'

export const SOLIDGATE_WEBHOOK_SETUP: WebhookSetup = {
  secret: 'SOLIDGATE_WEBHOOK_SECRET',
  signature: 'the `x-signature` (or `solidgate-signature`) header (lowercase hex HMAC-SHA512 of the body)',
  events: [
    'payment.succeeded',
    'payment.failed',
    'subscription.created',
    'subscription.updated',
    'subscription.cancelled',
    'refund.processed',
  ],
}
