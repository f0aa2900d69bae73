import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { parse } from 'csv-parse/sync'
import { eq, sql } from 'drizzle-orm'
import { activityLog } from '../../src/platform/activity-log/tables.ts'
import { works } from '../../src/platform/works/tables.ts'
import { startAnalyticsFake } from '../fakes/analytics.ts'
import { type PlatformHarness, startPlatform, uniqueEmail } from '../helpers/apps.ts'
import { type Requests, requests } from '../helpers/requests.ts'

let h: PlatformHarness
/** Requests to the activity log; each names its account's token. */
let api: Requests

before(async () => {
  h = await startPlatform()
  api = requests(h)
})
after(() => h.close())

interface Account {
  id: string
  token: string
  headers: Record<string, string>
}

async function account(): Promise<Account> {
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: uniqueEmail(), password: 'a good password' },
  })
  assert.equal(res.statusCode, 201, res.body)
  const { user, accessToken } = res.json()
  return { id: user.id, token: accessToken, headers: { authorization: `Bearer ${accessToken}` } }
}

async function addWork(owner: Account, name = 'Coffee Guide', status = 'IDLE' as const) {
  const now = h.clock.now()
  const [work] = await h.databases.platform.db
    .insert(works)
    .values({
      ownerId: owner.id,
      slug: `w-${Math.random().toString(16).slice(2, 10)}`,
      name,
      generateStatus: status,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
  return work!
}

const list = async (who: Account, query = '') => {
  const res = await api.get(`/api/activity-log${query}`, { token: who.token })
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as { activities: Record<string, unknown>[]; total: number }
}
const setWorkStatus = (id: string, generateStatus: 'COMPLETED' | 'ERROR' | 'CANCELLED' | 'GENERATING') =>
  h.databases.platform.db.update(works).set({ generateStatus }).where(eq(works.id, id))

describe('activity log: rows from domain events', () => {
  it('signup, login and password change each write their row', async () => {
    const email = uniqueEmail()
    const registered = await h.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'user-agent': 'curio-tests/1.0' },
      payload: { email, password: 'a good password' },
    })
    const { user, accessToken } = registered.json()
    const me = { id: user.id, token: accessToken, headers: { authorization: `Bearer ${accessToken}` } }
    h.clock.advance(1000)
    await h.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: 'a good password' },
    })
    h.clock.advance(1000)
    const changed = await h.app.inject({
      method: 'POST',
      url: '/api/auth/change-password',
      headers: me.headers,
      payload: { currentPassword: 'a good password', newPassword: 'an even better one' },
    })
    assert.equal(changed.statusCode, 200, changed.body)

    const { activities, total } = await list(me)
    assert.equal(total, 3)
    assert.deepEqual(
      activities.map((entry) => [entry.actionType, entry.action, entry.status]),
      [
        ['password_changed', 'user.password_changed', 'completed'],
        ['user_login', 'user.confirmed', 'completed'],
        ['user_signup', 'user.signup', 'completed'],
      ],
    )
    assert.match(String(activities[1]?.summary), /password/)
    assert.equal(activities[0]?.ipAddress, '127.0.0.1')
    assert.equal(activities[2]?.userAgent, 'curio-tests/1.0')
  })

  it('a generation run updates its in-progress row instead of adding a second one', async () => {
    const me = await account()
    const work = await addWork(me)
    const base = { userId: me.id, workId: work.id, workName: work.name }
    await setWorkStatus(work.id, 'GENERATING')
    await h.emit({ type: 'WorkGenerationStarted', ...base })
    assert.equal((await api.get('/api/activity-log/running-count', { token: me.token })).json().count, 1)
    await h.emit({
      type: 'WorkGenerationCompleted',
      ...base,
      generateStatus: 'COMPLETED',
      itemsCount: 42,
    })
    const { activities } = await list(me, '?actionType=generation')
    assert.equal(activities.length, 1)
    assert.equal(activities[0]?.status, 'completed')
    assert.equal(activities[0]?.action, 'generation.completed')
    assert.deepEqual(activities[0]?.details, { generateStatus: 'COMPLETED', itemsCount: 42 })
    assert.equal((await api.get('/api/activity-log/running-count', { token: me.token })).json().count, 0)
  })

  it('deployment rows close as completed, failed or cancelled', async () => {
    const me = await account()
    const deploy = { providerId: 'vercel', providerName: 'Vercel' }
    const outcomes = [] as unknown[]
    for (const end of ['ok', 'ERROR', 'CANCELED'] as const) {
      const work = await addWork(me, `Site ${end}`)
      const base = { userId: me.id, workId: work.id, workName: work.name, ...deploy }
      await h.emit({ type: 'DeploymentDispatched', ...base })
      if (end === 'ok') {
        await h.emit({ type: 'DeploymentCompleted', ...base, url: 'https://site.example' })
      } else {
        await h.emit({ type: 'DeploymentFailed', ...base, terminalState: end, error: 'build failed' })
      }
      const { activities } = await list(me, `?workId=${work.id}`)
      assert.equal(activities.length, 1)
      outcomes.push([activities[0]?.action, activities[0]?.status])
    }
    assert.deepEqual(outcomes, [
      ['deployment.succeeded', 'completed'],
      ['deployment.failed', 'failed'],
      ['deployment.cancelled', 'cancelled'],
    ])
  })

  it('member invitations and config-sync failures are recorded with their details', async () => {
    const me = await account()
    const work = await addWork(me)
    h.clock.advance(1000)
    await h.emit({
      type: 'MemberInvited',
      userId: me.id,
      workId: work.id,
      workName: work.name,
      inviteeEmail: 'ed@example.com',
      role: 'editor',
    })
    h.clock.advance(1000)
    await h.emit({
      type: 'WorksConfigSyncFailed',
      userId: me.id,
      workId: work.id,
      reason: 'push rejected',
      repository: 'acme/coffee-data',
      error: '403',
    })
    const { activities } = await list(me)
    assert.deepEqual(activities[1]?.details, { inviteeEmail: 'ed@example.com', role: 'editor' })
    assert.equal(activities[0]?.status, 'failed')
    assert.deepEqual(activities[0]?.details, {
      reason: 'push rejected',
      repository: 'acme/coffee-data',
      error: '403',
    })
  })
})

