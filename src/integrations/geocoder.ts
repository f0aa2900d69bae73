/**
 * What a geocoding provider answers, in Curio's words, whichever provider it is. Each provider's client
 * (`mapbox/geocoder.ts`, `google-maps/geocoder.ts`) speaks its own API through its official SDK and maps the
 * answer to these shapes; a failure is a value, never thrown, so a caller can fall back to the other provider.
 */

export type GeocodingProviderName = 'mapbox' | 'google'

export interface ForwardQuery {
  address: string
  /** ISO 3166-1 alpha-2, any case: only places in these countries. */
  countryCodes?: string[]
  /** ISO 639-1: the language of the names answered. */
  language?: string
  /** Places near this point come first. */
  proximity?: { latitude: number; longitude: number }
}

export interface ReverseQuery {
  latitude: number
  longitude: number
  /** ISO 639-1. */
  language?: string
}

/** SPEC.md "Directory: geocoding results", forward. Strings are '' when the provider gave none. */
export interface ForwardResult {
  latitude: number
  longitude: number
  formattedAddress: string
  city: string
  state: string
  country: string
  /** ISO 3166-1 alpha-2, upper case. */
  countryCode: string
  postalCode: string
  /** 0 to 1: how sure the provider is that this is the place asked for. */
  confidence: number
}

/** SPEC.md "Directory: geocoding results", reverse. Strings are '' when the provider gave none. */
export interface ReverseResult {
  formattedAddress: string
  streetAddress: string
  city: string
  state: string
  country: string
  countryCode: string
  postalCode: string
}

/** Why a provider gave no answer. */
export type GeocodeFailureReason =
  /** It did not answer within the time allowed. */
  | 'timeout'
  /** It refused for now: too many requests. */
  | 'rate_limited'
  /** It refused the credentials (a missing, invalid or restricted key or token). */
  | 'unauthorized'
  /** It could not be reached, or failed on its side (5xx). */
  | 'unavailable'
  /** It answered, but not in the shape its API documents. */
  | 'bad_answer'
  /** It refused this query (a malformed address, coordinates out of range, a query too long). */
  | 'refused'

export interface GeocodeFailure {
  ok: false
  /** The provider's HTTP status; null when it gave none (timeout, no connection, a query never sent). */
  status: number | null
  /** Short and safe to show an admin: our words and the provider's message, never the key or token. */
  error: string
  reason: GeocodeFailureReason
}

/** Never thrown: an answer (`result` null when the provider found nothing) or a failure. */
export type GeocodeOutcome<T> = { ok: true; result: T | null } | GeocodeFailure

export interface Geocoder {
  readonly name: GeocodingProviderName
  forward(query: ForwardQuery): Promise<GeocodeOutcome<ForwardResult>>
  reverse(query: ReverseQuery): Promise<GeocodeOutcome<ReverseResult>>
}

/** The reason an HTTP status stands for, when the provider's answer says no more than its status. */
export function reasonOfStatus(status: number): GeocodeFailureReason {
  if (status === 401 || status === 403) return 'unauthorized'
  if (status === 429) return 'rate_limited'
  if (status >= 500 || status === 408) return 'unavailable'
  if (status >= 400) return 'refused'
  return 'bad_answer'
}

const ERROR_TEXT_MAX = 300

/** A message safe to keep: whitespace folded, `secret` cut out wherever it appears, length capped. */
export function safeMessage(text: string, secret: string): string {
  const folded = text.replace(/\s+/g, ' ').trim()
  return (secret ? folded.split(secret).join('[redacted]') : folded).slice(0, ERROR_TEXT_MAX)
}

export const clamp01 = (value: number) => Math.min(1, Math.max(0, value))

/** A latitude and longitude a map can show: finite and in range. */
export const isCoordinate = (latitude: unknown, longitude: unknown): boolean =>
  typeof latitude === 'number' &&
  typeof longitude === 'number' &&
  Number.isFinite(latitude) &&
  Number.isFinite(longitude) &&
  Math.abs(latitude) <= 90 &&
  Math.abs(longitude) <= 180

/**
 * Runs `call` with a deadline: `abort` is called and `onTimeout` answered when `timeoutMs` passes first.
 * A provider whose SDK cannot be aborted before its request starts still cannot hold the caller past it.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  call: Promise<T>,
  abort: () => void,
  onTimeout: () => T,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => {
      abort()
      resolve(onTimeout())
    }, timeoutMs)
  })
  try {
    return await Promise.race([call, deadline])
  } finally {
    clearTimeout(timer)
  }
}
