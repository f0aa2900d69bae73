import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { eq } from 'drizzle-orm'
import { CRM_SYNC_JOB } from '../../src/directory/crm/sync.ts'
import { crmSettings } from '../../src/directory/crm/tables.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { startTwentyFake, type TwentyFake } from '../fakes/twenty.ts'
import { type DirectoryHarness, signUp, startDirectory, uniqueEmail } from '../helpers/apps.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

const TIMEOUT_MS = 1000
const MAX_ATTEMPTS = 3
const CONFIG = '/api/admin/crm/config'
const TEST = '/api/admin/crm/test-connection'
const SYNC = '/api/admin/crm/sync'

let twenty: TwentyFake
let h: DirectoryHarness
let admin: string
/** The admin's requests, as the web app sends them. */
let api: Requests
/** Every line the instance logged, at debug level: the API key must never be among them. */
const logged: string[] = []

const envFor = (fake: TwentyFake) => ({
  TWENTY_API_URL: fake.url,
  CRM_TIMEOUT_MS: String(TIMEOUT_MS),
  CRM_RETRY_BASE_MS: '20',
  CRM_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
})

before(async () => {
  twenty = await startTwentyFake()
  h = await startDirectory({
    env: envFor(twenty),
    log: createLogger('debug', { write: (line: string) => void logged.push(line) }),
  })
  admin = await h.adminCookie()
  api = siteRequests(h, { cookie: admin })
})
after(async () => {
  await h?.close()
  await twenty?.close()
})

async function configure(body: Record<string, unknown>, harness = h, cookie = admin) {
  const res = await api.on(harness).put(CONFIG, body, { cookie })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data
}

/** The sync on, with the stand-in's key, sending both kinds of records. */
const enable = (harness = h, cookie = admin) =>
  configure(
    { enabled: true, baseUrl: null, apiKey: twenty.apiKey, sync: { clients: true, companies: true } },
    harness,
    cookie,
  )

async function createClient(fields: Record<string, unknown> = {}, harness = h, cookie = admin) {
  const res = await api
    .on(harness)
    .post('/api/admin/clients', { email: uniqueEmail('crm'), ...fields }, { cookie })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data as { id: string; email: string }
}

async function updateClient(id: string, fields: Record<string, unknown>, harness = h, cookie = admin) {
  const res = await api.on(harness).put(`/api/admin/clients/${id}`, fields, { cookie })
  assert.equal(res.statusCode, 200, res.body)
}

interface Record_ {
  clientId: string
  status: string
  attempts: number
  lastError: string | null
  lastStatus: number | null
  personId: string | null
  companyId: string | null
}

async function recordOf(clientId: string, harness = h, cookie = admin): Promise<Record_ | undefined> {
  // Newest first: a record changed by the test is on the first page.
  const res = await api.on(harness).get(`${SYNC}?limit=100`, { cookie })
  assert.equal(res.statusCode, 200, res.body)
  return (res.json().data as Record_[]).find((record) => record.clientId === clientId)
}

/** Reads until `accept` holds: bounded, for what the job queue brings about in its own time. */
async function eventually<T>(
  readValue: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await readValue()
    if (accept(value)) return value
    if (Date.now() > deadline) {
      throw new Error(`${what} did not happen within ${timeoutMs} ms (last: ${JSON.stringify(value)})`)
    }
    await delay(25)
  }
}

const settled = (clientId: string, status: 'synced' | 'failed' | 'skipped', harness = h, cookie = admin) =>
  eventually(
    () => recordOf(clientId, harness, cookie),
    (record) => record?.status === status,
    `client ${clientId} ${status}`,
  ) as Promise<Record_>

/** Person writes (create, update) the stand-in received for this email or person. */
const personPosts = (email: string) =>
  twenty
    .calls('POST', 'people')
    .filter(
      (request) => (request.body as { emails?: { primaryEmail?: string } })?.emails?.primaryEmail === email,
    )
const personPatches = (personId: string) =>
  twenty.calls('PATCH', 'people').filter((request) => request.path === `/rest/people/${personId}`)
