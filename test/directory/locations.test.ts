import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { eq, sql } from 'drizzle-orm'
import { itemHistory, items } from '../../src/directory/items/tables.ts'
import { itemLocations } from '../../src/directory/locations/tables.ts'
import { type GoogleMapsFake, startGoogleMapsFake } from '../fakes/google-maps.ts'
import { type MapboxFake, startMapboxFake } from '../fakes/mapbox.ts'
import { type DirectoryHarness, signUp, siteRequest, startDirectory, until } from '../helpers/apps.ts'
import { createTestDatabases, type TestDatabases } from '../helpers/database.ts'

let mapbox: MapboxFake
let google: GoogleMapsFake

const envOf = (extra: Record<string, string> = {}) => ({
  GEOCODING_PROVIDER: 'mapbox',
  MAPBOX_ACCESS_TOKEN: mapbox.accessToken,
  MAPBOX_API_URL: mapbox.url,
  GOOGLE_MAPS_API_KEY: google.apiKey,
  GOOGLE_MAPS_API_URL: google.url,
  GEOCODING_TIMEOUT_MS: '2000',
  ...extra,
})

before(async () => {
  mapbox = await startMapboxFake()
  google = await startGoogleMapsFake()
})
after(async () => {
  await mapbox.close()
  await google.close()
})

