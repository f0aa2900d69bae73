import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import { onUniqueViolation, PG_UNIQUE_VIOLATION, uniqueViolation } from '../../src/db/errors.ts'
import { categories } from '../../src/directory/categories/tables.ts'
import { conflict, HttpError } from '../../src/lib/errors.ts'
import { users } from '../../src/platform/auth/tables.ts'
import { createTestDatabases, type TestDatabases } from '../helpers/database.ts'

let databases: TestDatabases
before(async () => {
  databases = await createTestDatabases()
})
after(() => databases.close())

const at = new Date('2026-01-01T00:00:00Z')

function insertUser(email: string) {
  return databases.platform.db
    .insert(users)
    .values({ email, passwordHash: 'not-a-hash', createdAt: at, updatedAt: at })
}

function insertCategory(id: string, name: string) {
  return databases.directory.db.insert(categories).values({ id, name, createdAt: at, updatedAt: at })
}

/** The error a write rejects with. */
async function failureOf(write: PromiseLike<unknown>): Promise<unknown> {
  try {
    await write
  } catch (error) {
    return error
  }
  assert.fail('the write succeeded')
}

describe('uniqueViolation', () => {
  it('finds the code and constraint of a duplicate insert through Drizzle’s wrapping', async () => {
    await insertUser('dup-wrapped@example.com')
    const error = await failureOf(insertUser('dup-wrapped@example.com'))
    assert.ok(error instanceof DrizzleQueryError, 'Drizzle wraps the driver error')
    assert.equal((error as { code?: unknown }).code, undefined)
    assert.deepEqual(uniqueViolation(error), { constraint: 'users_email_unique' })
  })

  it('names a unique index as the constraint', async () => {
    await insertCategory('err-coffee', 'Coffee')
    const error = await failureOf(insertCategory('err-coffee-2', 'COFFEE'))
    assert.deepEqual(uniqueViolation(error), { constraint: 'categories_name_lower_unique' })
  })

  it('finds the code on the driver error itself', () => {
    assert.deepEqual(uniqueViolation({ code: PG_UNIQUE_VIOLATION, constraint: 'x_unique' }), {
      constraint: 'x_unique',
    })
  })

  it('is undefined for other errors', async () => {
    const error = await failureOf(databases.platform.db.execute(sql`select 1 / 0`))
    assert.equal(uniqueViolation(error), undefined)
    assert.equal(uniqueViolation(new Error('plain')), undefined)
    assert.equal(uniqueViolation(undefined), undefined)
    assert.equal(uniqueViolation('23505'), undefined)
  })
})

describe('onUniqueViolation', () => {
  const emailTaken = () => conflict('Email already registered', 'EMAIL_TAKEN')

  it('maps a real unique violation to the error its constraint names', async () => {
    await insertUser('dup-mapped@example.com')
    await assert.rejects(
      insertUser('dup-mapped@example.com').catch(
        onUniqueViolation({ users_pkey: () => new Error('wrong mapping'), users_email_unique: emailTaken }),
      ),
      (error: unknown) => {
        assert.ok(error instanceof HttpError)
        assert.equal(error.status, 409)
        assert.equal(error.code, 'EMAIL_TAKEN')
        return true
      },
    )
  })

  it('maps each constraint of one table to its own error', async () => {
    await insertCategory('err-tea', 'Tea')
    const byConstraint = {
      categories_name_lower_unique: () => conflict('name taken', 'CATEGORY_NAME_EXISTS'),
      categories_pkey: () => conflict('id taken', 'CATEGORY_ID_EXISTS'),
    }
    await assert.rejects(insertCategory('err-tea', 'Green tea').catch(onUniqueViolation(byConstraint)), {
      code: 'CATEGORY_ID_EXISTS',
    })
    await assert.rejects(insertCategory('err-tea-2', 'tea').catch(onUniqueViolation(byConstraint)), {
      code: 'CATEGORY_NAME_EXISTS',
    })
  })

  it('rethrows a violation of a constraint it does not list unchanged', async () => {
    await insertUser('dup-unlisted@example.com')
    let original: unknown
    const rethrown = await failureOf(
      insertUser('dup-unlisted@example.com').catch((error: unknown) => {
        original = error
        return onUniqueViolation({ other_unique: emailTaken })(error)
      }),
    )
    assert.equal(uniqueViolation(original)?.constraint, 'users_email_unique')
    assert.equal(rethrown, original)
  })

  it('rethrows an error that is not a unique violation unchanged', async () => {
    const original = await failureOf(databases.platform.db.execute(sql`select 1 / 0`))
    assert.throws(
      () => onUniqueViolation({ users_email_unique: emailTaken })(original),
      (thrown) => thrown === original,
    )
    const notNull = await failureOf(
      databases.platform.db.execute(sql`insert into platform.users (email) values ('x@example.com')`),
    )
    assert.equal(uniqueViolation(notNull), undefined)
    assert.throws(
      () => onUniqueViolation({ users_email_unique: emailTaken })(notNull),
      (thrown) => thrown === notNull,
    )
  })
})
