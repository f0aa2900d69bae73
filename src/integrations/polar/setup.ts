import type { Config } from '../../config.ts'
import type { CheckoutSettings } from '../payments/contract/checkout.ts'
import type { WebhookSetup } from '../payments/contract/provider.ts'
import { SIGNATURE_TOLERANCE_SECONDS } from '../payments/contract/signature.ts'

export const POLAR_WEBHOOK_SETUP: WebhookSetup = {
  secret: 'POLAR_WEBHOOK_SECRET',
  signature: `the Standard Webhooks headers \`webhook-id\`, \`webhook-timestamp\` (within ${SIGNATURE_TOLERANCE_SECONDS / 60} minutes) and \`webhook-signature\``,
  events: [
    'order.paid',
    'order.refunded',
    'subscription.created',
    'subscription.updated',
    'subscription.active',
    'subscription.canceled',
    'subscription.uncanceled',
    'subscription.revoked',
  ],
}

export type PolarCheckoutConfig = Pick<
  Config,
  'polarAccessToken' | 'polarApiUrl' | 'polarSponsorWeeklyPriceId' | 'polarSponsorMonthlyPriceId'
>

export const polarCheckoutSettings = (config: PolarCheckoutConfig): CheckoutSettings => ({
  credentials: [{ name: 'POLAR_ACCESS_TOKEN', value: config.polarAccessToken, secret: true }],
  prices: {
    weekly: { name: 'POLAR_SPONSOR_WEEKLY_PRICE_ID', value: config.polarSponsorWeeklyPriceId },
    monthly: { name: 'POLAR_SPONSOR_MONTHLY_PRICE_ID', value: config.polarSponsorMonthlyPriceId },
  },
})
