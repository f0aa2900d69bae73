import { LRUCache } from 'lru-cache'
import type { Config } from '../../config.ts'
import type {
  ForwardQuery,
  ForwardResult,
  GeocodeFailure,
  GeocodeOutcome,
  Geocoder,
  GeocodingProviderName,
  ReverseQuery,
  ReverseResult,
} from '../../integrations/geocoder.ts'
import { createGoogleGeocoder } from '../../integrations/google-maps/geocoder.ts'
import { createMapboxGeocoder } from '../../integrations/mapbox/geocoder.ts'
import type { Clock } from '../../lib/clock.ts'
import { HttpError, notFound } from '../../lib/errors.ts'
import { cacheHits, cacheMisses } from '../../lib/metrics.ts'

/** SPEC.md's Limits: the geocoding cache holds 1,000 answers for 15 minutes. */
export const GEOCODE_CACHE_MAX = 1000
export const GEOCODE_CACHE_TTL_MS = 15 * 60 * 1000

/** Coordinates in a cache key are rounded to this many decimals (about 11 m): near-identical points share. */
const KEY_DECIMALS = 4

export const PROVIDER_NAMES: readonly GeocodingProviderName[] = ['mapbox', 'google']

type GeocodingConfig = Pick<
  Config,
  | 'locationEnabled'
  | 'geocodingProvider'
  | 'mapboxAccessToken'
  | 'googleMapsApiKey'
  | 'mapboxApiUrl'
  | 'googleMapsApiUrl'
  | 'geocodingTimeoutMs'
>

export interface GeocodingServiceDeps {
  config: GeocodingConfig
  clock: Clock
  /** Whether the site's settings have location features on (the instance's LOCATION_ENABLED aside). */
  siteLocationEnabled: () => Promise<boolean>
}

/** A request for the cache: what to ask, answered by the providers in order. */
type Lookup = { kind: 'forward'; query: ForwardQuery } | { kind: 'reverse'; query: ReverseQuery }
/** What the cache keeps: a place, or that nothing was found (lru-cache keeps no undefined). */
type Cached = { result: ForwardResult | ReverseResult | null }

/** Every provider failed: why each did, in order. */
class ProvidersFailed extends Error {
  readonly failures: { provider: GeocodingProviderName; failure: GeocodeFailure }[]
  constructor(failures: { provider: GeocodingProviderName; failure: GeocodeFailure }[]) {
    super(failures.map(({ provider, failure }) => `${provider}: ${failure.error}`).join('; '))
    this.failures = failures
  }
}

const REASON_WORDS: Record<GeocodeFailure['reason'], string> = {
  timeout: 'timed out',
  rate_limited: 'rate limited',
  unauthorized: 'refused the credentials',
  unavailable: 'unavailable',
  bad_answer: 'answered garbage',
  refused: 'refused the query',
}

const folded = (text: string) => text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase()
const rounded = (value: number) => value.toFixed(KEY_DECIMALS)

/**
 * The cache key of a lookup: what makes two requests the same question. Case and runs of whitespace of the
 * address do not count, nor the order or case of the country codes; coordinates count to 4 decimals.
 */
export function cacheKeyOf(lookup: Lookup): string {
  if (lookup.kind === 'reverse') {
    const { latitude, longitude, language } = lookup.query
    return ['r', rounded(latitude), rounded(longitude), language?.toLowerCase() ?? ''].join('|')
  }
  const { address, countryCodes, language, proximity } = lookup.query
  return [
    'f',
    folded(address),
    [...new Set((countryCodes ?? []).map((code) => code.toUpperCase()))].sort().join(','),
    language?.toLowerCase() ?? '',
    proximity ? `${rounded(proximity.latitude)},${rounded(proximity.longitude)}` : '',
  ].join('|')
}

/** The geocoding providers that have credentials, the chosen one (`GEOCODING_PROVIDER`) first. */
export function geocodingProviders(
  config: Pick<Config, 'geocodingProvider' | 'mapboxAccessToken' | 'googleMapsApiKey'>,
): GeocodingProviderName[] {
  const configured: GeocodingProviderName[] = [
    ...(config.mapboxAccessToken ? (['mapbox'] as const) : []),
    ...(config.googleMapsApiKey ? (['google'] as const) : []),
  ]
  const chosen = config.geocodingProvider
  return chosen && configured.includes(chosen)
    ? [chosen, ...configured.filter((p) => p !== chosen)]
    : configured
}

/** The geocoders of the providers with credentials, the chosen one (`GEOCODING_PROVIDER`) first. */
export function geocodersOf(config: GeocodingConfig): Geocoder[] {
  return geocodingProviders(config).map((name) =>
    name === 'mapbox'
      ? createMapboxGeocoder({
          accessToken: config.mapboxAccessToken ?? '',
          baseUrl: config.mapboxApiUrl,
          timeoutMs: config.geocodingTimeoutMs,
        })
      : createGoogleGeocoder({
          apiKey: config.googleMapsApiKey ?? '',
          baseUrl: config.googleMapsApiUrl,
          timeoutMs: config.geocodingTimeoutMs,
        }),
  )
}

