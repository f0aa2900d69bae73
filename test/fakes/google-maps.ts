import type { IncomingMessage } from 'node:http'
import { findPlaces, GEO_PLACES, type GeoPlace, nearestPlace } from './geo-places.ts'
import type { Answer, Behaviour, RequestMatch, ScriptedFault, ScriptedRequest } from './scripted.ts'
import { startScriptedFake } from './scripted.ts'

export const DEFAULT_GOOGLE_MAPS_API_KEY = 'AIzaSyFake-Curio-Test-Key-0123456789ab'

export const GEOCODE_PATH = '/maps/api/geocode/json'

export interface GoogleMapsFakeOptions {
  /** The key every request must carry as `key`. */
  apiKey?: string
}

/** A request as Google received it; `path` without the query. */
export interface GoogleMapsFakeRequest extends ScriptedRequest {
  key: string | undefined
  /** `reverse` when it names `latlng`; null for a path that is not the Geocoding API's. */
  kind: 'forward' | 'reverse' | null
}

/** The `status` values of the Geocoding API besides OK and ZERO_RESULTS. */
export type GoogleErrorStatus =
  | 'OVER_QUERY_LIMIT'
  | 'OVER_DAILY_LIMIT'
  | 'REQUEST_DENIED'
  | 'INVALID_REQUEST'
  | 'UNKNOWN_ERROR'

export type GoogleMapsFakeFault = ScriptedFault
export type GoogleMapsFakeBehaviour = Behaviour<GoogleMapsFakeFault>
export type GoogleMapsFakeMatch = RequestMatch

/** The `error_message` Google sends with each status. */
const ERROR_MESSAGES: Record<GoogleErrorStatus, string | null> = {
  OVER_QUERY_LIMIT: 'You have exceeded your rate-limit for this API.',
  OVER_DAILY_LIMIT:
    'You have exceeded your daily request quota for this API. If you did not set a custom daily request quota, verify your project has an active billing account: http://g.co/dev/maps-no-account',
  REQUEST_DENIED: 'The provided API key is invalid.',
  INVALID_REQUEST: "Invalid request. Missing the 'address', 'components', 'latlng' or 'place_id' parameter.",
  UNKNOWN_ERROR: null,
}

/** Google's answer with a status other than OK: HTTP 200, no results, the status and its message. */
export function statusBody(status: GoogleErrorStatus | 'ZERO_RESULTS', errorMessage?: string) {
  const text = errorMessage ?? (status === 'ZERO_RESULTS' ? null : ERROR_MESSAGES[status])
  return { ...(text ? { error_message: text } : {}), results: [], status }
}

const denied = (errorMessage: string): Answer => ({
  status: 200,
  body: statusBody('REQUEST_DENIED', errorMessage),
})
const invalid = (errorMessage: string): Answer => ({
  status: 200,
  body: statusBody('INVALID_REQUEST', errorMessage),
})

/** Google's front end answers an HTTP error with an HTML page, not the API's JSON. */
function errorPage(status: number, title: string): string {
  return `<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error ${status} (${title})!!1</title>\n  <p><b>${status}.</b> <ins>That’s an error.</ins>\n  <p>${title}. <ins>That’s all we know.</ins>\n`
}

/** The body of an injected fault, as Google's servers word that HTTP status. */
function faultBody(status: number): unknown {
  if (status === 429) return statusBody('OVER_QUERY_LIMIT')
  if (status === 404) return errorPage(404, 'Not Found')
  if (status === 503) return errorPage(503, 'Service Unavailable')
  if (status >= 500) return errorPage(status, 'Server Error')
  if (status === 403) return errorPage(403, 'Forbidden')
  return errorPage(status, 'Bad Request')
}

type Component = { long_name: string; short_name: string; types: string[] }

const component = (long: string, short: string, ...types: string[]): Component => ({
  long_name: long,
  short_name: short,
  types,
})

type Level = 'primary' | 'city' | 'state' | 'country'