describe('activity log: reads', () => {
  it('lists newest first with paging, and counts by status', async () => {
    const me = await account()
    for (let index = 0; index < 4; index++) {
      h.clock.advance(1000)
      await h.activity.record(
        {
          userId: me.id,
          actionType: 'settings_updated',
          action: 'settings.updated',
          status: index === 3 ? 'failed' : 'completed',
          summary: `change ${index}`,
        },
        h.databases.platform.db,
      )
    }
    const page = await list(me, '?limit=2&offset=1')
    assert.equal(page.total, 5)
    assert.deepEqual(
      page.activities.map((entry) => entry.summary),
      ['change 2', 'change 1'],
    )
    assert.equal((await list(me, '?limit=10&offset=3')).total, 5, 'a short last page')
    const past = await list(me, '?offset=50')
    assert.deepEqual([past.activities.length, past.total], [0, 5], 'a page past the end')
    const summary = (await api.get('/api/activity-log/summary', { token: me.token })).json()
    assert.deepEqual(summary, {
      counts: { pending: 0, in_progress: 0, completed: 4, failed: 1, cancelled: 0 },
    })
  })

  it('filters by action type, status, work, date range and search', async () => {
    const me = await account()
    const espresso = await addWork(me, 'Espresso Bars')
    const tea = await addWork(me, 'Tea Rooms')
    const day = (date: string) => new Date(`${date}T12:00:00Z`).getTime()
    const write = async (at: number, fields: Partial<Parameters<typeof h.activity.record>[0]>) => {
      h.clock.set(at)
      await h.activity.record(
        {
          userId: me.id,
          actionType: 'item_added',
          action: 'item_added',
          status: 'completed',
          summary: 'Added an item',
          ...fields,
        },
        h.databases.platform.db,
      )
    }
    await write(day('2026-03-01'), { workId: espresso.id, summary: 'Added "Blue Bottle"' })
    await write(day('2026-03-02'), { workId: tea.id, summary: 'Added 100% matcha_bar', status: 'failed' })
    await write(day('2026-03-03'), { actionType: 'export', action: 'export', summary: 'Exported CSV' })
    h.clock.set(Date.now())

    const summaries = async (query: string) =>
      (await list(me, query)).activities.map((entry) => entry.summary)
    assert.deepEqual(await summaries('?actionType=export'), ['Exported CSV'])
    assert.deepEqual(await summaries('?status=failed'), ['Added 100% matcha_bar'])
    assert.deepEqual(await summaries(`?workId=${espresso.id}`), ['Added "Blue Bottle"'])
    assert.deepEqual(await summaries('?dateFrom=2026-03-02&dateTo=2026-03-02'), ['Added 100% matcha_bar'])
    assert.deepEqual(await summaries('?dateFrom=2026-03-02T13:00:00Z&actionType=item_added'), [])
    assert.deepEqual(await summaries('?search=BLUE'), ['Added "Blue Bottle"'])
    assert.deepEqual(
      await summaries('?search=tea%20rooms'),
      ['Added 100% matcha_bar'],
      'matches the work name',
    )
    assert.deepEqual(await summaries('?search=100%25'), ['Added 100% matcha_bar'], '% is literal')
    assert.deepEqual(await summaries('?search=_'), ['Added 100% matcha_bar'], '_ is literal')
    assert.equal((await list(me, '?search=espresso&status=failed')).total, 0)
  })

  it('a single entry is the owner’s only, and a running one carries the work’s live logs', async () => {
    const me = await account()
    const stranger = await account()
    const work = await addWork(me)
    await h.databases.platform.db
      .update(works)
      .set({ generateStatus: 'GENERATING', recentLogs: ['fetching sources', 'writing items'] })
      .where(eq(works.id, work.id))
    await h.emit({
      type: 'WorkGenerationStarted',
      userId: me.id,
      workId: work.id,
      workName: work.name,
    })
    const [entry] = (await list(me)).activities.filter((row) => row.actionType === 'generation')
    const mine = await api.get(`/api/activity-log/${entry?.id}`, { token: me.token })
    assert.equal(mine.statusCode, 200)
    assert.deepEqual(mine.json().details.liveLogs, ['fetching sources', 'writing items'])
    const theirs = await api.get(`/api/activity-log/${entry?.id}`, { token: stranger.token })
    assert.equal(theirs.statusCode, 404)
    assert.equal((await api.get('/api/activity-log/not-a-uuid', { token: me.token })).statusCode, 404)
    assert.equal(
      (await api.get('/api/activity-log/00000000-0000-4000-8000-000000000000', { token: me.token }))
        .statusCode,
      404,
    )
  })

  it('entries of a deleted work are kept with workId null', async () => {
    const me = await account()
    const work = await addWork(me)
    await h.emit({ type: 'WorkCreated', userId: me.id, workId: work.id, workName: work.name })
    await h.databases.platform.db.delete(works).where(eq(works.id, work.id))
    const [entry] = (await list(me, '?actionType=work_created')).activities
    assert.equal(entry?.workId, null)
    assert.equal(entry?.summary, 'Created work "Coffee Guide"')
  })

  for (const query of [
    '?actionType=launch',
    '?status=done',
    '?dateFrom=yesterday',
    '?dateTo=2026-13-45',
    '?limit=0',
    '?limit=101',
    '?offset=-1',
    '?workId=not-a-uuid',
    `?search=${'x'.repeat(201)}`,
  ]) {
    it(`answers 400 for ${query.slice(0, 40)}`, async () => {
      const res = await api.get(`/api/activity-log${query}`, { token: (await account()).token })
      assert.equal(res.statusCode, 400, res.body)
      assert.ok(res.json().details[0].field.startsWith('query.'))
    })
  }

  it('every route needs authentication', async () => {
    for (const url of [
      '/api/activity-log',
      '/api/activity-log/running-count',
      '/api/activity-log/summary',
      '/api/activity-log/export',
      '/api/activity-log/00000000-0000-4000-8000-000000000000',
    ]) {
      assert.equal((await h.app.inject(url)).statusCode, 401, url)
    }
  })
})

