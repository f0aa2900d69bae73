import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { LINK_CHECK_SCHEDULE_JOB } from '../../src/directory/links/service.ts'
import { DAY_MS } from '../../src/lib/time.ts'
import { closedPort, type LinkTarget, startLinkTarget } from '../fakes/link-target.ts'
import { type DirectoryHarness, startDirectory, until } from '../helpers/apps.ts'
import { createTestDatabases, type TestDatabases } from '../helpers/database.ts'
import { type Requests, siteRequests } from '../helpers/requests.ts'

let site: LinkTarget

before(async () => {
  site = await startLinkTarget()
})
after(() => site.close())

/** Short settings: no politeness delay, a 300 ms timeout, broken at the third failure, steps of 3 items. */
const ENV = {
  LINK_CHECK_INTERVAL: 'off',
  LINK_CHECK_HOST_DELAY_MS: '0',
  LINK_CHECK_TIMEOUT_MS: '300',
  LINK_CHECK_FAILURES: '3',
  LINK_CHECK_BATCH_SIZE: '3',
}

let counter = 0
const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 7)}`

interface Link {
  status: string
  httpStatus: number | null
  finalUrl: string | null
  reason: string | null
  checkedAt: string | null
  failures: number
}

async function createItem(api: Requests, url: string | null, status = 'published') {
  const slug = unique('site')
  const res = await api.post('/api/admin/items', { name: slug, slug, status, url })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as { id: string; slug: string; name: string; link: Link }
}

const linkOf = async (api: Requests, id: string): Promise<Link> => {
  const res = await api.get(`/api/admin/items/${id}`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data.link
}

const checkLink = async (api: Requests, id: string) => {
  const res = await api.post(`/api/admin/items/${id}/check-link`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data as Link & { itemId: string; url: string }
}

/** Queues a run a minute after the last, waits for it to end, and answers it. */
async function runChecks(h: DirectoryHarness, api: Requests) {
  h.clock.advance(60_000)
  const queued = await api.post('/api/admin/link-checks')
  assert.equal(queued.statusCode, 202, queued.body)
  const runId = queued.json().data.id as string
  let run: Record<string, unknown> = {}
  await until(async () => {
    run = (await api.get('/api/admin/link-checks')).json().data.run
    return run.id === runId && run.status === 'completed'
  }, 'the link check run completed').catch((error) => {
    throw new Error(`${error.message}: ${JSON.stringify(run)}`)
  })
  return run
}

const brokenNotices = async (api: Requests) =>
  (await api.get('/api/admin/notifications?type=links_broken&limit=100')).json().data as {
    title: string
    message: string
    data: { runId: string; count: number; items: { itemId: string; reason: string }[] }
  }[]

describe('link checks', () => {
  let h: DirectoryHarness
  let api: Requests

  before(async () => {
    h = await startDirectory({ env: ENV })
    api = siteRequests(h, { cookie: await h.adminCookie() })
  })
  after(() => h.close())

  it('an item answers its link: unchecked until checked, then what the check found', async () => {
    const item = await createItem(api, site.url('/ok'))
    assert.deepEqual(item.link, {
      status: 'unchecked',
      httpStatus: null,
      finalUrl: null,
      reason: null,
      checkedAt: null,
      failures: 0,
    })
    const checked = await checkLink(api, item.id)
    assert.equal(checked.itemId, item.id)
    assert.equal(checked.url, site.url('/ok'))
    assert.equal(checked.status, 'ok')
    assert.equal(checked.httpStatus, 200)
    assert.equal(checked.checkedAt, h.clock.now().toISOString())
    assert.deepEqual(await linkOf(api, item.id), {
      status: 'ok',
      httpStatus: 200,
      finalUrl: null,
      reason: null,
      checkedAt: h.clock.now().toISOString(),
      failures: 0,
    })
  })

  it('each outcome as the check route records it', async () => {
    const port = await closedPort()
    const cases: [string, Partial<Link>][] = [
      [site.url('/head-405'), { status: 'ok', httpStatus: 200 }],
      [site.url('/redirect/2'), { status: 'redirected', httpStatus: 200, finalUrl: site.url('/redirect/0') }],
      [site.url('/404'), { status: 'unchecked', httpStatus: 404, reason: 'HTTP 404', failures: 1 }],
      [site.url('/500'), { status: 'unchecked', httpStatus: 500, reason: 'HTTP 500', failures: 1 }],
      [
        site.url('/redirect/6'),
        { status: 'unchecked', reason: 'too many redirects (more than 5)', failures: 1 },
      ],
      [site.url('/hang'), { status: 'unchecked', httpStatus: null, reason: 'timeout', failures: 1 }],
      [`http://127.0.0.1:${port}/`, { status: 'unchecked', reason: 'connection refused', failures: 1 }],
    ]
    for (const [url, expected] of cases) {
      const item = await createItem(api, url, 'draft')
      const checked = await checkLink(api, item.id)
      for (const [field, value] of Object.entries(expected)) {
        assert.equal(checked[field as keyof Link], value, `${url}: ${field} of ${JSON.stringify(checked)}`)
      }
    }
  })

  it('three failures in a row make a link broken; a success resets the count', async () => {
    const name = unique('flaky')
    site.set(name, 404)
    const item = await createItem(api, site.url(`/status/${name}`))
    assert.deepEqual(
      [(await checkLink(api, item.id)).failures, (await checkLink(api, item.id)).failures],
      [1, 2],
    )
    assert.equal((await linkOf(api, item.id)).status, 'unchecked')
    const third = await checkLink(api, item.id)
    assert.deepEqual([third.status, third.failures, third.reason], ['broken', 3, 'HTTP 404'])
    site.set(name, 200)
    const back = await checkLink(api, item.id)
    assert.deepEqual([back.status, back.failures, back.reason, back.httpStatus], ['ok', 0, null, 200])
    site.set(name, 500)
    const once = await checkLink(api, item.id)
    assert.deepEqual([once.status, once.failures], ['ok', 1], 'one failure keeps the status it had')
  })

  it('a changed URL reads as unchecked, and counts its failures afresh', async () => {
    const item = await createItem(api, site.url('/404'))
    await checkLink(api, item.id)
    await checkLink(api, item.id)
    const moved = await api.put(`/api/admin/items/${item.id}`, { url: site.url('/500') })
    assert.equal(moved.statusCode, 200, moved.body)
    assert.equal(moved.json().data.link.status, 'unchecked')
    assert.equal(moved.json().data.link.failures, 0)
    assert.equal((await checkLink(api, item.id)).failures, 1)
  })

  it('checking an unknown item is 404, an item without a URL 400', async () => {
    const unknown = await api.post('/api/admin/items/6a8c0e2b-4d6f-4a8c-9e0b-2d4f6a8c0e2b/check-link')
    assert.equal(unknown.statusCode, 404, unknown.body)
    assert.equal(unknown.json().code, 'ITEM_NOT_FOUND')
    assert.equal((await api.post('/api/admin/items/not-a-uuid/check-link')).statusCode, 404)
    const bare = await createItem(api, null)
    const res = await api.post(`/api/admin/items/${bare.id}/check-link`)
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().code, 'ITEM_HAS_NO_URL')
  })
})

