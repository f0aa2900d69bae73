import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { DatabaseUnavailableError } from '../../src/db/errors.ts'
import { createInvalidatedCache, type InvalidatedCacheOptions } from '../../src/db/invalidated-cache.ts'
import { createNotifications, type Notifications, notify } from '../../src/db/notifications.ts'
import { createManualClock } from '../../src/lib/clock.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { cacheHits, cacheMisses, cacheStaleAnswers } from '../../src/lib/metrics.ts'
import { createTestDatabases, NEEDS_POSTGRES, type TestDatabases } from '../helpers/database.ts'

let databases: TestDatabases
before(async () => {
  databases = await createTestDatabases()
})
after(() => databases.close())

const log = createLogger('silent')

const staleAnswersOf = async (cache: string) =>
  (await cacheStaleAnswers.get()).values.find((value) => value.labels.cache === cache)?.value ?? 0

let channels = 0
/** A channel of the test's own, so no other test's messages reach it. */
const freshChannel = () => `curio_cache_test_${++channels}`

/** One process's notifications, closed after `run`. */
async function withNotifications<T>(run: (notifications: Notifications) => Promise<T>): Promise<T> {
  const notifications = createNotifications(databases.platform.source, log)
  try {
    return await run(notifications)
  } finally {
    await notifications.close()
  }
}

interface Probe {
  /** Resolves with the next message on the channel, after every handler subscribed later has run. */
  next(): Promise<string>
  lost(): Promise<void>
  reconnected(): Promise<void>
}

/** A handler subscribed before the cache's: once it has heard a message, so has the cache. */
async function probe(notifications: Notifications, channel: string): Promise<Probe> {
  const waiting = {
    message: [] as ((payload: string) => void)[],
    lost: [] as (() => void)[],
    back: [] as (() => void)[],
  }
  await notifications.listen(
    channel,
    (payload) => {
      for (const resolve of waiting.message.splice(0)) resolve(payload)
    },
    {
      onLost: () => {
        for (const resolve of waiting.lost.splice(0)) resolve()
      },
      onReconnect: () => {
        for (const resolve of waiting.back.splice(0)) resolve()
      },
    },
  )
  return {
    next: () => new Promise((resolve) => waiting.message.push(resolve)),
    lost: () => new Promise((resolve) => waiting.lost.push(resolve)),
    reconnected: () => new Promise((resolve) => waiting.back.push(resolve)),
  }
}

/** Sends `payload` on `channel` and resolves once `heardBy` (and so every cache on it) has it. */
async function notifyAndWait(heardBy: Probe, channel: string, payload: string) {
  const arrived = heardBy.next()
  await notify(databases.platform.db, channel, payload)
  assert.equal(await arrived, payload)
}

/** A loader that counts its calls and answers `value` (changeable by the test). */
function counter<V>(value: V) {
  const state = {
    value,
    calls: 0,
    load: async () => {
      state.calls++
      return state.value
    },
  }
  return state
}