let counter = 0
const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 7)}`

interface Location {
  address?: string
  city?: string
  country?: string
  latitude?: number | null
  longitude?: number | null
  isRemote?: boolean
  serviceArea?: string
}

async function createItem(
  h: DirectoryHarness,
  admin: string,
  location: Location,
  status = 'published',
  slug = unique('place'),
) {
  const res = await siteRequest(h, 'POST', '/api/admin/items', {
    cookie: admin,
    payload: { name: slug, slug, status, location },
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as { id: string; slug: string }
}

async function getJson(h: DirectoryHarness, url: string, cookie: string | null) {
  const res = await siteRequest(h, 'GET', url, { cookie })
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
  return res.json()
}

const BERLIN = { latitude: 52.52, longitude: 13.405, city: 'Berlin', country: 'Germany' }
const POTSDAM = { latitude: 52.3906, longitude: 13.0645, city: 'Potsdam', country: 'Germany' }
const OAKLAND = { latitude: 37.8044, longitude: -122.2712, city: 'Oakland', country: 'United States' }
const FIJI = { latitude: -17.7134, longitude: 178.065, city: 'Suva', country: 'Fiji' }
const SAMOA = { latitude: -13.759, longitude: -172.1046, city: 'Apia', country: 'Samoa' }

describe('the location index and the map', () => {
  let h: DirectoryHarness
  let admin: string

  before(async () => {
    h = await startDirectory({ env: envOf() })
    admin = await h.adminCookie()
  })
  after(() => h.close())

  const indexed = async (itemId: string) =>
    (await h.databases.directory.db.select().from(itemLocations).where(eq(itemLocations.itemId, itemId)))[0]

  it('follows item writes: published with coordinates in, remote at 0,0, unpublished and deleted out', async () => {
    const item = await createItem(h, admin, BERLIN)
    const row = await indexed(item.id)
    assert.ok(row)
    assert.deepEqual([row.latitude, row.longitude, row.city, row.isRemote], [52.52, 13.405, 'Berlin', false])

    const remote = await createItem(h, admin, {
      isRemote: true,
      serviceArea: 'Worldwide',
      latitude: 1,
      longitude: 2,
    })
    const remoteRow = await indexed(remote.id)
    assert.deepEqual([remoteRow?.latitude, remoteRow?.longitude, remoteRow?.isRemote], [0, 0, true])

    const draft = await createItem(h, admin, OAKLAND, 'draft')
    assert.equal(await indexed(draft.id), undefined, 'a draft is not on the map')
    const published = await siteRequest(h, 'PUT', `/api/admin/items/${draft.id}`, {
      cookie: admin,
      payload: { status: 'published' },
    })
    assert.equal(published.statusCode, 200, published.body)
    assert.ok(await indexed(draft.id), 'published: indexed')

    const moved = await siteRequest(h, 'PUT', `/api/admin/items/${item.id}`, {
      cookie: admin,
      payload: { location: POTSDAM },
    })
    assert.equal(moved.statusCode, 200, moved.body)
    assert.equal((await indexed(item.id))?.city, 'Potsdam')

    await siteRequest(h, 'PUT', `/api/admin/items/${draft.id}`, {
      cookie: admin,
      payload: { status: 'draft' },
    })
    assert.equal(await indexed(draft.id), undefined, 'unpublished: out')
    await siteRequest(h, 'DELETE', `/api/admin/items/${item.id}`, { cookie: admin })
    assert.equal(await indexed(item.id), undefined, 'deleted: out')
  })

  it('answers a radius nearest first with distances, and a box by slug, from the index', async () => {
    const berlin = await createItem(h, admin, BERLIN)
    const potsdam = await createItem(h, admin, POTSDAM)
    await createItem(h, admin, OAKLAND)
    await createItem(h, admin, { isRemote: true })
    const near = await getJson(h, '/api/locations?near=52.52,13.40&radius=50', null)
    const slugs = near.data.map((entry: { itemSlug: string }) => entry.itemSlug)
    assert.equal(slugs[0], berlin.slug)
    assert.ok(slugs.includes(potsdam.slug))
    assert.ok(near.data.every((entry: { distanceKm: number }) => entry.distanceKm <= 50))
    assert.ok(near.data[0].distanceKm < 1)
    assert.ok(
      Math.abs(near.data[slugs.indexOf(potsdam.slug)].distanceKm - 27.2) < 1,
      'Berlin to Potsdam is ~27 km',
    )
    assert.equal(near.count, near.data.length)

    const tight = await getJson(h, '/api/locations?near=52.52,13.40&radius=5', null)
    assert.ok(!tight.data.some((entry: { itemSlug: string }) => entry.itemSlug === potsdam.slug))

    const box = await getJson(h, '/api/locations?bbox=13.0,52.3,13.5,52.6&limit=500', null)
    const inBox = box.data.map((entry: { itemSlug: string }) => entry.itemSlug)
    assert.ok(inBox.includes(berlin.slug) && inBox.includes(potsdam.slug))
    assert.deepEqual(inBox, [...inBox].sort(), 'by slug')
    assert.ok(box.data.every((entry: { distanceKm?: number }) => entry.distanceKm === undefined))
    const limited = await getJson(h, '/api/locations?bbox=13.0,52.3,13.5,52.6&limit=1', null)
    assert.equal(limited.data.length, 1)
  })

  it('crosses the antimeridian, in a box and in a radius', async () => {
    const fiji = await createItem(h, admin, FIJI)
    const samoa = await createItem(h, admin, SAMOA)
    const box = await getJson(h, '/api/locations?bbox=170,-25,-170,-5', null)
    const slugs = box.data.map((entry: { itemSlug: string }) => entry.itemSlug)
    assert.ok(slugs.includes(fiji.slug) && slugs.includes(samoa.slug), JSON.stringify(slugs))
    const near = await getJson(h, '/api/locations?near=-15,179.9&radius=1000', null)
    const around = near.data.map((entry: { itemSlug: string }) => entry.itemSlug)
    assert.deepEqual(
      around.filter((slug: string) => slug === fiji.slug || slug === samoa.slug),
      [fiji.slug, samoa.slug],
      'Suva is nearer than Apia',
    )
  })

  it('reads through the GiST index, not a scan', async () => {
    const db = h.databases.directory.db
    await db.execute(sql`set enable_seqscan = off`)
    try {
      const result = (await db.execute(
        sql`explain select item_slug from directory.item_locations where point(longitude, latitude) <@ box(point(13, 52), point(14, 53))`,
      )) as unknown as { rows: Record<string, string>[] }
      const plan = result.rows.map((row) => Object.values(row)[0]).join('\n')
      assert.match(plan, /item_locations_point_idx/)
    } finally {
      await db.execute(sql`set enable_seqscan = on`)
    }
  })

  it('names bad map queries in a 400', async () => {
    for (const [query, field] of [
      ['', 'query.bbox'],
      ['bbox=1,2,3,4&near=1,2', 'query.bbox'],
      ['bbox=1,2,3', 'query.bbox'],
      ['bbox=1,60,3,50', 'query.bbox'],
      ['bbox=-181,1,3,4', 'query.bbox'],
      ['near=91,0', 'query.near'],
      ['near=0,-181', 'query.near'],
      ['near=abc', 'query.near'],
      ['near=1,2&radius=0', 'query.radius'],
      ['near=1,2&radius=5000', 'query.radius'],
      ['bbox=1,2,3,4&radius=5', 'query.radius'],
      ['near=1,2&limit=501', 'query.limit'],
    ]) {
      const res = await siteRequest(h, 'GET', `/api/locations?${query}`)
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`)
      const fields = (res.json().details as { field: string }[]).map((issue) => issue.field)
      assert.ok(fields.includes(field as string), `${query}: ${JSON.stringify(fields)}`)
    }
  })
})

