import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { eq, inArray } from 'drizzle-orm'
import { createAccountService } from '../../src/directory/accounts/service.ts'
import { users } from '../../src/directory/accounts/tables.ts'
import type { CrmSync } from '../../src/directory/clients/crm.ts'
import { clientsModule } from '../../src/directory/clients/module.ts'
import type { Client } from '../../src/directory/clients/schemas.ts'
import { clientProfiles } from '../../src/directory/clients/tables.ts'
import {
  APP_ORIGIN,
  type DirectoryHarness,
  randomAddress,
  startDirectory,
  uniqueEmail,
  until,
} from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

const BASE = '/api/admin/clients'
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'

let h: DirectoryHarness
let admin: string
/** The admin's requests, as the web app sends them. */
let api: Requests

before(async () => {
  h = await startDirectory()
  admin = await h.adminCookie()
  api = siteRequests(h, { cookie: admin })
})
after(() => h.close())

const tag = () => randomBytes(4).toString('hex')

async function createClient(body: Record<string, unknown> = {}, harness = h) {
  const res = await api.on(harness).post(BASE, { email: uniqueEmail('client'), ...body })
  assert.equal(res.statusCode, 200, res.body)
  harness.clock.advance(1000)
  return res.json().data as { id: string; email: string; displayName: string }
}

type ProfileSeed = Partial<typeof clientProfiles.$inferInsert>

/** A user and profile written straight to the database, for figures the API cannot set. */
async function seedClient(harness: DirectoryHarness, fields: ProfileSeed = {}) {
  const db = harness.databases.directory.db
  const name = `seed_${tag()}`
  const now = harness.clock.now()
  const [user] = await db
    .insert(users)
    .values({ email: `${name}@example.com`, username: name, name, createdAt: now, updatedAt: now })
    .returning()
  const [profile] = await db
    .insert(clientProfiles)
    .values({
      userId: user!.id,
      email: user!.email,
      username: name,
      displayName: name,
      joinedAt: now,
      createdAt: now,
      updatedAt: now,
      ...fields,
    })
    .returning()
  return profile!
}

type Params = Record<string, string | number | boolean | undefined>

const query = (params: Params) =>
  new URLSearchParams(
    Object.entries(params).flatMap(([key, value]): [string, string][] =>
      value === undefined ? [] : [[key, String(value)]],
    ),
  ).toString()

