import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { claimFreeSlug, type SlugColumn, slugStem } from '../../src/db/slugs.ts'
import { users } from '../../src/platform/auth/tables.ts'
import { works } from '../../src/platform/works/tables.ts'
import { createTestDatabases, race, type TestDatabases } from '../helpers/database.ts'

let databases: TestDatabases
before(async () => {
  databases = await createTestDatabases()
})
after(() => databases.close())

const NOW = new Date('2026-11-22T12:00:00Z')
const MAX = 63

async function owner(): Promise<string> {
  const [user] = await databases.platform.db
    .insert(users)
    .values({
      email: `slugs-${randomBytes(6).toString('hex')}@example.com`,
      passwordHash: 'x',
      createdAt: NOW,
      updatedAt: NOW,
    })
    .returning({ id: users.id })
  return user!.id
}

const slugsOf = (ownerId: string): SlugColumn => ({
  column: works.slug,
  maxLength: MAX,
  scope: { key: ownerId, where: eq(works.ownerId, ownerId) },
})

async function take(ownerId: string, ...slugs: string[]) {
  await databases.platform.db
    .insert(works)
    .values(slugs.map((slug) => ({ ownerId, slug, name: slug, createdAt: NOW, updatedAt: NOW })))
}

const next = (ownerId: string, base: string) =>
  databases.platform.db.transaction((tx) => claimFreeSlug(tx, slugsOf(ownerId), base))

/** Claims a slug from `base` and inserts it, in one transaction, as a create does. */
const create = (ownerId: string, base: string) =>
  databases.platform.db.transaction(async (tx) => {
    const slug = await claimFreeSlug(tx, slugsOf(ownerId), base)
    await tx.insert(works).values({ ownerId, slug, name: base, createdAt: NOW, updatedAt: NOW })
    return slug
  })

describe('claimFreeSlug', () => {
  it('answers the base while it is free, also when numbered ones exist', async () => {
    const me = await owner()
    assert.equal(await next(me, 'guide'), 'guide')
    await take(me, 'guide-2', 'guide-3')
    assert.equal(await next(me, 'guide'), 'guide')
  })

  it('answers the first free number after the base, numerically', async () => {
    const me = await owner()
    await take(me, 'guide')
    assert.equal(await next(me, 'guide'), 'guide-2')
    await take(me, 'guide-2')
    assert.equal(await next(me, 'guide'), 'guide-3')
    await take(me, ...Array.from({ length: 8 }, (_, i) => `guide-${i + 3}`))
    assert.equal(await next(me, 'guide'), 'guide-11', 'guide-10 is taken, and "guide-9" > "guide-10" as text')
  })

  it('fills the first gap below a higher number', async () => {
    const me = await owner()
    await take(me, 'guide', 'guide-10')
    assert.equal(await next(me, 'guide'), 'guide-2')
  })

  it('is not fooled by slugs that only look numbered', async () => {
    const me = await owner()
    await take(me, 'guide', 'guide-foo', 'guide-2-3', 'guide-02', 'guide-1', 'guide-2x', 'guides-2')
    assert.equal(await next(me, 'guide'), 'guide-2')
  })

  it('keeps within its scope', async () => {
    const [me, other] = [await owner(), await owner()]
    await take(other, 'guide', 'guide-2')
    assert.equal(await next(me, 'guide'), 'guide')
    await take(me, 'guide')
    assert.equal(await next(me, 'guide'), 'guide-2')
  })

  it('cuts a long base so the number fits, without a dash before the dash', async () => {
    const me = await owner()
    const long = 'a'.repeat(MAX)
    await take(me, long)
    assert.equal(await next(me, long), `${'a'.repeat(MAX - 2)}-2`)
    await take(me, ...Array.from({ length: 8 }, (_, i) => `${'a'.repeat(MAX - 2)}-${i + 2}`))
    assert.equal(await next(me, long), `${'a'.repeat(MAX - 3)}-10`)
    const dashed = `${'b'.repeat(MAX - 3)}-cd`
    await take(me, dashed)
    assert.equal(await next(me, dashed), `${'b'.repeat(MAX - 3)}-2`)
  })

  it(race('fifty creates of one base each get their own slug'), async () => {
    const me = await owner()
    const slugs = await Promise.all(Array.from({ length: 50 }, () => create(me, 'busy')))
    const expected = ['busy', ...Array.from({ length: 49 }, (_, i) => `busy-${i + 2}`)]
    assert.deepEqual([...slugs].sort(), [...expected].sort())
  })

  it(race('a base and a numbered base that race for one slug are served one after the other'), async () => {
    const me = await owner()
    await take(me, 'pair')
    const slugs = await Promise.all([create(me, 'pair'), create(me, 'pair-2'), create(me, 'pair')])
    assert.equal(new Set(slugs).size, 3, slugs.join())
    assert.ok(slugs.includes('pair-2'), slugs.join())
  })
})

describe('slugStem', () => {
  it('drops numbered endings, so a base and its numbered slugs share one lock', () => {
    assert.equal(slugStem('guide', MAX), 'guide')
    assert.equal(slugStem('guide-2', MAX), 'guide')
    assert.equal(slugStem('guide-2-3', MAX), 'guide')
    assert.equal(slugStem('2024-guide', MAX), '2024-guide')
    assert.equal(slugStem('2024', MAX), '2024')
  })

  it('keeps what every numbered slug of a long base keeps', () => {
    const long = `${'a'.repeat(MAX - 5)}-bcde`
    assert.equal(slugStem(long, MAX), 'a'.repeat(MAX - 5))
    assert.equal(slugStem(`${'a'.repeat(MAX - 5)}-b-7`, MAX), 'a'.repeat(MAX - 5))
  })
})
