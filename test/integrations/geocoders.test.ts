import assert from 'node:assert/strict'
import { describe, it, type TestContext } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import type { GeocodeFailure, GeocodeOutcome, Geocoder } from '../../src/integrations/geocoder.ts'
import { createGoogleGeocoder } from '../../src/integrations/google-maps/geocoder.ts'
import { createMapboxGeocoder, isMapboxTokenShape } from '../../src/integrations/mapbox/geocoder.ts'
import { geoPlace } from '../fakes/geo-places.ts'
import { GEOCODE_PATH, type GoogleMapsFake, startGoogleMapsFake } from '../fakes/google-maps.ts'
import { fakeMapboxToken, type MapboxFake, startMapboxFake } from '../fakes/mapbox.ts'
import type { ScriptedFault } from '../fakes/scripted.ts'

const TIMEOUT_MS = 2000
/** Short enough that a held request fails the test run no slower than a blink. */
const SHORT_TIMEOUT_MS = 100

/** What the shared tests need of a provider's fake and geocoder. */
interface Harness {
  geocoder: Geocoder
  /** The token or key the geocoder uses: it must never appear in an error. */
  secret: string
  /** How many geocoding requests the provider received. */
  calls(): number
  fail(fault: ScriptedFault): void
  hang(): void
  held(): number
  /** How many geocoding requests the provider saw closed before it answered them. */
  abandoned(): number
  release(): void
  close(): Promise<void>
  /** A geocoder of this provider, at the fake, with other credentials or a shorter timeout. */
  geocoderWith(options: { secret?: string; timeoutMs?: number }): Geocoder
  /** Bodies of HTTP 200 answers that are not the API's documented shape. */
  garbage: unknown[]
  /** An answer of the provider that refuses credentials and repeats them in its message. */
  echoSecret(): void
}

async function mapbox(t: TestContext): Promise<Harness & { fake: MapboxFake }> {
  const fake = await startMapboxFake()
  t.after(() => fake.close())
  const geocoderWith = ({ secret = fake.accessToken, timeoutMs = TIMEOUT_MS }) =>
    createMapboxGeocoder({ accessToken: secret, baseUrl: fake.url, timeoutMs })
  return {
    fake,
    geocoder: geocoderWith({}),
    secret: fake.accessToken,
    calls: () => fake.requests.filter((request) => request.kind !== null).length,
    fail: (fault) => fake.fail({}, fault),
    hang: () => fake.hang(),
    held: () => fake.held,
    abandoned: () => fake.requests.filter((request) => request.kind !== null && request.abandoned).length,
    release: () => fake.release(),
    close: () => fake.close(),
    geocoderWith,
    garbage: [
      '<html>oops</html>',
      { features: 'x' },
      { type: 'FeatureCollection' },
      { type: 'FeatureCollection', features: [{ id: 'place.1', center: 'nowhere' }] },
      { type: 'FeatureCollection', features: [{ id: 'place.1', center: [200, 10] }] },
    ],
    echoSecret: () =>
      fake.fail({}, { status: 401, body: { message: `Not Authorized - Invalid Token ${fake.accessToken}` } }),
  }
}

async function google(t: TestContext): Promise<Harness & { fake: GoogleMapsFake }> {
  const fake = await startGoogleMapsFake()
  t.after(() => fake.close())
  const geocoderWith = ({ secret = fake.apiKey, timeoutMs = TIMEOUT_MS }) =>
    createGoogleGeocoder({ apiKey: secret, baseUrl: fake.url, timeoutMs })
  return {
    fake,
    geocoder: geocoderWith({}),
    secret: fake.apiKey,
    calls: () => fake.requests.filter((request) => request.kind !== null).length,
    fail: (fault) => fake.fail({}, fault),
    hang: () => fake.hang(),
    held: () => fake.held,
    abandoned: () => fake.requests.filter((request) => request.kind !== null && request.abandoned).length,
    release: () => fake.release(),
    close: () => fake.close(),
    geocoderWith,
    garbage: [
      '<html>oops</html>',
      { results: [] },
      { results: 'x', status: 'OK' },
      { results: [{ formatted_address: 'Somewhere', geometry: {} }], status: 'OK' },
      { results: [], status: 'SOMETHING_NEW' },
    ],
    echoSecret: () => fake.failStatus('REQUEST_DENIED', 1, `The provided API key is invalid: ${fake.apiKey}`),
  }
}

