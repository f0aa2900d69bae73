import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { and, eq } from 'drizzle-orm'
import type { LightMyRequestResponse } from 'fastify'
import { activityLog } from '../../src/platform/activity-log/tables.ts'
import type { EventOf } from '../../src/platform/events.ts'
import { workMembers } from '../../src/platform/works/tables.ts'
import { type PlatformHarness, startPlatform, uniqueEmail } from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Requests, requests } from '../helpers/requests.ts'

let h: PlatformHarness
/** Requests as a client of the works API sends them; each names its account's token. */
let api: Requests
const workCreated: EventOf<'WorkCreated'>[] = []
const memberInvited: EventOf<'MemberInvited'>[] = []

before(async () => {
  h = await startPlatform()
  api = requests(h, { headers: { 'user-agent': 'works-test' } })
  h.events.on('WorkCreated', (event) => {
    workCreated.push(event)
  })
  h.events.on('MemberInvited', (event) => {
    memberInvited.push(event)
  })
})
after(() => h.close())

const PASSWORD = 'a good password'
const MISSING_ID = '00000000-0000-4000-8000-000000000000'

interface Account {
  id: string
  email: string
  token: string
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'

async function account(): Promise<Account> {
  const email = uniqueEmail('works')
  const registered = await h.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email, password: PASSWORD },
  })
  assert.equal(registered.statusCode, 201, registered.body)
  const login = await h.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password: PASSWORD },
  })
  assert.equal(login.statusCode, 200, login.body)
  return { id: login.json().user.id, email, token: login.json().accessToken }
}

