/**
 * What a payment provider's folder exports: one descriptor that the registry lists and that the gateway,
 * the webhook routes and the event inbox read. This file knows no provider.
 */
import type { Config } from '../../../config.ts'
import type { CheckoutSupport } from './checkout.ts'
import type { EventNormalisation } from './events.ts'
import type { SignatureVerifier } from './signature.ts'

/** How to point the provider at Curio: the webhook route's description, its diagnostic answer, docs/payments.md. */
export interface WebhookSetup {
  /** The setting that holds the signing secret. */
  secret: string
  /** How the provider signs, in the words the route's description uses. */
  signature: string
  /** The event types to subscribe to; each one is handled. */
  events: readonly string[]
}

export interface PaymentWebhook {
  /** The configuration's key of the signing secret (`setup.secret` is its setting). */
  secretKey: keyof Config
  /** The headers a signature comes in; a request with none of them is answered 400 `No signature provided`. */
  signatureHeaders: readonly string[]
  /** The header that carries the event's id when the body has none. */
  idHeader?: string
  verify: SignatureVerifier
  /** The body as SPEC.md's event; `headerId` is the `idHeader`'s value. */
  normalise(payload: unknown, headerId?: string): EventNormalisation
  setup: WebhookSetup
}

/** `C` is the slice of the configuration its checkout reads. */
export interface PaymentProviderDescriptor<C = never> {
  /** Its webhook route's segment (`/api/{id}/webhook`) and the name its events are stored under. */
  id: string
  /** How people read it: `Stripe`. */
  name: string
  webhook: PaymentWebhook
  /** Sponsor-ad checkout and subscription cancel; absent for a provider that only sends events. */
  checkout?: CheckoutSupport<C>
}