const PROVIDERS = { mapbox, google } as const

/** The failure an outcome must be. */
function failureOf<T>(outcome: GeocodeOutcome<T>): GeocodeFailure {
  assert.equal(outcome.ok, false, `expected a failure, got ${JSON.stringify(outcome)}`)
  return outcome as GeocodeFailure
}

/** The result an outcome must carry. */
function resultOf<T>(outcome: GeocodeOutcome<T>): T {
  assert.ok(outcome.ok, `expected an answer, got ${JSON.stringify(outcome)}`)
  assert.ok(outcome.result, 'expected a result, got none')
  return outcome.result
}

for (const [name, setup] of Object.entries(PROVIDERS)) {
  describe(`${name} geocoder: what both providers do alike`, () => {
    it('answers null, not a failure, when nothing is found forward or in reverse', async (t) => {
      const { geocoder } = await setup(t)
      assert.deepEqual(await geocoder.forward({ address: 'Atlantis, Lost Continent' }), {
        ok: true,
        result: null,
      })
      assert.deepEqual(await geocoder.reverse({ latitude: 0, longitude: -30 }), { ok: true, result: null })
      assert.deepEqual(await geocoder.forward({ address: 'Berlin', countryCodes: ['fr'] }), {
        ok: true,
        result: null,
      })
    })

    it('filters by country and prefers the place nearest proximity', async (t) => {
      const { geocoder } = await setup(t)
      const paris = resultOf(await geocoder.forward({ address: 'Paris' }))
      assert.equal(paris.countryCode, 'FR')
      const inUs = resultOf(await geocoder.forward({ address: 'Paris', countryCodes: ['us'] }))
      assert.deepEqual([inUs.city, inUs.state, inUs.countryCode], ['Paris', 'Texas', 'US'])
      const inSeveral = resultOf(await geocoder.forward({ address: 'paris', countryCodes: ['JP', 'us'] }))
      assert.equal(inSeveral.countryCode, 'US')
      const nearDallas = resultOf(
        await geocoder.forward({ address: 'Paris', proximity: { latitude: 33.3, longitude: -95.9 } }),
      )
      assert.equal(nearDallas.state, 'Texas')
      assert.equal(nearDallas.latitude, geoPlace('paris-texas').latitude)
    })

    it('answers unauthorized for credentials the provider refuses, without them in the error', async (t) => {
      const harness = await setup(t)
      const wrong = name === 'mapbox' ? fakeMapboxToken('intruder') : 'AIzaWrongKeyForCurioTests0000000000'
      const failure = failureOf(await harness.geocoderWith({ secret: wrong }).forward({ address: 'Berlin' }))
      assert.equal(failure.reason, 'unauthorized')
      assert.equal(failure.status, name === 'mapbox' ? 401 : 200)
      assert.match(
        failure.error,
        name === 'mapbox' ? /Invalid Token/ : /REQUEST_DENIED: The provided API key is invalid/,
      )
      assert.ok(!failure.error.includes(wrong))
    })

    it('answers unavailable for a 500, after exactly one request (no retries)', async (t) => {
      const harness = await setup(t)
      harness.fail({ status: 500 })
      const failure = failureOf(await harness.geocoder.forward({ address: 'Berlin' }))
      assert.equal(failure.reason, 'unavailable')
      assert.equal(failure.status, 500)
      assert.match(failure.error, /answered 500/)
      assert.equal(harness.calls(), 1)
    })

    it('answers rate_limited for an HTTP 429', async (t) => {
      const harness = await setup(t)
      harness.fail({ status: 429 })
      const failure = failureOf(await harness.geocoder.reverse({ latitude: 52.52, longitude: 13.4 }))
      assert.equal(failure.reason, 'rate_limited')
      assert.equal(failure.status, 429)
      assert.equal(harness.calls(), 1)
    })

    it('answers bad_answer for an HTTP 200 that is not the documented shape', async (t) => {
      const harness = await setup(t)
      for (const body of harness.garbage) {
        harness.fail({ status: 200, body })
        const failure = failureOf(await harness.geocoder.forward({ address: 'Berlin' }))
        assert.equal(failure.reason, 'bad_answer', `for ${JSON.stringify(body)}`)
        assert.equal(failure.status, 200)
      }
    })

    it('answers timeout when the provider holds the request past timeoutMs', async (t) => {
      const harness = await setup(t)
      const geocoder = harness.geocoderWith({ timeoutMs: SHORT_TIMEOUT_MS })
      harness.hang()
      const failure = failureOf(await geocoder.forward({ address: 'Berlin' }))
      assert.equal(failure.reason, 'timeout')
      assert.equal(failure.status, null)
      assert.match(failure.error, new RegExp(`within ${SHORT_TIMEOUT_MS} ms`))
      // It gave up at its own deadline: the provider, which holds the request, sees the connection closed.
      // (A geocoder that kept waiting would hold this loop until the test's own timeout fails it.)
      while (harness.abandoned() === 0) await delay(10)
      assert.equal(harness.held(), 1)
      harness.release()
      // The geocoder still works once the provider answers again.
      assert.equal(resultOf(await geocoder.forward({ address: 'Berlin' })).city, 'Berlin')
    })

    it('answers unavailable with no status when the provider cannot be reached', async (t) => {
      const harness = await setup(t)
      await harness.close()
      const failure = failureOf(await harness.geocoder.forward({ address: 'Berlin' }))
      assert.equal(failure.reason, 'unavailable')
      assert.equal(failure.status, null)
      assert.match(failure.error, /could not be reached: .*ECONNREFUSED/)
    })

    it('never puts the token or key in an error, even when the provider repeats it', async (t) => {
      const harness = await setup(t)
      harness.echoSecret()
      const echoed = failureOf(await harness.geocoder.forward({ address: 'Berlin' }))
      assert.equal(echoed.reason, 'unauthorized')
      assert.match(echoed.error, /\[redacted\]/)

      const errors = [echoed.error]
      for (const fault of [{ status: 500 }, { status: 429 }, { status: 200, body: '<html>oops</html>' }]) {
        harness.fail(fault)
        errors.push(failureOf(await harness.geocoder.forward({ address: 'Berlin' })).error)
      }
      harness.hang()
      errors.push(
        failureOf(
          await harness.geocoderWith({ timeoutMs: SHORT_TIMEOUT_MS }).reverse({ latitude: 1, longitude: 1 }),
        ).error,
      )
      harness.release()
      for (const error of errors)
        assert.ok(!error.includes(harness.secret), `the secret leaked into: ${error}`)
    })
  })
}

