import type { PaymentProviderDescriptor } from '../payments/contract/provider.ts'
import { createPolarClient } from './client.ts'
import { normalisePolarEvent } from './events.ts'
import { POLAR_WEBHOOK_SETUP, type PolarCheckoutConfig, polarCheckoutSettings } from './setup.ts'
import { POLAR_SIGNATURE_HEADERS, verifyPolarSignature } from './signature.ts'

/** Polar: checkouts and subscriptions through its SDK, and its Standard Webhooks events. */
export const polar = {
  id: 'polar',
  name: 'Polar',
  webhook: {
    secretKey: 'polarWebhookSecret',
    signatureHeaders: POLAR_SIGNATURE_HEADERS,
    // Polar's body has no event id: the Standard Webhooks `webhook-id` header is its id.
    idHeader: 'webhook-id',
    verify: verifyPolarSignature,
    normalise: normalisePolarEvent,
    setup: POLAR_WEBHOOK_SETUP,
  },
  checkout: {
    settings: polarCheckoutSettings,
    client: (config, { timeoutMs }) =>
      createPolarClient({ accessToken: config.polarAccessToken!, apiUrl: config.polarApiUrl, timeoutMs }),
  },
} as const satisfies PaymentProviderDescriptor<PolarCheckoutConfig>