/** One of Google's results for a place: the place itself, or a level holding it. */
function resultOf(place: GeoPlace, level: Level): Record<string, unknown> {
  const city = component(place.city, place.city, place.cityType, 'political')
  const county = place.county
    ? [component(place.county, place.county, 'administrative_area_level_2', 'political')]
    : []
  const state = component(place.state.long, place.state.short, 'administrative_area_level_1', 'political')
  const country = component(place.country.long, place.country.code, 'country', 'political')
  const postal = place.postalCode ? [component(place.postalCode, place.postalCode, 'postal_code')] : []
  const isAddress = level === 'primary' && place.street !== null

  let components: Component[]
  let types: string[]
  let formatted: string
  switch (level) {
    case 'primary':
      components = isAddress
        ? [
            ...(place.houseNumber ? [component(place.houseNumber, place.houseNumber, 'street_number')] : []),
            component(place.street!.long, place.street!.short, 'route'),
            city,
            ...county,
            state,
            country,
            ...postal,
          ]
        : [city, ...county, state, country]
      types = isAddress ? ['street_address'] : [place.cityType, 'political']
      formatted = place.googleAddress
      break
    case 'city':
      components = [city, ...county, state, country]
      types = [place.cityType, 'political']
      formatted = `${place.city}, ${place.state.short}, ${place.country.long}`
      break
    case 'state':
      components = [state, country]
      types = ['administrative_area_level_1', 'political']
      formatted = `${place.state.long}, ${place.country.long}`
      break
    case 'country':
      components = [country]
      types = ['country', 'political']
      formatted = place.country.long
      break
  }
  const span = isAddress ? 0.00135 : level === 'primary' || level === 'city' ? 0.15 : 2
  const { latitude: lat, longitude: lng } = place
  return {
    address_components: components,
    formatted_address: formatted,
    geometry: {
      location: { lat, lng },
      location_type: isAddress ? 'ROOFTOP' : 'APPROXIMATE',
      viewport: {
        northeast: { lat: lat + span, lng: lng + span },
        southwest: { lat: lat - span, lng: lng - span },
      },
    },
    place_id: `ChIJ${Buffer.from(`${place.key}:${level}`).toString('base64url').slice(0, 23)}`,
    types,
  }
}

const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/

/** `lat,lng` as Google reads `latlng`; null when it is not a point. */
function pointOf(text: string): { latitude: number; longitude: number } | null {
  const [lat, lng, extra] = text.split(',')
  if (!lat || !lng || extra !== undefined || !NUMBER.test(lat) || !NUMBER.test(lng)) return null
  const point = { latitude: Number(lat), longitude: Number(lng) }
  return Math.abs(point.latitude) <= 90 && Math.abs(point.longitude) <= 180 ? point : null
}

/**
 * A stand-in for Google's Geocoding API (https://developers.google.com/maps/documentation/geocoding) on
 * 127.0.0.1, finding the places of `geo-places.ts`:
 *
 * - `GET /maps/api/geocode/json?address=…` (forward): `components` (`country:US|…`, one `country` at most,
 *   matched by code or name), `bounds` (`swLat,swLng|neLat,neLng`: places inside come first), `language`,
 *   `region`. `?latlng=lat,lng` (reverse): the nearest place within 50 km, then the levels holding it.
 * - Answers HTTP 200 `{results:[{address_components, formatted_address, geometry:{location, location_type,
 *   viewport}, place_id, types}], status}` with `status` OK or ZERO_RESULTS; INVALID_REQUEST (with
 *   `error_message`) for a query without address, components or latlng, a bad latlng or components.
 * - A missing or wrong `key` is HTTP 200 `{status:'REQUEST_DENIED', error_message, results:[]}`.
 *
 * Scripted faults (`fail(match, {status, body?}, times)`; `failStatus` for an HTTP 200 with another status;
 * `{hang: true}` held until `release()`), `down` for every request until `up`, the request log in `requests`.
 */