describe('activity log: reconciliation', () => {
  it('closes stale generation rows from the work’s status, and leaves running ones', async () => {
    const me = await account()
    const outcomes: Record<string, string> = {}
    const cases = ['COMPLETED', 'ERROR', 'CANCELLED', 'GENERATING', 'deleted'] as const
    for (const state of cases) {
      const work = await addWork(me, `Work ${state}`)
      await h.emit({
        type: 'WorkGenerationStarted',
        userId: me.id,
        workId: work.id,
        workName: work.name,
      })
      if (state === 'deleted') await h.databases.platform.db.delete(works).where(eq(works.id, work.id))
      else await setWorkStatus(work.id, state)
    }
    const { activities } = await list(me, '?actionType=generation')
    for (const entry of activities)
      outcomes[String(entry.summary).replace(/.*"Work (\w+)"/, '$1')] = String(entry.status)
    assert.deepEqual(outcomes, {
      COMPLETED: 'completed',
      ERROR: 'failed',
      CANCELLED: 'cancelled',
      GENERATING: 'in_progress',
      deleted: 'cancelled',
    })
  })

  it('a pass is reused for 5 seconds, then runs again', async () => {
    const me = await account()
    await list(me)
    const work = await addWork(me)
    await h.emit({
      type: 'WorkGenerationStarted',
      userId: me.id,
      workId: work.id,
      workName: work.name,
    })
    await setWorkStatus(work.id, 'COMPLETED')
    assert.equal(
      (await api.get('/api/activity-log/running-count', { token: me.token })).json().count,
      1,
      'within 5 s: reused',
    )
    h.clock.advance(5000)
    assert.equal(
      (await api.get('/api/activity-log/running-count', { token: me.token })).json().count,
      0,
      'after 5 s: a new pass',
    )
  })
})

