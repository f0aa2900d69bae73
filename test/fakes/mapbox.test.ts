/// <reference types="mapbox__mapbox-sdk" />
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { describe, it } from 'node:test'
import type { MapiError } from '@mapbox/mapbox-sdk/lib/classes/mapi-error'
import type { GeocodeResponse, GeocodeService } from '@mapbox/mapbox-sdk/services/geocoding'
import { geoPlace } from './geo-places.ts'
import { fakeMapboxToken, startMapboxFake } from './mapbox.ts'

const require = createRequire(import.meta.url)
const createGeocodingService = require('@mapbox/mapbox-sdk/services/geocoding') as (config: {
  accessToken: string
  origin?: string
}) => GeocodeService

async function setup(t: { after: (fn: () => Promise<void>) => void }) {
  const fake = await startMapboxFake()
  t.after(() => fake.close())
  const geocoding = createGeocodingService({ accessToken: fake.accessToken, origin: fake.url })
  return { fake, geocoding }
}

/** The SDK's error for a request that fails (it rejects with a MapiError, not an Error). */
async function mapiError(send: () => Promise<unknown>): Promise<MapiError> {
  try {
    await send()
  } catch (error) {
    return error as MapiError
  }
  assert.fail('expected the request to fail')
}

/** `[longitude, latitude]` as the SDK's reverse geocoding takes it (its types say a string). */
const point = (longitude: number, latitude: number) => [longitude, latitude] as unknown as string

