import type { Config } from '../../config.ts'
import type { CheckoutSettings } from '../payments/contract/checkout.ts'
import type { WebhookSetup } from '../payments/contract/provider.ts'

export const LEMONSQUEEZY_WEBHOOK_SETUP: WebhookSetup = {
  secret: 'LEMONSQUEEZY_WEBHOOK_SECRET',
  signature: 'the `X-Signature` header (hex HMAC-SHA256 of the body)',
  events: [
    'order_created',
    'order_refunded',
    'subscription_created',
    'subscription_updated',
    'subscription_cancelled',
    'subscription_expired',
    'subscription_payment_success',
    'subscription_payment_failed',
    'subscription_payment_recovered',
    'subscription_payment_refunded',
  ],
}

export type LemonSqueezyCheckoutConfig = Pick<
  Config,
  | 'lemonsqueezyApiKey'
  | 'lemonsqueezyApiUrl'
  | 'lemonsqueezyStoreId'
  | 'lemonsqueezySponsorWeeklyVariantId'
  | 'lemonsqueezySponsorMonthlyVariantId'
>

export const lemonSqueezyCheckoutSettings = (config: LemonSqueezyCheckoutConfig): CheckoutSettings => ({
  credentials: [
    { name: 'LEMONSQUEEZY_API_KEY', value: config.lemonsqueezyApiKey, secret: true },
    { name: 'LEMONSQUEEZY_STORE_ID', value: config.lemonsqueezyStoreId, numeric: true },
  ],
  prices: {
    weekly: {
      name: 'LEMONSQUEEZY_SPONSOR_WEEKLY_VARIANT_ID',
      value: config.lemonsqueezySponsorWeeklyVariantId,
      numeric: true,
    },
    monthly: {
      name: 'LEMONSQUEEZY_SPONSOR_MONTHLY_VARIANT_ID',
      value: config.lemonsqueezySponsorMonthlyVariantId,
      numeric: true,
    },
  },
})
