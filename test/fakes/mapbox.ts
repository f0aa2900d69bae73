import type { IncomingMessage } from 'node:http'
import { distanceKm, findPlaces, type GeoPlace, nearestPlace, stableNumber } from './geo-places.ts'
import type { Answer, Behaviour, RequestMatch, ScriptedFault, ScriptedRequest } from './scripted.ts'
import { startScriptedFake } from './scripted.ts'

/** A token the SDK takes: `pk.` + base64 of a JSON payload naming its user (`u`) + `.` + a signature. */
export function fakeMapboxToken(user = 'curio-test'): string {
  const payload = Buffer.from(JSON.stringify({ u: user, a: 'ckfake0000000000000000000' })).toString('base64')
  return `pk.${payload.replace(/=+$/, '')}.ZmFrZS1zaWduYXR1cmU`
}

export const DEFAULT_MAPBOX_TOKEN = fakeMapboxToken()

export interface MapboxFakeOptions {
  /** The token every request must carry as `access_token`. */
  accessToken?: string
}

/** A request as Mapbox received it; `path` without the query, e.g. `/geocoding/v5/mapbox.places/Berlin.json`. */
export interface MapboxFakeRequest extends ScriptedRequest {
  accessToken: string | undefined
  /** Which geocoding the path asks for; null for a path that is not the Geocoding API's. */
  kind: 'forward' | 'reverse' | null
  /** The `{query}` of the path, decoded: the search text, or `longitude,latitude`. */
  searchText: string | null
}

/** An answer instead of the real one: a status and a body (a string is sent as is, as text). */
export type MapboxFakeFault = ScriptedFault
export type MapboxFakeBehaviour = Behaviour<MapboxFakeFault>
export type MapboxFakeMatch = RequestMatch

const GEOCODING_PATH = /^\/geocoding\/v5\/([^/]+)\/([^/]*)\.json$/
const MODES = new Set(['mapbox.places', 'mapbox.places-permanent'])
const TYPES = [
  'country',
  'region',
  'postcode',
  'district',
  'place',
  'locality',
  'neighborhood',
  'address',
  'poi',
]
const MAX_QUERY_CHARACTERS = 256
const MAX_QUERY_WORDS = 20
const ATTRIBUTION =
  'NOTICE: © 2024 Mapbox and its suppliers. All rights reserved. Use of this data is subject to the Mapbox Terms of Service (https://www.mapbox.com/about/maps/). This response and the information it contains may not be retained.'

const message = (status: number, text: string): Answer => ({ status, body: { message: text } })

/** The body of an injected fault, as Mapbox words that status. */
function faultBody(status: number): unknown {
  if (status === 401) return { message: 'Not Authorized - Invalid Token' }
  if (status === 403) return { message: 'Forbidden' }
  if (status === 404) return { message: 'Not Found' }
  if (status === 422) return { message: 'Query too long' }
  if (status === 429) return { message: 'Too Many Requests' }
  if (status >= 500) return { message: 'Internal Server Error' }
  return { message: 'Bad Request' }
}

type Level = 'address' | 'postcode' | 'place' | 'district' | 'region' | 'country'

/** One level of a place as a Mapbox context entry (`{id, text, wikidata?, short_code?}`), or null when absent. */
function contextEntry(place: GeoPlace, level: Level): Record<string, unknown> | null {
  const id = (name: string) => `${level}.${stableNumber(`${place.key}:${level}:${name}`)}`
  switch (level) {
    case 'address':
      return place.street ? { id: id(place.street.long), text: place.street.long } : null
    case 'postcode':
      return place.postalCode ? { id: id(place.postalCode), text: place.postalCode } : null
    case 'place':
      return { id: id(place.city), wikidata: place.wikidata, text: place.city }
    case 'district':
      return place.county ? { id: id(place.county), text: place.county } : null
    case 'region':
      return { id: id(place.state.long), short_code: place.state.iso, text: place.state.long }
    case 'country':
      return {
        id: id(place.country.long),
        short_code: place.country.code.toLowerCase(),
        text: place.country.long,
      }
  }
}

const LEVELS: Level[] = ['address', 'postcode', 'place', 'district', 'region', 'country']

/** `place_name` of a level: the place's own for its most precise level, else the level and those above it. */
function placeNameOf(place: GeoPlace, level: Level, primary: Level): string {
  if (level === primary) return place.mapboxAddress
  const above = LEVELS.slice(LEVELS.indexOf(level)).filter(
    (name) => name !== 'district' && name !== 'postcode',
  )
  const names = above.map((name) => contextEntry(place, name)?.text).filter(Boolean)
  return level === 'postcode' ? [place.postalCode, ...names].join(', ') : names.join(', ')
}

