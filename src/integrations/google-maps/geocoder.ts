import type {
  Client,
  ClientOptions,
  GeocodeRequest,
  ReverseGeocodeRequest,
} from '@googlemaps/google-maps-services-js'
import type { AxiosResponse } from 'axios'
import { loadOnce } from '../../lib/load-once.ts'
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
 * Google's Geocoding API (`{baseUrl}/maps/api/geocode/json`) through the official SDK
 * (`@googlemaps/google-maps-services-js`). The SDK's own axios instance retries with backoff (retry-axios)
 * and turns Google's `status` into HTTP errors; ours is plain axios: one attempt, no redirects followed,
 * every status answered, so Google's `status` field is read here, as its API documents it.
 */

export interface GoogleGeocoderOptions {
  apiKey: string
  /** `https://maps.googleapis.com`, or a stand-in; `/maps/api/geocode/json` is added. */
  baseUrl: string
  /** The whole of one request. */
  timeoutMs: number
}

/** How precise Google says a result's location is (`geometry.location_type`), as our confidence. */
const CONFIDENCE: Record<string, number> = {
  ROOFTOP: 1,
  RANGE_INTERPOLATED: 0.8,
  GEOMETRIC_CENTER: 0.6,
  APPROXIMATE: 0.4,
}
/** Google flags a result that matched only part of the query (`partial_match`): trusted a little less. */
const PARTIAL_MATCH_FACTOR = 0.9
/** Half the side, in degrees, of the box that biases a forward query to `proximity` (about 55 km at most). */
const PROXIMITY_BOX_DEGREES = 0.5
const MAX_RESPONSE_BYTES = 1024 * 1024

type Components = Pick<ReverseResult, 'city' | 'state' | 'country' | 'countryCode' | 'postalCode'> & {
  streetAddress: string
}

/** A result's `address_components`, read by type. */
function componentsOf(result: Record<string, unknown>): Components {
  const parts = Array.isArray(result.address_components) ? result.address_components.filter(isRecord) : []
  const find = (type: string) =>
    parts.find((part) => Array.isArray(part.types) && part.types.includes(type)) as
      | { long_name?: unknown; short_name?: unknown }
      | undefined
  const long = (type: string) => {
    const value = find(type)?.long_name
    return typeof value === 'string' ? value : ''
  }
  const short = find('country')?.short_name
  const number = long('street_number')
  const route = long('route')
  return {
    // The UK and a few others name the town in `postal_town` and leave `locality` out.
    city: long('locality') || long('postal_town'),
    state: long('administrative_area_level_1'),
    country: long('country'),
    countryCode: typeof short === 'string' ? short.toUpperCase() : '',
    postalCode: long('postal_code'),
    streetAddress: route ? [number, route].filter(Boolean).join(' ') : '',
  }
}

/** The result's location, or null when it has no usable one. */
function locationOf(result: Record<string, unknown>): { lat: number; lng: number } | null {
  const geometry = isRecord(result.geometry) ? result.geometry : {}
  const location = isRecord(geometry.location) ? geometry.location : {}
  return isCoordinate(location.lat, location.lng) ? (location as { lat: number; lng: number }) : null
}

function confidenceOf(result: Record<string, unknown>): number {
  const geometry = isRecord(result.geometry) ? result.geometry : {}
  const base = CONFIDENCE[String(geometry.location_type)] ?? CONFIDENCE.APPROXIMATE!
  return clamp01(result.partial_match === true ? base * PARTIAL_MATCH_FACTOR : base)
}

const text = (value: unknown) => (typeof value === 'string' ? value : '')

const googleSdk = loadOnce(async () => {
  const [google, { default: axios }] = await Promise.all([
    import('@googlemaps/google-maps-services-js'),
    import('axios'),
  ])
  return { Client: google.Client, axios }
})

