import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { eq, sql } from 'drizzle-orm'
import { createLogger, serializeError } from '../../src/lib/logger.ts'
import { apiKeys } from '../../src/platform/api-keys/tables.ts'
import { users } from '../../src/platform/auth/tables.ts'
import { createTestDatabases, type TestDatabases } from '../helpers/database.ts'

type Serialized = { [key: string]: unknown; cause?: Serialized }
type Line = { msg: string; err: Serialized }

/** A logger writing into memory; `last()` gives the raw JSON text of the latest line. */
function memoryLogger() {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const log = createLogger('info', stream)
  const last = () => {
    const raw = lines.at(-1)
    assert.ok(raw, 'a line was written')
    return { raw, line: JSON.parse(raw) as Line }
  }
  return { log, last }
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  assert.fail('expected the query to fail')
}

/** A value shaped like an API key, unique to the run so any trace of it in a line is meaningful. */
function secretValue(): string {
  return `svc_live_${randomBytes(12).toString('hex')}`
}

describe('logged database errors', () => {
  let databases: TestDatabases

  before(async () => {
    databases = await createTestDatabases()
  })

  after(async () => {
    await databases?.close()
  })

  it('a failed query is logged with its SQL and SQLSTATE but without its secret parameter', async () => {
    const { db } = databases.platform
    const secret = secretValue()
    const error = await failure(() =>
      db.select().from(apiKeys).where(sql`${apiKeys.keyHash} = ${secret} or ${apiKeys.id} = ${secret}::uuid`),
    )
    const { log, last } = memoryLogger()
    log.error({ err: error }, 'request failed')
    const { raw, line } = last()

    assert.equal(raw.includes(secret), false, raw)
    assert.equal(raw.includes(secret.slice(9)), false, raw)
    assert.doesNotMatch(raw, /params/)
    assert.equal(line.err.type, 'DrizzleQueryError')
    assert.match(
      String(line.err.message),
      /^Failed query: select .* from "platform"\."api_keys" where .*\$2::uuid/,
    )
    assert.match(String(line.err.query), /"key_hash" = \$1/)
    assert.match(String(line.err.stack), /^Error: Failed query: select [^\n]*\n\s+at /)
    assert.equal(line.err.cause?.code, '22P02')
    assert.equal(line.err.cause?.type, 'DatabaseError')
    assert.match(String(line.err.cause?.message), /^invalid input syntax for type uuid: "\[redacted\]"$/)
  })

  it('a rejected value holding double quotes is redacted whole', async () => {
    const { db } = databases.platform
    const secret = `ab"${secretValue()}"cd`
    const { log, last } = memoryLogger()
    log.error({ err: await failure(() => db.execute(sql`select ${secret}::uuid`)) }, 'request failed')
    const { raw, line } = last()

    assert.equal(raw.includes(secret.slice(3, -3)), false, raw)
    assert.equal(raw.includes('cd'), false, raw)
    assert.equal(line.err.cause?.code, '22P02')
  })

  it('a unique violation is logged with its code and constraint but without the email', async () => {
    const { db } = databases.platform
    const email = `ada.${randomBytes(6).toString('hex')}@example.com`
    const now = new Date()
    const user = {
      email,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
      createdAt: now,
      updatedAt: now,
    }
    await db.insert(users).values(user)
    const { log, last } = memoryLogger()
    log.error({ err: await failure(() => db.insert(users).values(user)) }, 'request failed')
    const { raw, line } = last()

    assert.equal(raw.includes(email.split('@')[0] as string), false, raw)
    assert.equal(raw.includes('argon2id'), false, raw)
    assert.doesNotMatch(raw, /"detail"|"params"|Key \(/)
    assert.match(String(line.err.message), /^Failed query: insert into "platform"\."users"/)
    assert.equal(line.err.cause?.code, '23505')
    assert.equal(line.err.cause?.constraint, 'users_email_unique')
    assert.equal(
      line.err.cause?.message,
      'duplicate key value violates unique constraint "users_email_unique"',
    )
    assert.equal(line.err.cause?.table, 'users')
    assert.equal(line.err.cause?.schema, 'platform')
    await db.delete(users).where(eq(users.email, email))
  })

  it("a driver's own error, without Drizzle around it, loses its quoted value too", async () => {
    const secret = secretValue()
    const { source } = databases
    const query = 'select $1::uuid'
    const error = await failure(() =>
      source.kind === 'pglite' ? source.pglite.query(query, [secret]) : source.pool.query(query, [secret]),
    )
    const { log, last } = memoryLogger()
    log.error({ err: error }, 'job failed')
    const { raw, line } = last()

    assert.equal(raw.includes(secret.slice(9)), false, raw)
    assert.equal(line.err.type, 'DatabaseError')
    assert.equal(line.err.code, '22P02')
    assert.match(String(line.err.stack), /^error: invalid input syntax for type uuid: "\[redacted\]"\n\s+at /)
  })

  it('an application error wrapping a failed query keeps its own message and redacts the cause', async () => {
    const secret = secretValue()
    const cause = await failure(() => databases.platform.db.execute(sql`select ${secret}::uuid`))
    const { log, last } = memoryLogger()
    log.error({ err: new Error('delivery failed', { cause }) }, 'job failed')
    const { raw, line } = last()

    assert.equal(raw.includes(secret.slice(9)), false, raw)
    assert.equal(line.err.message, 'delivery failed')
    assert.equal(line.err.cause?.type, 'DrizzleQueryError')
    assert.equal(line.err.cause?.cause?.code, '22P02')
  })
})

describe('logged application errors', () => {
  it('a plain error keeps its message and stack, and its cause is serialized too', () => {
    const { log, last } = memoryLogger()
    log.error({ err: new Error('boom', { cause: new TypeError('fuse lit') }) }, 'request failed')
    const { line } = last()

    assert.equal(line.err.type, 'Error')
    assert.equal(line.err.message, 'boom')
    assert.match(String(line.err.stack), /^Error: boom\n\s+at /)
    assert.doesNotMatch(String(line.err.stack), /fuse lit/)
    assert.equal(line.err.cause?.type, 'TypeError')
    assert.equal(line.err.cause?.message, 'fuse lit')
    assert.match(String(line.err.cause?.stack), /^TypeError: fuse lit\n\s+at /)
  })

  it("an error's own properties are kept as pino keeps them", () => {
    const error = Object.assign(new Error('upstream refused'), { status: 502, provider: 'github' })
    const serialized = serializeError(error) as Record<string, unknown>

    assert.equal(serialized.status, 502)
    assert.equal(serialized.provider, 'github')
  })

  it('a circular cause chain ends at the depth bound', () => {
    const error = new Error('loop')
    error.cause = error
    let depth = 0
    for (
      let node = serializeError(error) as { cause?: unknown };
      node.cause;
      node = node.cause as { cause?: unknown }
    ) {
      depth++
    }
    assert.ok(depth > 0 && depth < 20, `followed ${depth} causes`)
  })

  it('a value that is not an error is left as it is', () => {
    assert.equal(serializeError('plain text'), 'plain text')
  })
})