/** The place's features, most precise first: the address (or the city) and each level that holds it. */
function featuresOf(place: GeoPlace, language: string | null): Record<string, unknown>[] {
  const primary: Level = place.street ? 'address' : 'place'
  const levels = LEVELS.slice(LEVELS.indexOf(primary)).filter((level) => contextEntry(place, level))
  return levels.map((level) => {
    const entry = contextEntry(place, level)!
    const context = LEVELS.slice(LEVELS.indexOf(level) + 1)
      .map((parent) => contextEntry(place, parent))
      .filter((parent) => parent !== null)
    const center = [place.longitude, place.latitude]
    const placeName = placeNameOf(place, level, primary)
    const { id, text, ...properties } = entry
    return {
      id,
      type: 'Feature',
      place_type: [level],
      relevance: 1,
      properties: level === 'address' ? { accuracy: 'rooftop' } : properties,
      text,
      ...(language ? { [`text_${language}`]: text, language, [`language_${language}`]: language } : {}),
      place_name: placeName,
      ...(language ? { [`place_name_${language}`]: placeName } : {}),
      ...(level === 'place'
        ? { bbox: [center[0]! - 0.2, center[1]! - 0.15, center[0]! + 0.2, center[1]! + 0.15] }
        : {}),
      center,
      geometry: { type: 'Point', coordinates: center },
      ...(level === 'address' && place.houseNumber ? { address: place.houseNumber } : {}),
      context,
    }
  })
}

const isNumber = (text: string) => /^-?\d+(\.\d+)?$/.test(text)

/**
 * A stand-in for Mapbox's Geocoding API v5 (https://docs.mapbox.com/api/search/geocoding-v5/) on 127.0.0.1,
 * finding the places of `geo-places.ts`:
 *
 * - `GET /geocoding/v5/{mapbox.places|mapbox.places-permanent}/{query}.json`: a search text (forward) or
 *   `longitude,latitude` (reverse). Parameters: `access_token` (required), `country` (comma list, any case),
 *   `language`, `proximity` (`longitude,latitude` or `ip`: nearer first), `types`, `limit` (forward 1 to 10,
 *   default 5; reverse: one feature per level by default, a higher limit than 1 only with exactly one type).
 * - Answers a GeoJSON FeatureCollection `{type, query, features:[{id, type, place_type, relevance,
 *   properties, text, place_name, center, geometry, address?, context}], attribution}`.
 * - No token is 401 `Not Authorized - No Token`, another token 401 `Not Authorized - Invalid Token`; a query
 *   over 256 characters or 20 words, a bad country, language or coordinate is 422; errors are `{message}`.
 *
 * Scripted faults (`fail(match, {status, body?}, times)`, `{hang: true}` held until `release()`), `down` for
 * every request until `up`, and the request log in `requests`.
 */
