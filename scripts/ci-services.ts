/**
 * Prints the TEST_DATABASE_URL / TEST_REDIS_URL lines for the servers that answer on 127.0.0.1, so CI can
 * run the suite a second time against them. Prints nothing for a server that does not answer.
 */
import { Redis } from 'ioredis'
import pg from 'pg'

const postgresUrl = process.env.CI_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const redisUrl = process.env.CI_REDIS_URL ?? 'redis://127.0.0.1:6379'

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

async function redisAnswers(): Promise<boolean> {
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 0 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    return (await redis.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    redis.disconnect()
  }
}

const [postgres, redis] = await Promise.all([postgresAnswers(), redisAnswers()])
if (postgres) process.stdout.write(`TEST_DATABASE_URL=${postgresUrl}\n`)
if (redis) process.stdout.write(`TEST_REDIS_URL=${redisUrl}\n`)
