import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { users } from '../../src/directory/accounts/tables.ts'
import { clientProfiles } from '../../src/directory/clients/tables.ts'
import { type DirectoryHarness, randomAddress, startDirectory, uniqueEmail } from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

const BASE = '/api/admin/users'
const PASSWORD = 'a good password'
const DAY_MS = 86_400_000

let h: DirectoryHarness
let admin: string
let adminId: string
/** The admin's requests, as the web app sends them. */
let api: Requests

before(async () => {
  h = await startDirectory()
  const email = uniqueEmail('admin')
  admin = await h.adminCookie(email)
  api = siteRequests(h, { cookie: admin })
  const [row] = await h.databases.directory.db.select().from(users).where(eq(users.email, email))
  adminId = row!.id
})
after(() => h.close())

const tag = () => randomBytes(4).toString('hex')

function newUser(overrides: Record<string, unknown> = {}) {
  const id = tag()
  return {
    username: `user_${id}`,
    email: uniqueEmail('person'),
    name: `Person ${id}`,
    password: PASSWORD,
    role: 'user',
    ...overrides,
  }
}

async function createUser(overrides: Record<string, unknown> = {}, cookie = admin, harness = h) {
  const body = newUser(overrides)
  const res = await api.on(harness).post(BASE, body, { cookie })
  assert.equal(res.statusCode, 201, res.body)
  // Distinct creation times, so sorting by created_at is deterministic.
  harness.clock.advance(1000)
  return { ...body, id: res.json().data.id as string }
}

async function signin(email: string, harness = h) {
  const res = await harness.app.inject({
    method: 'POST',
    url: '/api/auth/signin',
    payload: { email, password: PASSWORD },
    remoteAddress: randomAddress(),
  })
  assert.equal(res.statusCode, 200, res.body)
}

const USER_KEYS = [
  'avatar',
  'created_at',
  'email',
  'id',
  'last_login',
  'name',
  'role',
  'status',
  'title',
  'updated_at',
  'username',
]