const requestsAbout = (email: string) =>
  twenty.requests.filter((request) => JSON.stringify(request).includes(email))
/** The requests naming any of `texts` that Twenty answered or saw abandoned. */
const ended = (...texts: string[]) =>
  twenty.requests.filter(
    (request) =>
      (request.status !== null || request.abandoned) &&
      texts.some((text) => JSON.stringify(request).includes(text)),
  )

describe('CRM settings', () => {
  describe('on a production instance without DIRECTORY_ENCRYPTION_KEY', () => {
    let prod: DirectoryHarness
    let prodAdmin: string
    before(async () => {
      prod = await startDirectory({
        env: { ...envFor(twenty), NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40) },
      })
      prodAdmin = await prod.adminCookie()
    })
    after(() => prod?.close())

    it('reads the defaults before any save: off, TWENTY_API_URL, no key', async () => {
      const res = await api.on(prod).get(CONFIG, { cookie: prodAdmin })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), {
        success: true,
        data: {
          enabled: false,
          baseUrl: twenty.url,
          usesDefaultBaseUrl: true,
          apiKey: null,
          apiKeySet: false,
          sync: { clients: true, companies: true },
          updatedAt: null,
        },
      })
    })

    it('refuses to store an API key: 400 ENCRYPTION_KEY_MISSING, nothing saved', async () => {
      const res = await api.on(prod).put(CONFIG, { apiKey: twenty.apiKey }, { cookie: prodAdmin })
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().code, 'ENCRYPTION_KEY_MISSING')
      assert.match(res.json().error, /DIRECTORY_ENCRYPTION_KEY/)
      const read = await api.on(prod).get(CONFIG, { cookie: prodAdmin })
      assert.equal(read.json().data.apiKeySet, false)
    })
  })

  it('stores the key sealed and answers it only masked, never logging it', async () => {
    const saved = await enable()
    assert.equal(saved.enabled, true)
    assert.equal(saved.apiKeySet, true)
    assert.equal(saved.apiKey, `••••${twenty.apiKey.slice(-4)}`)
    assert.equal(saved.baseUrl, twenty.url)
    assert.equal(saved.usesDefaultBaseUrl, true)
    assert.ok(typeof saved.updatedAt === 'string')

    const read = await api.get(CONFIG)
    assert.equal(read.statusCode, 200)
    assert.deepEqual(read.json().data, saved)
    assert.ok(!read.body.includes(twenty.apiKey))

    const [row] = await h.databases.directory.db.select().from(crmSettings).where(eq(crmSettings.id, 1))
    assert.ok(row?.apiKey?.startsWith('enc:v1:'), 'stored in the encryption envelope')
    assert.ok(!row?.apiKey?.includes(twenty.apiKey))

    // The key went out in a PUT body, a test and a sync: no log line has it.
    assert.equal((await api.post(TEST, {})).json().data.ok, true)
    const client = await createClient()
    await settled(client.id, 'synced')
    assert.ok(logged.length > 0, 'the instance logs at debug level')
    assert.deepEqual(
      logged.filter((line) => line.includes(twenty.apiKey)),
      [],
    )
  })

  it('masks a short key completely', async () => {
    const short = await configure({ apiKey: 'short-key' })
    assert.equal(short.apiKey, '••••')
    await enable()
  })

  it('changes only what the body names', async () => {
    await enable()
    const changed = await configure({ sync: { companies: false } })
    assert.deepEqual(changed.sync, { clients: true, companies: false })
    assert.equal(changed.enabled, true)
    assert.equal(changed.apiKeySet, true)
    const back = await configure({ sync: { companies: true } })
    assert.deepEqual(back.sync, { clients: true, companies: true })
  })

  it('refuses bad settings with 400 naming the field', async () => {
    await enable()
    const cases: [unknown, string, string][] = [
      [{}, 'body', 'VALIDATION_ERROR'],
      [{ enabled: 'yes' }, 'body.enabled', 'VALIDATION_ERROR'],
      [{ apiKey: '' }, 'body.apiKey', 'VALIDATION_ERROR'],
      [{ apiKey: 'has spaces in it' }, 'body.apiKey', 'VALIDATION_ERROR'],
      [{ sync: { clients: 1 } }, 'body.sync.clients', 'VALIDATION_ERROR'],
      [{ baseUrl: 'ftp://crm.example.com', apiKey: 'k'.repeat(20) }, 'body.baseUrl', 'CRM_URL_REFUSED'],
      [{ baseUrl: 'not a url', apiKey: 'k'.repeat(20) }, 'body.baseUrl', 'CRM_URL_REFUSED'],
      [{ baseUrl: 'http://10.0.0.5', apiKey: 'k'.repeat(20) }, 'body.baseUrl', 'CRM_URL_REFUSED'],
      [{ baseUrl: 'http://169.254.169.254/', apiKey: 'k'.repeat(20) }, 'body.baseUrl', 'CRM_URL_REFUSED'],
      [
        { baseUrl: 'https://user:pw@crm.example.com', apiKey: 'k'.repeat(20) },
        'body.baseUrl',
        'CRM_URL_REFUSED',
      ],
      [
        { baseUrl: 'https://crm.example.com/?a=1', apiKey: 'k'.repeat(20) },
        'body.baseUrl',
        'CRM_URL_REFUSED',
      ],
      // The saved key is never sent to another server: a new base URL needs its own key.
      [{ baseUrl: 'https://crm.example.com' }, 'body.apiKey', 'CRM_NOT_CONFIGURED'],
      [{ apiKey: null }, 'body.apiKey', 'CRM_NOT_CONFIGURED'],
    ]
    for (const [body, field, code] of cases) {
      const res = await api.put(CONFIG, body)
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`)
      const answer = res.json()
      assert.equal(answer.code, code, JSON.stringify(body))
      assert.equal(answer.details[0].field, field, JSON.stringify(body))
      assert.ok(!res.body.includes(twenty.apiKey))
    }
    // Nothing of those was saved.
    assert.deepEqual((await api.get(CONFIG)).json().data, await enable())
  })

  it('takes off the key with the sync off, and a base URL of TWENTY_API_URL’s host', async () => {
    const off = await configure({ enabled: false, apiKey: null })
    assert.equal(off.apiKeySet, false)
    assert.equal(off.apiKey, null)
    // Private, but the operator's TWENTY_API_URL names this host.
    const url = `${twenty.url}/`
    const moved = await configure({ baseUrl: url, apiKey: twenty.apiKey, enabled: true })
    assert.equal(moved.baseUrl, twenty.url)
    assert.equal(moved.usesDefaultBaseUrl, true)
  })

  it('is for admins only', async () => {
    const member = await signUp(h)
    for (const [method, url] of [
      ['GET', CONFIG],
      ['PUT', CONFIG],
      ['POST', TEST],
      ['GET', SYNC],
      ['POST', `${SYNC}/retry`],
    ] as const) {
      assert.equal(
        (await api.request(method, url, { body: {}, cookie: null })).statusCode,
        401,
        `${method} ${url}`,
      )
      assert.equal(
        (await api.request(method, url, { body: {}, cookie: member })).statusCode,
        403,
        `${method} ${url}`,
      )
    }
  })
})

describe('testing the connection', () => {
  beforeEach(() => enable())

  it('with the saved credentials: ok and Twenty’s status', async () => {
    const res = await api.post(TEST, {})
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), {
      success: true,
      data: { ok: true, status: 200, message: 'Connected: Twenty accepted the API key' },
    })
    const last = twenty.requests.at(-1)!
    assert.equal(last.path, '/rest/companies')
    assert.equal(last.authorization, `Bearer ${twenty.apiKey}`)
  })

  it('reports Twenty’s 401 for a wrong key, and never echoes the key', async () => {
    const wrong = 'a-wrong-key-that-twenty-refuses'
    const res = await api.post(TEST, { apiKey: wrong })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data, {
      ok: false,
      status: 401,
      message: 'Twenty answered 401: Token invalid.',
    })
    assert.ok(!res.body.includes(wrong))
  })

  it('hides the key even when Twenty repeats it, and follows no redirect', async () => {
    twenty.failNext(
      { path: '/rest/companies' },
      {
        status: 400,
        body: { statusCode: 400, error: 'BadRequest', messages: [`Bad token ${twenty.apiKey}`] },
      },
    )
    const echoed = await api.post(TEST, {})
    assert.equal(echoed.json().data.message, 'Twenty answered 400: Bad token [redacted]')
    twenty.failNext({ path: '/rest/companies' }, { status: 302, body: '' })
    const moved = await api.post(TEST, {})
    assert.deepEqual(moved.json().data, {
      ok: false,
      status: 302,
      message: 'Twenty answered 302 (redirects are never followed)',
    })
  })

  it('reports an error answer as it is, not as a 500', async () => {
    twenty.failNext({ path: '/rest/companies' }, { status: 503 })
    const res = await api.post(TEST, {})
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data, {
      ok: false,
      status: 503,
      message: 'Twenty answered 503: Service Unavailable',
    })
  })

  it('cuts a hanging CRM off after CRM_TIMEOUT_MS', async () => {
    twenty.hangNext({ path: '/rest/companies' })
    const res = await api.post(TEST, {})
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data, {
      ok: false,
      status: null,
      message: `Twenty did not answer within ${TIMEOUT_MS} ms`,
    })
    // Cut off by the client, not answered: Twenty, which holds the request, sees its connection closed.
    await eventually(
      async () =>
        twenty.requests.filter((request) => request.path === '/rest/companies' && request.abandoned),
      (abandoned) => abandoned.length > 0,
      'Twenty sees the test request abandoned',
    )
    twenty.release()
  })

  it('reports a server that is not Twenty, and one that is not there', async () => {
    const notTwenty = await api.post(TEST, { baseUrl: `${twenty.url}/elsewhere`, apiKey: twenty.apiKey })
    assert.equal(notTwenty.json().data.ok, false)
    assert.equal(notTwenty.json().data.status, 404)
    // TWENTY_API_URL's host, on a port nothing listens on.
    const closed = await api.post(TEST, { baseUrl: 'http://127.0.0.1:9', apiKey: twenty.apiKey })
    assert.equal(closed.statusCode, 200, closed.body)
    assert.equal(closed.json().data.ok, false)
    assert.equal(closed.json().data.status, null)
    assert.match(closed.json().data.message, /^Twenty could not be reached/)
  })

  it('refuses an address inside the network, and the saved key for another server', async () => {
    const inside = await api.post(TEST, { baseUrl: 'http://10.1.2.3', apiKey: twenty.apiKey })
    assert.equal(inside.statusCode, 400, inside.body)
    assert.equal(inside.json().code, 'CRM_URL_REFUSED')
    assert.equal(inside.json().details[0].field, 'body.baseUrl')
    const elsewhere = await api.post(TEST, { baseUrl: 'https://crm.example.com' })
    assert.equal(elsewhere.statusCode, 400, elsewhere.body)
    assert.equal(elsewhere.json().code, 'CRM_NOT_CONFIGURED')
    assert.equal(elsewhere.json().details[0].field, 'body.apiKey')
  })

  it('needs a key: 400 CRM_NOT_CONFIGURED when none is saved or sent', async () => {
    await configure({ enabled: false, apiKey: null })
    const res = await api.post(TEST, {})
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().code, 'CRM_NOT_CONFIGURED')
    assert.equal(res.json().details[0].field, 'body.apiKey')
  })
})

describe('syncing clients', () => {
  beforeEach(() => {
    twenty.up()
    return enable()
  })

  it('a new client becomes one person in Twenty, linked to their company', async () => {
    const company = `Analytical Engines ${Math.random().toString(36).slice(2, 8)}`
    const client = await createClient({
      displayName: 'Ada King Lovelace',
      jobTitle: 'Analyst',
      company,
      location: 'London',
      website: 'https://engines.example.com',
    })
    const record = await settled(client.id, 'synced')
    assert.equal(record.attempts, 1)
    assert.equal(record.lastError, null)

    assert.equal(personPosts(client.email).length, 1, 'created once')
    const person = twenty.personByEmail(client.email)!
    assert.equal(person.id, record.personId)
    assert.deepEqual(person.name, { firstName: 'Ada', lastName: 'King Lovelace' })
    assert.equal(person.jobTitle, 'Analyst')
    assert.equal(person.city, 'London')
    const made = twenty.companies().find((entry) => entry.name === company)!
    assert.equal(made.domainName.primaryLinkUrl, 'https://engines.example.com')
    assert.equal(person.companyId, made.id)
    assert.equal(record.companyId, made.id)
  })

  it('a profile or company change updates the same person; clients of one company share it', async () => {
    const company = `Babbage & Co ${Math.random().toString(36).slice(2, 8)}`
    const client = await createClient({ displayName: 'Charles Babbage', company })
    const first = await settled(client.id, 'synced')

    await updateClient(client.id, { jobTitle: 'Inventor', displayName: 'Charles B.' })
    await eventually(
      () => Promise.resolve(twenty.personByEmail(client.email)),
      (person) => person?.jobTitle === 'Inventor',
      'the job title reaches Twenty',
    )
    assert.equal(personPatches(first.personId!).length, 1)
    assert.equal(personPosts(client.email).length, 1, 'never created twice')
    assert.deepEqual(twenty.personByEmail(client.email)!.name, { firstName: 'Charles', lastName: 'B.' })

    const colleague = await createClient({ company: company.toUpperCase() })
    const shared = await settled(colleague.id, 'synced')
    assert.equal(shared.companyId, first.companyId, 'one company, whatever the case of its name')

    const other = `Difference Engines ${Math.random().toString(36).slice(2, 8)}`
    await updateClient(client.id, { company: other })
    const moved = await eventually(
      () => recordOf(client.id),
      (record) => record?.status === 'synced' && record.companyId !== first.companyId,
      'the new company reaches Twenty',
    )
    assert.equal(twenty.personByEmail(client.email)!.companyId, moved!.companyId)
    assert.equal(twenty.companies().find((entry) => entry.id === moved!.companyId)?.name, other)
    assert.equal(personPosts(client.email).length, 1)

    await updateClient(client.id, { company: '' })
    await eventually(
      () => Promise.resolve(twenty.personByEmail(client.email)),
      (person) => person?.companyId === null,
      'the company is unlinked',
    )
  })

  it('sends only what the settings say', async () => {
    await configure({ sync: { companies: false } })
    const company = `Untracked ${Math.random().toString(36).slice(2, 8)}`
    const person = await createClient({ company })
    await settled(person.id, 'synced')
    assert.equal(twenty.personByEmail(person.email)?.companyId, null)
    assert.equal((personPosts(person.email)[0]!.body as Record<string, unknown>).companyId, undefined)
    assert.ok(!twenty.companies().some((entry) => entry.name === company))

    await configure({ sync: { companies: true, clients: false } })
    const companyOnly = await createClient({ company })
    const record = await settled(companyOnly.id, 'synced')
    assert.equal(twenty.personByEmail(companyOnly.email), undefined)
    assert.equal(record.personId, null)
    assert.ok(twenty.companies().some((entry) => entry.id === record.companyId && entry.name === company))
  })

  it('sends nothing while the sync is off', async () => {
    await configure({ enabled: false })
    const client = await createClient({ company: 'Quiet Ltd' })
    await updateClient(client.id, { jobTitle: 'Silent partner' })
    // Jobs are only ever queued with the change: none queued means none will run.
    assert.deepEqual(await h.jobs.boss.findJobs(CRM_SYNC_JOB, { data: { clientId: client.id } }), [])
    assert.equal(await recordOf(client.id), undefined)
    assert.deepEqual(requestsAbout(client.email), [])
  })

  it('a person deleted in Twenty is made again on the next change', async () => {
    const client = await createClient()
    const first = await settled(client.id, 'synced')
    twenty.deletePerson(first.personId!)
    await updateClient(client.id, { jobTitle: 'Returned' })
    const again = await eventually(
      () => recordOf(client.id),
      (record) => record?.status === 'synced' && record.personId !== first.personId,
      'the person is made again',
    )
    assert.equal(twenty.personByEmail(client.email)?.id, again!.personId)
    assert.equal(twenty.personByEmail(client.email)?.jobTitle, 'Returned')
  })

  it('finds a person Twenty already has by their email instead of making a second one', async () => {
    const email = uniqueEmail('known')
    const made = await fetch(`${twenty.url}/rest/people`, {
      method: 'POST',
      headers: { authorization: `Bearer ${twenty.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ emails: { primaryEmail: email }, name: { firstName: 'Known', lastName: '' } }),
    })
    const existing = ((await made.json()) as { data: { createPerson: { id: string } } }).data.createPerson.id
    const client = await createClient({ email, displayName: 'Known Person' })
    const record = await settled(client.id, 'synced')
    assert.equal(record.personId, existing)
    assert.equal(twenty.people().filter((person) => person.emails.primaryEmail === email).length, 1)
    assert.deepEqual(twenty.personByEmail(email)!.name, { firstName: 'Known', lastName: 'Person' })
  })
})

