/// <reference types="mapbox__mapbox-sdk" />
import { createRequire } from 'node:module'
import type { MapiError } from '@mapbox/mapbox-sdk/lib/classes/mapi-error'
import type { MapiRequest } from '@mapbox/mapbox-sdk/lib/classes/mapi-request'
import type { GeocodeRequest, GeocodeResponse, GeocodeService } from '@mapbox/mapbox-sdk/services/geocoding'
import { isRecord } from '../../lib/values.ts'
import {
  clamp01,
  type ForwardQuery,
  type ForwardResult,
  type GeocodeFailure,
  type GeocodeOutcome,
  type Geocoder,
  isCoordinate,
  type ReverseQuery,
  type ReverseResult,
  reasonOfStatus,
  safeMessage,
  withDeadline,
} from '../geocoder.ts'

/**
 * Mapbox's Geocoding API v5 (`{baseUrl}/geocoding/v5/mapbox.places/{query}.json`) through the official SDK
 * (`@mapbox/mapbox-sdk`, which sends with got in Node: no retries, no redirects followed). The token goes in
 * the `access_token` query parameter, as the API takes it.
 */

const require = createRequire(import.meta.url)

type GeocodingServiceConfig = { accessToken: string; origin?: string }

/**
 * A geocoding service of the SDK, which is loaded at the first call. Synchronously, because
 * `isMapboxTokenShape` and `createMapboxGeocoder` answer at once (the SDK reads the token as it makes the
 * service); both run only where a Mapbox token is configured. The SDK is CommonJS without an `exports` map,
 * so ESM cannot import its subpaths; its types name them bare. `require` keeps it after the first load.
 */
function createGeocodingService(config: GeocodingServiceConfig): GeocodeService {
  const create = require('@mapbox/mapbox-sdk/services/geocoding') as (
    config: GeocodingServiceConfig,
  ) => GeocodeService
  return create(config)
}

export interface MapboxGeocoderOptions {
  /** A Mapbox token, `pk.…` (public) or `sk.…` (secret). */
  accessToken: string
  /** `https://api.mapbox.com`, or a stand-in; `/geocoding/v5/…` is added. */
  baseUrl: string
  /** The whole of one request. */
  timeoutMs: number
}

/**
 * Whether the SDK takes `token` as a Mapbox token: `<usage>.<base64 JSON payload>[.<signature>]`. The SDK
 * reads the payload before it sends anything, and throws on one it cannot read, so config checks it first.
 */
export function isMapboxTokenShape(token: string): boolean {
  try {
    createGeocodingService({ accessToken: token })
    return true
  } catch {
    return false
  }
}

/** The Mapbox places a feature's `id` prefix (`place.123`) says it is, and the field each one fills. */
const LEVELS = {
  place: 'city',
  region: 'state',
  country: 'country',
  postcode: 'postalCode',
} as const

type Components = Pick<ReverseResult, 'city' | 'state' | 'country' | 'countryCode' | 'postalCode'>

/** What the feature itself and its `context` (the places that hold it) say, by id prefix. */
function componentsOf(feature: Record<string, unknown>): Components {
  const components: Components = { city: '', state: '', country: '', countryCode: '', postalCode: '' }
  const context = Array.isArray(feature.context) ? feature.context : []
  for (const part of [feature, ...context]) {
    if (!isRecord(part) || typeof part.id !== 'string' || typeof part.text !== 'string') continue
    const field = LEVELS[part.id.split('.')[0] as keyof typeof LEVELS]
    if (!field || components[field]) continue
    components[field] = part.text
    const shortCode = part.short_code ?? (isRecord(part.properties) ? part.properties.short_code : undefined)
    if (field === 'country' && typeof shortCode === 'string') components.countryCode = shortCode.toUpperCase()
  }
  return components
}

/** The first feature of a FeatureCollection with a usable center; null when it has none; a string when garbled. */
function firstFeature(body: unknown): Record<string, unknown> | null | string {
  if (!isRecord(body) || body.type !== 'FeatureCollection' || !Array.isArray(body.features)) {
    return 'not a FeatureCollection'
  }
  const feature: unknown = body.features[0]
  if (feature === undefined) return null
  if (!isRecord(feature)) return 'a feature that is not an object'
  const center = feature.center
  if (!Array.isArray(center) || center.length !== 2 || !isCoordinate(center[1], center[0])) {
    return 'a feature without a valid center'
  }
  return feature
}

const text = (value: unknown) => (typeof value === 'string' ? value : '')

function forwardResultOf(feature: Record<string, unknown>): ForwardResult {
  const [longitude, latitude] = feature.center as [number, number]
  const relevance = typeof feature.relevance === 'number' ? feature.relevance : 0
  return {
    latitude,
    longitude,
    formattedAddress: text(feature.place_name),
    ...componentsOf(feature),
    confidence: Number.isFinite(relevance) ? clamp01(relevance) : 0,
  }
}

