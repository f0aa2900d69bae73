import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import {
  createGeocodingService,
  GEOCODE_CACHE_MAX,
  GEOCODE_CACHE_TTL_MS,
} from '../../src/directory/geocoding/service.ts'
import { createManualClock } from '../../src/lib/clock.ts'
import { type GoogleMapsFake, startGoogleMapsFake } from '../fakes/google-maps.ts'
import { type MapboxFake, startMapboxFake } from '../fakes/mapbox.ts'
import { type DirectoryHarness, signUp, siteRequest, startDirectory, until } from '../helpers/apps.ts'

let mapbox: MapboxFake
let google: GoogleMapsFake
let h: DirectoryHarness
let admin: string
let member: string

const TIMEOUT_MS = 300

const providerEnv = () => ({
  GEOCODING_PROVIDER: 'mapbox',
  MAPBOX_ACCESS_TOKEN: mapbox.accessToken,
  MAPBOX_API_URL: mapbox.url,
  GOOGLE_MAPS_API_KEY: google.apiKey,
  GOOGLE_MAPS_API_URL: google.url,
  GEOCODING_TIMEOUT_MS: String(TIMEOUT_MS),
})

before(async () => {
  mapbox = await startMapboxFake()
  google = await startGoogleMapsFake()
  h = await startDirectory({ env: providerEnv() })
  admin = await h.adminCookie()
  member = await signUp(h)
})
after(async () => {
  await h.close()
  await mapbox.close()
  await google.close()
})
beforeEach(() => {
  mapbox.up()
  google.up()
  // Whatever earlier tests cached has expired: each test starts with an empty cache.
  h.clock.advance(GEOCODE_CACHE_TTL_MS + 1)
})

const geocode = (payload: unknown, cookie: string | null = admin) =>
  siteRequest(h, 'POST', '/api/geocode', { cookie, payload })

async function found(payload: unknown) {
  const res = await geocode(payload)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data
}

const forwardCalls = () => ({
  mapbox: mapbox.calls('forward').length,
  google: google.calls('forward').length,
})

