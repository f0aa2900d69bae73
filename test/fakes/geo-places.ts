/**
 * The places both geocoding fakes know (Mapbox's and Google's), with their real coordinates and address parts,
 * so both providers find the same place for the same query: a fallback from one to the other changes who
 * answered, not what. Each place also keeps how each provider words its full address.
 */

export interface GeoPlace {
  key: string
  latitude: number
  longitude: number
  /** A street address has a street (and usually a number); a city has neither. */
  street: { long: string; short: string } | null
  houseNumber: string | null
  city: string
  /** Google names a UK town in `postal_town`, elsewhere in `locality`. */
  cityType: 'locality' | 'postal_town'
  county: string | null
  /** `short` as Google gives it (`CA`, `England`); `iso` as Mapbox's region `short_code` (ISO 3166-2). */
  state: { long: string; short: string; iso: string }
  /** `code`: ISO 3166-1 alpha-2, upper case. */
  country: { long: string; code: string }
  postalCode: string | null
  /** Google's `formatted_address`. */
  googleAddress: string
  /** Mapbox's `place_name`. */
  mapboxAddress: string
  /** Other names a query may use (`Googleplex`). */
  aliases: string[]
  wikidata: string
}

export const GEO_PLACES: readonly GeoPlace[] = [
  {
    key: 'googleplex',
    latitude: 37.4224764,
    longitude: -122.0842499,
    street: { long: 'Amphitheatre Parkway', short: 'Amphitheatre Pkwy' },
    houseNumber: '1600',
    city: 'Mountain View',
    cityType: 'locality',
    county: 'Santa Clara County',
    state: { long: 'California', short: 'CA', iso: 'US-CA' },
    country: { long: 'United States', code: 'US' },
    postalCode: '94043',
    googleAddress: '1600 Amphitheatre Pkwy, Mountain View, CA 94043, USA',
    mapboxAddress: '1600 Amphitheatre Parkway, Mountain View, California 94043, United States',
    aliases: ['Googleplex'],
    wikidata: 'Q694178',
  },
  {
    key: 'downing-street',
    latitude: 51.5034878,
    longitude: -0.1276965,
    street: { long: 'Downing Street', short: 'Downing St' },
    houseNumber: '10',
    city: 'London',
    cityType: 'postal_town',
    county: 'Greater London',
    state: { long: 'England', short: 'England', iso: 'GB-ENG' },
    country: { long: 'United Kingdom', code: 'GB' },
    postalCode: 'SW1A 2AA',
    googleAddress: '10 Downing St, London SW1A 2AA, UK',
    mapboxAddress: '10 Downing Street, London, SW1A 2AA, United Kingdom',
    aliases: ['10 Downing Street, London SW1A 2AA, UK'],
    wikidata: 'Q169101',
  },
  {
    key: 'berlin',
    latitude: 52.5200066,
    longitude: 13.404954,
    street: null,
    houseNumber: null,
    city: 'Berlin',
    cityType: 'locality',
    county: null,
    state: { long: 'Berlin', short: 'BE', iso: 'DE-BE' },
    country: { long: 'Germany', code: 'DE' },
    postalCode: null,
    googleAddress: 'Berlin, Germany',
    mapboxAddress: 'Berlin, Germany',
    aliases: [],
    wikidata: 'Q64',
  },
  {
    key: 'paris',
    latitude: 48.856614,
    longitude: 2.3522219,
    street: null,
    houseNumber: null,
    city: 'Paris',
    cityType: 'locality',
    county: null,
    state: { long: 'Île-de-France', short: 'IDF', iso: 'FR-IDF' },
    country: { long: 'France', code: 'FR' },
    postalCode: null,
    googleAddress: 'Paris, France',
    mapboxAddress: 'Paris, Île-de-France, France',
    aliases: [],
    wikidata: 'Q90',
  },
  {
    key: 'paris-texas',
    latitude: 33.6609389,
    longitude: -95.555513,
    street: null,
    houseNumber: null,
    city: 'Paris',
    cityType: 'locality',
    county: 'Lamar County',
    state: { long: 'Texas', short: 'TX', iso: 'US-TX' },
    country: { long: 'United States', code: 'US' },
    postalCode: null,
    googleAddress: 'Paris, TX, USA',
    mapboxAddress: 'Paris, Texas, United States',
    aliases: [],
    wikidata: 'Q830149',
  },
  {
    key: 'tokyo',
    latitude: 35.6761919,
    longitude: 139.6503106,
    street: null,
    houseNumber: null,
    city: 'Tokyo',
    cityType: 'locality',
    county: null,
    state: { long: 'Tokyo', short: 'Tokyo', iso: 'JP-13' },
    country: { long: 'Japan', code: 'JP' },
    postalCode: null,
    googleAddress: 'Tokyo, Japan',
    mapboxAddress: 'Tokyo, Japan',
    aliases: [],
    wikidata: 'Q1490',
  },
  {
    key: 'sao-paulo',
    latitude: -23.5505199,
    longitude: -46.6333094,
    street: null,
    houseNumber: null,
    city: 'São Paulo',
    cityType: 'locality',
    county: null,
    state: { long: 'São Paulo', short: 'SP', iso: 'BR-SP' },
    country: { long: 'Brazil', code: 'BR' },
    postalCode: null,
    googleAddress: 'São Paulo, State of São Paulo, Brazil',
    mapboxAddress: 'São Paulo, São Paulo, Brazil',
    aliases: [],
    wikidata: 'Q174',
  },
  {
    key: 'sydney',
    latitude: -33.8688197,
    longitude: 151.2092955,
    street: null,
    houseNumber: null,
    city: 'Sydney',
    cityType: 'locality',
    county: null,
    state: { long: 'New South Wales', short: 'NSW', iso: 'AU-NSW' },
    country: { long: 'Australia', code: 'AU' },
    postalCode: null,
    googleAddress: 'Sydney NSW, Australia',
    mapboxAddress: 'Sydney, New South Wales, Australia',
    aliases: [],
    wikidata: 'Q3130',
  },
  {
    key: 'cn-tower',
    latitude: 43.6425662,
    longitude: -79.3870568,
    street: { long: 'Bremner Boulevard', short: 'Bremner Blvd' },
    houseNumber: '290',
    city: 'Toronto',
    cityType: 'locality',
    county: null,
    state: { long: 'Ontario', short: 'ON', iso: 'CA-ON' },
    country: { long: 'Canada', code: 'CA' },
    postalCode: 'M5V 3L9',
    googleAddress: '290 Bremner Blvd, Toronto, ON M5V 3L9, Canada',
    mapboxAddress: '290 Bremner Boulevard, Toronto, Ontario M5V 3L9, Canada',
    aliases: ['CN Tower'],
    wikidata: 'Q132568',
  },
]