describe('admin users: happy path', () => {
  it('create answers 201 with the user and makes an argon2id hash and a client profile', async () => {
    const body = newUser({ email: `Mixed.Case-${uniqueEmail()}`, title: 'Rear Admiral' })
    const res = await api.post(BASE, body)
    assert.equal(res.statusCode, 201, res.body)
    const { success, data } = res.json()
    assert.equal(success, true)
    assert.deepEqual(Object.keys(data).sort(), [
      'created_at',
      'email',
      'id',
      'name',
      'role',
      'status',
      'username',
    ])
    assert.equal(data.username, body.username)
    assert.equal(data.email, body.email.toLowerCase())
    assert.equal(data.role, 'user')
    assert.equal(data.status, 'active')
    const db = h.databases.directory.db
    const [row] = await db.select().from(users).where(eq(users.id, data.id))
    assert.match(row!.passwordHash!, /^\$argon2id\$/)
    assert.equal(row!.title, 'Rear Admiral')
    const [profile] = await db.select().from(clientProfiles).where(eq(clientProfiles.userId, data.id))
    assert.equal(profile?.username, body.username)
  })

  it('the created user can sign in with the password', async () => {
    const user = await createUser()
    await signin(user.email)
  })

  it('read answers the complete user without its password hash', async () => {
    const user = await createUser({ avatar: 'https://example.com/a.png' })
    const res = await api.get(`${BASE}/${user.id}`)
    assert.equal(res.statusCode, 200)
    const { data } = res.json()
    assert.deepEqual(Object.keys(data).sort(), USER_KEYS)
    assert.equal(data.avatar, 'https://example.com/a.png')
    assert.equal(data.title, null)
    assert.equal(data.last_login, null)
  })

  it('update changes only the given fields and keeps the client profile in step', async () => {
    const user = await createUser({ title: 'Engineer' })
    const res = await api.put(`${BASE}/${user.id}`, {
      username: `renamed_${tag()}`,
      email: `NEW-${tag()}@Example.com`,
      role: 'admin',
      status: 'inactive',
    })
    assert.equal(res.statusCode, 200, res.body)
    const { data } = res.json()
    assert.equal(data.title, 'Engineer')
    assert.equal(data.name, user.name)
    assert.equal(data.role, 'admin')
    assert.equal(data.status, 'inactive')
    assert.equal(data.email, data.email.toLowerCase())
    const [profile] = await h.databases.directory.db
      .select()
      .from(clientProfiles)
      .where(eq(clientProfiles.userId, user.id))
    assert.equal(profile?.username, data.username)
    assert.equal(profile?.email, data.email)
  })

  it('update may clear title and avatar with null', async () => {
    const user = await createUser({ title: 'Engineer', avatar: 'https://example.com/a.png' })
    const res = await api.put(`${BASE}/${user.id}`, { title: null, avatar: null })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.title, null)
    assert.equal(res.json().data.avatar, null)
  })

  it('delete answers a message and removes the user and their profile', async () => {
    const user = await createUser()
    const res = await api.delete(`${BASE}/${user.id}`)
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().success, true)
    assert.equal(typeof res.json().message, 'string')
    assert.equal((await api.get(`${BASE}/${user.id}`)).statusCode, 404)
    const profiles = await h.databases.directory.db
      .select()
      .from(clientProfiles)
      .where(eq(clientProfiles.userId, user.id))
    assert.equal(profiles.length, 0)
  })

  it('list searches name, username and email case-insensitively and pages', async () => {
    const word = tag()
    const byName = await createUser({ name: `Ada ${word.toUpperCase()}` })
    const byUsername = await createUser({ username: `x_${word}` })
    const byEmail = await createUser({ email: `${word}@example.com` })
    const res = await api.get(`${BASE}?search=${word.toUpperCase()}&limit=2&sortBy=created_at`)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(body.total, 3)
    assert.equal(body.page, 1)
    assert.equal(body.limit, 2)
    assert.equal(body.totalPages, 2)
    assert.deepEqual(
      body.data.map((user: { id: string }) => user.id),
      [byName.id, byUsername.id],
    )
    assert.deepEqual(Object.keys(body.data[0]).sort(), USER_KEYS)
    const second = (await api.get(`${BASE}?search=${word}&limit=2&page=2&sortBy=created_at`)).json()
    assert.deepEqual(
      second.data.map((user: { id: string }) => user.id),
      [byEmail.id],
    )
  })

  it('list search treats % and _ literally', async () => {
    const word = tag()
    const literal = await createUser({ name: `Per%cent_${word}` })
    await createUser({ name: `Perxcentx${word}` })
    const res = await api.get(`${BASE}?search=${encodeURIComponent(`%cent_${word}`)}`)
    assert.deepEqual(
      res.json().data.map((user: { id: string }) => user.id),
      [literal.id],
    )
  })

  it('list hides inactive users unless status=inactive or includeInactive is asked', async () => {
    const word = tag()
    const active = await createUser({ name: `Active ${word}` })
    const inactive = await createUser({ name: `Inactive ${word}` })
    assert.equal((await api.put(`${BASE}/${inactive.id}`, { status: 'inactive' })).statusCode, 200)
    const ids = async (query: string) =>
      (await api.get(`${BASE}?search=${word}&${query}`)).json().data.map((user: { id: string }) => user.id)
    assert.deepEqual(await ids(''), [active.id])
    assert.deepEqual(await ids('status=inactive'), [inactive.id])
    assert.deepEqual(await ids('status=active&includeInactive=true'), [active.id])
    assert.deepEqual(await ids('includeInactive=true'), [active.id, inactive.id])
  })

  it('list filters by role and sorts by each field in both orders', async () => {
    const word = tag()
    const a = await createUser({ name: `A ${word}`, username: `c_${word}`, email: `b-${word}@example.com` })
    const b = await createUser({
      name: `B ${word}`,
      username: `a_${word}`,
      email: `c-${word}@example.com`,
      role: 'admin',
    })
    const c = await createUser({ name: `C ${word}`, username: `b_${word}`, email: `a-${word}@example.com` })
    const ids = async (query: string) => {
      const res = await api.get(`${BASE}?search=${word}&${query}`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data.map((user: { id: string }) => user.id)
    }
    assert.deepEqual(await ids(''), [a.id, b.id, c.id])
    assert.deepEqual(await ids('sortOrder=desc'), [c.id, b.id, a.id])
    assert.deepEqual(await ids('sortBy=username'), [b.id, c.id, a.id])
    assert.deepEqual(await ids('sortBy=email'), [c.id, a.id, b.id])
    assert.deepEqual(await ids('sortBy=created_at&sortOrder=desc'), [c.id, b.id, a.id])
    assert.equal((await ids('sortBy=role'))[0], b.id)
    assert.deepEqual(await ids('role=admin'), [b.id])
  })

  it('check-email and check-username are case-insensitive and honour excludeId', async () => {
    const user = await createUser({ username: `Check_${tag()}` })
    const email = async (payload: object) => (await api.post(`${BASE}/check-email`, payload)).json()
    const username = async (payload: object) => (await api.post(`${BASE}/check-username`, payload)).json()
    assert.deepEqual(await email({ email: user.email.toUpperCase() }), { available: false, exists: true })
    assert.deepEqual(await email({ email: user.email, excludeId: user.id }), {
      available: true,
      exists: false,
    })
    assert.deepEqual(await email({ email: uniqueEmail() }), { available: true, exists: false })
    assert.deepEqual(await username({ username: user.username.toLowerCase() }), {
      available: false,
      exists: true,
    })
    assert.deepEqual(await username({ username: user.username, excludeId: user.id }), {
      available: true,
      exists: false,
    })
    assert.deepEqual(await username({ username: `free_${tag()}` }), { available: true, exists: false })
  })
})

