import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import type { ForwardQuery, ReverseQuery } from '../../integrations/geocoder.ts'
import { type FieldIssue, invalidInput } from '../../lib/errors.ts'
import { isCountryCode, isLanguageCode } from '../../lib/iso-codes.ts'
import { errors } from '../http/schemas.ts'
import { GeocodeAnswer, GeocodeBody, GeocodeStatusAnswer } from './schemas.ts'
import type { GeocodingService } from './service.ts'

const tags = ['geocoding']

/**
 * What the body asks: forward geocoding of `address`, or reverse of `latitude` and `longitude`. Everything
 * the schema cannot say is checked here, every failing field named at once: a blank address, both kinds or
 * neither, one coordinate alone, codes that are not ISO, forward-only options on a reverse request.
 */
export function geocodeRequestOf(
  body: GeocodeBody,
): { kind: 'forward'; query: ForwardQuery } | { kind: 'reverse'; query: ReverseQuery } {
  const issues: FieldIssue[] = []
  const { address, latitude, longitude, options = {} } = body
  const hasPoint = latitude !== undefined || longitude !== undefined
  if (address !== undefined && address.trim() === '')
    issues.push({ field: 'address', message: 'must not be blank' })
  if (address !== undefined && hasPoint) {
    issues.push({ field: 'address', message: 'send an address, or latitude and longitude, not both' })
  }
  if (address === undefined && !hasPoint) {
    issues.push({ field: 'address', message: 'is required, unless latitude and longitude are sent' })
  }
  if (address === undefined && hasPoint) {
    if (latitude === undefined) issues.push({ field: 'latitude', message: 'is required with longitude' })
    if (longitude === undefined) issues.push({ field: 'longitude', message: 'is required with latitude' })
  }
  options.countryCodes?.forEach((code, index) => {
    if (!isCountryCode(code)) {
      issues.push({
        field: `options.countryCodes.${index}`,
        message: 'must be an ISO 3166-1 alpha-2 country code',
      })
    }
  })
  if (options.language !== undefined && !isLanguageCode(options.language)) {
    issues.push({ field: 'options.language', message: 'must be an ISO 639-1 language code' })
  }
  if (address === undefined && hasPoint) {
    for (const forwardOnly of ['countryCodes', 'proximity'] as const) {
      if (options[forwardOnly] !== undefined) {
        issues.push({
          field: `options.${forwardOnly}`,
          message: 'applies to forward geocoding (an address) only',
        })
      }
    }
  }
  if (issues.length > 0) throw invalidInput(issues)
  const language = options.language?.toLowerCase()
  if (address !== undefined) {
    return {
      kind: 'forward',
      query: {
        address: address.trim(),
        ...(options.countryCodes?.length
          ? { countryCodes: options.countryCodes.map((code) => code.toUpperCase()) }
          : {}),
        ...(language ? { language } : {}),
        ...(options.proximity ? { proximity: options.proximity } : {}),
      },
    }
  }
  return {
    kind: 'reverse',
    query: {
      latitude: latitude as number,
      longitude: longitude as number,
      ...(language ? { language } : {}),
    },
  }
}

export function geocodingRoutes(app: App, { geocoding }: { geocoding: GeocodingService }) {
  app.post(
    '/api/geocode',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Geocode an address or a point',
        description:
          'Forward geocoding of `address` (1 to 500 characters; `options.countryCodes` ISO 3166-1 alpha-2, ' +
          '`options.language` ISO 639-1, `options.proximity` a point to bias towards), or reverse geocoding of ' +
          '`latitude` (-90..90) and `longitude` (-180..180) with `options.language`. The configured provider ' +
          '(`GEOCODING_PROVIDER`) is asked first and the other, when it has credentials, if the first fails (times ' +
          'out, is rate limited, refuses or answers garbage); not when it finds nothing. Answers are cached per ' +
          'instance for 15 minutes (1,000 entries, least recently used out first; the address’s case and spacing, ' +
          'the order of country codes and coordinates past 4 decimals do not make a new entry), and identical ' +
          'lookups arriving together share one provider call. 404 `GEOCODE_NO_RESULT` when nothing is found; 503 ' +
          '`LOCATION_DISABLED`, `GEOCODING_NOT_CONFIGURED`, or `GEOCODING_FAILED` when every provider failed.',
        body: GeocodeBody,
        response: {
          200: GeocodeAnswer,
          ...errors(
            [400, invalidField('body.options.countryCodes.0', 'must be an ISO 3166-1 alpha-2 country code')],
            401,
            [403, 'FORBIDDEN', 'CROSS_ORIGIN'],
            [404, 'GEOCODE_NO_RESULT'],
            413,
            415,
            [503, 'LOCATION_DISABLED', 'GEOCODING_NOT_CONFIGURED', 'GEOCODING_FAILED'],
          ),
        },
      },
    },
    async (req) => {
      const request = geocodeRequestOf(req.body)
      const data =
        request.kind === 'forward'
          ? await geocoding.forward(request.query)
          : await geocoding.reverse(request.query)
      return { success: true as const, data }
    },
  )

  app.get(
    '/api/geocode',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Geocoding status',
        description:
          'Whether location features are on, whether a provider has credentials and which, and this instance’s ' +
          'cache: entries held, at most 1,000, kept 900,000 ms.',
        response: { 200: GeocodeStatusAnswer, ...errors(401) },
      },
    },
    async () => ({ success: true as const, data: await geocoding.status() }),
  )
}