describe('a CRM outage', () => {
  beforeEach(() => {
    twenty.up()
    return enable()
  })
  after(() => twenty.up())

  it('never fails or slows the admin write; retries, fails visibly, and catches up after a retry', async () => {
    twenty.down({ status: 503 })
    const client = await createClient({ company: 'Outage Inc' })
    const failed = await settled(client.id, 'failed')
    assert.equal(failed.attempts, MAX_ATTEMPTS)
    assert.equal(failed.lastStatus, 503)
    assert.equal(failed.lastError, 'Twenty answered 503: Service Unavailable')
    const listed = await api.get(`${SYNC}?status=failed`)
    assert.ok(listed.json().data.some((record: Record_) => record.clientId === client.id))
    assert.ok(listed.json().counts.failed >= 1)
    assert.ok(listed.json().data.every((record: Record_) => record.status === 'failed'))

    twenty.up()
    const retried = await api.post(`${SYNC}/retry`, { clientIds: [client.id] })
    assert.equal(retried.statusCode, 200, retried.body)
    assert.deepEqual(retried.json(), { success: true, data: { queued: 1 } })
    const synced = await settled(client.id, 'synced')
    assert.equal(synced.lastError, null)
    assert.equal(personPosts(client.email).length, 1)
    assert.equal(twenty.personByEmail(client.email)?.id, synced.personId)
  })

  it('a CRM that hangs holds no admin write; the sync catches up when it answers again', async () => {
    twenty.down({ hang: true })
    const client = await createClient({ company: 'Hanging Gardens' })
    // Each write answered before any of its sync's requests ended: none waited for the CRM, which holds
    // them all until the sync's own timeout closes them.
    assert.deepEqual(ended(client.email, 'Hanging Gardens'), [], 'the create waited for the CRM')
    await updateClient(client.id, { jobTitle: 'Gardener' })
    assert.deepEqual(ended('Gardener'), [], 'the update waited for the CRM')
    await eventually(
      () => recordOf(client.id),
      (record) => record?.status === 'pending' && (record.lastError ?? '').includes('did not answer'),
      'an attempt timed out',
    )
    twenty.up()
    await settled(client.id, 'synced')
    assert.equal(personPosts(client.email).length, 1)
    assert.equal(twenty.personByEmail(client.email)?.jobTitle, 'Gardener')
  })

  it('the next change of a failed client syncs it once the CRM is back', async () => {
    twenty.down({ status: 502 })
    const client = await createClient()
    await settled(client.id, 'failed')
    twenty.up()
    await updateClient(client.id, { jobTitle: 'Back again' })
    const synced = await settled(client.id, 'synced')
    assert.equal(synced.attempts, 1)
    assert.equal(twenty.personByEmail(client.email)?.jobTitle, 'Back again')
    assert.equal(personPosts(client.email).length, 1)
  })

  it('a refused key fails at once, and the retry route sends it with the new key', async () => {
    await configure({ apiKey: 'a-key-twenty-does-not-know-at-all' })
    const client = await createClient()
    const failed = await settled(client.id, 'failed')
    assert.equal(failed.attempts, 1, 'a 401 is not retried')
    assert.equal(failed.lastStatus, 401)
    assert.equal(failed.lastError, 'Twenty answered 401: Token invalid.')

    await configure({ apiKey: twenty.apiKey })
    const retried = await api.post(`${SYNC}/retry`, {})
    assert.equal(retried.statusCode, 200, retried.body)
    assert.ok(retried.json().data.queued >= 1)
    await settled(client.id, 'synced')
    assert.equal(personPosts(client.email).length, 1)
  })

  it('the retry route needs the sync on, and checks its ids', async () => {
    await configure({ enabled: false })
    const off = await api.post(`${SYNC}/retry`, {})
    assert.equal(off.statusCode, 400, off.body)
    assert.equal(off.json().code, 'CRM_NOT_ENABLED')
    await enable()
    const bad = await api.post(`${SYNC}/retry`, { clientIds: ['not-a-uuid'] })
    assert.equal(bad.statusCode, 400, bad.body)
    assert.equal(bad.json().details[0].field, 'body.clientIds.0')
  })

  it('the list filters by status and refuses an unknown one', async () => {
    const bad = await api.get(`${SYNC}?status=lost`)
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().details[0].field, 'query.status')
    const page = await api.get(`${SYNC}?status=synced&limit=2`)
    assert.equal(page.statusCode, 200, page.body)
    const body = page.json()
    assert.ok(body.data.length <= 2)
    assert.ok(body.data.every((record: Record_) => record.status === 'synced'))
    assert.equal(body.meta.limit, 2)
    assert.equal(body.meta.total, body.counts.synced)
  })
})