/**
 * Forward and reverse geocoding: the configured provider first, the other when it fails (not when it finds
 * nothing), answers kept in a true LRU cache of 1,000 entries for 15 minutes. Identical lookups that miss at
 * once share one provider call (lru-cache's `fetch`); failures are not cached. The cache is per instance,
 * as SPEC.md defines it.
 */
export function createGeocodingService({ config, clock, siteLocationEnabled }: GeocodingServiceDeps) {
  const geocoders = geocodersOf(config)
  const figures = { hits: 0, misses: 0, providerCalls: 0 }

  async function ask(lookup: Lookup): Promise<Cached> {
    const failures: { provider: GeocodingProviderName; failure: GeocodeFailure }[] = []
    for (const geocoder of geocoders) {
      figures.providerCalls++
      const outcome: GeocodeOutcome<ForwardResult | ReverseResult> =
        lookup.kind === 'forward'
          ? await geocoder.forward(lookup.query)
          : await geocoder.reverse(lookup.query)
      if (outcome.ok) return { result: outcome.result }
      failures.push({ provider: geocoder.name, failure: outcome })
    }
    throw new ProvidersFailed(failures)
  }

  const cache = new LRUCache<string, Cached, { request: Lookup }>({
    max: GEOCODE_CACHE_MAX,
    ttl: GEOCODE_CACHE_TTL_MS,
    // Expiry follows the service's clock, so a test moves time instead of waiting for it.
    perf: { now: () => clock.nowMs() },
    ttlResolution: 0,
    fetchMethod: (_key, _stale, { context }) => ask(context.request),
  })

  async function enabled(): Promise<boolean> {
    return config.locationEnabled && (await siteLocationEnabled())
  }

  /** 503 unless location features are on and a provider has credentials. */
  async function checkAvailable() {
    if (!(await enabled())) {
      throw new HttpError(503, 'LOCATION_DISABLED', 'Location features are disabled on this site')
    }
    if (geocoders.length === 0) {
      throw new HttpError(503, 'GEOCODING_NOT_CONFIGURED', 'No geocoding provider is configured')
    }
  }

  /** The cached answer, or the providers' (shared with identical lookups in flight); throws when all fail. */
  async function lookup(request: Lookup): Promise<Cached> {
    const key = cacheKeyOf(request)
    const cached = cache.get(key)
    if (cached) {
      figures.hits++
      cacheHits.inc({ cache: 'geocoding' })
      return cached
    }
    figures.misses++
    cacheMisses.inc({ cache: 'geocoding' })
    const answer = await cache.fetch(key, { context: { request } })
    if (!answer) throw new Error('geocoding cache fetch answered nothing')
    return answer
  }

  async function answer<T extends ForwardResult | ReverseResult>(
    request: Lookup,
    noneMessage: string,
  ): Promise<T> {
    await checkAvailable()
    let cached: Cached
    try {
      cached = await lookup(request)
    } catch (error) {
      if (!(error instanceof ProvidersFailed)) throw error
      const why = error.failures.map(
        ({ provider, failure }) => `${provider}: ${REASON_WORDS[failure.reason]}`,
      )
      throw new HttpError(
        503,
        'GEOCODING_FAILED',
        `The geocoding providers could not answer (${why.join('; ')}); try again later`,
      )
    }
    if (!cached.result) throw notFound(noneMessage, 'GEOCODE_NO_RESULT')
    return cached.result as T
  }

  return {
    forward: (query: ForwardQuery) =>
      answer<ForwardResult>({ kind: 'forward', query }, 'No location found for this address'),
    reverse: (query: ReverseQuery) =>
      answer<ReverseResult>({ kind: 'reverse', query }, 'No address found for these coordinates'),

    /**
     * For the location index: a place for an address, null when none is found, or the reason every
     * provider failed; never throws for a provider's failure. Unavailable geocoding answers `off`.
     */
    async place(
      query: ForwardQuery,
    ): Promise<{ ok: true; result: ForwardResult | null } | { ok: false; off: boolean; error: string }> {
      if (!(await enabled()) || geocoders.length === 0) {
        return { ok: false, off: true, error: 'geocoding is off or not configured' }
      }
      try {
        const cached = await lookup({ kind: 'forward', query })
        return { ok: true, result: cached.result as ForwardResult | null }
      } catch (error) {
        if (error instanceof ProvidersFailed) return { ok: false, off: false, error: error.message }
        throw error
      }
    },

    /** SPEC.md's `GET /api/geocode` answer. */
    async status() {
      const configured = new Set(geocoders.map((geocoder) => geocoder.name))
      return {
        enabled: await enabled(),
        configured: configured.size > 0,
        providers: { mapbox: configured.has('mapbox'), google: configured.has('google') },
        cache: { size: cache.size, maxSize: GEOCODE_CACHE_MAX, ttlMs: GEOCODE_CACHE_TTL_MS },
      }
    },

    /** Counters since start, for tests and benchmarks: cache hits and misses, provider calls made. */
    figures: () => ({ ...figures }),
  }
}

export type GeocodingService = ReturnType<typeof createGeocodingService>