async function createWork(owner: Account, body: object) {
  const res = await api.post('/api/works', body, { token: owner.token })
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

async function share(owner: Account, workId: string, member: Account, role: 'editor' | 'viewer') {
  const res = await api.post(
    `/api/works/${workId}/members`,
    { email: member.email, role },
    { token: owner.token },
  )
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

function assertError(res: LightMyRequestResponse, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body)
  assert.equal(res.json().code, code, res.body)
}

/** A work owned by a fresh account, shared with a fresh editor and viewer. */
async function sharedWork() {
  const owner = await account()
  const editor = await account()
  const viewer = await account()
  const work = await createWork(owner, { name: 'Shared Guide' })
  await share(owner, work.id, editor, 'editor')
  // Joins in one clock tick would tie; members are listed in the order they joined.
  h.clock.advance(1)
  await share(owner, work.id, viewer, 'viewer')
  return { owner, editor, viewer, work }
}

describe('platform works: happy path', () => {
  it('create without a slug derives it from the name, diacritics stripped', async () => {
    const owner = await account()
    const res = await api.post(
      '/api/works',
      {
        name: '  Café Guide ',
        description: 'Lisbon cafés',
      },
      { token: owner.token },
    )
    assert.equal(res.statusCode, 201, res.body)
    const work = res.json()
    assert.deepEqual(Object.keys(work).sort(), [
      'createdAt',
      'description',
      'generateStatus',
      'id',
      'name',
      'ownerId',
      'role',
      'slug',
      'updatedAt',
    ])
    assert.equal(work.slug, 'cafe-guide')
    assert.equal(work.name, 'Café Guide')
    assert.equal(work.description, 'Lisbon cafés')
    assert.equal(work.ownerId, owner.id)
    assert.equal(work.role, 'owner')
    assert.deepEqual(work.generateStatus, { status: 'IDLE', itemsCount: 0, recentLogs: [] })
    assert.equal(work.createdAt, work.updatedAt)
    assert.ok(!Number.isNaN(Date.parse(work.createdAt)))
  })

  it('a derived slug the owner already uses gets -2, then -3', async () => {
    const owner = await account()
    assert.equal((await createWork(owner, { name: 'Café Guide' })).slug, 'cafe-guide')
    assert.equal((await createWork(owner, { name: 'Cafe guide' })).slug, 'cafe-guide-2')
    assert.equal((await createWork(owner, { name: 'CAFÉ GUIDE!' })).slug, 'cafe-guide-3')
  })

  it('a derived slug takes the first number free, numerically, and only numbered slugs count', async () => {
    const owner = await account()
    for (const slug of ['atlas', 'atlas-foo', 'atlas-2-3', 'atlas-02', 'atlas-10']) {
      await createWork(owner, { name: 'Given', slug })
    }
    assert.equal((await createWork(owner, { name: 'Atlas' })).slug, 'atlas-2')
    for (let n = 3; n <= 9; n++) await createWork(owner, { name: 'Given', slug: `atlas-${n}` })
    assert.equal((await createWork(owner, { name: 'Atlas' })).slug, 'atlas-11')
  })

  it('a derived slug is the name’s own while it is free, even when numbered ones exist', async () => {
    const owner = await account()
    await createWork(owner, { name: 'Given', slug: 'orbit-2' })
    assert.equal((await createWork(owner, { name: 'Orbit' })).slug, 'orbit')
    assert.equal((await createWork(owner, { name: 'Orbit' })).slug, 'orbit-3')
  })

  it('create with an explicit slug keeps it, and a missing description is null', async () => {
    const owner = await account()
    const work = await createWork(owner, { name: 'Tools', slug: 'my-tools-2025' })
    assert.equal(work.slug, 'my-tools-2025')
    assert.equal(work.description, null)
  })

  it('two owners may use the same slug', async () => {
    const first = await createWork(await account(), { name: 'Same', slug: 'same-slug' })
    const second = await createWork(await account(), { name: 'Same', slug: 'same-slug' })
    assert.equal(first.slug, second.slug)
    assert.notEqual(first.id, second.id)
  })

  it('a name without usable characters gets a random work- slug', async () => {
    const owner = await account()
    assert.match((await createWork(owner, { name: '東京' })).slug, /^work-[0-9a-f]{6}$/)
    assert.match((await createWork(owner, { name: 'X' })).slug, /^work-[0-9a-f]{6}$/)
  })

  it('a long name gives a 63-character slug, and its numbered variant still fits', async () => {
    const owner = await account()
    const name = 'word '.repeat(20).trim()
    const first = await createWork(owner, { name })
    const second = await createWork(owner, { name })
    assert.equal(first.slug.length, 63)
    assert.equal(second.slug, `${first.slug.slice(0, 61)}-2`)
  })

  it('list answers owned and shared works, newest first, each with the caller’s role', async () => {
    const me = await account()
    const other = await account()
    const own = await createWork(me, { name: 'Mine' })
    h.clock.advance(1000)
    const theirs = await createWork(other, { name: 'Theirs' })
    await share(other, theirs.id, me, 'viewer')
    h.clock.advance(1000)
    const newest = await createWork(me, { name: 'Mine newer' })
    await createWork(other, { name: 'Not shared' })

    const res = await api.get('/api/works', { token: me.token })
    assert.equal(res.statusCode, 200)
    const works = res.json().works
    assert.deepEqual(
      works.map((work: { id: string; role: string }) => [work.id, work.role]),
      [
        [newest.id, 'owner'],
        [theirs.id, 'viewer'],
        [own.id, 'owner'],
      ],
    )
  })

  it('get answers the work with the caller’s role', async () => {
    const { owner, editor, viewer, work } = await sharedWork()
    for (const [who, role] of [
      [owner, 'owner'],
      [editor, 'editor'],
      [viewer, 'viewer'],
    ] as const) {
      const res = await api.get(`/api/works/${work.id}`, { token: who.token })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().role, role)
      assert.equal(res.json().id, work.id)
    }
  })

  it('patch changes name and description and records work.updated', async () => {
    const owner = await account()
    const work = await createWork(owner, { name: 'Before', description: 'old' })
    h.clock.advance(1000)
    const res = await api.patch(
      `/api/works/${work.id}`,
      { name: ' After ', description: 'new' },
      { token: owner.token },
    )
    assert.equal(res.statusCode, 200, res.body)
    const updated = res.json()
    assert.equal(updated.name, 'After')
    assert.equal(updated.description, 'new')
    assert.equal(updated.slug, work.slug)
    assert.ok(Date.parse(updated.updatedAt) > Date.parse(work.updatedAt))
    assert.equal((await api.get(`/api/works/${work.id}`, { token: owner.token })).json().name, 'After')

    const rows = await h.databases.platform.db
      .select()
      .from(activityLog)
      .where(and(eq(activityLog.userId, owner.id), eq(activityLog.action, 'work.updated')))
    assert.equal(rows.length, 1)
    assert.equal(rows[0]!.workId, work.id)
    assert.equal(rows[0]!.actionType, 'work_updated')
    assert.equal(rows[0]!.status, 'completed')
    assert.equal(rows[0]!.summary, 'Updated work "After"')
    assert.deepEqual(rows[0]!.details, { changes: ['name', 'description'] })
    assert.equal(rows[0]!.userAgent, 'works-test')
  })

  it('patch with description null clears it', async () => {
    const owner = await account()
    const work = await createWork(owner, { name: 'Described', description: 'something' })
    const res = await api.patch(`/api/works/${work.id}`, { description: null }, { token: owner.token })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().description, null)
    assert.equal(res.json().name, 'Described')
  })

  it('delete answers 204, the work is gone and its activity stays with workId null', async () => {
    const { owner, viewer, work } = await sharedWork()
    await api.patch(`/api/works/${work.id}`, { name: 'Renamed' }, { token: owner.token })
    const res = await api.delete(`/api/works/${work.id}`, { token: owner.token })
    assert.equal(res.statusCode, 204)
    assert.equal(res.body, '')
    assertError(await api.get(`/api/works/${work.id}`, { token: owner.token }), 404, 'WORK_NOT_FOUND')
    assertError(await api.get(`/api/works/${work.id}`, { token: viewer.token }), 404, 'WORK_NOT_FOUND')
    assert.equal((await api.get('/api/works', { token: owner.token })).json().works.length, 0)

    const db = h.databases.platform.db
    assert.equal((await db.select().from(workMembers).where(eq(workMembers.workId, work.id))).length, 0)
    const rows = await db.select().from(activityLog).where(eq(activityLog.userId, owner.id))
    const deleted = rows.find((row) => row.action === 'work.deleted')
    assert.ok(deleted, 'a work.deleted entry')
    assert.equal(deleted.workId, null)
    assert.equal(deleted.actionType, 'work_deleted')
    assert.equal(deleted.status, 'completed')
    assert.equal(deleted.summary, 'Deleted work "Renamed"')
    assert.deepEqual(deleted.details, { workId: work.id, slug: work.slug })
    const updated = rows.find((row) => row.action === 'work.updated')
    assert.ok(updated, 'the work.updated entry is kept')
    assert.equal(updated.workId, null)
    assert.ok(rows.every((row) => row.workId === null))
  })

  it(race('two deletes of one work at once: one 204, one 404, and one work_deleted row'), async () => {
    const owner = await account()
    const work = await createWork(owner, { name: 'Deleted twice' })
    const answers = await Promise.all([
      api.delete(`/api/works/${work.id}`, { token: owner.token }),
      api.delete(`/api/works/${work.id}`, { token: owner.token }),
    ])
    assert.deepEqual(answers.map((res) => res.statusCode).sort(), [204, 404])
    const rows = await h.databases.platform.db
      .select()
      .from(activityLog)
      .where(and(eq(activityLog.userId, owner.id), eq(activityLog.actionType, 'work_deleted')))
    assert.equal(rows.length, 1)
  })

  it('members list the owner first, then members in the order they joined', async () => {
    const { owner, editor, viewer, work } = await sharedWork()
    for (const who of [owner, editor, viewer]) {
      const res = await api.get(`/api/works/${work.id}/members`, { token: who.token })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), {
        members: [
          { userId: owner.id, email: owner.email, role: 'owner' },
          { userId: editor.id, email: editor.email, role: 'editor' },
          { userId: viewer.id, email: viewer.email, role: 'viewer' },
        ],
      })
    }
  })

  it('adding a member by email in any case answers 201 and grants access', async () => {
    const owner = await account()
    const member = await account()
    const work = await createWork(owner, { name: 'Invite Me' })
    const res = await api.post(
      `/api/works/${work.id}/members`,
      {
        email: `  ${member.email.toUpperCase()} `,
        role: 'editor',
      },
      { token: owner.token },
    )
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json(), { userId: member.id, email: member.email, role: 'editor' })
    const seen = await api.get(`/api/works/${work.id}`, { token: member.token })
    assert.equal(seen.statusCode, 200)
    assert.equal(seen.json().role, 'editor')
  })

  it('removing a member answers 204 and they lose access (404)', async () => {
    const { owner, editor, work } = await sharedWork()
    const res = await api.delete(`/api/works/${work.id}/members/${editor.id}`, { token: owner.token })
    assert.equal(res.statusCode, 204)
    assert.equal(res.body, '')
    assertError(await api.get(`/api/works/${work.id}`, { token: editor.token }), 404, 'WORK_NOT_FOUND')
    assertError(
      await api.patch(`/api/works/${work.id}`, { name: 'x' }, { token: editor.token }),
      404,
      'WORK_NOT_FOUND',
    )
    assert.equal((await api.get('/api/works', { token: editor.token })).json().works.length, 0)
    const members = (await api.get(`/api/works/${work.id}/members`, { token: owner.token })).json().members
    assert.ok(!members.some((member: { userId: string }) => member.userId === editor.id))
  })

  it('an editor may change the work', async () => {
    const { editor, work } = await sharedWork()
    const res = await api.patch(`/api/works/${work.id}`, { name: 'Edited' }, { token: editor.token })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().name, 'Edited')
    assert.equal(res.json().role, 'editor')
  })

  it('creating a work emits WorkCreated with the request context', async () => {
    const owner = await account()
    const work = await createWork(owner, { name: 'Evented' })
    const event = workCreated.find((candidate) => candidate.workId === work.id)
    assert.ok(event, 'WorkCreated emitted')
    assert.equal(event.userId, owner.id)
    assert.equal(event.workName, 'Evented')
    assert.equal(event.context?.userAgent, 'works-test')
    assert.equal(typeof event.context?.ipAddress, 'string')
  })

  it('adding a member emits MemberInvited for the owner', async () => {
    const owner = await account()
    const member = await account()
    const work = await createWork(owner, { name: 'Invites' })
    await share(owner, work.id, member, 'viewer')
    const events = memberInvited.filter((candidate) => candidate.workId === work.id)
    assert.equal(events.length, 1)
    assert.equal(events[0]!.userId, owner.id)
    assert.equal(events[0]!.workName, 'Invites')
    assert.equal(events[0]!.inviteeEmail, member.email)
    assert.equal(events[0]!.role, 'viewer')
    assert.equal(events[0]!.context?.userAgent, 'works-test')
  })
})