function reverseResultOf(feature: Record<string, unknown>): ReverseResult {
  const isAddress =
    (Array.isArray(feature.place_type) && feature.place_type.includes('address')) ||
    text(feature.id).startsWith('address.')
  const street = text(feature.text)
  const number = text(feature.address)
  return {
    formattedAddress: text(feature.place_name),
    streetAddress: isAddress ? [number, street].filter(Boolean).join(' ') : '',
    ...componentsOf(feature),
  }
}

/**
 * A geocoder speaking to Mapbox. Throws at once when `accessToken` is not shaped as a Mapbox token (the SDK
 * could send nothing with it); config checks `isMapboxTokenShape` first to say so at boot.
 */
export function createMapboxGeocoder({ accessToken, baseUrl, timeoutMs }: MapboxGeocoderOptions): Geocoder {
  if (!isMapboxTokenShape(accessToken)) {
    throw new Error('MAPBOX_ACCESS_TOKEN is not a Mapbox token (expected pk.… or sk.… as Mapbox issues them)')
  }
  const service = createGeocodingService({ accessToken, origin: baseUrl.replace(/\/+$/, '') })
  const safe = (message: string) => safeMessage(message, accessToken)
  const release = (request: MapiRequest<GeocodeResponse>) =>
    (request.client as unknown as { abortRequest(request: MapiRequest<GeocodeResponse>): void }).abortRequest(
      request,
    )

  function failure(reason: GeocodeFailure['reason'], status: number | null, error: string): GeocodeFailure {
    return { ok: false, status, reason, error: safe(error) }
  }

  /** Sends one request and maps what comes back: the first feature, none, or why there is none. */
  async function send<T>(
    build: () => MapiRequest<GeocodeResponse>,
    normalise: (feature: Record<string, unknown>) => T,
  ): Promise<GeocodeOutcome<T>> {
    let request: MapiRequest<GeocodeResponse>
    try {
      request = build()
    } catch (error) {
      // The SDK checks its parameters before sending (fusspot): nothing reached Mapbox.
      return failure('refused', null, `Mapbox query refused before sending: ${(error as Error).message}`)
    }
    let timedOut = false
    const call = request.send().then(
      (response): GeocodeOutcome<T> => {
        const feature = firstFeature(response.body)
        if (typeof feature === 'string') {
          return failure(
            'bad_answer',
            response.statusCode,
            `Mapbox answered ${response.statusCode} with ${feature}`,
          )
        }
        return { ok: true, result: feature && normalise(feature) }
      },
      (error: unknown): GeocodeOutcome<T> => {
        if (timedOut) return failure('timeout', null, `Mapbox did not answer within ${timeoutMs} ms`)
        const mapiError = error as Partial<MapiError>
        if (mapiError.type === 'HttpError' && typeof mapiError.statusCode === 'number') {
          const status = mapiError.statusCode
          const said = typeof mapiError.message === 'string' ? `: ${mapiError.message}` : ''
          return failure(reasonOfStatus(status), status, `Mapbox answered ${status}${said}`)
        }
        const reason = error instanceof Error ? error.message : String(mapiError.message ?? error)
        return failure('unavailable', null, `Mapbox could not be reached: ${reason}`)
      },
    )
    try {
      return await withDeadline(
        timeoutMs,
        call,
        () => {
          timedOut = true
          request.abort()
        },
        () => failure('timeout', null, `Mapbox did not answer within ${timeoutMs} ms`),
      )
    } finally {
      // The SDK's Node layer keeps every request's streams in a module-level map and drops them only on
      // abort (about 17 KB each); aborting a settled request just drops them.
      release(request)
    }
  }

  return {
    name: 'mapbox',

    forward(query: ForwardQuery) {
      // A semicolon separates the queries of a batch in Mapbox's path; one address is one query.
      const address = query.address.replaceAll(';', ',')
      const request: GeocodeRequest = { query: address, limit: 1 }
      if (query.countryCodes?.length) request.countries = query.countryCodes.map((code) => code.toLowerCase())
      if (query.language) request.language = [query.language]
      if (query.proximity) request.proximity = [query.proximity.longitude, query.proximity.latitude]
      return send(() => service.forwardGeocode(request), forwardResultOf)
    },

    reverse(query: ReverseQuery) {
      // One feature, the most precise at the point; a higher limit would need exactly one `types`.
      const request = {
        // The SDK takes coordinates here ([longitude, latitude]); its types say a string.
        query: [query.longitude, query.latitude] as unknown as string,
        limit: 1,
        ...(query.language ? { language: [query.language] } : {}),
      } satisfies GeocodeRequest
      return send(() => service.reverseGeocode(request), reverseResultOf)
    },
  }
}