/** A geocoder speaking to Google; any key is taken here, and one Google refuses is `unauthorized` per call. */
export function createGoogleGeocoder({ apiKey, baseUrl, timeoutMs }: GoogleGeocoderOptions): Geocoder {
  const url = `${baseUrl.replace(/\/+$/, '')}/maps/api/geocode/json`
  const googleClient = loadOnce(async () => {
    const { Client, axios } = await googleSdk()
    const client = new Client({
      axiosInstance: axios.create({
        // Every status resolves: Google's own answer (`status`, `error_message`) is in the body.
        validateStatus: () => true,
        maxRedirects: 0,
        maxContentLength: MAX_RESPONSE_BYTES,
        // The base URL is a setting; a proxy from the environment would send the key somewhere else.
        proxy: false,
        // axios types its ESM and CommonJS entries apart; the SDK names the CommonJS one. Same object.
      }) as unknown as ClientOptions['axiosInstance'],
    })
    return { client, isAxiosError: axios.isAxiosError }
  })
  const safe = (message: string) => safeMessage(message, apiKey)

  function failure(reason: GeocodeFailure['reason'], status: number | null, error: string): GeocodeFailure {
    return { ok: false, status, reason, error: safe(error) }
  }

  /** Google's answer read: the results it found (maybe none), or why it gave none. */
  function resultsOf(response: AxiosResponse): Record<string, unknown>[] | GeocodeFailure {
    const { status } = response
    const body: unknown = response.data
    const said = isRecord(body) && typeof body.error_message === 'string' ? `: ${body.error_message}` : ''
    if (status < 200 || status >= 300) {
      const detail = said || (typeof body === 'string' && body ? `: ${body}` : '')
      return failure(reasonOfStatus(status), status, `Google answered ${status}${detail}`)
    }
    if (!isRecord(body) || typeof body.status !== 'string') {
      return failure(
        'bad_answer',
        status,
        `Google answered ${status} with something that is not its API's JSON`,
      )
    }
    switch (body.status) {
      case 'OK':
        if (!Array.isArray(body.results)) {
          return failure('bad_answer', status, `Google answered OK without a list of results`)
        }
        return body.results.filter(isRecord)
      case 'ZERO_RESULTS':
        return []
      case 'OVER_QUERY_LIMIT':
        return failure('rate_limited', status, `Google answered OVER_QUERY_LIMIT${said}`)
      // A missing or invalid key, billing off, or a cap the account set: someone must act on the account.
      case 'OVER_DAILY_LIMIT':
      case 'REQUEST_DENIED':
        return failure('unauthorized', status, `Google answered ${body.status}${said}`)
      case 'INVALID_REQUEST':
        return failure('refused', status, `Google answered INVALID_REQUEST${said}`)
      case 'UNKNOWN_ERROR':
        return failure('unavailable', status, `Google answered UNKNOWN_ERROR${said}`)
      default:
        return failure('bad_answer', status, `Google answered an unknown status ${body.status.slice(0, 40)}`)
    }
  }

  /** Sends one request with a deadline and reads the answer with `read`. */
  async function send<T>(
    call: (client: Client, signal: AbortSignal) => Promise<AxiosResponse>,
    read: (results: Record<string, unknown>[], status: number) => GeocodeOutcome<T>,
  ): Promise<GeocodeOutcome<T>> {
    const { client, isAxiosError } = await googleClient()
    const controller = new AbortController()
    const outcome = call(client, controller.signal).then(
      (response) => {
        const results = resultsOf(response)
        return Array.isArray(results) ? read(results, response.status) : results
      },
      (error: unknown): GeocodeOutcome<T> => {
        if (controller.signal.aborted)
          return failure('timeout', null, `Google did not answer within ${timeoutMs} ms`)
        // axios names the cause (ECONNREFUSED, a body too large); its message never holds the URL or key.
        const reason = error instanceof Error ? error.message : String(error)
        const code =
          isAxiosError(error) && error.code && !reason.includes(error.code) ? ` (${error.code})` : ''
        return failure('unavailable', null, `Google could not be reached: ${reason}${code}`)
      },
    )
    return withDeadline(
      timeoutMs,
      outcome,
      () => controller.abort(),
      () => failure('timeout', null, `Google did not answer within ${timeoutMs} ms`),
    )
  }

  /** The first result with a usable location, normalised; a bad one is a bad answer, not "nothing found". */
  function first<T>(
    results: Record<string, unknown>[],
    status: number,
    normalise: (result: Record<string, unknown>, location: { lat: number; lng: number }) => T,
  ): GeocodeOutcome<T> {
    const result = results[0]
    if (!result) return { ok: true, result: null }
    const location = locationOf(result)
    if (!location) return failure('bad_answer', status, 'Google answered a result without a valid location')
    return { ok: true, result: normalise(result, location) }
  }

  return {
    name: 'google',

    forward(query: ForwardQuery) {
      const countries = [...new Set((query.countryCodes ?? []).map((code) => code.toUpperCase()))]
      const params: GeocodeRequest['params'] = { address: query.address, key: apiKey }
      // Google takes one `country` component (a repeated one is INVALID_REQUEST); several are checked here.
      if (countries.length === 1) params.components = { country: countries[0] }
      if (query.language) params.language = query.language
      if (query.proximity) {
        const { latitude, longitude } = query.proximity
        params.bounds = {
          southwest: {
            lat: Math.max(-90, latitude - PROXIMITY_BOX_DEGREES),
            lng: Math.max(-180, longitude - PROXIMITY_BOX_DEGREES),
          },
          northeast: {
            lat: Math.min(90, latitude + PROXIMITY_BOX_DEGREES),
            lng: Math.min(180, longitude + PROXIMITY_BOX_DEGREES),
          },
        }
      }
      return send(
        (client, signal) => client.geocode({ params, url, signal }),
        (results, status) => {
          const inCountries =
            countries.length > 1
              ? results.filter((result) => countries.includes(componentsOf(result).countryCode))
              : results
          return first(inCountries, status, (result, location): ForwardResult => {
            const { streetAddress: _, ...components } = componentsOf(result)
            return {
              latitude: location.lat,
              longitude: location.lng,
              formattedAddress: text(result.formatted_address),
              ...components,
              confidence: confidenceOf(result),
            }
          })
        },
      )
    },

    reverse(query: ReverseQuery) {
      const params: ReverseGeocodeRequest['params'] = {
        latlng: { lat: query.latitude, lng: query.longitude },
        key: apiKey,
      }
      if (query.language) params.language = query.language as ReverseGeocodeRequest['params']['language']
      return send(
        (client, signal) => client.reverseGeocode({ params, url, signal }),
        (results, status) =>
          first(
            results,
            status,
            (result): ReverseResult => ({
              formattedAddress: text(result.formatted_address),
              ...componentsOf(result),
            }),
          ),
      )
    },
  }
}
