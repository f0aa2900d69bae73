import type { PaymentProviderDescriptor } from '../payments/contract/provider.ts'
import { createStripeClient } from './client.ts'
import { normaliseStripeEvent } from './events.ts'
import { STRIPE_WEBHOOK_SETUP, type StripeCheckoutConfig, stripeCheckoutSettings } from './setup.ts'
import { STRIPE_SIGNATURE_HEADERS, verifyStripeSignature } from './signature.ts'

/** Stripe: checkout sessions and subscriptions through its SDK, and its signed events. */
export const stripe = {
  id: 'stripe',
  name: 'Stripe',
  webhook: {
    secretKey: 'stripeWebhookSecret',
    signatureHeaders: STRIPE_SIGNATURE_HEADERS,
    verify: verifyStripeSignature,
    normalise: normaliseStripeEvent,
    setup: STRIPE_WEBHOOK_SETUP,
  },
  checkout: {
    settings: stripeCheckoutSettings,
    client: (config, { timeoutMs }) =>
      createStripeClient({
        secretKey: config.stripeSecretKey!,
        apiUrl: config.stripeApiUrl,
        timeoutMs,
        maxNetworkRetries: config.stripeMaxNetworkRetries ?? 1,
      }),
  },
} as const satisfies PaymentProviderDescriptor<StripeCheckoutConfig>