describe('geo analytics', () => {
  let h: DirectoryHarness
  let admin: string

  before(async () => {
    h = await startDirectory({ env: envOf() })
    admin = await h.adminCookie()
  })
  after(() => h.close())

  it('answers SPEC.md’s figures, distributions, locations and heatmap; never cached; 401 for a member', async () => {
    const a = await createItem(h, admin, { ...BERLIN, serviceArea: 'EU' }, 'published', 'a-berlin')
    await createItem(h, admin, OAKLAND, 'published', 'b-oakland')
    await createItem(
      h,
      admin,
      { isRemote: true, serviceArea: 'Worldwide', country: 'Germany' },
      'published',
      'c-remote',
    )
    await createItem(h, admin, {}, 'published', 'd-nowhere')
    await createItem(h, admin, FIJI, 'draft', 'e-draft')

    const res = await siteRequest(h, 'GET', '/api/admin/geo-analytics', { cookie: admin })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.headers['cache-control'], 'no-store')
    assert.match(String(res.headers['content-type']), /^application\/json/)
    const { success, data } = res.json()
    assert.equal(success, true)
    const { lastIndexedAt, lastRebuildAt, ...stats } = data.stats
    assert.deepEqual(stats, {
      totalIndexed: 3,
      totalItems: 4,
      itemsWithLocation: 3,
      itemsRemote: 1,
      coveragePercent: 75,
      indexHealth: { synced: true, indexCount: 2, expectedCount: 2 },
      citiesCount: 2,
      countriesCount: 2,
      remoteCount: 1,
    })
    assert.equal(typeof lastIndexedAt, 'string')
    assert.equal(lastRebuildAt, null)
    assert.deepEqual(data.distributions, {
      byCountry: [
        { name: 'Germany', count: 2 },
        { name: 'United States', count: 1 },
      ],
      byCity: [
        { name: 'Berlin', count: 1 },
        { name: 'Oakland', count: 1 },
      ],
      byServiceArea: [
        { area: 'EU', count: 1 },
        { area: 'Worldwide', count: 1 },
      ],
    })
    const bySlug = (a: { itemSlug: string }, b: { itemSlug: string }) => (a.itemSlug < b.itemSlug ? -1 : 1)
    const order = data.locations.map((entry: { itemSlug: string }) => entry.itemSlug)
    assert.deepEqual(
      data.heatmapData,
      data.locations.map((entry: { latitude: number; longitude: number }) => ({
        lat: entry.latitude,
        lng: entry.longitude,
      })),
      'the heatmap follows the locations',
    )
    assert.equal(order.length, 2)
    assert.deepEqual([...data.locations].sort(bySlug), [
      {
        itemSlug: 'a-berlin',
        latitude: 52.52,
        longitude: 13.405,
        city: 'Berlin',
        country: 'Germany',
        isRemote: false,
      },
      {
        itemSlug: 'b-oakland',
        latitude: 37.8044,
        longitude: -122.2712,
        city: 'Oakland',
        country: 'United States',
        isRemote: false,
      },
    ])

    // Never cached: a change shows at once.
    await siteRequest(h, 'DELETE', `/api/admin/items/${a.id}`, { cookie: admin })
    const after = (await getJson(h, '/api/admin/geo-analytics', admin)).data
    assert.equal(after.stats.totalItems, 3)
    assert.equal(after.locations.length, 1)

    const member = await signUp(h)
    assert.equal(
      (await siteRequest(h, 'GET', '/api/admin/geo-analytics', { cookie: member })).statusCode,
      401,
    )
    assert.equal((await siteRequest(h, 'GET', '/api/admin/geo-analytics')).statusCode, 401)
  })

  it('shows drift as not synced, and a rebuild repairs it', async () => {
    await createItem(h, admin, POTSDAM)
    // As after restoring the items table alone from a backup: the index lost its rows.
    await h.databases.directory.db.delete(itemLocations)
    const drifted = (await getJson(h, '/api/admin/geo-analytics', admin)).data.stats
    assert.equal(drifted.indexHealth.synced, false)
    assert.equal(drifted.totalIndexed, 0)

    const queued = await siteRequest(h, 'POST', '/api/admin/location-index', { cookie: admin })
    assert.equal(queued.statusCode, 202, queued.body)
    assert.equal(queued.json().data.status, 'queued')
    await until(
      async () => (await getJson(h, '/api/admin/location-index', admin)).data.run?.status === 'completed',
      'the rebuild completed',
    )
    const repaired = (await getJson(h, '/api/admin/geo-analytics', admin)).data.stats
    assert.equal(repaired.indexHealth.synced, true)
    assert.equal(repaired.totalIndexed, repaired.itemsWithLocation)
    assert.equal(typeof repaired.lastRebuildAt, 'string')
  })
})