export async function startMapboxFake({ accessToken = DEFAULT_MAPBOX_TOKEN }: MapboxFakeOptions = {}) {
  let outage: MapboxFakeBehaviour | undefined

  function geocode(request: MapboxFakeRequest, url: URL): Answer {
    const match = GEOCODING_PATH.exec(request.path)
    if (!match || !MODES.has(decodeURIComponent(match[1]!)) || !request.searchText?.trim()) {
      return message(404, 'Not Found')
    }
    const params = url.searchParams
    const countries = params.get('country')?.split(',').filter(Boolean) ?? []
    const badCountry = countries.find((code) => !/^[a-z]{2}$/i.test(code))
    if (badCountry !== undefined) return message(422, `Country "${badCountry}" is not a valid country code`)
    const language = params.get('language')?.split(',')[0] ?? null
    if (language !== null && !/^[a-z]{2}(-[A-Za-z]{2,4})?$/.test(language)) {
      return message(422, `"${language}" is not a valid language code`)
    }
    const types = params.get('types')?.split(',').filter(Boolean) ?? []
    const badType = types.find((type) => !TYPES.includes(type))
    if (badType !== undefined) return message(422, `Type "${badType}" is not a known type`)
    const limitText = params.get('limit')

    const parts = request.searchText.split(',')
    if (request.kind === 'reverse') {
      const [longitude, latitude] = parts.map(Number) as [number, number]
      if (Math.abs(longitude) > 180) return message(422, 'Longitude must be between -180 and 180')
      if (Math.abs(latitude) > 90) return message(422, 'Latitude must be between -90 and 90')
      const limit = limitText === null ? null : Number(limitText)
      if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > 5)) {
        return message(422, 'Limit must be an integer between 1 and 5')
      }
      if (limit !== null && limit > 1 && types.length !== 1) {
        return message(422, 'limit must be combined with a single type parameter when reverse geocoding')
      }
      const place = nearestPlace(latitude, longitude)
      const inCountry =
        place && (!countries.length || countries.some((code) => code.toUpperCase() === place.country.code))
      let features = place && inCountry ? featuresOf(place, language) : []
      if (types.length)
        features = features.filter((feature) => types.includes((feature.place_type as string[])[0]!))
      return collection([longitude, latitude], features.slice(0, limit ?? features.length))
    }

    if (request.searchText.length > MAX_QUERY_CHARACTERS) {
      return message(422, `Query too long - ${request.searchText.length}/${MAX_QUERY_CHARACTERS} characters`)
    }
    const words = request.searchText.split(/[\s,]+/).filter(Boolean)
    if (words.length > MAX_QUERY_WORDS) {
      return message(422, `Query too long - ${words.length}/${MAX_QUERY_WORDS} tokens`)
    }
    const limit = limitText === null ? 5 : Number(limitText)
    if (!Number.isInteger(limit) || limit < 1 || limit > 10) {
      return message(422, 'Limit must be an integer between 1 and 10')
    }
    const proximity = params.get('proximity')
    let near: { latitude: number; longitude: number } | null = null
    if (proximity !== null && proximity !== 'ip') {
      const [lng, lat] = proximity.split(',')
      if (!lng || !lat || !isNumber(lng) || !isNumber(lat) || Math.abs(+lng) > 180 || Math.abs(+lat) > 90) {
        return message(422, 'Proximity must be an array in the form [lon, lat]')
      }
      near = { latitude: Number(lat), longitude: Number(lng) }
    }
    let places = findPlaces(request.searchText, { countryCodes: countries })
    if (near) {
      const from = near
      places = [...places].sort((a, b) => distanceKm(from, a) - distanceKm(from, b))
    }
    const features = places.flatMap((place) => {
      const all = featuresOf(place, language)
      const wanted = types.length
        ? all.filter((feature) => types.includes((feature.place_type as string[])[0]!))
        : all.slice(0, 1)
      return wanted.slice(0, 1)
    })
    return collection(
      words.map((word) => word.toLowerCase()),
      features.slice(0, limit),
    )
  }

  const collection = (query: unknown[], features: Record<string, unknown>[]): Answer => ({
    status: 200,
    body: { type: 'FeatureCollection', query, features, attribution: ATTRIBUTION },
  })

  function respond(_req: IncomingMessage, request: MapboxFakeRequest, url: URL): Answer {
    if (request.method !== 'GET') return message(405, 'Method Not Allowed')
    if (!request.accessToken) return message(401, 'Not Authorized - No Token')
    if (request.accessToken !== accessToken) return message(401, 'Not Authorized - Invalid Token')
    return geocode(request, url)
  }

  const fake = await startScriptedFake<MapboxFakeBehaviour, MapboxFakeMatch, MapboxFakeRequest>({
    faultBody,
    log(req) {
      const url = new URL(req.url ?? '/', 'http://fake')
      const match = GEOCODING_PATH.exec(url.pathname)
      let searchText: string | null = null
      try {
        searchText = match ? decodeURIComponent(match[2]!) : null
      } catch {
        searchText = null
      }
      const parts = searchText?.split(',') ?? []
      const reverse = parts.length === 2 && parts.every((part) => isNumber(part.trim()))
      return {
        accessToken: url.searchParams.get('access_token') ?? undefined,
        kind: match && searchText !== null ? (reverse ? 'reverse' : 'forward') : null,
        searchText,
      }
    },
    respond,
    types: { text: 'text/plain; charset=utf-8', json: 'application/json; charset=utf-8' },
    headers: () => ({
      'x-rate-limit-interval': '60',
      'x-rate-limit-limit': '600',
      'x-rate-limit-reset': String(Math.ceil(Date.now() / 60_000) * 60),
    }),
    override: () => outage,
  })

  return Object.assign(fake.controls, {
    /** The server's address, as MAPBOX_API_URL takes it (`/geocoding/v5/…` is added by the SDK). */
    url: fake.url,
    accessToken,
    /** Every request, in order. */
    requests: fake.requests,
    /** The geocoding requests of one kind, in order. */
    calls(kind: 'forward' | 'reverse') {
      return fake.requests.filter((request) => request.kind === kind)
    },
    /** The next `times` requests matching `match` are held open until `release()`. */
    hang(match: MapboxFakeMatch = {}, times = 1) {
      fake.script.fail(match, { hang: true }, times)
    },
    /** Every request answers `behaviour` (a fault, or held open) until `up()`. */
    down(behaviour: MapboxFakeBehaviour) {
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

export type MapboxFake = Awaited<ReturnType<typeof startMapboxFake>>