describe('admin clients: create', () => {
  it('answers 200 with the summary, defaults the display name to the email prefix, and makes a user', async () => {
    const email = `Grace.${tag()}@Example.com`
    const res = await api.post(BASE, { email, company: 'Navy', plan: 'standard' })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(typeof body.message, 'string')
    assert.deepEqual(Object.keys(body.data).sort(), [
      'accountType',
      'createdAt',
      'displayName',
      'email',
      'id',
      'plan',
      'status',
    ])
    assert.equal(body.data.email, email.toLowerCase())
    assert.equal(body.data.displayName, email.toLowerCase().split('@')[0])
    assert.equal(body.data.plan, 'standard')
    assert.equal(body.data.status, 'active')
    assert.equal(body.data.accountType, 'individual')
    assert.doesNotMatch(res.body, /password/i)
    const db = h.databases.directory.db
    const [user] = await db.select().from(users).where(eq(users.email, email.toLowerCase()))
    assert.match(user!.passwordHash!, /^\$argon2id\$/, 'a temporary password, stored only as a hash')
    assert.equal(user!.roleId, 'user')
    const read = await api.get(`${BASE}/${body.data.id}`)
    assert.equal(read.json().data.company, 'Navy')
    assert.equal(read.json().data.userId, user!.id)
  })

  it('an existing account without a profile gets one', async () => {
    const db = h.databases.directory.db
    const profile = await seedClient(h)
    await db.delete(clientProfiles).where(eq(clientProfiles.id, profile.id))
    const res = await api.post(BASE, { email: profile.email.toUpperCase(), displayName: 'Back Again' })
    assert.equal(res.statusCode, 200, res.body)
    const [created] = await db.select().from(clientProfiles).where(eq(clientProfiles.id, res.json().data.id))
    assert.equal(created!.userId, profile.userId)
    assert.equal(created!.displayName, 'Back Again')
    assert.equal(created!.username, profile.username)
  })

  it('an email that already has a client profile answers 409, whatever its case', async () => {
    const client = await createClient()
    const res = await api.post(BASE, { email: client.email.toUpperCase() })
    assert.equal(res.statusCode, 409, res.body)
    assert.equal(res.json().success, false)
  })

  it('a taken username answers 409', async () => {
    const username = `taken_${tag()}`
    await createClient({ username })
    const res = await api.post(BASE, { email: uniqueEmail(), username })
    assert.equal(res.statusCode, 409, res.body)
  })

  it('rejects a missing or malformed email, bad enums and over-long fields with 400', async () => {
    for (const body of [
      {},
      { email: 'not-an-email' },
      { email: uniqueEmail(), plan: 'gold' },
      { email: uniqueEmail(), status: 'banned' },
      { email: uniqueEmail(), accountType: 'team' },
      { email: uniqueEmail(), displayName: 'x'.repeat(101) },
      { email: uniqueEmail(), displayName: '' },
      { email: uniqueEmail(), company: 'x'.repeat(201) },
      { email: uniqueEmail(), website: 'javascript:alert(1)' },
      { email: uniqueEmail(), username: 'ab' },
    ]) {
      const res = await api.post(BASE, body)
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`)
      assert.equal(res.json().success, false)
    }
  })

  it('accepts fields at their limits', async () => {
    const res = await api.post(BASE, {
      email: uniqueEmail(),
      displayName: 'x'.repeat(100),
      company: 'c'.repeat(200),
      username: `u${tag()}`.padEnd(50, 'u'),
    })
    assert.equal(res.statusCode, 200, res.body)
  })
})

describe('admin clients: list', () => {
  it('searches display name and email case-insensitively and pages with meta', async () => {
    const marker = `Zed${tag()}`
    for (let i = 0; i < 3; i++) await createClient({ displayName: `${marker} ${i}` })
    await createClient({ email: `${marker.toLowerCase()}-mail@example.com`, displayName: 'Other' })
    const res = await api.get(`${BASE}?${query({ search: marker.toUpperCase(), limit: 3, page: 2 })}`)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.deepEqual(body.meta, { page: 2, totalPages: 2, total: 4, limit: 3 })
    assert.equal(body.data.clients.length, 1)
    const first = await api.get(`${BASE}?${query({ search: marker })}`)
    assert.equal(first.json().meta.limit, 10, 'limit defaults to 10')
    assert.equal(first.json().data.clients[0].displayName, 'Other', 'newest first')
  })

  it('treats % and _ in the search as literal characters', async () => {
    const marker = tag()
    await createClient({ displayName: `100%_${marker}` })
    await createClient({ displayName: `100ab${marker}` })
    const res = await api.get(`${BASE}?${query({ search: `100%_${marker}` })}`)
    assert.equal(res.json().meta.total, 1)
  })

  it('filters by status, plan, account type and provider', async () => {
    const marker = `F${tag()}`
    await createClient({
      displayName: `${marker} a`,
      status: 'trial',
      plan: 'premium',
      accountType: 'business',
    })
    await createClient({ displayName: `${marker} b`, status: 'trial', plan: 'free', accountType: 'business' })
    await createClient({ displayName: `${marker} c`, status: 'active', plan: 'premium' })
    const total = async (params: Record<string, string>) =>
      (await api.get(`${BASE}?${query({ search: marker, ...params })}`)).json().meta.total
    assert.equal(await total({ status: 'trial' }), 2)
    assert.equal(await total({ status: 'trial', plan: 'premium' }), 1)
    assert.equal(await total({ accountType: 'business' }), 2)
    assert.equal(await total({ provider: 'credentials' }), 3)
    assert.equal(await total({ provider: 'github' }), 0)
  })

  it('answers 400 for page 0, limit 0 or 101 and unknown enum values, and accepts limit 1 and 100', async () => {
    for (const params of [
      { page: 0 },
      { limit: 0 },
      { limit: 101 },
      { page: 'x' },
      { status: 'banned' },
      { plan: 'gold' },
      { accountType: 'team' },
    ]) {
      const res = await api.get(`${BASE}?${query(params)}`)
      assert.equal(res.statusCode, 400, `${JSON.stringify(params)}: ${res.body}`)
    }
    for (const limit of [1, 100]) assert.equal((await api.get(`${BASE}?limit=${limit}`)).statusCode, 200)
  })
})

describe('admin clients: read, update, delete', () => {
  it('read answers the full profile', async () => {
    const client = await createClient({ bio: 'Hello', location: 'Paris, France' })
    const res = await api.get(`${BASE}/${client.id}`)
    assert.equal(res.statusCode, 200)
    const { data } = res.json()
    assert.equal(data.bio, 'Hello')
    assert.equal(data.location, 'Paris, France')
    assert.equal(data.totalSubmissions, 0)
    assert.equal(data.emailVerified, false)
    assert.equal(data.lastActiveAt, null)
  })

  it('unknown and malformed ids answer 404 on read, update and delete', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      for (const [method, payload] of [['GET'], ['PUT', { plan: 'premium' }], ['DELETE']] as const) {
        const res = await api.request(method, `${BASE}/${id}`, { body: payload })
        assert.equal(res.statusCode, 404, `${method} ${id}`)
        assert.equal(res.json().success, false)
      }
    }
  })

  it('update changes only the given fields and keeps the account username in step', async () => {
    const client = await createClient({ company: 'Old Co', bio: 'Bio' })
    const username = `renamed_${tag()}`
    const res = await api.put(`${BASE}/${client.id}`, { company: 'New Co', plan: 'premium', username })
    assert.equal(res.statusCode, 200, res.body)
    const { data } = res.json()
    assert.equal(data.company, 'New Co')
    assert.equal(data.plan, 'premium')
    assert.equal(data.bio, 'Bio')
    const [user] = await h.databases.directory.db.select().from(users).where(eq(users.id, data.userId))
    assert.equal(user!.username, username)
    const cleared = await api.put(`${BASE}/${client.id}`, { company: null })
    assert.equal(cleared.json().data.company, null)
  })

  it('update answers 400 for bad values and 409 for a taken username', async () => {
    const one = await createClient({ username: `one_${tag()}` })
    const two = await createClient()
    assert.equal((await api.put(`${BASE}/${two.id}`, { status: 'banned' })).statusCode, 400)
    assert.equal((await api.put(`${BASE}/${two.id}`, { displayName: 'x'.repeat(101) })).statusCode, 400)
    const [row] = await h.databases.directory.db
      .select()
      .from(clientProfiles)
      .where(eq(clientProfiles.id, one.id))
    assert.equal((await api.put(`${BASE}/${two.id}`, { username: row!.username })).statusCode, 409)
  })

  it('delete removes the profile permanently', async () => {
    const client = await createClient()
    const res = await api.delete(`${BASE}/${client.id}`)
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().success, true)
    assert.equal(typeof res.json().message, 'string')
    assert.equal((await api.get(`${BASE}/${client.id}`)).statusCode, 404)
    assert.equal((await api.delete(`${BASE}/${client.id}`)).statusCode, 404)
  })
})

describe('admin clients: CRM sync', () => {
  it('is called on create and update, and a failing CRM only logs', async () => {
    const seen: string[] = []
    const warnings: unknown[] = []
    const failing: CrmSync = {
      async clientChanged(client: Client) {
        seen.push(client.company ?? '')
        throw new Error('CRM down')
      },
    }
    const db = h.databases.directory.db
    const { clients: service } = clientsModule({
      db,
      clock: h.clock,
      crm: failing,
      log: { warn: (...args: unknown[]) => warnings.push(args) } as never,
      accounts: createAccountService({ db, clock: h.clock }),
    })
    const created = await service.create({ email: uniqueEmail(), company: 'Acme' })
    await service.update(created.id, { company: 'Acme 2' })
    assert.deepEqual(seen, ['Acme', 'Acme 2'])
    assert.equal(warnings.length, 2)
  })
})

describe('admin clients: dashboard and advanced search', () => {
  it('dashboard filters by creation dates given as YYYY-MM-DD or ISO and carries stats and meta', async () => {
    const marker = `D${tag()}`
    await seedClient(h, { displayName: `${marker} jan`, createdAt: new Date('2026-01-15T10:00:00Z') })
    await seedClient(h, { displayName: `${marker} jan31`, createdAt: new Date('2026-01-31T23:30:00Z') })
    await seedClient(h, { displayName: `${marker} feb`, createdAt: new Date('2026-02-10T10:00:00Z') })
    const dashboard = (params: Record<string, string>) =>
      api.get(`${BASE}/dashboard?${query({ search: marker, ...params })}`)
    const january = await dashboard({ createdAfter: '2026-01-01', createdBefore: '2026-01-31' })
    assert.equal(january.statusCode, 200, january.body)
    const body = january.json()
    assert.equal(body.success, true)
    assert.equal(body.data.meta.total, 2, 'a bare createdBefore date includes that whole day')
    assert.equal(body.data.clients.length, 2)
    assert.equal(typeof body.data.stats.overview.totalClients, 'number')
    const iso = await dashboard({ createdAfter: '2026-01-20T00:00:00Z' })
    assert.equal(iso.json().data.meta.total, 2)
    for (const bad of ['2026-13-01', 'yesterday', '2026-02-30', '15/01/2026']) {
      const res = await dashboard({ createdAfter: bad })
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`)
    }
    assert.equal((await api.get(`${BASE}/dashboard?limit=101`)).statusCode, 400)
  })

  it('advanced search applies every filter and sort and reports its metadata', async () => {
    const marker = `A${tag()}`
    const domain = `${tag()}.test`
    await seedClient(h, {
      displayName: `${marker} one`,
      email: `one-${tag()}@${domain}`,
      company: 'Initech',
      location: 'Lyon, France',
      industry: 'Software',
      totalSubmissions: 5,
      emailVerified: true,
      phone: '+33 1',
      website: 'https://one.test',
      avatar: 'https://one.test/a.png',
    })
    await seedClient(h, {
      displayName: `${marker} two`,
      email: `two-${tag()}@${domain}`,
      company: 'Globex',
      location: 'Berlin, Germany',
      industry: 'Energy',
      totalSubmissions: 1,
      twoFactorEnabled: true,
    })
    await seedClient(h, { displayName: `${marker} three`, totalSubmissions: 9 })
    const search = async (params: Params) => {
      const res = await api.get(`${BASE}/advanced-search?${query({ search: marker, ...params })}`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data
    }
    const names = (data: { clients: { displayName: string }[] }) =>
      data.clients.map((client) => client.displayName.replace(`${marker} `, ''))
    assert.deepEqual(names(await search({ emailDomain: `@${domain}`, sortBy: 'name', sortOrder: 'asc' })), [
      'one',
      'two',
    ])
    assert.deepEqual(names(await search({ companySearch: 'glob' })), ['two'])
    assert.deepEqual(names(await search({ locationSearch: 'france' })), ['one'])
    assert.deepEqual(names(await search({ industrySearch: 'ENERGY' })), ['two'])
    assert.deepEqual(names(await search({ minSubmissions: 2, maxSubmissions: 5 })), ['one'])
    assert.deepEqual(names(await search({ emailVerified: true })), ['one'])
    assert.deepEqual(names(await search({ twoFactorEnabled: true })), ['two'])
    assert.deepEqual(names(await search({ hasAvatar: true })), ['one'])
    assert.deepEqual(names(await search({ hasWebsite: false, sortBy: 'name', sortOrder: 'asc' })), [
      'three',
      'two',
    ])
    assert.deepEqual(names(await search({ hasPhone: true })), ['one'])
    assert.deepEqual(names(await search({ sortBy: 'totalSubmissions', sortOrder: 'desc' })), [
      'three',
      'one',
      'two',
    ])
    assert.deepEqual(names(await search({ sortBy: 'company', sortOrder: 'asc' })), ['two', 'one', 'three'])
    const data = await search({ minSubmissions: 1, hasPhone: true, limit: 5 })
    assert.deepEqual(data.pagination, { page: 1, limit: 5, total: 1, totalPages: 1 })
    assert.equal(data.searchMetadata.appliedFilters.minSubmissions, 1)
    assert.equal(data.searchMetadata.appliedFilters.hasPhone, true)
    assert.equal(data.searchMetadata.appliedFilters.search, marker)
    assert.equal(typeof data.searchMetadata.searchTime, 'number')
  })

  it('advanced search answers 400 for unknown sorts, bad numbers, booleans and dates', async () => {
    for (const params of [
      { sortBy: 'password' },
      { sortOrder: 'up' },
      { minSubmissions: -1 },
      { maxSubmissions: 'many' },
      { minSubmissions: 5, maxSubmissions: 2 },
      { hasPhone: 'maybe' },
      { createdBefore: 'not-a-date' },
      { page: 0 },
      { limit: 101 },
    ]) {
      const res = await api.get(`${BASE}/advanced-search?${query(params)}`)
      assert.equal(res.statusCode, 400, `${JSON.stringify(params)}: ${res.body}`)
      assert.equal(res.json().success, false)
    }
  })
})

