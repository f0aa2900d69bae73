import type {
  CheckoutRequest,
  ProviderClient,
  ProviderFailure,
  Setting,
  SponsorAdCheckoutMetadata,
} from './contract/checkout.ts'
import { CHECKOUT_PAYMENT_PROVIDERS, type CheckoutProvider, type PaymentCheckoutConfig } from './registry.ts'

export type { CheckoutProvider }

export interface CheckoutSession {
  provider: CheckoutProvider
  checkoutId: string
  checkoutUrl: string
}

/** Thrown when the provider's credentials or the interval's price id are not set: the route answers 400. */
export class PaymentNotConfiguredError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PaymentNotConfiguredError'
  }
}

/**
 * Thrown when the provider refuses or cannot be reached. `retry` says whether a later attempt may succeed
 * (5xx, 429, timeouts, connection errors). `message` is safe to log but the route shows a generic one.
 */
export class PaymentProviderError extends Error {
  readonly provider: CheckoutProvider
  /** The provider's HTTP status; null when no usable answer came (timeout, connection error). */
  readonly status: number | null
  readonly retry: boolean
  /** The provider's own error code (Stripe `resource_missing`, Polar `ResourceNotFound`, a LemonSqueezy title). */
  readonly code: string | null
  constructor(provider: CheckoutProvider, failure: ProviderFailure) {
    super(failure.message)
    this.name = 'PaymentProviderError'
    this.provider = provider
    this.status = failure.status
    this.code = failure.code
    this.retry = failure.status === null || failure.status === 429 || failure.status >= 500
  }
}

export interface PaymentGateways {
  /**
   * The checkout session at `provider`. Metadata on every checkout is exactly {type:'sponsor_ad', sponsorAdId,
   * itemSlug}; each provider's client says where it puts it.
   */
  createCheckout(provider: CheckoutProvider, request: CheckoutRequest): Promise<CheckoutSession>
  /** Cancels the provider subscription at once. Already cancelled or not found at the provider counts as done. */
  cancelSubscription(provider: CheckoutProvider, subscriptionId: string): Promise<void>
  /** Whether the provider's credentials are set (its API key or token, and any account id it needs). */
  configured(provider: CheckoutProvider): boolean
}

export type PaymentGatewaysConfig = PaymentCheckoutConfig & {
  /** Cap on each provider request. Default 10 s. */
  paymentTimeoutMs?: number
}

const DEFAULT_TIMEOUT_MS = 10_000

const notSet = (names: string[]) =>
  new PaymentNotConfiguredError(`${names.join(' and ')} ${names.length === 1 ? 'is' : 'are'} not set`)

/** The setting's value, or PaymentNotConfiguredError naming it. */
function settingValue({ name, value, numeric }: Setting): string {
  if (!value) throw notSet([name])
  if (numeric && !/^\d+$/.test(value)) {
    throw new PaymentNotConfiguredError(`${name} must be a number (got "${value.slice(0, 40)}")`)
  }
  return value
}

/**
 * Sponsor-ad checkouts and subscription cancellations at every registered provider that takes payments,
 * each through its own client (its official SDK against its `*_API_URL`). A provider's client is made on
 * first use, once its settings are set.
 */
export function createPaymentGateways(config: PaymentGatewaysConfig): PaymentGateways {
  const timeoutMs = config.paymentTimeoutMs ?? DEFAULT_TIMEOUT_MS
  const checkouts = new Map(
    CHECKOUT_PAYMENT_PROVIDERS.map((provider) => [
      provider.id,
      { provider, settings: provider.checkout.settings(config) },
    ]),
  )
  const secrets = [...checkouts.values()]
    .flatMap(({ settings }) => settings.credentials)
    .filter((setting) => setting.secret && !!setting.value)
    .map((setting) => setting.value as string)
  const clients = new Map<CheckoutProvider, ProviderClient>()

  function checkoutOf(id: CheckoutProvider) {
    const checkout = checkouts.get(id)
    if (!checkout) throw new TypeError(`${id} takes no checkout`)
    return checkout
  }

  /** The provider's client, or PaymentNotConfiguredError naming every credential that is not set. */
  function clientOf(id: CheckoutProvider): ProviderClient {
    const { provider, settings } = checkoutOf(id)
    const missing = settings.credentials.filter((setting) => !setting.value).map((setting) => setting.name)
    if (missing.length > 0) throw notSet(missing)
    for (const setting of settings.credentials) settingValue(setting)
    let client = clients.get(id)
    if (!client) {
      client = provider.checkout.client(config, { timeoutMs })
      clients.set(id, client)
    }
    return client
  }

  /** The failure as PaymentProviderError, with any credential that slipped into the reason taken out. */
  function providerError(provider: CheckoutProvider, failure: ProviderFailure): PaymentProviderError {
    let message = failure.message
    for (const secret of secrets) message = message.replaceAll(secret, '[redacted]')
    return new PaymentProviderError(provider, { ...failure, message })
  }

  return {
    async createCheckout(provider, request) {
      const client = clientOf(provider)
      const priceId = settingValue(checkoutOf(provider).settings.prices[request.interval])
      const metadata: SponsorAdCheckoutMetadata = {
        type: 'sponsor_ad',
        sponsorAdId: request.sponsorAdId,
        itemSlug: request.itemSlug,
      }
      const outcome = await client.createCheckout({ priceId, metadata, request })
      if (!outcome.ok) throw providerError(provider, outcome.failure)
      return { provider, ...outcome.value }
    },

    async cancelSubscription(provider, subscriptionId) {
      // A blank id would address the collection (or nothing) and could read as "not found", i.e. done.
      if (!subscriptionId.trim()) throw new TypeError('subscriptionId is empty')
      const outcome = await clientOf(provider).cancelSubscription(subscriptionId)
      if (!outcome.ok) throw providerError(provider, outcome.failure)
    },

    configured(provider) {
      return checkoutOf(provider).settings.credentials.every((setting) => !!setting.value)
    },
  }
}