describe('admin users: stats', () => {
  it('counts users, recent registrations, roles and sign-ins from the database', async () => {
    const s = await startDirectory()
    try {
      const adminEmail = uniqueEmail('admin')
      let cookie = await s.adminCookie(adminEmail)
      const old = await createUser({}, cookie, s)
      s.clock.advance(31 * DAY_MS)
      cookie = await s.adminCookie(adminEmail) // a second sign-in: loginCount 2
      const a = await createUser({}, cookie, s)
      const b = await createUser({}, cookie, s)
      const c = await createUser({}, cookie, s)
      await createUser({}, cookie, s)
      for (let i = 0; i < 4; i++) await signin(a.email, s)
      await signin(b.email, s)
      assert.equal(
        (await api.on(s).put(`${BASE}/${c.id}`, { status: 'inactive' }, { cookie })).statusCode,
        200,
      )

      const res = await api.on(s).get(`${BASE}/stats`, { cookie })
      assert.equal(res.statusCode, 200, res.body)
      const { success, data } = res.json()
      assert.equal(success, true)
      assert.equal(data.totalUsers, 6)
      assert.equal(data.activeUsers, 5)
      assert.equal(data.inactiveUsers, 1)
      assert.equal(data.recentRegistrations, 4)
      assert.deepEqual(data.roleDistribution, { admin: 1, user: 5 })
      assert.equal(data.averageLoginFrequency, 1.17) // (4 + 2 + 1) / 6
      assert.equal(data.topActiveUsers.length, 5)
      assert.deepEqual(
        data.topActiveUsers
          .slice(0, 3)
          .map((user: { username: string; loginCount: number }) => user.loginCount),
        [4, 2, 1],
      )
      assert.equal(data.topActiveUsers[0].id, a.id)
      assert.equal(data.topActiveUsers[0].username, a.username)
      assert.equal(data.topActiveUsers[0].lastLogin, s.clock.now().toISOString())
      assert.equal(data.topActiveUsers[2].id, b.id)
      assert.ok(!data.topActiveUsers.slice(0, 3).some((user: { id: string }) => user.id === old.id))
    } finally {
      await s.close()
    }
  })
})