describe('link check runs', () => {
  let h: DirectoryHarness
  let api: Requests

  before(async () => {
    h = await startDirectory({ env: ENV })
    api = siteRequests(h, { cookie: await h.adminCookie() })
  })
  after(() => h.close())

  it('check every published URL in steps, break links at the third failure, and notify once per run', async () => {
    const ok = await createItem(api, site.url('/ok'))
    const moved = await createItem(api, site.url('/redirect/1'))
    const gone = await createItem(api, site.url('/404'))
    const slow = await createItem(api, site.url('/hang'))
    const alreadyBroken = await createItem(api, site.url('/500'))
    for (let attempt = 0; attempt < 3; attempt++) await checkLink(api, alreadyBroken.id)
    const draft = await createItem(api, site.url('/ok'), 'draft')
    const bare = await createItem(api, null)
    const draftCalls = site.calls('/ok')

    const first = await runChecks(h, api)
    assert.deepEqual(
      [
        first.trigger,
        first.total,
        first.processed,
        first.ok,
        first.redirected,
        first.failed,
        first.newlyBroken,
      ],
      ['admin', 5, 5, 1, 1, 3, 0],
    )
    assert.equal(site.calls('/ok') - draftCalls, 1, 'the draft is not checked, the published one is')
    assert.equal((await linkOf(api, draft.id)).status, 'unchecked')
    assert.equal((await linkOf(api, bare.id)).status, 'unchecked')
    assert.equal((await linkOf(api, gone.id)).failures, 1)
    assert.equal((await brokenNotices(api)).length, 0)

    await runChecks(h, api)
    const third = await runChecks(h, api)
    assert.equal(third.newlyBroken, 2)
    const notices = await brokenNotices(api)
    assert.equal(notices.length, 1, 'one notification for the run')
    const [notice] = notices
    assert.equal(notice?.data.runId, third.id)
    assert.equal(notice?.title, '2 links are broken')
    assert.deepEqual(
      notice?.data.items.map((entry) => [entry.itemId, entry.reason]).sort(),
      [
        [gone.id, 'HTTP 404'],
        [slow.id, 'timeout'],
      ].sort(),
      'only the newly broken: not the one broken before the run',
    )
    assert.match(notice?.message ?? '', new RegExp(`${gone.name} \\(HTTP 404\\)`))

    const fourth = await runChecks(h, api)
    assert.equal(fourth.newlyBroken, 0)
    assert.equal((await brokenNotices(api)).length, 1, 'still broken is not newly broken')

    const status = (await api.get('/api/admin/link-checks')).json().data
    assert.equal(status.run.id, fourth.id)
    assert.ok(status.counts.broken >= 3 && status.counts.ok >= 1 && status.counts.redirected >= 1)

    const listed = async (linkStatus: string) =>
      (
        (await api.get(`/api/admin/items?linkStatus=${linkStatus}&limit=100`)).json().data as { id: string }[]
      ).map((item) => item.id)
    const broken = await listed('broken')
    assert.deepEqual(
      [gone.id, slow.id, alreadyBroken.id].filter((id) => broken.includes(id)).length,
      3,
      'the broken ones',
    )
    assert.ok(!broken.includes(ok.id))
    assert.deepEqual((await listed('redirected')).includes(moved.id), true)
    assert.deepEqual((await listed('ok')).includes(ok.id), true)
    const unchecked = await listed('unchecked')
    assert.ok(unchecked.includes(draft.id) && unchecked.includes(bare.id) && !unchecked.includes(ok.id))
    const total = (await api.get('/api/admin/items?linkStatus=broken')).json().meta.total
    assert.equal(total, broken.length)
    assert.equal((await api.get('/api/admin/items?linkStatus=bogus')).statusCode, 400)
  })

  it('one run at a time: 409 while one is queued or running', async () => {
    await createItem(api, site.url('/hang'))
    const first = await api.post('/api/admin/link-checks')
    assert.equal(first.statusCode, 202, first.body)
    const second = await api.post('/api/admin/link-checks')
    assert.equal(second.statusCode, 409, second.body)
    assert.equal(second.json().code, 'LINK_CHECK_BUSY')
    await until(
      async () => (await api.get('/api/admin/link-checks')).json().data.run.status === 'completed',
      'the run completed',
    )
  })
})

