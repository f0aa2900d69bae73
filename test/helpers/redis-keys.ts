import { Redis } from 'ioredis'

/**
 * Deletes the keys under `prefix` with SCAN and UNLINK, never the whole database: other runs and other
 * programs may share it. Answers how many were deleted.
 */
export async function deleteRedisKeys(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url)
  redis.on('error', () => {})
  let deleted = 0
  try {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      if (keys.length > 0) deleted += await redis.unlink(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
  return deleted
}
