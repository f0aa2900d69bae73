import type { Config } from '../../config.ts'
import type { CheckoutSettings } from '../payments/contract/checkout.ts'
import type { WebhookSetup } from '../payments/contract/provider.ts'
import { SIGNATURE_TOLERANCE_SECONDS } from '../payments/contract/signature.ts'

export const STRIPE_WEBHOOK_SETUP: WebhookSetup = {
  secret: 'STRIPE_WEBHOOK_SECRET',
  signature: `the \`Stripe-Signature\` header (HMAC-SHA256, timestamp within ${SIGNATURE_TOLERANCE_SECONDS / 60} minutes)`,
  events: [
    'checkout.session.completed',
    'customer.subscription.created',
    'customer.subscription.updated',
    'customer.subscription.deleted',
    'customer.subscription.trial_will_end',
    'invoice.paid',
    'invoice.payment_failed',
    'charge.refunded',
  ],
}

export type StripeCheckoutConfig = Pick<
  Config,
  'stripeSecretKey' | 'stripeApiUrl' | 'stripeSponsorWeeklyPriceId' | 'stripeSponsorMonthlyPriceId'
> & {
  /** Stripe's own retries of a connection error, 409 or 5xx (after 0.5–1 s). Default 1. */
  stripeMaxNetworkRetries?: number
}

export const stripeCheckoutSettings = (config: StripeCheckoutConfig): CheckoutSettings => ({
  credentials: [{ name: 'STRIPE_SECRET_KEY', value: config.stripeSecretKey, secret: true }],
  prices: {
    weekly: { name: 'STRIPE_SPONSOR_WEEKLY_PRICE_ID', value: config.stripeSponsorWeeklyPriceId },
    monthly: { name: 'STRIPE_SPONSOR_MONTHLY_PRICE_ID', value: config.stripeSponsorMonthlyPriceId },
  },
})
