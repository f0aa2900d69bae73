/**
 * What a payment provider's checkout client is, as the gateway calls it: the request, the metadata every
 * checkout carries, the settings it reads, and its answers as values. Provider folders import this file;
 * they never import the gateway.
 */

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

/** CONTRACT.md: what every sponsor-ad checkout and renewal carries, on every provider, exactly. */
export type SponsorAdCheckoutMetadata = { type: 'sponsor_ad'; sponsorAdId: string; itemSlug: string }

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

/** A setting a provider needs, by its name; LemonSqueezy's store and variant ids are numbers. */
export interface Setting {
  name: string
  value: string | undefined
  numeric?: boolean
  /** Taken out of every failure message the gateway passes on. */
  secret?: boolean
}

export interface CheckoutSettings {
  /** All must be set to call the provider. */
  credentials: Setting[]
  prices: Record<SponsorInterval, Setting>
}

/**
 * A provider's checkout: the settings it reads from `C` (a slice of the configuration) and its client,
 * made once those settings are set and checked.
 */
export interface CheckoutSupport<C> {
  settings(config: C): CheckoutSettings
  client(config: C, options: { timeoutMs: number }): ProviderClient
}