describe('the schedule across instances', () => {
  let databases: TestDatabases

  before(async () => {
    databases = await createTestDatabases()
  })
  after(() => databases.close())

  it('two instances on one database start one run per interval', async () => {
    // The item exists before any instance schedules (a cron tick at their start may well start the run).
    const seed = await startDirectory({ databases, env: ENV })
    const cookie = await seed.adminCookie()
    const name = unique('scheduled')
    const item = await createItem(siteRequests(seed, { cookie }), site.url(`/status/${name}`))
    await seed.close()

    const env = { ...ENV, LINK_CHECK_INTERVAL: '1d' }
    const start = Date.now()
    const first = await startDirectory({ databases, env, clockStart: start })
    const second = await startDirectory({ databases, env, clockStart: start })
    try {
      const api = siteRequests(first, { cookie })
      const runs = async () =>
        (
          (await databases.directory.db.execute(
            sql`select status from directory.link_check_runs order by created_at`,
          )) as unknown as { rows: { status: string }[] }
        ).rows
      const fire = async () => {
        // The cron's job, as each instance's schedule would send it.
        await Promise.all([
          first.jobs.send(LINK_CHECK_SCHEDULE_JOB, {}),
          second.jobs.send(LINK_CHECK_SCHEDULE_JOB, {}),
        ])
        await until(async () => {
          const jobs = (await databases.directory.db.execute(
            sql`select count(*)::int as n from directory_jobs.job where name = ${LINK_CHECK_SCHEDULE_JOB} and state in ('created', 'retry', 'active')`,
          )) as unknown as { rows: { n: number }[] }
          return jobs.rows[0]?.n === 0
        }, 'both schedule jobs ran')
        await until(
          async () => (await runs()).every((run) => run.status === 'completed'),
          'the runs completed',
        )
      }

      await fire()
      assert.equal((await runs()).length, 1, 'one run for both instances')
      assert.equal(site.calls(`/status/${name}`), 1, 'the item checked once')

      await fire()
      assert.equal((await runs()).length, 1, 'the latest run is not older than the interval')

      first.clock.advance(DAY_MS + 1000)
      second.clock.advance(DAY_MS + 1000)
      await fire()
      assert.equal((await runs()).length, 2, 'a day later, the next run')
      assert.equal(site.calls(`/status/${name}`), 2)
      assert.equal((await linkOf(api, item.id)).status, 'ok')
    } finally {
      await second.close()
      await first.close()
    }
  })

  it('with LINK_CHECK_INTERVAL=off the schedule starts nothing', async () => {
    const h = await startDirectory({ env: ENV })
    try {
      await h.jobs.send(LINK_CHECK_SCHEDULE_JOB, {})
      await until(async () => {
        const jobs = (await h.databases.directory.db.execute(
          sql`select count(*)::int as n from directory_jobs.job where name = ${LINK_CHECK_SCHEDULE_JOB} and state = 'completed'`,
        )) as unknown as { rows: { n: number }[] }
        return jobs.rows[0]?.n === 1
      }, 'the schedule job ran')
      const api = siteRequests(h, { cookie: await h.adminCookie() })
      assert.equal((await api.get('/api/admin/link-checks')).json().data.run, null)
    } finally {
      await h.close()
    }
  })
})