describe('Mapbox fake, through the official SDK', () => {
  it('geocodes an address forward with the parameters the SDK sends, in the documented shape', async (t) => {
    const { fake, geocoding } = await setup(t)
    const googleplex = geoPlace('googleplex')

    const response = await geocoding
      .forwardGeocode({
        query: '1600 Amphitheatre Parkway, Mountain View',
        countries: ['us'],
        language: ['en'],
        proximity: [-122.1, 37.4],
        limit: 1,
      })
      .send()

    assert.equal(response.statusCode, 200)
    const body: GeocodeResponse = response.body
    assert.equal(body.type, 'FeatureCollection')
    assert.deepEqual(body.query, ['1600', 'amphitheatre', 'parkway', 'mountain', 'view'])
    assert.match(body.attribution, /Mapbox/)
    assert.equal(body.features.length, 1)
    const [feature] = body.features
    assert.match(feature!.id, /^address\.\d+$/)
    assert.equal(feature!.type, 'Feature')
    assert.deepEqual(feature!.place_type, ['address'])
    assert.equal(feature!.relevance, 1)
    assert.equal(feature!.address, '1600')
    assert.equal(feature!.text, 'Amphitheatre Parkway')
    assert.equal(feature!.place_name, googleplex.mapboxAddress)
    assert.deepEqual(feature!.center, [googleplex.longitude, googleplex.latitude])
    assert.deepEqual(feature!.geometry.coordinates, feature!.center)
    assert.deepEqual(
      feature!.context.map((entry) => [entry.id.split('.')[0], entry.text, entry.short_code]),
      [
        ['postcode', '94043', undefined],
        ['place', 'Mountain View', undefined],
        ['district', 'Santa Clara County', undefined],
        ['region', 'California', 'US-CA'],
        ['country', 'United States', 'us'],
      ],
    )

    const [request] = fake.requests
    assert.equal(request?.method, 'GET')
    assert.equal(
      request?.path,
      '/geocoding/v5/mapbox.places/1600%20Amphitheatre%20Parkway%2C%20Mountain%20View.json',
    )
    assert.equal(request?.kind, 'forward')
    assert.equal(request?.searchText, '1600 Amphitheatre Parkway, Mountain View')
    assert.equal(request?.accessToken, fake.accessToken)
    assert.deepEqual(
      { ...request?.query, access_token: undefined },
      { country: 'us', language: 'en', proximity: '-122.1,37.4', limit: '1', access_token: undefined },
    )
    assert.equal(request?.status, 200)
  })

  it('finds a place whatever its case and accents, filtered by country, nearest to proximity first', async (t) => {
    const { geocoding } = await setup(t)
    const names = async (request: Parameters<GeocodeService['forwardGeocode']>[0]) =>
      (await geocoding.forwardGeocode(request).send()).body.features.map((feature) => feature.place_name)

    assert.deepEqual(await names({ query: 'SAO PAULO' }), ['São Paulo, São Paulo, Brazil'])
    assert.deepEqual(await names({ query: 'Paris' }), [
      'Paris, Île-de-France, France',
      'Paris, Texas, United States',
    ])
    assert.deepEqual(await names({ query: 'Paris', countries: ['us'] }), ['Paris, Texas, United States'])
    assert.deepEqual(await names({ query: 'Paris', proximity: [-96.8, 32.78] }), [
      'Paris, Texas, United States',
      'Paris, Île-de-France, France',
    ])
    assert.deepEqual(await names({ query: 'Berlin', countries: ['fr'] }), [])
    assert.deepEqual(await names({ query: 'Atlantis' }), [])
  })

  it('geocodes a point in reverse: one feature per level, most precise first, or only the first with limit 1', async (t) => {
    const { fake, geocoding } = await setup(t)
    const downing = geoPlace('downing-street')

    const all = await geocoding.reverseGeocode({ query: point(downing.longitude, downing.latitude) }).send()
    assert.deepEqual(all.body.query, [downing.longitude, downing.latitude])
    assert.deepEqual(
      all.body.features.map((feature) => feature.place_type[0]),
      ['address', 'postcode', 'place', 'district', 'region', 'country'],
    )
    assert.equal(all.body.features[0]?.place_name, downing.mapboxAddress)
    assert.equal(all.body.features[0]?.address, '10')

    const one = await geocoding
      .reverseGeocode({
        query: point(downing.longitude + 0.01, downing.latitude),
        limit: 1,
        language: ['de'],
      })
      .send()
    assert.equal(one.body.features.length, 1)
    assert.equal(one.body.features[0]?.text, 'Downing Street')
    assert.equal(one.body.features[0]?.language, 'de')
    assert.equal(
      fake.requests[1]?.path,
      `/geocoding/v5/mapbox.places/${downing.longitude + 0.01},${downing.latitude}.json`,
    )
    assert.equal(fake.requests[1]?.kind, 'reverse')

    const sea = await geocoding.reverseGeocode({ query: point(-30, 0) }).send()
    assert.deepEqual(sea.body.features, [])
  })

  it('refuses a reverse limit above 1 without one type, a query too long, a bad country, with 422', async (t) => {
    const { geocoding } = await setup(t)
    const tooMany = await mapiError(() =>
      geocoding.reverseGeocode({ query: point(13.4, 52.52), limit: 3 }).send(),
    )
    assert.equal(tooMany.type, 'HttpError')
    assert.equal(tooMany.statusCode, 422)
    assert.match(tooMany.message ?? '', /single type/)

    const withType = await geocoding
      .reverseGeocode({ query: point(13.4, 52.52), limit: 3, types: ['place'] })
      .send()
    assert.deepEqual(
      withType.body.features.map((feature) => feature.text),
      ['Berlin'],
    )

    const long = await mapiError(() => geocoding.forwardGeocode({ query: 'x'.repeat(257) }).send())
    assert.equal(long.statusCode, 422)
    assert.match(long.message ?? '', /Query too long/)

    const country = await mapiError(() =>
      geocoding.forwardGeocode({ query: 'Berlin', countries: ['deu'] }).send(),
    )
    assert.equal(country.statusCode, 422)
  })

  it('answers 401 without the right token, and the SDK refuses a token that is not shaped as Mapbox issues them', async (t) => {
    const { fake } = await setup(t)
    const wrong = createGeocodingService({ accessToken: fakeMapboxToken('someone-else'), origin: fake.url })
    const error = await mapiError(() => wrong.forwardGeocode({ query: 'Berlin' }).send())
    assert.equal(error.statusCode, 401)
    assert.equal(error.message, 'Not Authorized - Invalid Token')

    const none = await fetch(`${fake.url}/geocoding/v5/mapbox.places/Berlin.json`)
    assert.equal(none.status, 401)
    assert.deepEqual(await none.json(), { message: 'Not Authorized - No Token' })

    assert.throws(
      () => createGeocodingService({ accessToken: 'not-a-token', origin: fake.url }),
      /Invalid token/,
    )
  })

  it('answers an injected status as Mapbox words it, an outage until up, and holds a request until released', async (t) => {
    const { fake, geocoding } = await setup(t)
    fake.fail({ path: /^\/geocoding\// }, { status: 429 })
    const limited = await mapiError(() => geocoding.forwardGeocode({ query: 'Berlin' }).send())
    assert.equal(limited.statusCode, 429)
    assert.equal(limited.message, 'Too Many Requests')

    fake.down({ status: 500 })
    for (const query of ['Berlin', 'Tokyo']) {
      const failed = await mapiError(() => geocoding.forwardGeocode({ query }).send())
      assert.equal(failed.statusCode, 500)
      assert.equal(failed.message, 'Internal Server Error')
    }
    fake.up()
    const back = await geocoding.forwardGeocode({ query: 'Tokyo' }).send()
    assert.equal(back.body.features[0]?.text, 'Tokyo')

    fake.hang()
    const request = geocoding.forwardGeocode({ query: 'Sydney' })
    const sent = mapiError(() => request.send())
    while (fake.held === 0) await new Promise((resolve) => setImmediate(resolve))
    request.abort()
    assert.equal((await sent).type, 'RequestAbortedError')
    assert.equal(fake.held, 1)
    fake.release()
    assert.equal(fake.held, 0)
    assert.deepEqual(fake.requests.map((logged) => `${logged.searchText} ${logged.status}`).slice(0, 4), [
      'Berlin 429',
      'Berlin 500',
      'Tokyo 500',
      'Tokyo 200',
    ])
    assert.equal(fake.requests[4]?.searchText, 'Sydney')
  })
})