describe('two instances on one database', () => {
  let one: DirectoryHarness
  let two: DirectoryHarness
  let oneAdmin: string
  let twoAdmin: string
  before(async () => {
    twenty.up()
    // A pair of its own with a generous CRM timeout: this is about each change being sent once, and on a
    // busy machine the file's 1 s timeout can fail a sound attempt three times over (then `failed`).
    const env = { ...envFor(twenty), CRM_TIMEOUT_MS: '15000' }
    one = await startDirectory({ env })
    two = await startDirectory({ env, databases: one.databases, clockStart: one.clock.nowMs() })
    oneAdmin = await one.adminCookie()
    twoAdmin = await two.adminCookie()
  })
  after(async () => {
    await two?.close()
    await one?.close()
  })

  it('each change is sent once, not once per instance', async () => {
    await enable(one, oneAdmin)
    const clients = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        index % 2 === 0
          ? createClient({ company: 'Shared Works' }, one, oneAdmin)
          : createClient({ company: 'Shared Works' }, two, twoAdmin),
      ),
    )
    const records = await Promise.all(clients.map((client) => settled(client.id, 'synced', one, oneAdmin)))
    for (const [index, client] of clients.entries()) {
      // Each updated on the instance that did not create it.
      const [harness, cookie] = index % 2 === 0 ? [two, twoAdmin] : [one, oneAdmin]
      await updateClient(client.id, { jobTitle: `Engineer ${index}` }, harness, cookie)
    }
    for (const [index, client] of clients.entries()) {
      await eventually(
        () => Promise.resolve(twenty.personByEmail(client.email)),
        (person) => person?.jobTitle === `Engineer ${index}`,
        `client ${index}'s change reaches Twenty`,
      )
    }
    for (const [index, client] of clients.entries()) {
      assert.equal(personPosts(client.email).length, 1, `client ${index} created once`)
      assert.equal(personPatches(records[index]!.personId!).length, 1, `client ${index} updated once`)
    }
    assert.equal(new Set(records.map((record) => record.companyId)).size, 1, 'one shared company')
    assert.equal(twenty.companies().filter((entry) => entry.name === 'Shared Works').length, 1)
  })
})
