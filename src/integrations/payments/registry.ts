/**
 * The payment providers Curio knows, in the order the API lists them. The gateway, the webhook routes and
 * the event inbox read them from here; nothing else imports a provider. Adding one is its folder under
 * src/integrations/, a line in this list and its settings in config.ts.
 */
import type { Config } from '../../config.ts'
import { lemonSqueezy } from '../lemonsqueezy/provider.ts'
import { polar } from '../polar/provider.ts'
import { solidgate } from '../solidgate/provider.ts'
import { stripe } from '../stripe/provider.ts'
import type { EventNormalisation } from './contract/events.ts'

export const PAYMENT_PROVIDERS = [stripe, lemonSqueezy, polar, solidgate] as const

type Registered = (typeof PAYMENT_PROVIDERS)[number]
export type PaymentProvider = Registered['id']

type WithCheckout = Extract<Registered, { checkout: object }>
/** The providers a sponsor ad can be paid through. */
export type CheckoutProvider = WithCheckout['id']
export const CHECKOUT_PAYMENT_PROVIDERS: readonly WithCheckout[] = PAYMENT_PROVIDERS.filter(
  (provider): provider is WithCheckout => 'checkout' in provider,
)
/** Their ids, in the registry's order: the API's enum of checkout providers. */
export const CHECKOUT_PROVIDER_IDS: readonly CheckoutProvider[] = CHECKOUT_PAYMENT_PROVIDERS.map(
  (provider) => provider.id,
)

type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (
  intersection: infer I,
) => void
  ? I
  : never
/** What every provider's checkout reads from the configuration. */
export type PaymentCheckoutConfig = UnionToIntersection<Parameters<WithCheckout['checkout']['settings']>[0]>

/** The configuration's signing secrets of every provider's webhooks. */
export type PaymentWebhooksConfig = Pick<Config, Registered['webhook']['secretKey']>

/** Each provider's webhook signing secret; a provider without one refuses every event. */
export function webhookSecrets(config: PaymentWebhooksConfig): Record<PaymentProvider, string | undefined> {
  return Object.fromEntries(
    PAYMENT_PROVIDERS.map((provider) => [provider.id, config[provider.webhook.secretKey]]),
  ) as Record<PaymentProvider, string | undefined>
}

/** The providers' names as a sentence lists them: `Stripe, LemonSqueezy or Polar`. */
export function providerNames(providers: readonly { name: string }[], conjunction: 'and' | 'or'): string {
  const names = providers.map((provider) => provider.name)
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} ${conjunction} ${names.at(-1)}`
}

const byId = new Map<string, Registered>(PAYMENT_PROVIDERS.map((provider) => [provider.id, provider]))

/** The registered provider of that id; an unknown one is a bug (ids come from the routes and stored rows). */
export function paymentProvider(id: string): Registered {
  const provider = byId.get(id)
  if (!provider) throw new Error(`Unknown payment provider ${id}`)
  return provider
}

/** An event's normalisation from its body; `headerId` is the id the route read from the provider's id header. */
export function normalisePaymentEvent(
  provider: string,
  payload: unknown,
  headerId?: string,
): EventNormalisation {
  return paymentProvider(provider).webhook.normalise(payload, headerId)
}
