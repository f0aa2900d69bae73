import type { Config } from '../../config.ts'
import { createLemonSqueezyClient } from './lemonsqueezy.ts'
import { createPolarClient } from './polar.ts'
import { createStripeClient } from './stripe.ts'

export type CheckoutProvider = 'stripe' | 'lemonsqueezy' | 'polar'
export type SponsorInterval = 'weekly' | 'monthly'

export interface CheckoutRequest {
  /** uuid */
  sponsorAdId: string
  itemSlug: string
  itemName: string
  interval: SponsorInterval
  userId: string
  customerEmail: string
  successUrl: string
  cancelUrl: string
  /** true for a renewal checkout of an active/expired ad */
  renewal: boolean
}

export interface CheckoutSession {
  provider: CheckoutProvider
  checkoutId: string
  checkoutUrl: string
}

/** CONTRACT.md: what every sponsor-ad checkout and renewal carries, on every provider, exactly. */
export type SponsorAdCheckoutMetadata = { type: 'sponsor_ad'; sponsorAdId: string; itemSlug: string }

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
   * itemSlug} (Stripe: the session's metadata AND subscription_data.metadata; LemonSqueezy:
   * checkout_data.custom; Polar: metadata).
   */
  createCheckout(provider: CheckoutProvider, request: CheckoutRequest): Promise<CheckoutSession>
  /** Cancels the provider subscription at once. Already cancelled or not found at the provider counts as done. */
  cancelSubscription(provider: CheckoutProvider, subscriptionId: string): Promise<void>
  /** Whether the provider's credentials are set (API key/token, and LemonSqueezy's store id). */
  configured(provider: CheckoutProvider): boolean
}

export type PaymentGatewaysConfig = Pick<
  Config,
  | 'stripeSecretKey'
  | 'stripeApiUrl'
  | 'lemonsqueezyApiKey'
  | 'lemonsqueezyApiUrl'
  | 'lemonsqueezyStoreId'
  | 'polarAccessToken'
  | 'polarApiUrl'
  | 'stripeSponsorWeeklyPriceId'
  | 'stripeSponsorMonthlyPriceId'
  | 'lemonsqueezySponsorWeeklyVariantId'
  | 'lemonsqueezySponsorMonthlyVariantId'
  | 'polarSponsorWeeklyPriceId'
  | 'polarSponsorMonthlyPriceId'
> & {
  /** Cap on each provider request. Default 10 s. */
  paymentTimeoutMs?: number
  /** Stripe's own retries of a connection error, 409 or 5xx (after 0.5–1 s). Default 1. */
  stripeMaxNetworkRetries?: number
}

/** Why a provider call failed, as a provider module reports it (never with its credentials). */
export interface ProviderFailure {
  /** The provider's HTTP status; null when no usable answer came (timeout, connection error). */
  status: number | null
  code: string | null
  message: string
}

export type ProviderOutcome<T> = { ok: true; value: T } | { ok: false; failure: ProviderFailure }

/** What one provider module does through its SDK: its failures come back as values; only a bug is thrown. */
export interface ProviderClient {
  createCheckout(checkout: {
    /** The provider's id of what is bought for the interval (price, variant, product). */
    priceId: string
    metadata: SponsorAdCheckoutMetadata
    request: CheckoutRequest
  }): Promise<ProviderOutcome<{ checkoutId: string; checkoutUrl: string }>>
  /** Resolves `ok` when the subscription is cancelled now, was already, or is unknown to the provider. */
  cancelSubscription(subscriptionId: string): Promise<ProviderOutcome<void>>
}

const DEFAULT_TIMEOUT_MS = 10_000

/** A setting a provider needs, by its name; LemonSqueezy's store and variant ids are numbers. */
interface Setting {
  name: string
  value: string | undefined
  numeric?: boolean
}

interface ProviderSettings {
  /** All must be set to call the provider. */
  credentials: Setting[]
  prices: Record<SponsorInterval, Setting>
}

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
 * Sponsor-ad checkouts and subscription cancellations at Stripe, LemonSqueezy and Polar, each through its
 * official SDK against its `*_API_URL`. A provider's client is made on first use, once its settings are set.
 */
export function createPaymentGateways(config: PaymentGatewaysConfig): PaymentGateways {
  const timeoutMs = config.paymentTimeoutMs ?? DEFAULT_TIMEOUT_MS
  const settings: Record<CheckoutProvider, ProviderSettings> = {
    stripe: {
      credentials: [{ name: 'STRIPE_SECRET_KEY', value: config.stripeSecretKey }],
      prices: {
        weekly: { name: 'STRIPE_SPONSOR_WEEKLY_PRICE_ID', value: config.stripeSponsorWeeklyPriceId },
        monthly: { name: 'STRIPE_SPONSOR_MONTHLY_PRICE_ID', value: config.stripeSponsorMonthlyPriceId },
      },
    },
    lemonsqueezy: {
      credentials: [
        { name: 'LEMONSQUEEZY_API_KEY', value: config.lemonsqueezyApiKey },
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
    },
    polar: {
      credentials: [{ name: 'POLAR_ACCESS_TOKEN', value: config.polarAccessToken }],
      prices: {
        weekly: { name: 'POLAR_SPONSOR_WEEKLY_PRICE_ID', value: config.polarSponsorWeeklyPriceId },
        monthly: { name: 'POLAR_SPONSOR_MONTHLY_PRICE_ID', value: config.polarSponsorMonthlyPriceId },
      },
    },
  }
  const secrets = [config.stripeSecretKey, config.lemonsqueezyApiKey, config.polarAccessToken].filter(
    (secret): secret is string => !!secret,
  )
  const clients = new Map<CheckoutProvider, ProviderClient>()

  function makeClient(provider: CheckoutProvider): ProviderClient {
    switch (provider) {
      case 'stripe':
        return createStripeClient({
          secretKey: config.stripeSecretKey!,
          apiUrl: config.stripeApiUrl,
          timeoutMs,
          maxNetworkRetries: config.stripeMaxNetworkRetries ?? 1,
        })
      case 'lemonsqueezy':
        return createLemonSqueezyClient({
          apiKey: config.lemonsqueezyApiKey!,
          storeId: config.lemonsqueezyStoreId!,
          apiUrl: config.lemonsqueezyApiUrl,
          timeoutMs,
        })
      case 'polar':
        return createPolarClient({
          accessToken: config.polarAccessToken!,
          apiUrl: config.polarApiUrl,
          timeoutMs,
        })
    }
  }

  /** The provider's client, or PaymentNotConfiguredError naming every credential that is not set. */
  function clientOf(provider: CheckoutProvider): ProviderClient {
    const { credentials } = settings[provider]
    const missing = credentials.filter((setting) => !setting.value).map((setting) => setting.name)
    if (missing.length > 0) throw notSet(missing)
    for (const setting of credentials) settingValue(setting)
    let client = clients.get(provider)
    if (!client) {
      client = makeClient(provider)
      clients.set(provider, client)
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
      const priceId = settingValue(settings[provider].prices[request.interval])
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
      return settings[provider].credentials.every((setting) => !!setting.value)
    },
  }
}