describe('admin clients: bulk', () => {
  it('bulk update applies each item and reports failures at their index without aborting', async () => {
    const one = await createClient()
    const two = await createClient()
    const res = await api.put(`${BASE}/bulk`, {
      clients: [
        { id: one.id, plan: 'premium' },
        { id: UNKNOWN_ID, plan: 'premium' },
        { id: 'nope', plan: 'premium' },
        { id: two.id, status: 'suspended' },
      ],
    })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.deepEqual(body.results, [
      { index: 0, id: one.id, success: true },
      { index: 3, id: two.id, success: true },
    ])
    assert.deepEqual(
      body.errors.map((error: { index: number; id: string }) => [error.index, error.id]),
      [
        [1, UNKNOWN_ID],
        [2, 'nope'],
      ],
    )
    assert.equal(body.errors[0].error, 'Client not found')
    assert.deepEqual(body.summary, { total: 4, successful: 2, failed: 2 })
    assert.equal((await api.get(`${BASE}/${one.id}`)).json().data.plan, 'premium')
    assert.equal((await api.get(`${BASE}/${two.id}`)).json().data.status, 'suspended')
  })

  it('bulk delete removes each known client and reports the unknown ones', async () => {
    const one = await createClient()
    const two = await createClient()
    const res = await api.delete(`${BASE}/bulk`, {
      body: {
        clients: [{ id: one.id }, { id: UNKNOWN_ID }, { id: two.id }],
      },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().summary, { total: 3, successful: 2, failed: 1 })
    assert.equal(res.json().errors[0].index, 1)
    const left = await h.databases.directory.db
      .select()
      .from(clientProfiles)
      .where(inArray(clientProfiles.id, [one.id, two.id]))
    assert.equal(left.length, 0)
  })

  it('answers 400 for an empty array, more than 100 items, a missing id or bad values', async () => {
    const client = await createClient()
    const many = Array.from({ length: 101 }, () => ({ id: client.id }))
    for (const [method, payload] of [
      ['PUT', { clients: [] }],
      ['PUT', { clients: many }],
      ['PUT', { clients: [{ plan: 'premium' }] }],
      ['PUT', { clients: [{ id: client.id, plan: 'gold' }] }],
      ['PUT', {}],
      ['DELETE', { clients: [] }],
      ['DELETE', { clients: many }],
      ['DELETE', { clients: [{}] }],
    ] as const) {
      const res = await api.request(method, `${BASE}/bulk`, { body: payload })
      assert.equal(res.statusCode, 400, `${method} ${JSON.stringify(payload).slice(0, 60)}: ${res.body}`)
    }
    const hundred = Array.from({ length: 100 }, () => ({ id: client.id, plan: 'standard' as const }))
    const res = await api.put(`${BASE}/bulk`, { clients: hundred })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().summary.successful, 100)
  })
})