describe('activity log: CSV export', () => {
  it('streams RFC 4180 CSV that a CSV parser reads back, with formulas defused', async () => {
    const me = await account()
    const tricky = [
      'Plain summary',
      'Has, a comma',
      'Has "quotes" inside',
      'Line one\nline two',
      'Carriage\r\nreturn',
      '=HYPERLINK("http://evil.example")',
      '+1 and more',
      '-2 less',
      '@SUM(A1:A2)',
      '\tTabbed',
    ]
    for (const summary of tricky) {
      h.clock.advance(1)
      await h.activity.record(
        {
          userId: me.id,
          actionType: 'export',
          action: 'export',
          status: 'completed',
          summary,
        },
        h.databases.platform.db,
      )
    }
    const res = await api.get('/api/activity-log/export', { token: me.token })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/csv/)
    assert.equal(res.headers['content-disposition'], 'attachment; filename=activity-log.csv')
    const records = parse(res.body) as string[][]
    assert.deepEqual(records[0], ['id', 'createdAt', 'actionType', 'action', 'status', 'summary'])
    const summaries = records
      .slice(1)
      .map((record) => record[5])
      .filter((summary) => summary !== 'Signed up as ' && !summary?.startsWith('Signed up'))
    const expected = [...tricky]
      .reverse()
      .map((summary) => (/^[=+\-@\t\r]/.test(summary) ? `'${summary}` : summary))
    assert.deepEqual(summaries, expected)
    for (const record of records.slice(1)) {
      assert.equal(record.length, 6)
      assert.ok(!Number.isNaN(Date.parse(record[1]!)))
    }
  })

  it('applies the list filters and stops at 10,000 rows', async () => {
    const me = await account()
    const start = h.clock.nowMs()
    await h.databases.platform.db.execute(sql`
      insert into ${activityLog} (user_id, action_type, action, status, summary, created_at, updated_at)
      select ${me.id}::uuid, 'item_added', 'item_added', 'completed', 'bulk row ' || n,
             to_timestamp((${start}::bigint - n) / 1000.0), to_timestamp((${start}::bigint - n) / 1000.0)
      from generate_series(1, 10050) as n`)
    const all = parse(
      (await api.get('/api/activity-log/export?actionType=item_added', { token: me.token })).body,
    ) as string[][]
    assert.equal(all.length, 1 + 10_000)
    assert.equal(all[1]?.[5], 'bulk row 1')
    assert.equal(new Set(all.slice(1).map((record) => record[0])).size, 10_000, 'no row twice')
    const filtered = parse(
      (await api.get('/api/activity-log/export?search=row%2010049', { token: me.token })).body,
    ) as string[][]
    assert.deepEqual(
      filtered.slice(1).map((record) => record[5]),
      ['bulk row 10049'],
    )
  })

  it('a bad filter is 400 before any CSV is sent', async () => {
    const res = await api.get('/api/activity-log/export?dateFrom=2026-02-31T99:00', {
      token: (await account()).token,
    })
    assert.equal(res.statusCode, 400)
    assert.match(String(res.headers['content-type']), /json/)
  })
})

