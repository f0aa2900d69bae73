import type { PaymentProviderDescriptor } from '../payments/contract/provider.ts'
import { normaliseSolidgateEvent } from './events.ts'
import { SOLIDGATE_WEBHOOK_SETUP } from './setup.ts'
import { SOLIDGATE_SIGNATURE_HEADERS, verifySolidgateSignature } from './signature.ts'

/** Solidgate sends signed events only: Curio makes no checkout there. */
export const solidgate = {
  id: 'solidgate',
  name: 'Solidgate',
  webhook: {
    secretKey: 'solidgateWebhookSecret',
    signatureHeaders: SOLIDGATE_SIGNATURE_HEADERS,
    // SPEC.md: an event without a body `id` is named by its `x-request-id` header.
    idHeader: 'x-request-id',
    verify: verifySolidgateSignature,
    normalise: normaliseSolidgateEvent,
    setup: SOLIDGATE_WEBHOOK_SETUP,
  },
} as const satisfies PaymentProviderDescriptor