describe('admin clients: stats cache', () => {
  it('a client created through the API shows in the stats at once', async () => {
    const before = (await api.get(`${BASE}/stats`)).json().data.overview.totalClients
    const created = await api.post(BASE, { email: uniqueEmail('stats') })
    assert.equal(created.statusCode, 200, created.body)
    assert.equal((await api.get(`${BASE}/stats`)).json().data.overview.totalClients, before + 1)
  })

  it('a sign-up, and a write on another instance, show in the stats without waiting for them to expire', async () => {
    const totalClients = async (harness = h, cookie = admin) =>
      (await api.on(harness).get(`${BASE}/stats`, { cookie })).json().data.overview.totalClients as number
    const before = await totalClients()
    const registered = await h.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      headers: { origin: APP_ORIGIN },
      payload: { email: uniqueEmail('stats'), password: 'long-enough-password', name: 'Stats Person' },
    })
    assert.equal(registered.statusCode, 201, registered.body)
    await until(async () => (await totalClients()) === before + 1, 'the sign-up is in the stats')

    const other = await startDirectory({ databases: h.databases })
    try {
      const otherAdmin = await other.adminCookie()
      const seen = await totalClients(other, otherAdmin)
      await createClient()
      await until(
        async () => (await totalClients(other, otherAdmin)) === seen + 1,
        'the other instance’s stats follow',
      )
    } finally {
      await other.close()
    }
  })
})