describe('POST /api/geocode', () => {
  it('geocodes an address through the configured provider, normalised to SPEC.md’s fields', async () => {
    const data = await found({
      address: '10 Downing Street, London',
      options: { countryCodes: ['gb'], language: 'en', proximity: { latitude: 51.5, longitude: -0.12 } },
    })
    assert.deepEqual(Object.keys(data).sort(), [
      'city',
      'confidence',
      'country',
      'countryCode',
      'formattedAddress',
      'latitude',
      'longitude',
      'postalCode',
      'state',
    ])
    assert.equal(data.city, 'London')
    assert.equal(data.countryCode, 'GB')
    assert.equal(data.postalCode, 'SW1A 2AA')
    assert.ok(Math.abs(data.latitude - 51.5034878) < 1e-6)
    assert.ok(data.confidence > 0 && data.confidence <= 1)
    const sent = mapbox.calls('forward').at(-1)
    assert.ok(sent)
    assert.equal(sent.query.country, 'gb')
    assert.equal(sent.query.language, 'en')
    assert.equal(sent.query.proximity, '-0.12,51.5')
    assert.equal(google.calls('forward').length, 0, 'the fallback is not asked when the first answers')
  })

  it('reverse geocodes a point', async () => {
    const data = await found({ latitude: 52.5163, longitude: 13.3777, options: { language: 'de' } })
    assert.equal(data.city, 'Berlin')
    assert.equal(data.countryCode, 'DE')
    assert.equal(typeof data.streetAddress, 'string')
    assert.equal(data.latitude, undefined, 'a reverse result has no coordinates of its own')
  })

  it('answers 404 when nothing is found, without asking the other provider', async () => {
    const before = forwardCalls()
    const res = await geocode({ address: 'Nowhere at all' })
    assert.equal(res.statusCode, 404, res.body)
    assert.equal(res.json().code, 'GEOCODE_NO_RESULT')
    assert.deepEqual(forwardCalls(), { mapbox: before.mapbox + 1, google: before.google })
  })

  it('falls back to the other provider when the first is rate limited, times out or answers garbage', async () => {
    for (const fault of ['429', 'hang', 'garbage'] as const) {
      h.clock.advance(GEOCODE_CACHE_TTL_MS + 1)
      const before = forwardCalls()
      if (fault === '429') mapbox.fail({}, { status: 429 })
      else if (fault === 'hang') mapbox.hang()
      else mapbox.fail({}, { status: 200, body: '<html>upstream error</html>' })
      const data = await found({ address: 'Berlin' })
      assert.equal(data.city, 'Berlin', fault)
      assert.deepEqual(forwardCalls(), { mapbox: before.mapbox + 1, google: before.google + 1 }, fault)
    }
  })

  it('answers 503 GEOCODING_FAILED, naming each provider’s failure, when both fail; nothing is cached', async () => {
    mapbox.down({ status: 503 })
    google.down({ status: 500 })
    const address = 'Paris'
    const res = await geocode({ address })
    assert.equal(res.statusCode, 503, res.body)
    assert.equal(res.json().code, 'GEOCODING_FAILED')
    assert.match(res.json().error, /mapbox: unavailable; google: unavailable/)
    assert.ok(!res.body.includes(mapbox.accessToken) && !res.body.includes(google.apiKey))
    mapbox.up()
    google.up()
    assert.equal((await found({ address })).city, 'Paris', 'the failure was not cached')
  })

  it('caches answers by normalised key: case, spacing, country order and rounded coordinates', async () => {
    const before = forwardCalls()
    await found({ address: 'Sydney', options: { countryCodes: ['AU', 'nz'] } })
    await found({ address: '  SYDNEY  ', options: { countryCodes: ['NZ', 'au'] } })
    assert.deepEqual(forwardCalls(), { mapbox: before.mapbox + 1, google: before.google })
    const reverseBefore = mapbox.calls('reverse').length
    await found({ latitude: -33.85678, longitude: 151.21529 })
    await found({ latitude: -33.856781, longitude: 151.215292 })
    assert.equal(mapbox.calls('reverse').length, reverseBefore + 1)
    // Another language is another question.
    await found({ address: 'Sydney', options: { countryCodes: ['au', 'nz'], language: 'fr' } })
    assert.equal(forwardCalls().mapbox, before.mapbox + 2)
  })

  it('expires an answer after 15 minutes', async () => {
    const address = 'CN Tower'
    await found({ address })
    const calls = forwardCalls().mapbox
    h.clock.advance(GEOCODE_CACHE_TTL_MS - 1000)
    await found({ address })
    assert.equal(forwardCalls().mapbox, calls, 'still cached just before 15 minutes')
    h.clock.advance(2000)
    await found({ address })
    assert.equal(forwardCalls().mapbox, calls + 1, 'asked again after')
  })

  it('shares one provider call among identical lookups that miss at once', async () => {
    const address = 'Tokyo'
    const before = forwardCalls()
    mapbox.hang()
    const answers = Promise.all(Array.from({ length: 6 }, () => geocode({ address })))
    await until(async () => mapbox.held === 1, 'the first lookup reached Mapbox')
    mapbox.release()
    for (const res of await answers) assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(forwardCalls(), { mapbox: before.mapbox + 1, google: before.google })
  })

  it('names every invalid field in one 400', async () => {
    const cases: [unknown, string[]][] = [
      [{ address: '' }, ['body.address']],
      [{ address: '   ' }, ['body.address']],
      [{ address: 'x'.repeat(501) }, ['body.address']],
      [{ latitude: 91, longitude: -181 }, ['body.latitude', 'body.longitude']],
      [{ latitude: 10 }, ['body.longitude']],
      [{}, ['body.address']],
      [{ address: 'Berlin', latitude: 1, longitude: 2 }, ['body.address']],
      [
        { address: 'Berlin', options: { countryCodes: ['de', 'XX', 'EU', 'usa'], language: 'xx' } },
        [
          'body.options.countryCodes.1',
          'body.options.countryCodes.2',
          'body.options.countryCodes.3',
          'body.options.language',
        ],
      ],
      [{ address: 'Berlin', options: { language: 'eng' } }, ['body.options.language']],
      [
        {
          latitude: 1,
          longitude: 2,
          options: { countryCodes: ['de'], proximity: { latitude: 1, longitude: 2 } },
        },
        ['body.options.countryCodes', 'body.options.proximity'],
      ],
      [
        { address: 'Berlin', options: { proximity: { latitude: 100, longitude: 0 } } },
        ['body.options.proximity.latitude'],
      ],
    ]
    for (const [payload, fields] of cases) {
      const res = await geocode(payload)
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`)
      const named = [
        ...new Set((res.json().details as { field: string }[]).map((issue) => issue.field)),
      ].sort()
      assert.deepEqual(named, fields, JSON.stringify(payload))
    }
  })

  it('needs an admin session: 401 without one, 403 for a member', async () => {
    assert.equal((await geocode({ address: 'Berlin' }, null)).statusCode, 401)
    const res = await geocode({ address: 'Berlin' }, member)
    assert.equal(res.statusCode, 403)
  })
})

describe('GET /api/geocode', () => {
  it('says what geocoding can do, to any signed-in user', async () => {
    assert.equal((await siteRequest(h, 'GET', '/api/geocode')).statusCode, 401)
    const res = await siteRequest(h, 'GET', '/api/geocode', { cookie: member })
    assert.equal(res.statusCode, 200, res.body)
    const { data } = res.json()
    assert.equal(data.enabled, true)
    assert.equal(data.configured, true)
    assert.deepEqual(data.providers, { mapbox: true, google: true })
    assert.equal(data.cache.maxSize, 1000)
    assert.equal(data.cache.ttlMs, 900000)
    assert.ok(data.cache.size > 0)
  })

  it('answers 503 while the site’s settings turn location off, and reports it', async () => {
    const off = await siteRequest(h, 'PUT', '/api/admin/settings', {
      cookie: admin,
      payload: { location: { enabled: false } },
    })
    assert.equal(off.statusCode, 200, off.body)
    try {
      const res = await geocode({ address: 'Berlin' })
      assert.equal(res.statusCode, 503)
      assert.equal(res.json().code, 'LOCATION_DISABLED')
      const status = await siteRequest(h, 'GET', '/api/geocode', { cookie: member })
      assert.equal(status.json().data.enabled, false)
    } finally {
      await siteRequest(h, 'PUT', '/api/admin/settings', {
        cookie: admin,
        payload: { location: { enabled: true } },
      })
    }
  })
})

describe('geocoding off or without providers', () => {
  it('answers 503 LOCATION_DISABLED with LOCATION_ENABLED=false, and GEOCODING_NOT_CONFIGURED without keys', async () => {
    const disabled = await startDirectory({
      databases: h.databases,
      env: { ...providerEnv(), LOCATION_ENABLED: 'false' },
    })
    const bare = await startDirectory({ databases: h.databases, env: {} })
    try {
      for (const [harness, code] of [
        [disabled, 'LOCATION_DISABLED'],
        [bare, 'GEOCODING_NOT_CONFIGURED'],
      ] as const) {
        const cookie = await harness.adminCookie()
        const res = await siteRequest(harness, 'POST', '/api/geocode', {
          cookie,
          payload: { address: 'Berlin' },
        })
        assert.equal(res.statusCode, 503, res.body)
        assert.equal(res.json().code, code)
      }
      const status = await siteRequest(bare, 'GET', '/api/geocode', { cookie: await bare.adminCookie() })
      assert.deepEqual(
        { ...status.json().data, cache: undefined },
        { enabled: true, configured: false, providers: { mapbox: false, google: false }, cache: undefined },
      )
    } finally {
      await disabled.close()
      await bare.close()
    }
  })
})

describe('the geocoding cache', () => {
  it('is a true LRU of 1,000 entries: a recently read entry outlives older unread ones', async () => {
    const clock = createManualClock()
    const service = createGeocodingService({
      clock,
      siteLocationEnabled: async () => true,
      config: {
        locationEnabled: true,
        geocodingProvider: 'google',
        mapboxAccessToken: undefined,
        googleMapsApiKey: google.apiKey,
        mapboxApiUrl: mapbox.url,
        googleMapsApiUrl: google.url,
        geocodingTimeoutMs: 2000,
      },
    })
    const address = (n: number) => `lru probe ${n}`
    const calls = () => service.figures().providerCalls
    for (let n = 0; n < GEOCODE_CACHE_MAX; n++)
      assert.equal((await service.place({ address: address(n) })).ok, true)
    assert.equal((await service.status()).cache.size, GEOCODE_CACHE_MAX)
    const filled = calls()
    await service.place({ address: address(0) }) // read: now the most recently used
    assert.equal(calls(), filled)
    await service.place({ address: address(GEOCODE_CACHE_MAX) }) // one more: the least recently used goes
    assert.equal(calls(), filled + 1)
    assert.equal((await service.status()).cache.size, GEOCODE_CACHE_MAX)
    await service.place({ address: address(0) })
    assert.equal(calls(), filled + 1, 'entry 0 was read recently, so it stayed')
    await service.place({ address: address(1) })
    assert.equal(calls(), filled + 2, 'entry 1 was the least recently used, so it went')
  })
})