describe('platform works: errors', () => {
  it('an explicit slug the owner already uses is 409 SLUG_TAKEN', async () => {
    const owner = await account()
    await createWork(owner, { name: 'One', slug: 'taken' })
    const res = await api.post('/api/works', { name: 'Two', slug: 'taken' }, { token: owner.token })
    assertError(res, 409, 'SLUG_TAKEN')
    assert.equal((await api.get('/api/works', { token: owner.token })).json().works.length, 1)
  })

  for (const [label, name] of [
    ['an empty name', ''],
    ['a blank name', '   '],
    ['a 101-character name', 'n'.repeat(101)],
  ] as const) {
    it(`create with ${label} is 400 naming body.name`, async () => {
      const res = await api.post('/api/works', { name }, { token: (await account()).token })
      assertError(res, 400, 'VALIDATION_ERROR')
      assert.equal(res.json().details[0].field, 'body.name')
    })
  }

  it('create without a name is 400', async () => {
    assertError(
      await api.post('/api/works', { slug: 'no-name' }, { token: (await account()).token }),
      400,
      'VALIDATION_ERROR',
    )
  })

  it('a 100-character name is accepted', async () => {
    const work = await createWork(await account(), { name: 'n'.repeat(100) })
    assert.equal(work.name.length, 100)
  })

  for (const slug of ['a', 'Upper-case', '-leading', 'under_score', 'sp ace', 'café', 's'.repeat(64)]) {
    it(`slug ${JSON.stringify(slug.length > 20 ? `${slug.slice(0, 8)}…(${slug.length})` : slug)} is 400`, async () => {
      const res = await api.post('/api/works', { name: 'Slugged', slug }, { token: (await account()).token })
      assertError(res, 400, 'VALIDATION_ERROR')
      assert.equal(res.json().details[0].field, 'body.slug')
    })
  }

  it('slugs of 2 and 63 characters are accepted', async () => {
    const owner = await account()
    assert.equal((await createWork(owner, { name: 'Short', slug: 'a1' })).slug, 'a1')
    assert.equal((await createWork(owner, { name: 'Long', slug: 's'.repeat(63) })).slug, 's'.repeat(63))
  })

  it('a description over 2000 characters is 400', async () => {
    const owner = await account()
    const res = await api.post(
      '/api/works',
      { name: 'Wordy', description: 'd'.repeat(2001) },
      { token: owner.token },
    )
    assertError(res, 400, 'VALIDATION_ERROR')
    const work = await createWork(owner, { name: 'Wordy' })
    const patch = await api.patch(
      `/api/works/${work.id}`,
      { description: 'd'.repeat(2001) },
      { token: owner.token },
    )
    assertError(patch, 400, 'VALIDATION_ERROR')
  })

  it('patch with a blank or too long name is 400 and changes nothing', async () => {
    const owner = await account()
    const work = await createWork(owner, { name: 'Keep' })
    assertError(
      await api.patch(`/api/works/${work.id}`, { name: '  ' }, { token: owner.token }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      await api.patch(`/api/works/${work.id}`, { name: 'n'.repeat(101) }, { token: owner.token }),
      400,
      'VALIDATION_ERROR',
    )
    assert.equal((await api.get(`/api/works/${work.id}`, { token: owner.token })).json().name, 'Keep')
  })

  it('a viewer may read but not change, delete or share the work (403)', async () => {
    const { owner, viewer, work } = await sharedWork()
    assert.equal((await api.get(`/api/works/${work.id}`, { token: viewer.token })).statusCode, 200)
    assert.equal((await api.get(`/api/works/${work.id}/members`, { token: viewer.token })).statusCode, 200)
    assertError(
      await api.patch(`/api/works/${work.id}`, { name: 'x' }, { token: viewer.token }),
      403,
      'WORK_EDIT_FORBIDDEN',
    )
    assertError(
      await api.delete(`/api/works/${work.id}`, { token: viewer.token }),
      403,
      'WORK_OWNER_REQUIRED',
    )
    const outsider = await account()
    assertError(
      await api.post(
        `/api/works/${work.id}/members`,
        { email: outsider.email, role: 'viewer' },
        { token: viewer.token },
      ),
      403,
      'WORK_OWNER_REQUIRED',
    )
    assertError(
      await api.delete(`/api/works/${work.id}/members/${owner.id}`, { token: viewer.token }),
      403,
      'WORK_OWNER_REQUIRED',
    )
    assert.equal((await api.get(`/api/works/${work.id}`, { token: owner.token })).json().name, 'Shared Guide')
  })

  it('an editor may not delete the work, add or remove members (403)', async () => {
    const { owner, editor, viewer, work } = await sharedWork()
    assertError(
      await api.delete(`/api/works/${work.id}`, { token: editor.token }),
      403,
      'WORK_OWNER_REQUIRED',
    )
    const outsider = await account()
    assertError(
      await api.post(
        `/api/works/${work.id}/members`,
        { email: outsider.email, role: 'viewer' },
        { token: editor.token },
      ),
      403,
      'WORK_OWNER_REQUIRED',
    )
    assertError(
      await api.delete(`/api/works/${work.id}/members/${viewer.id}`, { token: editor.token }),
      403,
      'WORK_OWNER_REQUIRED',
    )
    assert.equal((await api.get(`/api/works/${work.id}`, { token: owner.token })).statusCode, 200)
    assert.equal((await api.get(`/api/works/${work.id}`, { token: viewer.token })).statusCode, 200)
  })

  it('adding an email without an account is 404 USER_NOT_FOUND', async () => {
    const owner = await account()
    const work = await createWork(owner, { name: 'Lonely' })
    const res = await api.post(
      `/api/works/${work.id}/members`,
      {
        email: uniqueEmail(),
        role: 'viewer',
      },
      { token: owner.token },
    )
    assertError(res, 404, 'USER_NOT_FOUND')
    assert.equal(res.json().message, 'No account with this email')
  })

  it('adding the owner is 400 ALREADY_OWNER', async () => {
    const owner = await account()
    const work = await createWork(owner, { name: 'Mine alone' })
    const res = await api.post(
      `/api/works/${work.id}/members`,
      {
        email: owner.email,
        role: 'editor',
      },
      { token: owner.token },
    )
    assertError(res, 400, 'ALREADY_OWNER')
  })

  it('adding an existing member again is 409 ALREADY_MEMBER and keeps their role', async () => {
    const { owner, viewer, work } = await sharedWork()
    const res = await api.post(
      `/api/works/${work.id}/members`,
      {
        email: viewer.email,
        role: 'editor',
      },
      { token: owner.token },
    )
    assertError(res, 409, 'ALREADY_MEMBER')
    assert.equal((await api.get(`/api/works/${work.id}`, { token: viewer.token })).json().role, 'viewer')
  })

  it('a role other than editor or viewer is 400', async () => {
    const owner = await account()
    const member = await account()
    const work = await createWork(owner, { name: 'Roles' })
    for (const role of ['owner', 'admin', '']) {
      const res = await api.post(
        `/api/works/${work.id}/members`,
        { email: member.email, role },
        { token: owner.token },
      )
      assertError(res, 400, 'VALIDATION_ERROR')
    }
  })

  it('removing someone who is not a member is 404 MEMBER_NOT_FOUND', async () => {
    const owner = await account()
    const stranger = await account()
    const work = await createWork(owner, { name: 'Members' })
    for (const userId of [stranger.id, owner.id, MISSING_ID, 'not-a-uuid']) {
      assertError(
        await api.delete(`/api/works/${work.id}/members/${userId}`, { token: owner.token }),
        404,
        'MEMBER_NOT_FOUND',
      )
    }
  })

  it('an unknown work is 404 WORK_NOT_FOUND', async () => {
    const owner = await account()
    assertError(await api.get(`/api/works/${MISSING_ID}`, { token: owner.token }), 404, 'WORK_NOT_FOUND')
    assertError(await api.delete(`/api/works/${MISSING_ID}`, { token: owner.token }), 404, 'WORK_NOT_FOUND')
  })
})

describe('platform works: security', () => {
  const routes = (workId: string, userId: string): [Method, string, object?][] => [
    ['GET', `/api/works/${workId}`],
    ['PATCH', `/api/works/${workId}`, { name: 'Taken over' }],
    ['DELETE', `/api/works/${workId}`],
    ['GET', `/api/works/${workId}/members`],
    ['POST', `/api/works/${workId}/members`, { email: 'nobody@example.com', role: 'editor' }],
    ['DELETE', `/api/works/${workId}/members/${userId}`],
  ]

  it('every route answers 401 without authentication', async () => {
    const owner = await account()
    const work = await createWork(owner, { name: 'Locked' })
    const all: [Method, string, object?][] = [
      ['POST', '/api/works', { name: 'Anonymous' }],
      ['GET', '/api/works'],
      ...routes(work.id, owner.id),
    ]
    for (const [method, url, payload] of all) {
      const res = await api.request(method, url, { body: payload })
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`)
    }
    const garbage = await h.app.inject({ url: '/api/works', headers: { authorization: 'Bearer garbage' } })
    assert.equal(garbage.statusCode, 401)
    assert.equal((await api.get(`/api/works/${work.id}`, { token: owner.token })).json().name, 'Locked')
  })

  it('a stranger gets 404 on every route of someone else’s work, and changes nothing', async () => {
    const { owner, editor, work } = await sharedWork()
    const stranger = await account()
    for (const [method, url, payload] of routes(work.id, editor.id)) {
      const res = await api.request(method, url, { body: payload, token: stranger.token })
      assertError(res, 404, 'WORK_NOT_FOUND')
      assert.equal(res.json().message, 'Work not found')
    }
    assert.equal((await api.get('/api/works', { token: stranger.token })).json().works.length, 0)
    const after = await api.get(`/api/works/${work.id}`, { token: owner.token })
    assert.equal(after.json().name, 'Shared Guide')
    assert.equal(
      (await api.get(`/api/works/${work.id}/members`, { token: owner.token })).json().members.length,
      3,
    )
  })

  it('an unknown and another owner’s work answer the same 404', async () => {
    const other = await createWork(await account(), { name: 'Elsewhere' })
    const me = await account()
    const theirs = await api.get(`/api/works/${other.id}`, { token: me.token })
    const missing = await api.get(`/api/works/${MISSING_ID}`, { token: me.token })
    assert.equal(theirs.statusCode, 404)
    assert.deepEqual(theirs.json(), missing.json())
  })

  it('a malformed work id is 404, never 400 or 500', async () => {
    const owner = await account()
    for (const id of ['not-a-uuid', '123', "1' or '1'='1", '00000000-0000-4000-8000-00000000000g']) {
      for (const [method, url, payload] of routes(encodeURIComponent(id), owner.id)) {
        assertError(
          await api.request(method, url, { body: payload, token: owner.token }),
          404,
          'WORK_NOT_FOUND',
        )
      }
    }
  })

  it(race('two concurrent creates with the same slug: one 201, one 409'), async () => {
    const owner = await account()
    const answers = await Promise.all([
      api.post('/api/works', { name: 'Race A', slug: 'race' }, { token: owner.token }),
      api.post('/api/works', { name: 'Race B', slug: 'race' }, { token: owner.token }),
    ])
    assert.deepEqual(answers.map((res) => res.statusCode).sort(), [201, 409])
    assertError(answers.find((res) => res.statusCode === 409)!, 409, 'SLUG_TAKEN')
  })

  it(race('fifty creates of one name without a slug all answer 201, as name, name-2 … name-50'), async () => {
    const owner = await account()
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => api.post('/api/works', { name: 'Busy Name' }, { token: owner.token })),
    )
    for (const res of answers) assert.equal(res.statusCode, 201, res.body)
    const expected = ['busy-name', ...Array.from({ length: 49 }, (_, i) => `busy-name-${i + 2}`)]
    assert.deepEqual(answers.map((res) => res.json().slug as string).sort(), expected.sort())
    assert.equal(workCreated.filter((event) => event.userId === owner.id).length, 50)
  })

  it('ownerId and role in a create or patch body are ignored', async () => {
    const owner = await account()
    const other = await account()
    const work = await createWork(owner, { name: 'Mine', ownerId: other.id, role: 'viewer' })
    assert.equal(work.ownerId, owner.id)
    assert.equal(work.role, 'owner')
    const patched = await api.patch(`/api/works/${work.id}`, { ownerId: other.id }, { token: owner.token })
    assert.equal(patched.statusCode, 200)
    assert.equal(patched.json().ownerId, owner.id)
    assertError(await api.get(`/api/works/${work.id}`, { token: other.token }), 404, 'WORK_NOT_FOUND')
  })

  it('an API key works on the works routes', async () => {
    const owner = await account()
    const created = await api.post('/api/auth/api-keys', { name: 'works script' }, { token: owner.token })
    assert.ok(created.statusCode < 300, created.body)
    const key: string = created.json().key
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/works',
      headers: { 'x-api-key': key },
      payload: { name: 'From a script' },
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().ownerId, owner.id)
    const list = await h.app.inject({ url: '/api/works', headers: { 'x-api-key': key } })
    assert.equal(list.json().works[0].id, res.json().id)
  })
})