describe('rebuilding the location index', () => {
  let h: DirectoryHarness
  let admin: string

  before(async () => {
    h = await startDirectory({ env: envOf({ LOCATION_INDEX_BATCH_SIZE: '3' }) })
    admin = await h.adminCookie()
  })
  after(() => h.close())

  const status = async () => (await getJson(h, '/api/admin/location-index', admin)).data

  it('geocodes published items that lack coordinates, in steps, and shows its progress', async () => {
    const withAddress = await createItem(h, admin, { address: '10 Downing Street', city: 'London' })
    const byCity = await createItem(h, admin, { city: 'Berlin' })
    const unknown = await createItem(h, admin, { address: 'Nowhere Lane 7' })
    const bare = await createItem(h, admin, {})
    const draft = await createItem(h, admin, { city: 'Tokyo' }, 'draft')
    for (let n = 0; n < 3; n++) await createItem(h, admin, BERLIN)

    const queued = await siteRequest(h, 'POST', '/api/admin/location-index', { cookie: admin })
    assert.equal(queued.statusCode, 202, queued.body)
    await until(async () => (await status()).run?.status === 'completed', 'the rebuild completed')
    const { run, entries } = await status()
    assert.equal(run.processed, run.total)
    assert.equal(run.progressPercent, 100)
    assert.deepEqual([run.geocoded, run.geocodeFailed, run.skipped], [2, 1, 1])
    assert.ok(entries >= 5)

    const db = h.databases.directory.db
    const [london] = await db.select().from(items).where(eq(items.id, withAddress.id))
    assert.ok(london && Math.abs((london.latitude ?? 0) - 51.5034878) < 1e-6)
    assert.equal(london.city, 'London', 'the city it had is kept')
    const [berlin] = await db.select().from(items).where(eq(items.id, byCity.id))
    assert.equal(berlin?.country, 'Germany', 'a missing country is filled in')
    for (const id of [withAddress.id, byCity.id]) {
      assert.ok((await db.select().from(itemLocations).where(eq(itemLocations.itemId, id)))[0], 'indexed')
    }
    for (const id of [unknown.id, bare.id, draft.id]) {
      const [row] = await db.select().from(items).where(eq(items.id, id))
      assert.equal(row?.latitude, null)
    }
    const history = await db.select().from(itemHistory).where(eq(itemHistory.itemId, withAddress.id))
    assert.ok(history.some((entry) => entry.note?.includes('Geocoded from "10 Downing Street, London"')))

    const mapStatus = (await getJson(h, '/api/admin/settings/map-status', admin)).data
    assert.equal(mapStatus.locationIndex.run.id, run.id)
    assert.equal(mapStatus.locationIndex.run.status, 'completed')
  })

  it('a rebuild that finds the index right still brings lastIndexedAt up to its end', async () => {
    await createItem(h, admin, POTSDAM)
    await until(async () => (await status()).run?.status !== 'running', 'no rebuild running')
    const before = (await status()).lastIndexedAt as string
    assert.equal(typeof before, 'string')
    h.clock.advance(60_000)
    const queued = await siteRequest(h, 'POST', '/api/admin/location-index', { cookie: admin })
    assert.equal(queued.statusCode, 202, queued.body)
    const runId = queued.json().data.id
    await until(
      async () => (await status()).run?.id === runId && (await status()).run?.status === 'completed',
      'the rebuild completed',
    )
    const after = await status()
    assert.equal(after.run.finishedAt, new Date(h.clock.nowMs()).toISOString())
    assert.equal(after.lastIndexedAt, after.run.finishedAt, `moved on from ${before}`)
    const { stats } = (await getJson(h, '/api/admin/geo-analytics', admin)).data
    assert.equal(stats.lastIndexedAt, after.run.finishedAt)
    assert.equal(stats.lastRebuildAt, after.run.finishedAt)

    // A write after the rebuild is the latest again.
    h.clock.advance(60_000)
    await createItem(h, admin, OAKLAND)
    const written = new Date(h.clock.nowMs()).toISOString()
    assert.equal((await status()).lastIndexedAt, written)
    assert.equal((await getJson(h, '/api/admin/geo-analytics', admin)).data.stats.lastIndexedAt, written)
  })

  it('runs one rebuild at a time: 409 while one is in progress', async () => {
    await createItem(h, admin, { city: 'Paris' })
    mapbox.hang({}, 1)
    const first = await siteRequest(h, 'POST', '/api/admin/location-index', { cookie: admin })
    assert.equal(first.statusCode, 202, first.body)
    await until(async () => mapbox.held === 1, 'the rebuild is geocoding')
    const busy = await Promise.all(
      [1, 2].map(() => siteRequest(h, 'POST', '/api/admin/location-index', { cookie: admin })),
    )
    for (const res of busy) {
      assert.equal(res.statusCode, 409, res.body)
      assert.equal(res.json().code, 'LOCATION_INDEX_BUSY')
    }
    const inProgress = (await getJson(h, '/api/admin/settings/map-status', admin)).data.locationIndex.run
    assert.equal(inProgress.status, 'running')
    mapbox.release()
    await until(async () => (await status()).run?.status === 'completed', 'the rebuild completed')
  })

  it('answers 503 while location features are off, and 403 for a member', async () => {
    const member = await signUp(h)
    assert.equal(
      (await siteRequest(h, 'POST', '/api/admin/location-index', { cookie: member })).statusCode,
      403,
    )
    await siteRequest(h, 'PUT', '/api/admin/settings', {
      cookie: admin,
      payload: { location: { enabled: false } },
    })
    try {
      const res = await siteRequest(h, 'POST', '/api/admin/location-index', { cookie: admin })
      assert.equal(res.statusCode, 503)
      assert.equal(res.json().code, 'LOCATION_DISABLED')
      assert.equal((await siteRequest(h, 'GET', '/api/locations?near=1,2')).json().code, 'LOCATION_DISABLED')
    } finally {
      await siteRequest(h, 'PUT', '/api/admin/settings', {
        cookie: admin,
        payload: { location: { enabled: true } },
      })
    }
  })
})

