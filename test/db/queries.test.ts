import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { asc, eq, inArray } from 'drizzle-orm'
import { countRows, deleteExpired, pageOfRows } from '../../src/db/queries.ts'
import { refreshTokens, users } from '../../src/platform/auth/tables.ts'
import { createTestDatabases, type TestDatabases } from '../helpers/database.ts'

let databases: TestDatabases
before(async () => {
  databases = await createTestDatabases()
})
after(() => databases.close())

const NOW = new Date('2026-11-22T12:00:00Z')

describe('shared queries', () => {
  it('countRows counts what matches, and every row without a condition', async () => {
    const db = databases.platform.db
    const rows = ['count-a', 'count-b', 'count-c'].map((name) => ({
      email: `${name}-${NOW.getTime()}@example.com`,
      name,
      passwordHash: 'x',
      createdAt: NOW,
      updatedAt: NOW,
    }))
    const inserted = await db.insert(users).values(rows).returning({ id: users.id })
    const ids = inserted.map((row) => row.id)
    assert.equal(await countRows(db, users, inArray(users.id, ids)), 3)
    assert.equal(await countRows(db, users, eq(users.id, ids[0]!)), 1)
    assert.ok((await countRows(db, users)) >= 3)
  })

  it('deleteExpired removes rows whose expiry has passed (at the instant included) and counts them', async () => {
    const db = databases.platform.db
    const [user] = await db
      .insert(users)
      .values({
        email: `expiry-${NOW.getTime()}@example.com`,
        passwordHash: 'x',
        createdAt: NOW,
        updatedAt: NOW,
      })
      .returning({ id: users.id })
    const token = (n: number, expiresAt: Date) => ({
      userId: user!.id,
      familyId: '00000000-0000-4000-8000-000000000000',
      tokenHash: `${'e'.repeat(62)}${n}${n}`,
      expiresAt,
      createdAt: NOW,
    })
    await db
      .insert(refreshTokens)
      .values([token(1, new Date(NOW.getTime() - 1)), token(2, NOW), token(3, new Date(NOW.getTime() + 1))])
    assert.equal(await deleteExpired(db, refreshTokens, refreshTokens.expiresAt, NOW), 2)
    const left = await db.select().from(refreshTokens).where(eq(refreshTokens.userId, user!.id))
    assert.deepEqual(
      left.map((row) => row.tokenHash.slice(-1)),
      ['3'],
    )
  })

  it('pageOfRows answers one page in order, mapped, with the total of every page', async () => {
    const db = databases.platform.db
    const rows = Array.from({ length: 5 }, (_, n) => ({
      email: `page-${n}-${NOW.getTime()}@example.com`,
      name: `page ${n}`,
      passwordHash: 'x',
      createdAt: NOW,
      updatedAt: NOW,
    }))
    const inserted = await db.insert(users).values(rows).returning({ id: users.id })
    const where = inArray(
      users.id,
      inserted.map((row) => row.id),
    )
    const second = await pageOfRows(
      db,
      users,
      { page: 2, limit: 2 },
      {
        where,
        orderBy: [asc(users.name)],
        map: (user) => user.name,
      },
    )
    assert.deepEqual(second.items, ['page 2', 'page 3'])
    assert.deepEqual(
      { total: second.meta.total, totalPages: second.meta.totalPages, hasNext: second.meta.hasNext },
      { total: 5, totalPages: 3, hasNext: true },
    )
    const past = await pageOfRows(
      db,
      users,
      { page: 4, limit: 2 },
      { where, orderBy: [asc(users.name)], map: (user) => user.id },
    )
    assert.deepEqual([past.items, past.meta.total], [[], 5])
  })
})