describe('Mapbox geocoder', () => {
  it('normalises a street address found forward', async (t) => {
    const { geocoder } = await mapbox(t)
    const place = geoPlace('googleplex')
    assert.equal(geocoder.name, 'mapbox')
    assert.deepEqual(await geocoder.forward({ address: '1600 Amphitheatre Parkway, Mountain View' }), {
      ok: true,
      result: {
        latitude: place.latitude,
        longitude: place.longitude,
        formattedAddress: '1600 Amphitheatre Parkway, Mountain View, California 94043, United States',
        city: 'Mountain View',
        state: 'California',
        country: 'United States',
        countryCode: 'US',
        postalCode: '94043',
        confidence: 1,
      },
    })
  })

  it('reads a city from the feature itself when the feature is the place, and leaves missing parts empty', async (t) => {
    const { geocoder } = await mapbox(t)
    const berlin = resultOf(await geocoder.forward({ address: 'berlin' }))
    assert.deepEqual(
      [
        berlin.formattedAddress,
        berlin.city,
        berlin.state,
        berlin.country,
        berlin.countryCode,
        berlin.postalCode,
      ],
      ['Berlin, Germany', 'Berlin', 'Berlin', 'Germany', 'DE', ''],
    )
  })

  it('normalises the most precise feature at a point in reverse, with its street address', async (t) => {
    const { geocoder } = await mapbox(t)
    const downing = geoPlace('downing-street')
    assert.deepEqual(
      await geocoder.reverse({ latitude: downing.latitude + 0.001, longitude: downing.longitude }),
      {
        ok: true,
        result: {
          formattedAddress: '10 Downing Street, London, SW1A 2AA, United Kingdom',
          streetAddress: '10 Downing Street',
          city: 'London',
          state: 'England',
          country: 'United Kingdom',
          countryCode: 'GB',
          postalCode: 'SW1A 2AA',
        },
      },
    )
    const tokyo = resultOf(await geocoder.reverse({ latitude: 35.68, longitude: 139.65 }))
    assert.deepEqual([tokyo.streetAddress, tokyo.city, tokyo.countryCode], ['', 'Tokyo', 'JP'])
  })

  it('sends country, language, proximity and limit as the v5 API takes them', async (t) => {
    const { fake, geocoder } = await mapbox(t)
    await geocoder.forward({
      address: 'Paris',
      countryCodes: ['FR', 'us'],
      language: 'fr',
      proximity: { latitude: 48.85, longitude: 2.35 },
    })
    await geocoder.reverse({ latitude: 48.85, longitude: 2.35, language: 'fr' })
    const [forward, reverse] = fake.requests
    assert.equal(forward?.path, '/geocoding/v5/mapbox.places/Paris.json')
    assert.deepEqual(
      { ...forward?.query, access_token: undefined },
      { country: 'fr,us', language: 'fr', proximity: '2.35,48.85', limit: '1', access_token: undefined },
    )
    assert.equal(reverse?.path, '/geocoding/v5/mapbox.places/2.35,48.85.json')
    assert.deepEqual(
      { ...reverse?.query, access_token: undefined },
      { limit: '1', language: 'fr', access_token: undefined },
    )
  })

  it('takes relevance as confidence, kept within 0 to 1', async (t) => {
    const { fake, geocoder } = await mapbox(t)
    const feature = (relevance: unknown) => ({
      type: 'FeatureCollection',
      query: ['x'],
      features: [
        {
          id: 'place.1',
          type: 'Feature',
          place_type: ['place'],
          relevance,
          text: 'X',
          place_name: 'X',
          center: [1, 2],
          context: [],
        },
      ],
      attribution: '',
    })
    for (const [relevance, confidence] of [
      [0.42, 0.42],
      [1.5, 1],
      [-0.2, 0],
      ['high', 0],
    ] as const) {
      fake.fail({}, { status: 200, body: feature(relevance) })
      const result = resultOf(await geocoder.forward({ address: 'x' }))
      assert.equal(result.confidence, confidence)
      assert.deepEqual([result.latitude, result.longitude, result.city], [2, 1, 'X'])
    }
  })

  it('answers refused for a query Mapbox will not take (422), with its message', async (t) => {
    const { geocoder } = await mapbox(t)
    const failure = failureOf(await geocoder.forward({ address: 'a'.repeat(300) }))
    assert.deepEqual(failure, {
      ok: false,
      status: 422,
      reason: 'refused',
      error: 'Mapbox answered 422: Query too long - 300/256 characters',
    })
  })

  it('refuses at construction a token the SDK cannot read, without repeating it', () => {
    assert.equal(isMapboxTokenShape(fakeMapboxToken()), true)
    for (const token of ['', 'mapbox-secret-token', 'pk.???.sig', 'pk.bnVsbA.sig']) {
      assert.equal(isMapboxTokenShape(token), false, token)
      assert.throws(
        () => createMapboxGeocoder({ accessToken: token, baseUrl: 'http://127.0.0.1:9', timeoutMs: 100 }),
        (error: Error) =>
          /not a Mapbox token/.test(error.message) && (!token || !error.message.includes(token)),
      )
    }
  })
})