/** The place with this key; throws for a key the gazetteer does not have (a test's typo). */
export function geoPlace(key: string): GeoPlace {
  const place = GEO_PLACES.find((candidate) => candidate.key === key)
  if (!place) throw new Error(`No place "${key}" in the gazetteer`)
  return place
}

/** Lower case, without diacritics, punctuation folded to single spaces: `São Paulo, SP` → `sao paulo sp`. */
export function normaliseText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}

/** Everything a query may name a place by, each matched on its own. */
function searchableTexts(place: GeoPlace): string[] {
  return [
    place.googleAddress,
    place.mapboxAddress,
    ...place.aliases,
    [place.street?.long, place.city, place.state.long, place.country.long].filter(Boolean).join(' '),
  ].map(normaliseText)
}

/**
 * The places a forward query names, in gazetteer order: those where the normalised query appears, as whole
 * words, in one of the place's texts; only in `countryCodes` (any case) when given.
 */
export function findPlaces(query: string, options: { countryCodes?: string[] } = {}): GeoPlace[] {
  const wanted = normaliseText(query)
  if (!wanted) return []
  const countries = options.countryCodes?.map((code) => code.toUpperCase())
  return GEO_PLACES.filter(
    (place) =>
      (!countries?.length || countries.includes(place.country.code)) &&
      searchableTexts(place).some((text) => ` ${text} `.includes(` ${wanted} `)),
  )
}

/** Great-circle distance in kilometres. */
export function distanceKm(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
): number {
  const radians = (degrees: number) => (degrees * Math.PI) / 180
  const dLat = radians(b.latitude - a.latitude)
  const dLng = radians(b.longitude - a.longitude)
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(dLng / 2) ** 2
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)))
}

/** How far a reverse query reaches for a place. */
export const REVERSE_RADIUS_KM = 50

/** The place nearest the point, within `REVERSE_RADIUS_KM`; null in the middle of nowhere. */
export function nearestPlace(latitude: number, longitude: number): GeoPlace | null {
  let best: { place: GeoPlace; km: number } | null = null
  for (const place of GEO_PLACES) {
    const km = distanceKm({ latitude, longitude }, place)
    if (km <= REVERSE_RADIUS_KM && (!best || km < best.km)) best = { place, km }
  }
  return best?.place ?? null
}

/** A stable number for a place and a level, as providers' ids carry one. */
export function stableNumber(text: string, digits = 8): string {
  let hash = 2166136261
  for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0
  return String(hash).padStart(10, '0').slice(0, digits)
}
