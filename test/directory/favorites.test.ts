import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type DirectoryHarness, sessionCookie, startDirectory, uniqueEmail } from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

let h: DirectoryHarness
/** Requests as the web app sends them; each names its member's cookie. */
let api: Requests

before(async () => {
  h = await startDirectory()
  api = siteRequests(h)
})
after(() => h.close())

/** A signed-in user of the directory: their session cookie. */
async function member(): Promise<string> {
  const res = await api.post('/api/auth/register', {
    email: uniqueEmail('fav'),
    password: 'a good password',
    name: 'Ada Lovelace',
  })
  assert.equal(res.statusCode, 201, res.body)
  return sessionCookie(res)
}

const COFFEE = {
  itemSlug: 'blue-bottle-coffee',
  itemName: 'Blue Bottle Coffee',
  itemIconUrl: 'https://cdn.example.com/blue-bottle.png',
  itemCategory: 'coffee-roasters',
}

describe('favorites', () => {
  it('adds, lists oldest first with the item’s display fields, and removes', async () => {
    const cookie = await member()
    const added = await api.post('/api/favorites', COFFEE, { cookie })
    assert.equal(added.statusCode, 201, added.body)
    const { favorite } = added.json()
    assert.equal(added.json().success, true)
    assert.deepEqual(
      { ...favorite, id: undefined, userId: undefined, createdAt: undefined, updatedAt: undefined },
      { ...COFFEE, id: undefined, userId: undefined, createdAt: undefined, updatedAt: undefined },
    )
    h.clock.advance(1000)
    const bare = await api.post(
      '/api/favorites',
      {
        itemSlug: 'tea-house',
        itemName: 'Tea House',
      },
      { cookie },
    )
    assert.equal(bare.statusCode, 201, bare.body)
    assert.equal(bare.json().favorite.itemIconUrl, null)
    assert.equal(bare.json().favorite.itemCategory, null)

    const list = await api.get('/api/favorites', { cookie })
    assert.equal(list.statusCode, 200)
    assert.deepEqual(
      list.json().favorites.map((f: { itemSlug: string }) => f.itemSlug),
      ['blue-bottle-coffee', 'tea-house'],
    )
    assert.equal(list.json().favorites[0].userId, favorite.userId)

    const removed = await api.delete('/api/favorites/blue-bottle-coffee', { cookie })
    assert.equal(removed.statusCode, 200, removed.body)
    assert.deepEqual(removed.json(), { success: true, message: 'Removed from favorites' })
    const again = await api.delete('/api/favorites/blue-bottle-coffee', { cookie })
    assert.equal(again.statusCode, 404)
    assert.equal(again.json().code, 'FAVORITE_NOT_FOUND')
    assert.deepEqual(
      (await api.get('/api/favorites', { cookie }))
        .json()
        .favorites.map((f: { itemSlug: string }) => f.itemSlug),
      ['tea-house'],
    )
  })

  it('an item already favorited is 409, also when two adds race; another user may favorite it too', async () => {
    const cookie = await member()
    const [first, second] = await Promise.all([
      api.post('/api/favorites', COFFEE, { cookie }),
      api.post('/api/favorites', COFFEE, { cookie }),
    ])
    assert.deepEqual([first.statusCode, second.statusCode].sort(), [201, 409], race('two adds'))
    const refused = first.statusCode === 409 ? first : second
    assert.equal(refused.json().code, 'FAVORITE_EXISTS')
    assert.equal(refused.json().success, false)
    assert.equal((await api.get('/api/favorites', { cookie })).json().favorites.length, 1)

    const other = await member()
    assert.equal((await api.post('/api/favorites', COFFEE, { cookie: other })).statusCode, 201)
  })

  it('someone else’s favorite is 404 and stays; each user lists only their own', async () => {
    const owner = await member()
    const stranger = await member()
    await api.post('/api/favorites', COFFEE, { cookie: owner })
    const res = await api.delete(`/api/favorites/${COFFEE.itemSlug}`, { cookie: stranger })
    assert.equal(res.statusCode, 404)
    assert.equal(res.json().code, 'FAVORITE_NOT_FOUND')
    assert.deepEqual((await api.get('/api/favorites', { cookie: stranger })).json().favorites, [])
    assert.equal((await api.get('/api/favorites', { cookie: owner })).json().favorites.length, 1)
  })

  it('without a session every route is 401; a bad body is 400 naming each field; text is stored as text', async () => {
    for (const [method, url] of [
      ['GET', '/api/favorites'],
      ['POST', '/api/favorites'],
      ['DELETE', '/api/favorites/anything'],
    ] as const) {
      const res = await api.request(method, url, {
        body: method === 'POST' ? COFFEE : undefined,
        cookie: null,
      })
      assert.equal(res.statusCode, 401, `${method} ${url}`)
      assert.equal(res.json().success, false)
    }
    const cookie = await member()
    const bad = await api.post('/api/favorites', { itemSlug: '', itemName: '' }, { cookie })
    assert.equal(bad.statusCode, 400)
    assert.deepEqual(
      bad
        .json()
        .details.map((detail: { field: string }) => detail.field)
        .sort(),
      ['body.itemName', 'body.itemSlug'],
    )
    const script = await api.post(
      '/api/favorites',
      {
        itemSlug: 'x-0',
        itemName: 'X',
        itemIconUrl: 'javascript:alert(1)',
      },
      { cookie },
    )
    assert.equal(script.statusCode, 400)
    assert.equal(script.json().details[0].field, 'body.itemIconUrl')
    const markup = '<script>alert(1)</script>'
    const stored = await api.post('/api/favorites', { itemSlug: 'x-1', itemName: markup }, { cookie })
    assert.equal(stored.json().favorite.itemName, markup)
  })
})
