import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  Client,
  type ClientOptions,
  type GeocodeRequest,
  type GeocodeResult,
} from '@googlemaps/google-maps-services-js'
import axios, { type AxiosError } from 'axios'
import { geoPlace } from './geo-places.ts'
import { GEOCODE_PATH, startGoogleMapsFake } from './google-maps.ts'

async function setup(t: { after: (fn: () => Promise<void>) => void }) {
  const fake = await startGoogleMapsFake()
  t.after(() => fake.close())
  // A plain axios instance: one attempt, every status answered, as the geocoder uses the SDK.
  const client = new Client({
    axiosInstance: axios.create({ validateStatus: () => true }) as unknown as ClientOptions['axiosInstance'],
  })
  return { fake, client, url: `${fake.url}${GEOCODE_PATH}` }
}

describe('Google Maps fake, through the official SDK', () => {
  it('geocodes an address forward with the parameters the SDK sends, in the documented shape', async (t) => {
    const { fake, client, url } = await setup(t)
    const downing = geoPlace('downing-street')

    const response = await client.geocode({
      url,
      params: {
        address: '10 Downing Street, London',
        key: fake.apiKey,
        components: { country: 'GB' },
        language: 'en',
        bounds: { southwest: { lat: 51, lng: -1 }, northeast: { lat: 52, lng: 0 } },
      },
    })

    assert.equal(response.status, 200)
    assert.equal(response.data.status, 'OK')
    assert.equal(response.data.results.length, 1)
    const result: GeocodeResult = response.data.results[0]!
    assert.equal(result.formatted_address, downing.googleAddress)
    assert.deepEqual(result.geometry.location, { lat: downing.latitude, lng: downing.longitude })
    assert.equal(result.geometry.location_type, 'ROOFTOP')
    assert.ok(result.geometry.viewport.northeast.lat > downing.latitude)
    assert.match(result.place_id, /^ChIJ/)
    assert.deepEqual(result.types, ['street_address'])
    assert.deepEqual(
      result.address_components.map((part) => [part.types[0], part.long_name, part.short_name]),
      [
        ['street_number', '10', '10'],
        ['route', 'Downing Street', 'Downing St'],
        ['postal_town', 'London', 'London'],
        ['administrative_area_level_2', 'Greater London', 'Greater London'],
        ['administrative_area_level_1', 'England', 'England'],
        ['country', 'United Kingdom', 'GB'],
        ['postal_code', 'SW1A 2AA', 'SW1A 2AA'],
      ],
    )

    const [request] = fake.requests
    assert.equal(request?.method, 'GET')
    assert.equal(request?.path, GEOCODE_PATH)
    assert.equal(request?.kind, 'forward')
    assert.deepEqual(request?.query, {
      address: '10 Downing Street, London',
      key: fake.apiKey,
      components: 'country:GB',
      language: 'en',
      bounds: '51,-1|52,0',
    })
  })

  it('finds a place whatever its accents, by country component, inside bounds first', async (t) => {
    const { fake, client, url } = await setup(t)
    const addresses = async (params: {
      address: string
      components?: { country: string }
      bounds?: string
    }) =>
      (await client.geocode({ url, params: { ...params, key: fake.apiKey } })).data.results.map(
        (result) => result.formatted_address,
      )

    assert.deepEqual(await addresses({ address: 'Sao Paulo' }), ['São Paulo, State of São Paulo, Brazil'])
    assert.deepEqual(await addresses({ address: 'Paris' }), ['Paris, France', 'Paris, TX, USA'])
    assert.deepEqual(await addresses({ address: 'Paris', components: { country: 'us' } }), ['Paris, TX, USA'])
    assert.deepEqual(await addresses({ address: 'Paris', bounds: '32,-97|34,-95' }), [
      'Paris, TX, USA',
      'Paris, France',
    ])

    const none = await client.geocode({ url, params: { address: 'Atlantis', key: fake.apiKey } })
    assert.equal(none.status, 200)
    assert.deepEqual(none.data, { results: [], status: 'ZERO_RESULTS' })
  })

  it('geocodes a point in reverse: the nearest place within 50 km, then the levels holding it', async (t) => {
    const { fake, client, url } = await setup(t)
    const tower = geoPlace('cn-tower')

    const response = await client.reverseGeocode({
      url,
      params: { latlng: { lat: tower.latitude + 0.01, lng: tower.longitude }, key: fake.apiKey },
    })
    assert.equal(response.data.status, 'OK')
    assert.deepEqual(
      response.data.results.map((result) => result.types[0]),
      ['street_address', 'locality', 'administrative_area_level_1', 'country'],
    )
    assert.equal(response.data.results[0]?.formatted_address, tower.googleAddress)
    assert.equal(fake.requests[0]?.query.latlng, `${tower.latitude + 0.01},${tower.longitude}`)
    assert.equal(fake.requests[0]?.kind, 'reverse')

    const sea = await client.reverseGeocode({
      url,
      params: { latlng: { lat: 0, lng: -30 }, key: fake.apiKey },
    })
    assert.equal(sea.data.status, 'ZERO_RESULTS')
  })

  it('answers INVALID_REQUEST for a missing address, a bad latlng, a repeated country component', async (t) => {
    const { fake, client, url } = await setup(t)
    const statusOf = async (params: Record<string, string>) => {
      const { data } = await client.geocode({ url, params: { key: fake.apiKey, ...params } })
      return [data.status, data.error_message]
    }
    assert.deepEqual(await statusOf({}), [
      'INVALID_REQUEST',
      "Invalid request. Missing the 'address', 'components', 'latlng' or 'place_id' parameter.",
    ])
    assert.deepEqual(await statusOf({ latlng: '95,10' }), [
      'INVALID_REQUEST',
      "Invalid request. Invalid 'latlng' parameter.",
    ])
    assert.deepEqual(await statusOf({ address: 'Paris', components: 'country:FR|country:US' }), [
      'INVALID_REQUEST',
      "Invalid request. Invalid 'components' parameter.",
    ])
  })

  it('denies a missing or wrong key with HTTP 200 REQUEST_DENIED, which the SDK default client makes a 403', async (t) => {
    const { fake, client, url } = await setup(t)
    const wrong = await client.geocode({ url, params: { address: 'Berlin', key: 'AIzaWrongKey' } })
    assert.equal(wrong.status, 200)
    assert.deepEqual(wrong.data, {
      error_message: 'The provided API key is invalid.',
      results: [],
      status: 'REQUEST_DENIED',
    })
    // The SDK's types require a key; a request without one is what a misconfigured caller sends.
    const none = await client.geocode({ url, params: { address: 'Berlin' } as GeocodeRequest['params'] })
    assert.equal(none.data.status, 'REQUEST_DENIED')
    assert.match(none.data.error_message, /You must use an API key/)
    assert.deepEqual(
      fake.requests.map((request) => request.key),
      ['AIzaWrongKey', undefined],
    )

    // The SDK's own instance reads `status` and rejects; retries off so the test does not wait for backoff.
    const sdkDefault = new Client({ config: { raxConfig: { retry: 0, noResponseRetries: 0 } } })
    const error = await sdkDefault.geocode({ url, params: { address: 'Berlin', key: 'AIzaWrongKey' } }).then(
      () => assert.fail('expected a rejection'),
      (rejection: AxiosError<{ status: string }>) => rejection,
    )
    assert.equal(error.response?.status, 403)
    assert.equal(error.response?.data.status, 'REQUEST_DENIED')
  })

  it('answers scripted statuses, HTTP faults as Google words them, an outage until up, and holds until released', async (t) => {
    const { fake, client, url } = await setup(t)
    const params = { address: 'Berlin', key: fake.apiKey }

    fake.failStatus('OVER_QUERY_LIMIT')
    const limited = await client.geocode({ url, params })
    assert.equal(limited.status, 200)
    assert.equal(limited.data.status, 'OVER_QUERY_LIMIT')
    assert.equal(limited.data.error_message, 'You have exceeded your rate-limit for this API.')

    fake.fail({ path: GEOCODE_PATH }, { status: 500 })
    const failed = await client.geocode({ url, params })
    assert.equal(failed.status, 500)
    assert.match(String(failed.data), /Error 500 \(Server Error\)/)
    assert.match(String(failed.headers['content-type']), /text\/html/)

    fake.down({ status: 503 })
    assert.equal((await client.geocode({ url, params })).status, 503)
    fake.up()
    assert.equal((await client.geocode({ url, params })).data.status, 'OK')

    fake.hang()
    const controller = new AbortController()
    const held = client.geocode({ url, params, signal: controller.signal }).then(
      () => assert.fail('expected the request to be aborted'),
      (error: unknown) => error,
    )
    while (fake.held === 0) await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    assert.ok(axios.isCancel(await held))
    assert.equal(fake.held, 1)
    fake.release()
    assert.equal(fake.held, 0)
    assert.equal(fake.calls('forward').length, 5)
  })
})
