import { type Static, Type } from 'typebox'

/** SPEC.md's Limits: an address is 1 to 500 characters. */
export const GEOCODE_LIMITS = { addressMax: 500, countryCodesMax: 20 } as const

const Latitude = (description: string) =>
  Type.Number({ minimum: -90, maximum: 90, description, examples: [37.4224] })
const Longitude = (description: string) =>
  Type.Number({ minimum: -180, maximum: 180, description, examples: [-122.0842] })

export const GeocodeBody = Type.Object(
  {
    address: Type.Optional(
      Type.String({
        maxLength: GEOCODE_LIMITS.addressMax,
        description: 'forward geocoding: the address or place to find (1 to 500 characters, not blank)',
        examples: ['1600 Amphitheatre Parkway, Mountain View, CA'],
      }),
    ),
    latitude: Type.Optional(Latitude('reverse geocoding: the point’s latitude, with `longitude`')),
    longitude: Type.Optional(Longitude('reverse geocoding: the point’s longitude, with `latitude`')),
    options: Type.Optional(
      Type.Object(
        {
          countryCodes: Type.Optional(
            Type.Array(Type.String({ maxLength: 10, examples: ['us'] }), {
              maxItems: GEOCODE_LIMITS.countryCodesMax,
              description: 'forward only: ISO 3166-1 alpha-2 codes of the countries to search in, any case',
              examples: [['us', 'ca']],
            }),
          ),
          language: Type.Optional(
            Type.String({
              maxLength: 10,
              description: 'ISO 639-1 code of the language of the names answered',
              examples: ['en'],
            }),
          ),
          proximity: Type.Optional(
            Type.Object(
              {
                latitude: Latitude('bias towards this point'),
                longitude: Longitude('bias towards this point'),
              },
              { description: 'forward only: places near this point come first' },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'Send `address` (forward), or `latitude` and `longitude` (reverse), not both.',
    examples: [
      {
        address: '1600 Amphitheatre Parkway, Mountain View, CA',
        options: { countryCodes: ['us'], language: 'en' },
      },
      { latitude: 51.5033635, longitude: -0.1276248, options: { language: 'en' } },
    ],
  },
)
export type GeocodeBody = Static<typeof GeocodeBody>

const Text = (description: string, example: string) => Type.String({ description, examples: [example] })

export const ForwardResultSchema = Type.Object(
  {
    latitude: Type.Number({ examples: [37.4224428] }),
    longitude: Type.Number({ examples: [-122.0842467] }),
    formattedAddress: Text(
      'the provider’s full address',
      '1600 Amphitheatre Parkway, Mountain View, CA 94043, United States',
    ),
    city: Text('empty when the provider named none', 'Mountain View'),
    state: Text('region or state; empty when none', 'California'),
    country: Text('empty when none', 'United States'),
    countryCode: Text('ISO 3166-1 alpha-2, upper case; empty when none', 'US'),
    postalCode: Text('empty when none', '94043'),
    confidence: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        'how sure the provider is (Mapbox’s relevance; Google’s location type: rooftop 1, interpolated 0.8, ' +
        'geometric centre 0.6, approximate 0.4, less for a partial match)',
      examples: [1],
    }),
  },
  { description: 'forward: the best match' },
)

export const ReverseResultSchema = Type.Object(
  {
    formattedAddress: Text(
      'the provider’s full address',
      '10 Downing Street, London SW1A 2AA, United Kingdom',
    ),
    streetAddress: Text('number and street; empty when none', '10 Downing Street'),
    city: Text('empty when none', 'London'),
    state: Text('empty when none', 'England'),
    country: Text('empty when none', 'United Kingdom'),
    countryCode: Text('ISO 3166-1 alpha-2, upper case; empty when none', 'GB'),
    postalCode: Text('empty when none', 'SW1A 2AA'),
  },
  { description: 'reverse: the address at the point' },
)

export const GeocodeAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Union([ForwardResultSchema, ReverseResultSchema]) },
  {
    description: 'The place found: a forward result for an address, a reverse result for a point',
    examples: [
      {
        success: true,
        data: {
          latitude: 37.4224428,
          longitude: -122.0842467,
          formattedAddress: '1600 Amphitheatre Parkway, Mountain View, CA 94043, United States',
          city: 'Mountain View',
          state: 'California',
          country: 'United States',
          countryCode: 'US',
          postalCode: '94043',
          confidence: 1,
        },
      },
    ],
  },
)

export const GeocodeStatusAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      enabled: Type.Boolean({
        description: 'location features are on (`LOCATION_ENABLED` and the site’s location settings)',
        examples: [true],
      }),
      configured: Type.Boolean({ description: 'at least one provider has credentials', examples: [true] }),
      providers: Type.Object({
        mapbox: Type.Boolean({ description: 'MAPBOX_ACCESS_TOKEN is set', examples: [true] }),
        google: Type.Boolean({ description: 'GOOGLE_MAPS_API_KEY is set', examples: [false] }),
      }),
      cache: Type.Object({
        size: Type.Integer({ description: 'answers held now (this instance)', examples: [42] }),
        maxSize: Type.Integer({ examples: [1000] }),
        ttlMs: Type.Integer({ examples: [900000] }),
      }),
    }),
  },
  {
    description: 'Whether geocoding can answer, with which providers, and the cache’s figures',
    examples: [
      {
        success: true,
        data: {
          enabled: true,
          configured: true,
          providers: { mapbox: true, google: false },
          cache: { size: 42, maxSize: 1000, ttlMs: 900000 },
        },
      },
    ],
  },
)