export async function startGoogleMapsFake({
  apiKey = DEFAULT_GOOGLE_MAPS_API_KEY,
}: GoogleMapsFakeOptions = {}) {
  let outage: GoogleMapsFakeBehaviour | undefined

  const ok = (results: Record<string, unknown>[]): Answer => ({
    status: 200,
    body: results.length ? { results, status: 'OK' } : statusBody('ZERO_RESULTS'),
  })

  function reverse(latlng: string): Answer {
    const point = pointOf(latlng)
    if (!point) return invalid("Invalid request. Invalid 'latlng' parameter.")
    const place = nearestPlace(point.latitude, point.longitude)
    if (!place) return ok([])
    const levels: Level[] = place.street
      ? ['primary', 'city', 'state', 'country']
      : ['primary', 'state', 'country']
    return ok(levels.map((level) => resultOf(place, level)))
  }

  function forward(params: URLSearchParams): Answer {
    const address = params.get('address')?.trim() ?? ''
    const components = (params.get('components') ?? '').split('|').filter(Boolean)
    if (!address && !components.length) return invalid(ERROR_MESSAGES.INVALID_REQUEST!)
    const countries: string[] = []
    for (const filter of components) {
      const [type, value] = filter.split(':')
      if (
        !type ||
        !value ||
        !['country', 'postal_code', 'route', 'locality', 'administrative_area'].includes(type)
      ) {
        return invalid("Invalid request. Invalid 'components' parameter.")
      }
      if (type === 'country') countries.push(value.toUpperCase())
    }
    if (countries.length > 1) return invalid("Invalid request. Invalid 'components' parameter.")
    const wanted = countries[0]
    const inCountry = (place: GeoPlace) =>
      !wanted || place.country.code === wanted || place.country.long.toUpperCase() === wanted
    let places = (address ? findPlaces(address) : [...GEO_PLACES]).filter(inCountry)

    const bounds = params.get('bounds')
    if (bounds !== null) {
      const [southwest, northeast, extra] = bounds.split('|')
      const sw = southwest ? pointOf(southwest) : null
      const ne = northeast ? pointOf(northeast) : null
      if (!sw || !ne || extra !== undefined) return invalid("Invalid request. Invalid 'bounds' parameter.")
      const inside = (place: GeoPlace) =>
        place.latitude >= sw.latitude &&
        place.latitude <= ne.latitude &&
        place.longitude >= sw.longitude &&
        place.longitude <= ne.longitude
      places = [...places.filter(inside), ...places.filter((place) => !inside(place))]
    }
    return ok(places.map((place) => resultOf(place, 'primary')))
  }

  function respond(_req: IncomingMessage, request: GoogleMapsFakeRequest, url: URL): Answer {
    if (request.path !== GEOCODE_PATH) return { status: 404, body: errorPage(404, 'Not Found') }
    if (request.method !== 'GET' && request.method !== 'POST') {
      return { status: 405, body: errorPage(405, 'Method Not Allowed') }
    }
    if (!request.key) {
      return denied(
        'You must use an API key to authenticate each request to Google Maps Platform APIs. For additional information, please refer to http://g.co/dev/maps-no-account',
      )
    }
    if (request.key !== apiKey) return denied(ERROR_MESSAGES.REQUEST_DENIED!)
    const latlng = url.searchParams.get('latlng')
    return latlng !== null ? reverse(latlng) : forward(url.searchParams)
  }

  const fake = await startScriptedFake<GoogleMapsFakeBehaviour, GoogleMapsFakeMatch, GoogleMapsFakeRequest>({
    faultBody,
    log(req) {
      const url = new URL(req.url ?? '/', 'http://fake')
      return {
        key: url.searchParams.get('key') ?? undefined,
        kind: url.pathname !== GEOCODE_PATH ? null : url.searchParams.has('latlng') ? 'reverse' : 'forward',
      }
    },
    respond,
    types: { text: 'text/html; charset=UTF-8', json: 'application/json; charset=UTF-8' },
    override: () => outage,
  })

  return Object.assign(fake.controls, {
    /** The server's address, as GOOGLE_MAPS_API_URL takes it (`/maps/api/geocode/json` is added). */
    url: fake.url,
    apiKey,
    /** Every request, in order. */
    requests: fake.requests,
    /** The geocoding requests of one kind, in order. */
    calls(kind: 'forward' | 'reverse') {
      return fake.requests.filter((request) => request.kind === kind)
    },
    /** The next `times` requests answer HTTP 200 with this `status` and no results, as Google does. */
    failStatus(status: GoogleErrorStatus | 'ZERO_RESULTS', times = 1, errorMessage?: string) {
      fake.script.fail({ path: GEOCODE_PATH }, { status: 200, body: statusBody(status, errorMessage) }, times)
    },
    /** The next `times` requests matching `match` are held open until `release()`. */
    hang(match: GoogleMapsFakeMatch = {}, times = 1) {
      fake.script.fail(match, { hang: true }, times)
    },
    /** Every request answers `behaviour` (a fault, or held open) until `up()`. */
    down(behaviour: GoogleMapsFakeBehaviour) {
      outage = behaviour
    },
    /** Back to normal: held requests get their real answers, scripted faults are dropped. */
    up() {
      outage = undefined
      fake.script.clear()
      fake.script.release()
    },
  })
}

export type GoogleMapsFake = Awaited<ReturnType<typeof startGoogleMapsFake>>