describe('admin users: errors', () => {
  const edges: [string, Record<string, unknown>, number][] = [
    ['username of 3', { username: `a${tag().slice(0, 2)}` }, 201],
    ['username of 2', { username: 'ab' }, 400],
    ['username of 30', { username: `u${tag()}`.padEnd(30, 'x') }, 201],
    ['username of 31', { username: `u${tag()}`.padEnd(31, 'x') }, 400],
    ['username with a space', { username: 'has space' }, 400],
    ['name of 2', { name: 'Al' }, 201],
    ['name of 1', { name: 'A' }, 400],
    ['name of 100', { name: 'n'.repeat(100) }, 201],
    ['name of 101', { name: 'n'.repeat(101) }, 400],
    ['password of 8', { password: '12345678' }, 201],
    ['password of 7', { password: '1234567' }, 400],
    ['password of 128', { password: 'p'.repeat(128) }, 201],
    ['password of 129', { password: 'p'.repeat(129) }, 400],
    ['title of 100', { title: 't'.repeat(100) }, 201],
    ['title of 101', { title: 't'.repeat(101) }, 400],
    ['avatar of 500', { avatar: `https://example.com/${'a'.repeat(480)}` }, 201],
    ['avatar of 501', { avatar: `https://example.com/${'a'.repeat(481)}` }, 400],
    ['avatar that is not an http URL', { avatar: 'javascript:alert(1)' }, 400],
    ['malformed email', { email: 'not-an-email' }, 400],
    ['missing role', { role: undefined }, 400],
  ]
  for (const [label, overrides, status] of edges) {
    it(`create with ${label} answers ${status}`, async () => {
      const res = await api.post(BASE, newUser(overrides))
      assert.equal(res.statusCode, status, res.body)
      if (status === 400) assert.equal(res.json().success, false)
    })
  }

  it('create with a role that does not exist answers 400', async () => {
    const res = await api.post(BASE, newUser({ role: 'no-such-role' }))
    assert.equal(res.statusCode, 400)
    assert.match(res.json().error, /role/i)
  })

  it('create with an email or username taken in another case answers 400', async () => {
    const user = await createUser({ username: `Dup_${tag()}` })
    const email = await api.post(BASE, newUser({ email: user.email.toUpperCase() }))
    assert.equal(email.statusCode, 400)
    assert.match(email.json().error, /email already exists/)
    const username = await api.post(BASE, newUser({ username: user.username.toUpperCase() }))
    assert.equal(username.statusCode, 400)
    assert.match(username.json().error, /username already exists/)
  })

  it('update with an email or username of another user in another case answers 400', async () => {
    const taken = await createUser({ username: `Taken_${tag()}` })
    const user = await createUser()
    const email = await api.put(`${BASE}/${user.id}`, { email: taken.email.toUpperCase() })
    assert.equal(email.statusCode, 400)
    assert.match(email.json().error, /email already exists/)
    const username = await api.put(`${BASE}/${user.id}`, { username: taken.username.toLowerCase() })
    assert.equal(username.statusCode, 400)
    assert.match(username.json().error, /username already exists/)
    const own = await api.put(`${BASE}/${user.id}`, { username: user.username.toUpperCase() })
    assert.equal(own.statusCode, 200, 'a user may change the case of their own username')
  })

  it('update username of 50 answers 200, of 51 and of 2 answers 400', async () => {
    const user = await createUser()
    const fifty = `u${tag()}`.padEnd(50, 'x')
    assert.equal((await api.put(`${BASE}/${user.id}`, { username: fifty })).statusCode, 200)
    assert.equal((await api.put(`${BASE}/${user.id}`, { username: `${fifty}x` })).statusCode, 400)
    assert.equal((await api.put(`${BASE}/${user.id}`, { username: 'ab' })).statusCode, 400)
    assert.equal((await api.put(`${BASE}/${user.id}`, { name: 'A' })).statusCode, 400)
    assert.equal((await api.put(`${BASE}/${user.id}`, { title: 't'.repeat(101) })).statusCode, 400)
    assert.equal((await api.put(`${BASE}/${user.id}`, { status: 'suspended' })).statusCode, 400)
  })

  it('update to a role that does not exist answers 400', async () => {
    const user = await createUser()
    const res = await api.put(`${BASE}/${user.id}`, { role: 'no-such-role' })
    assert.equal(res.statusCode, 400)
    assert.equal((await api.get(`${BASE}/${user.id}`)).json().data.role, 'user')
  })

  it('an admin deleting their own account answers 400', async () => {
    const res = await api.delete(`${BASE}/${adminId}`)
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().success, false)
    assert.equal((await api.get(`${BASE}/${adminId}`)).statusCode, 200)
  })

  for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
    it(`read, update and delete of ${id} answer 404`, async () => {
      for (const [method, payload] of [
        ['GET', undefined],
        ['PUT', { name: 'New Name' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await api.request(method, `${BASE}/${id}`, { body: payload })
        assert.equal(res.statusCode, 404, `${method} ${res.body}`)
        assert.equal(res.json().success, false)
      }
    })
  }

  const listQueries: [string, number][] = [
    ['limit=1', 200],
    ['limit=100', 200],
    ['limit=0', 400],
    ['limit=101', 400],
    ['page=0', 400],
    ['sortBy=password', 400],
    ['sortOrder=sideways', 400],
    ['status=suspended', 400],
    [`search=${'s'.repeat(100)}`, 200],
    [`search=${'s'.repeat(101)}`, 400],
    [`role=${'r'.repeat(50)}`, 200],
    [`role=${'r'.repeat(51)}`, 400],
  ]
  for (const [query, status] of listQueries) {
    it(`list with ${query.slice(0, 20)} answers ${status}`, async () => {
      const res = await api.get(`${BASE}?${query}`)
      assert.equal(res.statusCode, status, res.body)
    })
  }

  it('check-email with a malformed email or excludeId answers 400', async () => {
    assert.equal((await api.post(`${BASE}/check-email`, { email: 'nope' })).statusCode, 400)
    const res = await api.post(`${BASE}/check-email`, { email: uniqueEmail(), excludeId: 'x' })
    assert.equal(res.statusCode, 400)
    assert.equal((await api.post(`${BASE}/check-username`, {})).statusCode, 400)
  })
})

describe('admin users: races', () => {
  it(race('concurrent creates of one username in two cases: one 201, one 400'), async () => {
    const name = `racer_${tag()}`
    const answers = await Promise.all([
      api.post(BASE, newUser({ username: name })),
      api.post(BASE, newUser({ username: name.toUpperCase() })),
    ])
    assert.deepEqual(answers.map((res) => res.statusCode).sort(), [201, 400])
  })
})

describe('admin users: security', () => {
  it('a write with the admin cookie from another origin answers 403', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: BASE,
      payload: newUser(),
      headers: { origin: 'https://evil.example', cookie: admin },
    })
    assert.equal(res.statusCode, 403)
  })

  it('no answer carries a password or its hash', async () => {
    const user = await createUser()
    await signin(user.email)
    const answers = await Promise.all([
      api.post(BASE, newUser()),
      api.get(`${BASE}?includeInactive=true&limit=100`),
      api.get(`${BASE}/stats`),
      api.get(`${BASE}/${user.id}`),
      api.put(`${BASE}/${user.id}`, { name: 'Renamed User' }),
    ])
    for (const res of answers) {
      assert.ok(res.statusCode < 300, res.body)
      assert.doesNotMatch(res.body, /argon2|password/i)
    }
  })
})
