import assert from 'node:assert/strict'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { parse } from 'csv-parse/sync'
import { sql } from 'drizzle-orm'
import { activityLog } from '../../src/platform/activity-log/tables.ts'
import { type PlatformHarness, startPlatform, uniqueEmail } from '../helpers/apps.ts'

let h: PlatformHarness

before(async () => {
  h = await startPlatform()
})
after(() => h.close())

interface Account {
  id: string
  headers: Record<string, string>
}

async function account(): Promise<Account> {
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: uniqueEmail('export'), password: 'a good password' },
  })
  assert.equal(res.statusCode, 201, res.body)
  return { id: res.json().user.id, headers: { authorization: `Bearer ${res.json().accessToken}` } }
}

/** `count` rows of the account's, a millisecond apart, newest first from now. */
async function addRows(who: Account, count: number) {
  await h.databases.platform.db.execute(sql`
    insert into ${activityLog} (user_id, action_type, action, status, summary, created_at, updated_at)
    select ${who.id}::uuid, 'item_added', 'item_added', 'completed', 'row ' || n,
           to_timestamp((${h.clock.nowMs()}::bigint - n) / 1000.0), to_timestamp(${h.clock.nowMs()} / 1000.0)
    from generate_series(1, ${count}) as n`)
}

/**
 * A row the export cannot write: the database holds an infinite timestamp, which no CSV cell can show.
 * `infinity` sorts first (the first batch), `-infinity` last.
 */
async function addUnwritableRow(who: Account, at: 'infinity' | '-infinity') {
  await h.databases.platform.db.execute(sql`
    insert into ${activityLog} (user_id, action_type, action, status, summary, created_at, updated_at)
    values (${who.id}::uuid, 'item_added', 'item_added', 'completed', 'unwritable', ${at}, now())`)
}

const exportOf = (who: Account, query = '') =>
  h.app.inject({ url: `/api/activity-log/export${query}`, headers: who.headers })

/** An export read over a real connection, as a client sees it: the status, the bytes, how it ended. */
async function exportOverHttp(who: Account) {
  if (!h.app.server.listening) await h.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = h.app.server.address() as AddressInfo
  return new Promise<{ status: number; body: string; ended: 'complete' | 'broken' }>((resolve, reject) => {
    const req = request({ port, path: '/api/activity-log/export', headers: who.headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ended: 'complete' }))
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body, ended: 'broken' }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('activity log export: errors before and after the first byte', () => {
  for (const [what, query] of [
    ['a year-0 date', '?dateFrom=0000-01-01'],
    ['February 30', '?dateTo=2026-02-30'],
    ['a NUL in the search', '?search=a%00b'],
  ] as const) {
    it(`${what} is a JSON 400 naming the filter, before any CSV`, async () => {
      const res = await exportOf(await account(), query)
      assert.equal(res.statusCode, 400, res.body)
      assert.match(String(res.headers['content-type']), /^application\/json/)
      assert.equal(res.json().details[0].field, `query.${query.slice(1, query.indexOf('='))}`)
    })
  }

  it('the last possible day as the upper bound is a complete CSV', async () => {
    const me = await account()
    await addRows(me, 3)
    const res = await exportOf(me, '?dateTo=9999-12-31')
    assert.equal(res.statusCode, 200, res.body)
    const rows = (parse(res.body) as string[][]).filter((record) => record[5]?.startsWith('row '))
    assert.equal(rows.length, 3)
  })

  it('a failure in the first batch is an error answer, not a CSV', async () => {
    const me = await account()
    await addRows(me, 5)
    await addUnwritableRow(me, 'infinity')
    const res = await exportOf(me)
    assert.equal(res.statusCode, 500)
    assert.match(String(res.headers['content-type']), /^application\/json/)
    assert.equal(res.json().code, 'INTERNAL_ERROR')
  })

  it('a failure after the first batch breaks the connection, never a file that looks complete', async () => {
    const me = await account()
    // A full first batch (1,000 rows, with the sign-up's) is sent; the next one holds the unwritable row.
    await addRows(me, 1200)
    await addUnwritableRow(me, '-infinity')
    const res = await exportOverHttp(me)
    assert.equal(res.status, 200)
    assert.equal(res.ended, 'broken', 'the client sees the transfer fail')
    assert.ok(res.body.startsWith('id,createdAt,actionType,action,status,summary\r\n'))
    assert.ok(!res.body.includes('unwritable'))
  })
})