/** A load the test finishes when it chooses. */
function deferred<V>() {
  let resolve: (value: V) => void = () => {}
  let reject: (error: unknown) => void = () => {}
  const promise = new Promise<V>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

function cacheOf<V>(channel: string, options: Partial<InvalidatedCacheOptions<V>> = {}) {
  return createInvalidatedCache<V>({ name: 'test', channel, clock: createManualClock(0), ...options })
}

describe('invalidated cache', () => {
  it('is off before listen: every get loads and nothing is stored', async () => {
    const cache = cacheOf<string>(freshChannel())
    const source = counter('v1')
    assert.equal(cache.active, false)
    assert.equal(await cache.get('k', source.load), 'v1')
    assert.equal(await cache.get('k', source.load), 'v1')
    assert.equal(source.calls, 2)
    assert.equal(cache.peek('k'), undefined)
  })

  it('after listen, a loaded value is stored and served without loading again', async () => {
    await withNotifications(async (notifications) => {
      const cache = cacheOf<string>(freshChannel())
      await cache.listen(notifications)
      assert.equal(cache.active, true)
      const source = counter('v1')
      assert.equal(await cache.get('k', source.load), 'v1')
      source.value = 'v2'
      assert.equal(await cache.get('k', source.load), 'v1')
      assert.equal(source.calls, 1)
      assert.equal(cache.peek('k'), 'v1')
    })
  })

  it('counts its hits and misses under its name (curio_cache_hits_total, curio_cache_misses_total)', async () => {
    await withNotifications(async (notifications) => {
      const name = `counted-${channels}`
      const read = async (counter: typeof cacheHits) =>
        (await counter.get()).values.find(({ labels }) => labels.cache === name)?.value ?? 0
      const cache = cacheOf<string>(freshChannel(), { name })
      await cache.listen(notifications)
      const source = counter('v1')
      await cache.get('k', source.load)
      await cache.get('k', source.load)
      await cache.get('other', source.load)
      assert.equal(await read(cacheMisses), 2)
      assert.equal(await read(cacheHits), 1)
    })
  })

  it('a notification on its channel clears it, and the next get loads again', async () => {
    await withNotifications(async (notifications) => {
      const channel = freshChannel()
      const heard = await probe(notifications, channel)
      const cache = cacheOf<string>(channel)
      await cache.listen(notifications)
      const source = counter('v1')
      await cache.get('a', source.load)
      await cache.get('b', source.load)
      source.value = 'v2'
      await notifyAndWait(heard, channel, 'changed')
      assert.equal(cache.peek('a'), undefined)
      assert.equal(cache.peek('b'), undefined)
      assert.equal(await cache.get('a', source.load), 'v2')
      assert.equal(source.calls, 3)
    })
  })

  it('a notification in a rolled-back transaction clears nothing', async () => {
    await withNotifications(async (notifications) => {
      const channel = freshChannel()
      const heard = await probe(notifications, channel)
      const cache = cacheOf<string>(channel, { invalidates: (payload) => ({ key: payload }) })
      await cache.listen(notifications)
      await cache.get('k', async () => 'v1')
      await databases.platform.db
        .transaction(async (tx) => {
          await notify(tx, channel, 'k')
          throw new Error('roll back')
        })
        .catch(() => {})
      // Messages arrive in commit order: once a later one is heard, the rolled-back one would have been.
      await notifyAndWait(heard, channel, 'other')
      assert.equal(cache.peek('k'), 'v1')
    })
  })

  it('invalidates returning a key drops only that key; none keeps everything', async () => {
    await withNotifications(async (notifications) => {
      const channel = freshChannel()
      const heard = await probe(notifications, channel)
      const cache = cacheOf<string>(channel, {
        invalidates: (payload) => (payload === 'other' ? 'none' : { key: payload }),
      })
      await cache.listen(notifications)
      await cache.get('a', async () => 'A')
      await cache.get('b', async () => 'B')
      await notifyAndWait(heard, channel, 'a')
      assert.equal(cache.peek('a'), undefined)
      assert.equal(cache.peek('b'), 'B')
      await notifyAndWait(heard, channel, 'other')
      assert.equal(cache.peek('b'), 'B')
    })
  })

  it('clear() and delete() drop entries at once, so the writer reads its own write', async () => {
    await withNotifications(async (notifications) => {
      const cache = cacheOf<string>(freshChannel())
      await cache.listen(notifications)
      const source = counter('v1')
      await cache.get('a', source.load)
      await cache.get('b', source.load)
      source.value = 'v2'
      cache.delete('a')
      assert.equal(await cache.get('a', source.load), 'v2')
      assert.equal(cache.peek('b'), 'v1')
      cache.clear()
      assert.equal(cache.peek('b'), undefined)
      assert.equal(await cache.get('b', source.load), 'v2')
      assert.equal(source.calls, 4)
    })
  })

  it('a load started before a clear does not store its stale value', async () => {
    await withNotifications(async (notifications) => {
      const cache = cacheOf<string>(freshChannel())
      await cache.listen(notifications)
      const stale = deferred<string>()
      const first = cache.get('k', () => stale.promise)
      cache.clear()
      // A get after the clear does not share the load that started before it.
      const fresh = counter('new')
      assert.equal(await cache.get('k', fresh.load), 'new')
      stale.resolve('old')
      assert.equal(await first, 'old')
      assert.equal(cache.peek('k'), 'new')
      assert.equal(fresh.calls, 1)
    })
  })

  it('a load started before a notification does not store its stale value', async () => {
    await withNotifications(async (notifications) => {
      const channel = freshChannel()
      const heard = await probe(notifications, channel)
      const cache = cacheOf<string>(channel, { invalidates: (payload) => ({ key: payload }) })
      await cache.listen(notifications)
      const stale = deferred<string>()
      const first = cache.get('k', () => stale.promise)
      await notifyAndWait(heard, channel, 'k')
      stale.resolve('old')
      assert.equal(await first, 'old')
      assert.equal(cache.peek('k'), undefined)
    })
  })

  it('concurrent gets of one key share one load', async () => {
    await withNotifications(async (notifications) => {
      const cache = cacheOf<string>(freshChannel())
      await cache.listen(notifications)
      const pending = deferred<string>()
      let calls = 0
      const load = () => {
        calls++
        return pending.promise
      }
      const gets = [cache.get('k', load), cache.get('k', load), cache.get('k', load)]
      pending.resolve('v')
      assert.deepEqual(await Promise.all(gets), ['v', 'v', 'v'])
      assert.equal(calls, 1)
      assert.equal(cache.peek('k'), 'v')
    })
  })

  it('a failed load is not stored, reaches every waiting get, and the next get loads again', async () => {
    await withNotifications(async (notifications) => {
      const cache = cacheOf<string>(freshChannel())
      await cache.listen(notifications)
      const failing = deferred<string>()
      const gets = [cache.get('k', () => failing.promise), cache.get('k', () => failing.promise)]
      failing.reject(new Error('database down'))
      for (const get of gets) await assert.rejects(get, /database down/)
      assert.equal(cache.peek('k'), undefined)
      assert.equal(await cache.get('k', async () => 'v'), 'v')
    })
  })

  it('a value keep rejects is not stored', async () => {
    await withNotifications(async (notifications) => {
      const cache = cacheOf<string | null>(freshChannel(), { keep: (value) => value !== null })
      await cache.listen(notifications)
      const missing = counter<string | null>(null)
      assert.equal(await cache.get('unknown', missing.load), null)
      assert.equal(await cache.get('unknown', missing.load), null)
      assert.equal(missing.calls, 2)
      const known = counter<string | null>('v')
      await cache.get('known', known.load)
      await cache.get('known', known.load)
      assert.equal(known.calls, 1)
    })
  })

  it('an entry older than ttlMs is loaded again', async () => {
    await withNotifications(async (notifications) => {
      const clock = createManualClock(1_000_000)
      const cache = cacheOf<string>(freshChannel(), { ttlMs: 60_000, clock })
      await cache.listen(notifications)
      const source = counter('v1')
      await cache.get('k', source.load)
      clock.advance(59_999)
      assert.equal(cache.peek('k'), 'v1')
      source.value = 'v2'
      clock.advance(1)
      assert.equal(cache.peek('k'), undefined)
      assert.equal(await cache.get('k', source.load), 'v2')
      assert.equal(source.calls, 2)
    })
  })

  it('an entry past its TTL answers as the last known value when reloading finds the database unreachable', async () => {
    await withNotifications(async (notifications) => {
      const clock = createManualClock(1_000_000)
      const cache = cacheOf<string>(freshChannel(), { ttlMs: 60_000, clock })
      await cache.listen(notifications)
      await cache.get('k', async () => 'v1')
      clock.advance(60_000)
      const unreachable = async (): Promise<string> => {
        throw new DatabaseUnavailableError('connection refused')
      }
      const before = await staleAnswersOf('test')
      assert.equal(await cache.get('k', unreachable), 'v1')
      assert.equal(await staleAnswersOf('test'), before + 1, 'counted in curio_cache_stale_answers_total')
      assert.equal(cache.peek('k'), undefined, 'a last known value answers, but is not stored as fresh')
      // Once the database has not been found away for a while, a load is waited for again; any failure
      // other than an unreachable database is the caller's to see.
      clock.advance(5000)
      await assert.rejects(
        cache.get('k', async () => {
          throw new Error('a bug in the loader')
        }),
        /a bug in the loader/,
      )
      // A key never loaded has no last known value.
      await assert.rejects(cache.get('other', unreachable), DatabaseUnavailableError)
      // That failure says the database is away again: k answers its last value at once, and the load that
      // runs meanwhile stores what the database answers.
      assert.equal(await cache.get('k', async () => 'v2'), 'v1')
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(cache.peek('k'), 'v2')
    })
  })

  it('once the database is found away, last known values answer at once while one load tries again', async () => {
    await withNotifications(async (notifications) => {
      const clock = createManualClock(0)
      const cache = cacheOf<string>(freshChannel(), { ttlMs: 1000, clock })
      await cache.listen(notifications)
      await cache.get('k', async () => 'v1')
      clock.advance(1000)
      const unreachable = async (): Promise<string> => {
        throw new DatabaseUnavailableError('no connection within the connect timeout')
      }
      assert.equal(await cache.get('k', unreachable), 'v1')
      // A load that would wait out the connect timeout: the reads meanwhile do not wait for it.
      const retry = deferred<string>()
      let tries = 0
      const slow = () => {
        tries++
        return retry.promise
      }
      assert.equal(await cache.get('k', slow), 'v1')
      assert.equal(await cache.get('k', slow), 'v1')
      assert.equal(tries, 1, 'one load at a time tries the database again')
      retry.resolve('v2')
      await retry.promise
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(cache.peek('k'), 'v2', 'the database answered again: its value is stored')
    })
  })

  it('an invalidated entry is never answered as the last known value', async () => {
    await withNotifications(async (notifications) => {
      const channel = freshChannel()
      const heard = await probe(notifications, channel)
      const clock = createManualClock(0)
      const cache = cacheOf<string>(channel, { ttlMs: 1000, clock })
      await cache.listen(notifications)
      await cache.get('k', async () => 'v1')
      await cache.get('j', async () => 'j1')
      clock.advance(1000)
      assert.equal(cache.peek('k'), undefined, 'k is past its TTL: kept only as the last known value')
      await notifyAndWait(heard, channel, 'changed')
      const unreachable = async (): Promise<string> => {
        throw new DatabaseUnavailableError('connection refused')
      }
      await assert.rejects(cache.get('k', unreachable), DatabaseUnavailableError)
      await cache.get('j', async () => 'j2')
      cache.delete('j')
      await assert.rejects(cache.get('j', unreachable), DatabaseUnavailableError)
    })
  })

  it('past maxEntries the oldest entry goes first', async () => {
    await withNotifications(async (notifications) => {
      const cache = cacheOf<string>(freshChannel(), { maxEntries: 2 })
      await cache.listen(notifications)
      await cache.get('a', async () => 'A')
      await cache.get('b', async () => 'B')
      await cache.get('c', async () => 'C')
      assert.equal(cache.peek('a'), undefined)
      assert.equal(cache.peek('b'), 'B')
      assert.equal(cache.peek('c'), 'C')
      await cache.get('d', async () => 'D')
      assert.equal(cache.peek('b'), undefined)
      assert.equal(cache.peek('c'), 'C')
      assert.equal(cache.peek('d'), 'D')
    })
  })

  it('past maxSize the oldest entries go until a new one fits; one larger than the bound is not kept', async () => {
    await withNotifications(async (notifications) => {
      const cache = cacheOf<string>(freshChannel(), {
        maxSize: { total: 10, sizeOf: (value) => value.length },
      })
      await cache.listen(notifications)
      await cache.get('a', async () => 'aaaa')
      await cache.get('b', async () => 'bbb')
      await cache.get('c', async () => 'ccc')
      assert.deepEqual(
        ['a', 'b', 'c'].map((key) => cache.peek(key)),
        ['aaaa', 'bbb', 'ccc'],
      )
      await cache.get('d', async () => 'dddddd')
      assert.deepEqual(
        ['a', 'b', 'c', 'd'].map((key) => cache.peek(key)),
        [undefined, undefined, 'ccc', 'dddddd'],
      )
      const source = counter('x'.repeat(11))
      assert.equal(await cache.get('big', source.load), source.value, 'answered all the same')
      assert.equal(cache.peek('big'), undefined)
      assert.equal(cache.peek('c'), 'ccc', 'nothing made room for it')
      await cache.get('big', source.load)
      assert.equal(source.calls, 2)
    })
  })

  it('last known values keep within maxSize too', async () => {
    await withNotifications(async (notifications) => {
      const clock = createManualClock(0)
      const sizes = { total: 6, sizeOf: (value: string) => value.length }
      const cache = cacheOf<string>(freshChannel(), { clock, ttlMs: 1000, maxSize: sizes })
      await cache.listen(notifications)
      await cache.get('a', async () => 'aaa')
      await cache.get('b', async () => 'bbb')
      clock.advance(1000)
      // Past their TTL both become last known values, in the order they expire.
      assert.equal(cache.peek('a'), undefined)
      assert.equal(cache.peek('b'), undefined)
      await cache.get('c', async () => 'cc')
      clock.advance(1000)
      assert.equal(cache.peek('c'), undefined)
      const unreachable = async (): Promise<string> => {
        throw new DatabaseUnavailableError('connection refused')
      }
      await assert.rejects(cache.get('a', unreachable), DatabaseUnavailableError, 'a made room for c')
      assert.equal(await cache.get('b', unreachable), 'bbb')
      assert.equal(await cache.get('c', unreachable), 'cc')
    })
  })

  it('one notification clears the caches of two instances on the channel', async () => {
    await withNotifications((first) =>
      withNotifications(async (second) => {
        const channel = freshChannel()
        const heardByFirst = await probe(first, channel)
        const heardBySecond = await probe(second, channel)
        const caches = [cacheOf<string>(channel), cacheOf<string>(channel)]
        await caches[0]!.listen(first)
        await caches[1]!.listen(second)
        for (const cache of caches) await cache.get('k', async () => 'v')
        const arrivals = [heardByFirst.next(), heardBySecond.next()]
        await notify(databases.platform.db, channel, 'changed')
        assert.deepEqual(await Promise.all(arrivals), ['changed', 'changed'])
        assert.equal(caches[0]!.peek('k'), undefined)
        assert.equal(caches[1]!.peek('k'), undefined)
      }),
    )
  })

  // Only a server connection can drop; the embedded database lives in this process.
  describe('on a Postgres server', NEEDS_POSTGRES, () => {
    it('while the listen connection is down the cache is off, and on again once it is back', async () => {
      await withNotifications(async (notifications) => {
        const channel = freshChannel()
        const heard = await probe(notifications, channel)
        const cache = cacheOf<string>(channel)
        await cache.listen(notifications)
        const source = counter('v1')
        await cache.get('k', source.load)
        assert.equal(cache.peek('k'), 'v1')

        const lost = heard.lost()
        const back = heard.reconnected()
        await databases.platform.db.execute(sql`
          select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and application_name = 'curio-listen'
            and query ilike ${`listen%${channel}%`}`)
        await lost
        assert.equal(cache.active, false)
        assert.equal(cache.peek('k'), undefined)
        source.value = 'v2'
        assert.equal(await cache.get('k', source.load), 'v2')
        assert.equal(await cache.get('k', source.load), 'v2')
        assert.equal(source.calls, 3)
        assert.equal(cache.peek('k'), undefined)

        // The database cannot be reached to load it again: the last value read before the drop answers.
        const unreachable = async (): Promise<string> => {
          throw new DatabaseUnavailableError('connection refused')
        }
        assert.equal(await cache.get('k', unreachable), 'v1')

        await back
        assert.equal(cache.active, true)
        // Back: the cache starts over, and nothing from before the drop answers any more.
        await assert.rejects(cache.get('k', unreachable), DatabaseUnavailableError)
        await cache.get('k', source.load)
        await cache.get('k', source.load)
        assert.equal(source.calls, 4)
        await notifyAndWait(heard, channel, 'changed')
        assert.equal(cache.peek('k'), undefined)
      })
    })

    it('a cache that starts listening while the connection is down stays off until it is back', async () => {
      await withNotifications(async (notifications) => {
        const channel = freshChannel()
        const heard = await probe(notifications, channel)
        const lost = heard.lost()
        const back = heard.reconnected()
        await databases.platform.db.execute(sql`
            select pg_terminate_backend(pid) from pg_stat_activity
            where datname = current_database() and application_name = 'curio-listen'
              and query ilike ${`listen%${channel}%`}`)
        await lost
        const cache = cacheOf<string>(freshChannel())
        await cache.listen(notifications)
        const active = cache.active
        await back
        assert.equal(active, false, 'on while no notification could reach it')
      })
    })
  })
})