describe('Google geocoder', () => {
  it('normalises a street address found forward, ROOFTOP as full confidence', async (t) => {
    const { geocoder } = await google(t)
    const place = geoPlace('googleplex')
    assert.equal(geocoder.name, 'google')
    assert.deepEqual(await geocoder.forward({ address: '1600 Amphitheatre Pkwy, Mountain View' }), {
      ok: true,
      result: {
        latitude: place.latitude,
        longitude: place.longitude,
        formattedAddress: '1600 Amphitheatre Pkwy, Mountain View, CA 94043, USA',
        city: 'Mountain View',
        state: 'California',
        country: 'United States',
        countryCode: 'US',
        postalCode: '94043',
        confidence: 1,
      },
    })
  })

  it('reads the city from postal_town where Google gives no locality, and a city as APPROXIMATE', async (t) => {
    const { geocoder } = await google(t)
    const london = resultOf(await geocoder.forward({ address: '10 Downing Street, London SW1A 2AA, UK' }))
    assert.deepEqual(
      [london.city, london.state, london.countryCode, london.postalCode],
      ['London', 'England', 'GB', 'SW1A 2AA'],
    )
    const berlin = resultOf(await geocoder.forward({ address: 'Berlin' }))
    assert.deepEqual([berlin.city, berlin.postalCode, berlin.confidence], ['Berlin', '', 0.4])
  })

  it('normalises the first result at a point in reverse, with its street address', async (t) => {
    const { geocoder } = await google(t)
    const tower = geoPlace('cn-tower')
    assert.deepEqual(
      await geocoder.reverse({ latitude: tower.latitude, longitude: tower.longitude - 0.002 }),
      {
        ok: true,
        result: {
          formattedAddress: '290 Bremner Blvd, Toronto, ON M5V 3L9, Canada',
          streetAddress: '290 Bremner Boulevard',
          city: 'Toronto',
          state: 'Ontario',
          country: 'Canada',
          countryCode: 'CA',
          postalCode: 'M5V 3L9',
        },
      },
    )
    const sydney = resultOf(await geocoder.reverse({ latitude: -33.87, longitude: 151.2 }))
    assert.deepEqual([sydney.streetAddress, sydney.city, sydney.state], ['', 'Sydney', 'New South Wales'])
  })

  it('sends one country as a components filter, several as none, language, and proximity as bounds', async (t) => {
    const { fake, geocoder } = await google(t)
    await geocoder.forward({ address: 'Paris', countryCodes: ['fr'], language: 'fr' })
    await geocoder.forward({
      address: 'Paris',
      countryCodes: ['fr', 'us'],
      proximity: { latitude: 33.66, longitude: -95.56 },
    })
    await geocoder.reverse({ latitude: 48.85, longitude: 2.35, language: 'de' })
    const [one, several, reverse] = fake.requests
    assert.deepEqual(one?.query, {
      address: 'Paris',
      key: fake.apiKey,
      components: 'country:FR',
      language: 'fr',
    })
    assert.deepEqual(several?.query, {
      address: 'Paris',
      key: fake.apiKey,
      bounds: `${33.66 - 0.5},${-95.56 - 0.5}|${33.66 + 0.5},${-95.56 + 0.5}`,
    })
    assert.deepEqual(reverse?.query, { latlng: '48.85,2.35', key: fake.apiKey, language: 'de' })
  })

  it('takes confidence from location_type, lowered for a partial match', async (t) => {
    const { fake, geocoder } = await google(t)
    const answer = (locationType: string, partial: boolean) => ({
      results: [
        {
          address_components: [],
          formatted_address: 'Somewhere',
          geometry: { location: { lat: 1, lng: 2 }, location_type: locationType },
          ...(partial ? { partial_match: true } : {}),
          place_id: 'ChIJx',
          types: ['route'],
        },
      ],
      status: 'OK',
    })
    for (const [locationType, partial, confidence] of [
      ['ROOFTOP', false, 1],
      ['ROOFTOP', true, 0.9],
      ['RANGE_INTERPOLATED', false, 0.8],
      ['GEOMETRIC_CENTER', false, 0.6],
      ['APPROXIMATE', true, 0.4 * 0.9],
    ] as const) {
      fake.fail({ path: GEOCODE_PATH }, { status: 200, body: answer(locationType, partial) })
      const result = resultOf(await geocoder.forward({ address: 'Somewhere' }))
      assert.equal(result.confidence, confidence, `${locationType} partial=${partial}`)
      assert.deepEqual([result.latitude, result.longitude, result.city, result.countryCode], [1, 2, '', ''])
    }
  })

  it('maps the status Google answers with HTTP 200 to a reason', async (t) => {
    const { fake, geocoder } = await google(t)
    for (const [status, reason] of [
      ['OVER_QUERY_LIMIT', 'rate_limited'],
      ['OVER_DAILY_LIMIT', 'unauthorized'],
      ['REQUEST_DENIED', 'unauthorized'],
      ['INVALID_REQUEST', 'refused'],
      ['UNKNOWN_ERROR', 'unavailable'],
    ] as const) {
      fake.failStatus(status)
      const failure = failureOf(await geocoder.forward({ address: 'Berlin' }))
      assert.equal(failure.reason, reason, status)
      assert.equal(failure.status, 200)
      assert.match(failure.error, new RegExp(`^Google answered ${status}`))
    }
    fake.failStatus('ZERO_RESULTS')
    assert.deepEqual(await geocoder.reverse({ latitude: 52.52, longitude: 13.4 }), { ok: true, result: null })
  })

  it('answers refused for an empty address, as Google answers INVALID_REQUEST', async (t) => {
    const { geocoder } = await google(t)
    const failure = failureOf(await geocoder.forward({ address: '' }))
    assert.equal(failure.reason, 'refused')
    assert.match(failure.error, /Missing the 'address'/)
  })
})
