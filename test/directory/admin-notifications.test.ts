import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type DirectoryHarness, signUp, startDirectory } from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

let h: DirectoryHarness
let admin: string
/** The admin's requests, as the web app sends them. */
let api: Requests
let member: string

before(async () => {
  h = await startDirectory()
  admin = await h.adminCookie()
  api = siteRequests(h, { cookie: admin })
  member = await signUp(h, 'Grace Hopper')
})
after(() => h.close())

async function submit(name: string) {
  const res = await api.post('/api/submit', { name, url: 'https://example.com' }, { cookie: member })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as { id: string; slug: string }
}

describe('admin notifications', () => {
  it('lists what submissions raised, newest first, with the unread count', async () => {
    const first = await submit('First Find')
    h.clock.advance(1000)
    const second = await submit('Second Find')
    const res = await api.get('/api/admin/notifications?unread=true')
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.deepEqual(
      body.data.map((n: { data: { itemId: string } }) => n.data.itemId),
      [second.id, first.id],
    )
    assert.equal(body.data[0].type, 'item_submitted')
    assert.equal(body.data[0].title, 'New submission: Second Find')
    assert.equal(body.data[0].message, 'Grace Hopper submitted "Second Find" for review.')
    assert.equal(body.data[0].readAt, null)
    assert.equal(body.unreadCount, 2)
    assert.deepEqual(body.meta, { page: 1, limit: 10, total: 2, totalPages: 1 })
  })

  it('marks one read (keeping its first readAt), then all; unread filters follow', async () => {
    const list = (await api.get('/api/admin/notifications')).json()
    const [newest] = list.data
    const read = await api.post(`/api/admin/notifications/${newest.id}/read`)
    assert.equal(read.statusCode, 200, read.body)
    assert.equal(read.json().data.readAt, h.clock.now().toISOString())
    h.clock.advance(5000)
    const again = await api.post(`/api/admin/notifications/${newest.id}/read`)
    assert.equal(again.json().data.readAt, read.json().data.readAt)
    const unread = (await api.get('/api/admin/notifications?unread=true')).json()
    assert.equal(unread.unreadCount, list.unreadCount - 1)
    assert.ok(!unread.data.some((n: { id: string }) => n.id === newest.id))
    const readOnes = (await api.get('/api/admin/notifications?unread=false')).json()
    assert.deepEqual(
      readOnes.data.map((n: { id: string }) => n.id),
      [newest.id],
    )
    const all = await api.post('/api/admin/notifications/mark-all-read')
    assert.deepEqual(all.json(), { success: true, updated: list.unreadCount - 1 })
    assert.equal((await api.get('/api/admin/notifications')).json().unreadCount, 0)
    assert.deepEqual((await api.post('/api/admin/notifications/mark-all-read')).json(), {
      success: true,
      updated: 0,
    })
  })

  it('answers 404 for an unknown id, 400 for a bad filter, and only to admins', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await api.post(`/api/admin/notifications/${id}/read`)
      assert.equal(res.statusCode, 404)
      assert.equal(res.json().code, 'NOTIFICATION_NOT_FOUND')
    }
    const bad = await api.get('/api/admin/notifications?type=gossip')
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().details[0].field, 'query.type')
    assert.equal((await api.get('/api/admin/notifications', { cookie: member })).statusCode, 403)
    assert.equal((await api.get('/api/admin/notifications', { cookie: null })).statusCode, 401)
  })
})