describe('a rebuild across a restart', () => {
  let databases: TestDatabases

  before(async () => {
    databases = await createTestDatabases()
  })
  after(() => databases.close())

  it('resumes on another instance from where the stopped one left off, geocoding nothing twice', async () => {
    const env = envOf({ LOCATION_INDEX_BATCH_SIZE: '2' })
    const first = await startDirectory({ databases, env })
    const admin = await first.adminCookie()
    const cities = ['Berlin', 'Paris', 'Tokyo', 'Sydney', 'London', 'Toronto']
    const made = []
    for (const city of cities) made.push({ city, ...(await createItem(first, admin, { city })) })
    // Steps go by id: the third item is the first of the second step. Its lookup is held, so the first
    // step is saved and the process is stopped in the middle of the second.
    const [, , third] = made.sort((a, b) => (a.id < b.id ? -1 : 1))
    assert.ok(third)
    mapbox.hang({ path: new RegExp(`/${third.city}\\.json$`) })
    const before = mapbox.calls('forward').length
    const queued = await siteRequest(first, 'POST', '/api/admin/location-index', { cookie: admin })
    assert.equal(queued.statusCode, 202, queued.body)
    const runId = queued.json().data.id as string
    await until(async () => mapbox.held === 1, 'the second step is geocoding')
    const closing = first.close()
    mapbox.release()
    await closing

    const runOf = async () =>
      (
        (await databases.directory.db.execute(
          sql`select status, processed from directory.location_index_runs where id = ${runId}`,
        )) as unknown as { rows: { status: string; processed: number }[] }
      ).rows[0]
    assert.deepEqual(await runOf(), { status: 'running', processed: 4 }, 'two steps done, the third queued')

    const second = await startDirectory({ databases, env })
    try {
      const cookie = await second.adminCookie()
      await until(
        async () => (await runOf())?.status === 'completed',
        'the rebuild completed on the second instance',
      )
      const { run } = (await getJson(second, '/api/admin/location-index', cookie)).data
      assert.equal(run.id, runId)
      assert.equal(run.processed, cities.length)
      assert.equal(run.geocoded, cities.length)
      assert.equal(mapbox.calls('forward').length - before, cities.length, 'each item geocoded once')
    } finally {
      await second.close()
    }
  })
})
