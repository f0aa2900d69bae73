import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { desc, eq, getTableColumns, sql } from 'drizzle-orm'
import { type FlatSelection, prepareMapped } from '../../src/db/prepared.ts'
import { activityLog } from '../../src/platform/activity-log/tables.ts'
import { users } from '../../src/platform/auth/tables.ts'
import { createTestDatabases, type TestDatabases } from '../helpers/database.ts'

let databases: TestDatabases
let userId: string
const at = new Date('2026-01-01T00:00:00.123Z')

before(async () => {
  databases = await createTestDatabases()
  const { db } = databases.platform
  const [user] = await db
    .insert(users)
    .values({
      email: `${randomUUID()}@example.com`,
      passwordHash: 'not-a-hash',
      createdAt: at,
      updatedAt: at,
    })
    .returning({ id: users.id })
  userId = user!.id
  await db.insert(activityLog).values([
    {
      userId,
      actionType: 'work_created',
      action: 'work.created',
      status: 'completed',
      summary: 'Created work "Coffee Guide"',
      details: { nested: { list: [1, 'two', null] }, text: 'é ✓' },
      metadata: null,
      createdAt: at,
      updatedAt: new Date(at.getTime() + 1000),
    },
    {
      userId,
      actionType: 'deployment',
      action: 'deployment.started',
      status: 'in_progress',
      summary: 'Deploying',
      details: {},
      metadata: { source: 'api' },
      ipAddress: '203.0.113.9',
      createdAt: new Date(at.getTime() + 60_000),
      updatedAt: new Date(at.getTime() + 60_000),
    },
  ])
})
after(() => databases.close())

const slot = (name: string) => sql.placeholder(name)

describe('prepareMapped', () => {
  it("answers the rows drizzle's own prepared statement answers: columns, JSON, dates, nulls, expressions", async () => {
    const { db } = databases.platform
    const selection = {
      ...getTableColumns(activityLog),
      total: sql<number>`count(*) over ()`.mapWith(Number),
      raw: sql<string>`'as sent'`,
      aliased: sql<string>`upper(${activityLog.status})`.as('aliased'),
    } satisfies FlatSelection
    const build = (fields: typeof selection) =>
      db
        .select(fields)
        .from(activityLog)
        .where(eq(activityLog.userId, slot('userId')))
        .orderBy(desc(activityLog.createdAt))
        .limit(slot('limit'))
    const mapped = await prepareMapped(db, selection, build, 'test_prepared_mapped').execute({
      userId,
      limit: 10,
    })
    const reference = await build(selection).prepare('test_prepared_reference').execute({ userId, limit: 10 })
    assert.equal(mapped.length, 2)
    assert.deepEqual(mapped, reference)
    assert.ok((mapped[0] as { createdAt: unknown }).createdAt instanceof Date)
    assert.equal((mapped[0] as { total: unknown }).total, 2)
  })

  it("maps a subquery's columns as drizzle does", async () => {
    const { db } = databases.platform
    const page = db
      .select()
      .from(activityLog)
      .where(eq(activityLog.userId, slot('userId')))
      .orderBy(desc(activityLog.createdAt))
      .limit(slot('limit'))
      .as('page')
    const selection = {
      id: page.id,
      details: page.details,
      metadata: page.metadata,
      createdAt: page.createdAt,
    } satisfies FlatSelection
    const build = (fields: typeof selection) => db.select(fields).from(page).orderBy(page.createdAt)
    const mapped = await prepareMapped(db, selection, build, 'test_prepared_page').execute({
      userId,
      limit: 1,
    })
    const reference = await build(selection)
      .prepare('test_prepared_page_reference')
      .execute({ userId, limit: 1 })
    assert.equal(mapped.length, 1)
    assert.deepEqual(mapped, reference)
  })

  it('refuses a selection that is not flat', () => {
    const { db } = databases.platform
    const nested = { entry: { id: activityLog.id } } as unknown as FlatSelection
    assert.throws(
      () =>
        prepareMapped(db, nested, (fields) => db.select(fields).from(activityLog), 'test_prepared_nested'),
      /entry: not a column or an SQL expression/,
    )
  })
})