describe('activity log: analytics forwarding', () => {
  let fake: Awaited<ReturnType<typeof startAnalyticsFake>>
  let forwarding: PlatformHarness
  before(async () => {
    fake = await startAnalyticsFake()
    forwarding = await startPlatform({
      env: { ANALYTICS_HOST: fake.url, ANALYTICS_WRITE_KEY: 'phc_test_key' },
    })
  })
  after(async () => {
    await forwarding.close()
    await fake.close()
  })

  it('forwards every persisted row with the specified payload', async () => {
    const res = await forwarding.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: uniqueEmail(), password: 'a good password' },
    })
    const userId = res.json().user.id
    await forwarding.activity.record(
      {
        userId,
        actionType: 'settings_updated',
        action: 'settings.updated',
        status: 'completed',
        summary: 'Changed the theme',
        details: { theme: 'dark' },
        metadata: { plan: 'pro', summary: 'overridden by the row' },
      },
      forwarding.databases.platform.db,
    )
    await fake.waitFor((events) => events.filter((event) => event.distinct_id === userId).length === 2)
    const [signup, settings] = fake.captured.filter((event) => event.distinct_id === userId)
    assert.equal(signup?.api_key, 'phc_test_key')
    assert.equal(signup?.event, 'user.signup')
    assert.deepEqual(Object.keys(signup?.properties ?? {}).sort(), [
      'action',
      'actionType',
      'activityId',
      'createdAt',
      'details',
      'status',
      'summary',
      'userId',
      'workId',
    ])
    assert.equal(settings?.properties.plan, 'pro')
    assert.equal(settings?.properties.summary, 'Changed the theme')
    assert.deepEqual(settings?.properties.details, { theme: 'dark' })
    assert.equal(settings?.properties.workId, null)
  })

  it('a collector that fails never fails the write', async () => {
    fake.failNext(1000)
    const res = await forwarding.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: uniqueEmail(), password: 'a good password' },
    })
    assert.equal(res.statusCode, 201)
    const rows = await forwarding.databases.platform.db
      .select()
      .from(activityLog)
      .where(eq(activityLog.userId, res.json().user.id))
    assert.equal(rows.length, 1)
    fake.failNext(0)
  })

  it('without the settings nothing is forwarded', async () => {
    await account()
    assert.equal(await h.jobs.boss.getQueue('analytics-forward'), null)
  })
})

describe('activity log: reconciliation of deployments', () => {
  it('a deployment row open past the verification timeout is closed as failed (TIMEOUT)', async () => {
    const me = await account()
    const work = await addWork(me)
    const deploy = {
      userId: me.id,
      workId: work.id,
      workName: work.name,
      providerId: 'vercel',
      providerName: 'Vercel',
    }
    await h.emit({ type: 'DeploymentDispatched', ...deploy })
    // Verification gives up after 13 minutes; a minute's grace later the row is known stale.
    h.clock.advance(14 * 60_000 + 1000)
    const recent = await addWork(me, 'Recent site')
    await h.emit({ type: 'DeploymentDispatched', ...deploy, workId: recent.id, workName: recent.name })
    assert.equal(
      (await api.get('/api/activity-log/running-count', { token: me.token })).json().count,
      1,
      'only the recent one runs',
    )
    const [closed] = (await list(me, `?workId=${work.id}`)).activities
    assert.equal(closed?.status, 'failed')
    assert.equal(closed?.action, 'deployment.failed')
    assert.equal((closed?.details as Record<string, unknown> | undefined)?.terminalState, 'TIMEOUT')
  })
})