describe('admin clients: list totals are counted once and follow every change', () => {
  async function total(search: string, harness = h, cookie = admin) {
    // A page of one, so the total comes from the count rather than the page's size.
    const res = await api.on(harness).get(`${BASE}?${query({ search, limit: 1 })}`, { cookie })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().meta.total as number
  }

  it('this instance’s creates, updates, deletes and bulk writes show in the next total at once', async () => {
    const marker = `Tot${tag()}`
    await createClient({ displayName: `${marker} a` })
    await createClient({ displayName: `${marker} b` })
    assert.equal(await total(marker), 2)
    assert.equal(await total(marker.toLowerCase()), 2, 'asked again, the same figure')

    const third = await createClient({ displayName: `${marker} c` })
    assert.equal(await total(marker), 3, 'a create')
    assert.equal((await api.put(`${BASE}/${third.id}`, { displayName: 'Renamed' })).statusCode, 200)
    assert.equal(await total(marker), 2, 'an update that takes it out of the search')
    assert.equal((await api.put(`${BASE}/${third.id}`, { displayName: `${marker} c` })).statusCode, 200)
    assert.equal(await total(marker), 3, 'and back in')
    assert.equal((await api.delete(`${BASE}/${third.id}`)).statusCode, 200)
    assert.equal(await total(marker), 2, 'a delete')

    const fourth = await createClient({ displayName: `${marker} d` })
    assert.equal(await total(marker), 3)
    const bulk = await api.delete(`${BASE}/bulk`, { body: { clients: [{ id: fourth.id }] } })
    assert.equal(bulk.statusCode, 200, bulk.body)
    assert.equal(await total(marker), 2, 'a bulk delete')
  })

  it('writes that bypass the clients API (a sign-up, a deleted account) show too', async () => {
    const marker = `byp${tag()}`
    await createClient({ displayName: `${marker} a` })
    await createClient({ displayName: `${marker} b` })
    assert.equal(await total(marker), 2)

    const registered = await h.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      headers: { origin: APP_ORIGIN },
      payload: { email: `${marker}@example.com`, password: 'long-enough-password', name: 'New Person' },
    })
    assert.equal(registered.statusCode, 201, registered.body)
    await until(async () => (await total(marker)) === 3, 'the sign-up is counted')

    // Deleting the account removes its profile by cascade, outside any clients code.
    await h.databases.directory.db.delete(users).where(eq(users.email, `${marker}@example.com`))
    await until(async () => (await total(marker)) === 2, 'the cascade is counted')
  })

  it('a write on one instance reaches the totals of another', async () => {
    const other = await startDirectory({ databases: h.databases })
    try {
      const otherAdmin = await other.adminCookie()
      const marker = `inst${tag()}`
      await createClient({ displayName: `${marker} a` })
      await createClient({ displayName: `${marker} b` })
      assert.equal(await total(marker, other, otherAdmin), 2, 'counted, and kept, on the other instance')
      await createClient({ displayName: `${marker} c` })
      await until(
        async () => (await total(marker, other, otherAdmin)) === 3,
        'the other instance counts again',
      )
    } finally {
      await other.close()
    }
  })
})

