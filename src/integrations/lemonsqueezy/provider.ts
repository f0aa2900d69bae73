import type { PaymentProviderDescriptor } from '../payments/contract/provider.ts'
import { createLemonSqueezyClient } from './client.ts'
import { normaliseLemonSqueezyEvent } from './events.ts'
import {
  LEMONSQUEEZY_WEBHOOK_SETUP,
  type LemonSqueezyCheckoutConfig,
  lemonSqueezyCheckoutSettings,
} from './setup.ts'
import { LEMONSQUEEZY_SIGNATURE_HEADERS, verifyLemonSqueezySignature } from './signature.ts'

/** LemonSqueezy: checkouts and subscriptions through its SDK, and its signed events. */
export const lemonSqueezy = {
  id: 'lemonsqueezy',
  name: 'LemonSqueezy',
  webhook: {
    secretKey: 'lemonsqueezyWebhookSecret',
    signatureHeaders: LEMONSQUEEZY_SIGNATURE_HEADERS,
    verify: verifyLemonSqueezySignature,
    normalise: normaliseLemonSqueezyEvent,
    setup: LEMONSQUEEZY_WEBHOOK_SETUP,
  },
  checkout: {
    settings: lemonSqueezyCheckoutSettings,
    client: (config, { timeoutMs }) =>
      createLemonSqueezyClient({
        apiKey: config.lemonsqueezyApiKey!,
        storeId: config.lemonsqueezyStoreId!,
        apiUrl: config.lemonsqueezyApiUrl,
        timeoutMs,
      }),
  },
} as const satisfies PaymentProviderDescriptor<LemonSqueezyCheckoutConfig>
