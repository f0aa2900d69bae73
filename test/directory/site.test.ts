import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { fakeMapboxToken } from '../fakes/mapbox.ts'
import { type DirectoryHarness, signUp, startDirectory, until } from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

let h: DirectoryHarness
let admin: string
/** The admin's requests, as the web app sends them. */
let api: Requests

before(async () => {
  h = await startDirectory({
    env: {
      MAPBOX_ACCESS_TOKEN: fakeMapboxToken(),
      GOOGLE_MAPS_API_KEY: 'g-test',
      GEOCODING_PROVIDER: 'google',
    },
  })
  admin = await h.adminCookie()
  api = siteRequests(h, { cookie: admin })
})
after(() => h.close())

const DEFAULTS = {
  site: { name: 'Curio directory', description: '', logoUrl: null, contactEmail: null },
  submissions: { enabled: true },
  comments: { enabled: true, moderation: 'pre' },
  location: { enabled: true, map: true },
}

describe('settings', () => {
  it('reads the defaults until saved, then changes only what was sent', async () => {
    const first = await api.get('/api/admin/settings')
    assert.equal(first.statusCode, 200, first.body)
    assert.deepEqual(first.json(), { success: true, data: DEFAULTS, updatedAt: null })
    const saved = await api.put('/api/admin/settings', {
      site: { name: 'Coffee Atlas', contactEmail: 'hello@coffee-atlas.example' },
      comments: { moderation: 'post' },
    })
    assert.equal(saved.statusCode, 200, saved.body)
    const expected = {
      ...DEFAULTS,
      site: { ...DEFAULTS.site, name: 'Coffee Atlas', contactEmail: 'hello@coffee-atlas.example' },
      comments: { enabled: true, moderation: 'post' },
    }
    assert.deepEqual(saved.json().data, expected)
    assert.equal(saved.json().updatedAt, h.clock.now().toISOString())
    h.clock.advance(1000)
    await api.put('/api/admin/settings', { location: { map: false } })
    const read = await api.get('/api/admin/settings')
    assert.deepEqual(read.json().data, { ...expected, location: { enabled: true, map: false } })
  })

  it('names each setting of the wrong type, unknown or empty in a 400, and writes nothing', async () => {
    const before = (await api.get('/api/admin/settings')).json()
    const cases: [unknown, string][] = [
      [{ site: { name: 42 } }, 'body.site.name'],
      [{ site: { contactEmail: 'not an email' } }, 'body.site.contactEmail'],
      [{ site: { logoUrl: 'javascript:alert(1)' } }, 'body.site.logoUrl'],
      [{ comments: { moderation: 'never' } }, 'body.comments.moderation'],
      [{ submissions: { enabled: 'yes' } }, 'body.submissions.enabled'],
      [{ submissions: {} }, 'body.submissions'],
      [{ theme: { color: 'red' } }, 'body'],
      [{}, 'body'],
    ]
    for (const [payload, field] of cases) {
      const res = await api.put('/api/admin/settings', payload)
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`)
      assert.ok(
        res.json().details.some((d: { field: string }) => d.field === field),
        `${JSON.stringify(payload)} names ${field}: ${res.body}`,
      )
    }
    assert.deepEqual((await api.get('/api/admin/settings')).json(), before)
  })

  it('two admins saving different groups at once keep both changes', async () => {
    await Promise.all([
      api.put('/api/admin/settings', { site: { description: 'Raced' } }),
      api.put('/api/admin/settings', { submissions: { enabled: false } }),
    ])
    const { data } = (await api.get('/api/admin/settings')).json()
    assert.equal(data.site.description, 'Raced')
    assert.equal(data.submissions.enabled, false)
    await api.put('/api/admin/settings', { submissions: { enabled: true } })
  })

  it('closes submissions when the settings say so', async () => {
    const member = await signUp(h, 'Closed Out')
    await api.put('/api/admin/settings', { submissions: { enabled: false } })
    const closed = await api.post(
      '/api/submit',
      { name: 'Too late', url: 'https://example.com' },
      { cookie: member },
    )
    assert.equal(closed.statusCode, 403)
    assert.equal(closed.json().code, 'SUBMISSIONS_CLOSED')
    await api.put('/api/admin/settings', { submissions: { enabled: true } })
    const open = await api.post(
      '/api/submit',
      { name: 'Just in time', url: 'https://example.com' },
      { cookie: member },
    )
    assert.equal(open.statusCode, 201, open.body)
  })

  it('comments follow the settings: post-moderation shows them at once, and they can be closed', async () => {
    const member = await signUp(h, 'Commenter')
    const created = await api.post('/api/admin/items', { name: 'Discussed', status: 'published' })
    const { slug } = created.json().data
    const comment = (body: string) => api.post('/api/comments', { itemSlug: slug, body }, { cookie: member })
    const shown = async () =>
      (await api.get(`/api/items/${slug}/comments`, { cookie: null }))
        .json()
        .data.map((c: { body: string }) => c.body)

    await api.put('/api/admin/settings', { comments: { moderation: 'pre' } })
    assert.equal((await comment('waits')).json().data.status, 'pending')
    await api.put('/api/admin/settings', { comments: { moderation: 'post' } })
    assert.equal((await comment('at once')).json().data.status, 'approved')
    assert.deepEqual(await shown(), ['at once'])
    await api.put('/api/admin/settings', { comments: { enabled: false, moderation: 'pre' } })
    const closed = await comment('too late')
    assert.equal(closed.statusCode, 403)
    assert.equal(closed.json().code, 'COMMENTS_CLOSED')
    await api.put('/api/admin/settings', { comments: { enabled: true } })
    assert.equal((await comment('open again')).statusCode, 201)
  })

  it('map status: the switches, the providers with credentials (the chosen one first), the items’ locations', async () => {
    await api.post('/api/admin/items', { name: 'Placed', location: { latitude: 1, longitude: 2 } })
    await api.post('/api/admin/items', { name: 'Remote', location: { isRemote: true } })
    await api.post('/api/admin/items', { name: 'Nowhere' })
    const res = await api.get('/api/admin/settings/map-status')
    assert.equal(res.statusCode, 200, res.body)
    const { data } = res.json()
    assert.equal(data.locationEnabled, true)
    assert.deepEqual(data.geocoding, { configured: true, providers: ['google', 'mapbox'] })
    assert.equal(data.items.withCoordinates, 1)
    assert.equal(data.items.remote, 1)
    assert.equal(data.items.missingLocation, data.items.total - 2)
    await api.put('/api/admin/settings', { location: { enabled: false } })
    const off = (await api.get('/api/admin/settings/map-status')).json().data
    assert.deepEqual([off.locationEnabled, off.mapEnabled], [false, false])
    await api.put('/api/admin/settings', { location: { enabled: true } })
  })

  it('is for admins only', async () => {
    assert.equal((await api.get('/api/admin/settings', { cookie: null })).statusCode, 401)
    assert.equal(
      (await api.put('/api/admin/settings', { site: { name: 'X' } }, { cookie: null })).statusCode,
      401,
    )
  })
})

describe('navigation', () => {
  const menus = {
    header: [
      {
        label: ' Browse ',
        children: [
          { label: 'Categories', href: '/categories' },
          { label: 'More', children: [{ label: 'Map', href: '/map' }] },
        ],
      },
      { label: 'Submit', href: '/submit' },
    ],
    footer: [{ label: '<b>GitHub</b>', href: 'https://github.com/curio-dev/curio' }],
  }

  it('is empty until saved; a save replaces both menus, in order, and the site reads them', async () => {
    const empty = (await api.get('/api/navigation', { cookie: null })).json()
    assert.deepEqual(empty, { success: true, data: { header: [], footer: [] }, updatedAt: null })
    const saved = await api.put('/api/admin/navigation', menus)
    assert.equal(saved.statusCode, 200, saved.body)
    const expected = {
      header: [
        {
          label: 'Browse',
          href: null,
          external: false,
          children: [
            { label: 'Categories', href: '/categories', external: false, children: [] },
            {
              label: 'More',
              href: null,
              external: false,
              children: [{ label: 'Map', href: '/map', external: false, children: [] }],
            },
          ],
        },
        { label: 'Submit', href: '/submit', external: false, children: [] },
      ],
      footer: [
        { label: '<b>GitHub</b>', href: 'https://github.com/curio-dev/curio', external: true, children: [] },
      ],
    }
    assert.deepEqual(saved.json().data, expected)
    assert.deepEqual((await api.get('/api/navigation', { cookie: null })).json().data, expected)
    assert.deepEqual((await api.get('/api/admin/navigation')).json().data, expected)
  })

  it('refuses javascript: and other schemes, protocol-relative links, a fourth level and linkless leaves', async () => {
    const before = (await api.get('/api/navigation', { cookie: null })).json()
    const cases: [unknown, string][] = [
      [{ header: [{ label: 'X', href: 'javascript:alert(1)' }], footer: [] }, 'body.header.0.href'],
      [{ header: [{ label: 'X', href: 'data:text/html,hi' }], footer: [] }, 'body.header.0.href'],
      [{ header: [], footer: [{ label: 'X', href: '//evil.example' }] }, 'body.footer.0.href'],
      [
        {
          header: [
            {
              label: 'A',
              children: [
                {
                  label: 'B',
                  children: [{ label: 'C', href: '/c', children: [{ label: 'D', href: '/d' }] }],
                },
              ],
            },
          ],
          footer: [],
        },
        'body.header.0.children.0.children.0.children',
      ],
      [{ header: [{ label: 'Lonely' }], footer: [] }, 'body.header.0.href'],
      [{ header: [{ label: '   ', href: '/x' }], footer: [] }, 'body.header.0.label'],
      [{ header: [{ label: 'x'.repeat(61), href: '/x' }], footer: [] }, 'body.header.0.label'],
      [{ header: [] }, 'body.footer'],
    ]
    for (const [payload, field] of cases) {
      const res = await api.put('/api/admin/navigation', payload)
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`)
      assert.ok(
        res.json().details.some((d: { field: string }) => d.field === field),
        `${JSON.stringify(payload)} names ${field}: ${res.body}`,
      )
    }
    assert.deepEqual((await api.get('/api/navigation', { cookie: null })).json(), before)
  })
})

describe('settings and menus across instances', () => {
  let other: DirectoryHarness
  before(async () => {
    other = await startDirectory({ databases: h.databases, clockStart: h.clock.nowMs() })
  })
  after(() => other.close())

  it('a save on one instance is read on the other at once', async () => {
    const otherAdmin = await other.adminCookie()
    const nameThere = async () =>
      (await api.on(other).get('/api/admin/settings', { cookie: otherAdmin })).json().data.site.name
    const menuThere = async () =>
      (await api.on(other).get('/api/navigation', { cookie: null })).json().data.footer
    // Warms the other instance's cache first, so only an invalidation can show the change.
    const name = await nameThere()
    await menuThere()
    await api.put('/api/admin/settings', { site: { name: `${name} II` } })
    await until(async () => (await nameThere()) === `${name} II`, 'the new name is read')
    await api.put('/api/admin/navigation', { header: [], footer: [{ label: 'Fresh', href: '/fresh' }] })
    await until(async () => (await menuThere())[0]?.label === 'Fresh', 'the new menu is read')
  })
})