describe('admin clients: stats', () => {
  let fresh: DirectoryHarness
  let freshAdmin: string
  before(async () => {
    fresh = await startDirectory()
    // Wednesday 18 November 2026: the week began on Monday the 16th.
    fresh.clock.set(new Date('2026-11-18T12:00:00Z'))
    freshAdmin = await fresh.adminCookie()
    await fresh.databases.directory.db.delete(clientProfiles)
  })
  after(() => fresh.close())

  it('answers an all-zero shape with no clients', async () => {
    const res = await api.on(fresh).get(`${BASE}/stats`, { cookie: freshAdmin })
    assert.equal(res.statusCode, 200, res.body)
    const { data } = res.json()
    assert.deepEqual(data.overview, {
      totalClients: 0,
      activeClients: 0,
      inactiveClients: 0,
      suspendedClients: 0,
      trialClients: 0,
    })
    assert.equal(data.growth.growthRate, 0)
    assert.equal(data.plans.conversionRate, 0)
    assert.equal(data.engagement.averageSubmissions, 0)
    assert.deepEqual(data.providers, {})
  })

  it('computes every figure', async () => {
    const at = (iso: string) => new Date(iso)
    const seeds: ProfileSeed[] = [
      // this month: today, earlier this week, earlier this month
      {
        createdAt: at('2026-11-18T08:00:00Z'),
        status: 'active',
        plan: 'premium',
        accountType: 'business',
        totalSubmissions: 4,
        location: 'Lyon, France',
        company: 'Acme',
        industry: 'Software',
        lastActiveAt: at('2026-11-17T00:00:00Z'),
      },
      {
        createdAt: at('2026-11-16T01:00:00Z'),
        status: 'trial',
        plan: 'standard',
        totalSubmissions: 2,
        location: 'Paris, France',
        company: 'Acme',
        industry: 'Software',
        provider: 'github',
        lastActiveAt: at('2026-11-05T00:00:00Z'),
      },
      {
        createdAt: at('2026-11-02T00:00:00Z'),
        status: 'suspended',
        accountType: 'enterprise',
        location: 'Berlin',
        company: 'Globex',
        provider: 'github',
      },
      // last month: two clients
      { createdAt: at('2026-10-10T00:00:00Z'), status: 'inactive', lastActiveAt: at('2026-10-20T00:00:00Z') },
      { createdAt: at('2026-10-31T23:59:59Z'), totalSubmissions: 3, location: 'Germany' },
      // older
      { createdAt: at('2026-01-01T00:00:00Z'), provider: 'google', location: '  ' },
    ]
    for (const seed of seeds) await seedClient(fresh, seed)
    // Rows written straight to the table reach the stats through the table's change notification.
    await until(
      async () =>
        (await api.on(fresh).get(`${BASE}/stats`, { cookie: freshAdmin })).json().data.overview
          .totalClients === 6,
      'the seeded clients are counted',
    )
    const res = await api.on(fresh).get(`${BASE}/stats`, { cookie: freshAdmin })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data, {
      overview: {
        totalClients: 6,
        activeClients: 3,
        inactiveClients: 1,
        suspendedClients: 1,
        trialClients: 1,
      },
      growth: { newClientsToday: 1, newClientsThisWeek: 2, newClientsThisMonth: 3, growthRate: 50 },
      plans: { free: 4, standard: 1, premium: 1, conversionRate: 33.3 },
      accountTypes: { individual: 4, business: 1, enterprise: 1 },
      engagement: { averageSubmissions: 1.5, totalSubmissions: 9, activeThisWeek: 1, activeThisMonth: 2 },
      demographics: {
        topCountries: [
          { country: 'France', count: 2 },
          { country: 'Berlin', count: 1 },
          { country: 'Germany', count: 1 },
        ],
        topCompanies: [
          { company: 'Acme', count: 2 },
          { company: 'Globex', count: 1 },
        ],
        topIndustries: [{ industry: 'Software', count: 2 }],
      },
      providers: { credentials: 3, github: 2, google: 1 },
    })
  })
})
