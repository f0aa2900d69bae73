import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import {
  DatabaseUnavailableError,
  databaseUnavailable,
  onUniqueViolation,
  PG_UNIQUE_VIOLATION,
  uniqueViolation,
} from '../../src/db/errors.ts'
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

describe('databaseUnavailable', () => {
  const socketError = (code: string) => Object.assign(new Error(`connect ${code} 10.0.0.5:5432`), { code })

  it('names a refused, reset or unreachable connection, never its address', () => {
    assert.equal(databaseUnavailable(socketError('ECONNREFUSED')), 'connection refused')
    assert.equal(databaseUnavailable(socketError('ECONNRESET')), 'connection reset')
    assert.equal(databaseUnavailable(socketError('ETIMEDOUT')), 'connection timed out')
    assert.equal(databaseUnavailable(socketError('EHOSTUNREACH')), 'host unreachable')
    assert.equal(databaseUnavailable(socketError('ENOTFOUND')), 'host name not found')
  })

  it('reads every attempt of a host name with several addresses (AggregateError)', () => {
    const error = new AggregateError([socketError('ECONNREFUSED'), socketError('ECONNREFUSED')], 'failed')
    assert.equal(databaseUnavailable(error), 'connection refused')
  })

  it('names a server that refuses this connection now (SQLSTATE 57P01, 57P03, 53300, class 08)', () => {
    const server = (code: string) => Object.assign(new Error('server says no'), { code, severity: 'FATAL' })
    assert.equal(databaseUnavailable(server('57P01')), 'the server terminated the connection')
    assert.equal(databaseUnavailable(server('57P03')), 'the server is starting up or shutting down')
    assert.equal(databaseUnavailable(server('53300')), 'the server has too many connections')
    assert.equal(databaseUnavailable(server('08006')), 'connection failure')
  })

  it('reads node-postgres’ and pg-boss’s messages of a lost connection or a timeout', () => {
    assert.equal(databaseUnavailable(new Error('Connection terminated unexpectedly')), 'connection lost')
    assert.equal(
      databaseUnavailable(new Error('timeout exceeded when trying to connect (Queue: q, Worker: w)')),
      'no connection within the connect timeout',
    )
    assert.equal(databaseUnavailable(new Error('Query read timeout')), 'no answer within the query timeout')
  })

  it('follows Drizzle’s wrapping to the cause, and keeps a DatabaseUnavailableError’s reason', () => {
    const wrapped = new DrizzleQueryError('select 1', [], socketError('ECONNRESET') as Error)
    assert.equal(databaseUnavailable(wrapped), 'connection reset')
    const ours = new DrizzleQueryError(
      'select 1',
      [],
      new DatabaseUnavailableError('no answer within 4000 ms'),
    )
    assert.equal(databaseUnavailable(ours), 'no answer within 4000 ms')
  })

  it('is undefined for an error of the statement itself', async () => {
    const error = await databases.platform.db.execute(sql`select 1/0`).catch((caught: unknown) => caught)
    assert.equal(databaseUnavailable(error), undefined)
    assert.equal(databaseUnavailable(new Error('Something else')), undefined)
  })

  it('is a 503 DATABASE_UNAVAILABLE with Retry-After', () => {
    const error = new DatabaseUnavailableError('connection refused')
    assert.equal(error.status, 503)
    assert.equal(error.code, 'DATABASE_UNAVAILABLE')
    assert.deepEqual(error.headers, { 'retry-after': '5' })
    assert.doesNotMatch(
      error.message,
      /refused/,
      'the reason is for logs; the message says what a client needs',
    )
  })
})
