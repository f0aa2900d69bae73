import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { after, before, describe, mock, type TestContext, test } from 'node:test'
import { Redis } from 'ioredis'
import { loadConfig } from '../../src/config.ts'
import { createManualClock, type ManualClock } from '../../src/lib/clock.ts'
import { createLogger } from '../../src/lib/logger.ts'
import {
  createFailoverRateLimitStore,
  createMemoryRateLimitStore,
  createRateLimiter,
  createRedisClient,
  createRedisRateLimitStore,
  FAILOVER_RETRY_AFTER_MS,
  PURGE_INTERVAL_MS,
  type RateLimiter,
  type RateLimitResult,
  type RateLimitStore,
} from '../../src/lib/rate-limiter.ts'
import { createRateLimiterFor } from '../../src/runtime.ts'
import { NEEDS_REDIS, TEST_REDIS_URL } from '../helpers/database.ts'

// Far from real time on purpose: the Redis store must not depend on the server's clock.
const START = Date.UTC(2031, 0, 1)
const SIGNIN = { limit: 5, windowMs: 15 * 60_000 }

type StoreFactory = (t: TestContext) => Promise<RateLimitStore>

function describeStoreBehaviour(name: string, makeStore: StoreFactory) {
  describe(name, () => {
    async function setup(t: TestContext) {
      const clock = createManualClock(START)
      const store = await makeStore(t)
      const limiter = createRateLimiter({ store, clock })
      t.after(() => limiter.close())
      return { clock, store, limiter }
    }

    test('first request starts a window with remaining limit - 1', async (t) => {
      const { limiter } = await setup(t)
      assert.deepEqual(await limiter.check('ip:signin', SIGNIN), {
        success: true,
        limit: 5,
        remaining: 4,
        resetTime: START + SIGNIN.windowMs,
      })
    })

    test('requests up to the limit succeed, the next is denied with retryAfter rounded up', async (t) => {
      const { clock, limiter } = await setup(t)
      for (let expected = 4; expected >= 0; expected--) {
        const result = await limiter.check('ip:signin', SIGNIN)
        assert.equal(result.success, true)
        assert.equal(result.remaining, expected)
      }
      const resetTime = START + SIGNIN.windowMs
      assert.deepEqual(await limiter.check('ip:signin', SIGNIN), {
        success: false,
        limit: 5,
        remaining: 0,
        resetTime,
        retryAfter: 900,
      })
      clock.advance(1)
      assert.equal(await retryAfterOf(limiter.check('ip:signin', SIGNIN)), 900)
      clock.advance(899_001) // 998 ms left
      assert.equal(await retryAfterOf(limiter.check('ip:signin', SIGNIN)), 1)
      clock.advance(997) // 1 ms left
      assert.equal(await retryAfterOf(limiter.check('ip:signin', SIGNIN)), 1)
    })

    test('denied requests neither count nor extend the window', async (t) => {
      const { clock, store, limiter } = await setup(t)
      for (let i = 0; i < 5; i++) await limiter.check('ip:signin', SIGNIN)
      for (let i = 0; i < 3; i++) {
        clock.advance(60_000)
        const denied = await limiter.check('ip:signin', SIGNIN)
        assert.equal(denied.success, false)
        assert.equal(denied.resetTime, START + SIGNIN.windowMs)
      }
      assert.deepEqual(await store.peek('ip:signin', clock.nowMs()), {
        count: 5,
        resetTime: START + SIGNIN.windowMs,
      })
    })

    test('a request at resetTime exactly starts a new window', async (t) => {
      const { clock, limiter } = await setup(t)
      for (let i = 0; i < 6; i++) await limiter.check('ip:signin', SIGNIN)
      clock.advance(SIGNIN.windowMs - 1)
      assert.equal((await limiter.check('ip:signin', SIGNIN)).success, false)
      clock.advance(1)
      assert.deepEqual(await limiter.check('ip:signin', SIGNIN), {
        success: true,
        limit: 5,
        remaining: 4,
        resetTime: START + 2 * SIGNIN.windowMs,
      })
    })

    test('status reads the window without counting', async (t) => {
      const { limiter } = await setup(t)
      await limiter.check('ip:signin', SIGNIN)
      await limiter.check('ip:signin', SIGNIN)
      const expected = { remaining: 3, resetTime: START + SIGNIN.windowMs }
      assert.deepEqual(await limiter.status('ip:signin', SIGNIN), expected)
      assert.deepEqual(await limiter.status('ip:signin', SIGNIN), expected)
      assert.equal((await limiter.check('ip:signin', SIGNIN)).remaining, 2)
    })

    test('status without a live window has full remaining and null resetTime', async (t) => {
      const { clock, limiter } = await setup(t)
      assert.deepEqual(await limiter.status('ip:signin', SIGNIN), { remaining: 5, resetTime: null })
      await limiter.check('ip:signin', SIGNIN)
      clock.advance(SIGNIN.windowMs)
      assert.deepEqual(await limiter.status('ip:signin', SIGNIN), { remaining: 5, resetTime: null })
    })

    test('status of an exhausted window has remaining 0', async (t) => {
      const { limiter } = await setup(t)
      for (let i = 0; i < 7; i++) await limiter.check('ip:signin', SIGNIN)
      assert.deepEqual(await limiter.status('ip:signin', SIGNIN), {
        remaining: 0,
        resetTime: START + SIGNIN.windowMs,
      })
    })

    test('reset clears a key so the next request starts a new window', async (t) => {
      const { clock, limiter } = await setup(t)
      for (let i = 0; i < 6; i++) await limiter.check('ip:signin', SIGNIN)
      clock.advance(1000)
      await limiter.reset('ip:signin')
      assert.deepEqual(await limiter.status('ip:signin', SIGNIN), { remaining: 5, resetTime: null })
      const result = await limiter.check('ip:signin', SIGNIN)
      assert.equal(result.success, true)
      assert.equal(result.remaining, 4)
      assert.equal(result.resetTime, START + 1000 + SIGNIN.windowMs)
    })

    test('keys are counted independently', async (t) => {
      const { limiter } = await setup(t)
      const comments = { limit: 2, windowMs: 60_000 }
      await limiter.check('1.1.1.1:comments', comments)
      await limiter.check('1.1.1.1:comments', comments)
      assert.equal((await limiter.check('1.1.1.1:comments', comments)).success, false)
      const other = await limiter.check('2.2.2.2:comments', comments)
      assert.equal(other.success, true)
      assert.equal(other.remaining, 1)
      assert.equal((await limiter.check('1.1.1.1:signin', SIGNIN)).remaining, 4)
    })

    test('purge keeps live windows and leaves expired ones absent', async (t) => {
      const { clock, limiter } = await setup(t)
      await limiter.check('short', { limit: 3, windowMs: 60_000 })
      await limiter.check('long', SIGNIN)
      clock.advance(60_000)
      await limiter.purge()
      assert.deepEqual(await limiter.status('short', { limit: 3, windowMs: 60_000 }), {
        remaining: 3,
        resetTime: null,
      })
      assert.deepEqual(await limiter.status('long', SIGNIN), {
        remaining: 4,
        resetTime: START + SIGNIN.windowMs,
      })
    })
  })
}

async function retryAfterOf(pending: Promise<RateLimitResult>) {
  const result = await pending
  assert.equal(result.success, false)
  return result.retryAfter
}

describeStoreBehaviour('memory rate-limit store', async () => createMemoryRateLimitStore())

describe('memory rate-limit store purging', () => {
  test('purge removes only windows whose resetTime has passed', async () => {
    const store = createMemoryRateLimitStore()
    await store.hit('a', { limit: 5, windowMs: 1000 }, START)
    await store.hit('b', { limit: 5, windowMs: 2000 }, START)
    await store.hit('c', { limit: 5, windowMs: 3000 }, START)
    assert.equal(await store.purge(START + 999), 0)
    assert.equal(await store.purge(START + 2000), 2)
    assert.equal(store.size(), 1)
    assert.deepEqual(await store.peek('c', START + 2000), { count: 1, resetTime: START + 3000 })
  })

  test('the limiter purges expired windows every 5 minutes', async (t) => {
    mock.timers.enable({ apis: ['setInterval'] })
    t.after(() => mock.timers.reset())
    const clock = createManualClock(START)
    const store = createMemoryRateLimitStore()
    const limiter = createRateLimiter({ store, clock })
    t.after(() => limiter.close())
    await limiter.check('expires', { limit: 5, windowMs: 60_000 })
    await limiter.check('stays', { limit: 5, windowMs: 10 * 60_000 })
    clock.advance(PURGE_INTERVAL_MS)
    mock.timers.tick(PURGE_INTERVAL_MS - 1)
    assert.equal(store.size(), 2)
    mock.timers.tick(1)
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(store.size(), 1)
    assert.notEqual(await store.peek('stays', clock.nowMs()), null)
  })

  test('a full store evicts its oldest window for a new one', async () => {
    const store = createMemoryRateLimitStore({ maxWindows: 3 })
    const rule = { limit: 1, windowMs: 60_000 }
    for (const key of ['a', 'b', 'c']) await store.hit(key, rule, START)
    assert.equal((await store.hit('b', rule, START + 1)).allowed, false, 'a window that exists is counted')
    await store.hit('d', rule, START + 2)
    assert.equal(store.size(), 3)
    assert.equal(await store.peek('a', START + 2), null)
    for (const key of ['b', 'c', 'd']) assert.notEqual(await store.peek(key, START + 2), null, key)
    assert.equal((await store.hit('b', rule, START + 3)).allowed, false, 'b keeps its count')
  })

  test('a full store sweeps expired windows before it evicts a live one', async () => {
    const store = createMemoryRateLimitStore({ maxWindows: 2 })
    await store.hit('short', { limit: 5, windowMs: 1000 }, START)
    await store.hit('long', { limit: 5, windowMs: 60_000 }, START)
    await store.hit('new', { limit: 5, windowMs: 1000 }, START + 1000)
    assert.equal(store.size(), 2)
    assert.notEqual(await store.peek('long', START + 1000), null)
    assert.notEqual(await store.peek('new', START + 1000), null)
  })

  test('a renewed window counts as the newest when the store is full', async () => {
    const store = createMemoryRateLimitStore({ maxWindows: 2 })
    await store.hit('a', { limit: 5, windowMs: 1000 }, START)
    await store.hit('b', { limit: 5, windowMs: 60_000 }, START)
    await store.hit('a', { limit: 5, windowMs: 1000 }, START + 1500)
    await store.hit('c', { limit: 5, windowMs: 1000 }, START + 1500)
    assert.equal(await store.peek('b', START + 1500), null, 'b started first: it goes')
    assert.deepEqual(await store.peek('a', START + 1500), { count: 1, resetTime: START + 2500 })
  })

  test('close stops the purge timer', async (t) => {
    mock.timers.enable({ apis: ['setInterval'] })
    t.after(() => mock.timers.reset())
    const clock = createManualClock(START)
    const store = createMemoryRateLimitStore()
    const purge = mock.method(store, 'purge')
    const limiter = createRateLimiter({ store, clock })
    await limiter.close()
    mock.timers.tick(3 * PURGE_INTERVAL_MS)
    assert.equal(purge.mock.callCount(), 0)
  })
})

function captureLog() {
  const lines: { level: number; msg: string }[] = []
  const log = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) })
  const count = (level: 'warn' | 'info') =>
    lines.filter((line) => line.level === log.levels.values[level]).length
  return { log, lines, count }
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  assert.ok(address && typeof address === 'object')
  return address.port
}

/** A loopback port that was just free: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer()
  const port = await listen(server)
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function expectLimitedFromMemory(limiter: RateLimiter, clock: ManualClock, key: string) {
  for (let expected = 4; expected >= 0; expected--) {
    const result = await limiter.check(key, SIGNIN)
    assert.equal(result.success, true)
    assert.equal(result.remaining, expected)
  }
  assert.deepEqual(await limiter.check(key, SIGNIN), {
    success: false,
    limit: 5,
    remaining: 0,
    resetTime: clock.nowMs() + SIGNIN.windowMs,
    retryAfter: 900,
  })
}

describe('failover rate-limit store', () => {
  function unavailable(store: RateLimitStore) {
    return mock.method(store, 'hit', async () => {
      throw new Error('connect ECONNREFUSED redis://:hunter2@10.0.0.5:6379')
    })
  }

  test('a failing shared store is retried at most once per retry interval', async (t) => {
    const clock = createManualClock(START)
    const primary = createMemoryRateLimitStore()
    const hit = unavailable(primary)
    const { log, count } = captureLog()
    const store = createFailoverRateLimitStore({
      primary,
      fallback: createMemoryRateLimitStore(),
      log,
      clock,
    })
    t.after(() => store.close())
    for (let i = 0; i < 4; i++) await store.hit('k', SIGNIN, clock.nowMs())
    assert.equal(hit.mock.callCount(), 1)
    clock.advance(FAILOVER_RETRY_AFTER_MS - 1)
    await store.hit('k', SIGNIN, clock.nowMs())
    assert.equal(hit.mock.callCount(), 1)
    clock.advance(1)
    await store.hit('k', SIGNIN, clock.nowMs())
    await store.hit('k', SIGNIN, clock.nowMs())
    assert.equal(hit.mock.callCount(), 2)
    assert.equal(count('warn'), 1)
    assert.deepEqual(store.health(), {
      backend: 'memory',
      degradedSince: START,
      lastError: 'connect ECONNREFUSED [url]',
    })
  })

  test('memory windows outlive a recovery so a flapping outage cannot reset a count', async (t) => {
    const clock = createManualClock(START)
    const primary = createMemoryRateLimitStore()
    const fallback = createMemoryRateLimitStore()
    const { log, count } = captureLog()
    const store = createFailoverRateLimitStore({ primary, fallback, log, clock, retryAfterMs: 1000 })
    const limiter = createRateLimiter({ store, clock })
    t.after(() => limiter.close())
    const outage = unavailable(primary)
    await expectLimitedFromMemory(limiter, clock, 'ip:signin')
    outage.mock.restore()
    clock.advance(1000)
    assert.equal((await limiter.check('ip:signin', SIGNIN)).remaining, 4)
    assert.deepEqual(limiter.health(), { backend: 'redis' })
    assert.equal(count('info'), 1)
    unavailable(primary)
    assert.equal((await limiter.check('ip:signin', SIGNIN)).success, false)
    assert.equal(count('warn'), 2)
  })

  test('purge sweeps both stores and close closes both', async () => {
    const primary = createMemoryRateLimitStore()
    const fallback = createMemoryRateLimitStore()
    const store = createFailoverRateLimitStore({ primary, fallback, log: captureLog().log })
    await primary.hit('a', { limit: 5, windowMs: 1000 }, START)
    await fallback.hit('b', { limit: 5, windowMs: 1000 }, START)
    await fallback.hit('c', { limit: 5, windowMs: 5000 }, START)
    assert.equal(await store.purge(START + 1000), 2)
    await store.close()
    assert.equal(primary.size() + fallback.size(), 0)
  })

  test('a limiter over a store without health reports memory', async (t) => {
    const store = createMemoryRateLimitStore()
    const limiter = createRateLimiter({
      store: { ...store, health: undefined },
      clock: createManualClock(START),
    })
    t.after(() => limiter.close())
    assert.deepEqual(limiter.health(), { backend: 'memory' })
  })

  test('with Redis unreachable from the start, limits hold from memory and one warning is logged', async (t) => {
    const clock = createManualClock(START)
    const clientLog = captureLog()
    const storeLog = captureLog()
    const client = await createRedisClient(`redis://127.0.0.1:${await closedPort()}`, {
      log: clientLog.log,
      maxReconnectDelayMs: 20,
    })
    const store = createFailoverRateLimitStore({
      primary: createRedisRateLimitStore(client, { ownsConnection: true }),
      fallback: createMemoryRateLimitStore(),
      log: storeLog.log,
      clock,
    })
    const limiter = createRateLimiter({ store, clock })
    t.after(() => limiter.close())
    await expectLimitedFromMemory(limiter, clock, 'ip:signin')
    for (let probe = 0; probe < 3; probe++) {
      clock.advance(FAILOVER_RETRY_AFTER_MS)
      assert.equal((await limiter.check('ip:signin', SIGNIN)).success, false)
      await once(client, 'error')
    }
    const health = limiter.health()
    assert.equal(health.backend, 'memory')
    assert.equal(health.degradedSince, START)
    assert.equal(typeof health.lastError, 'string')
    assert.equal(storeLog.count('warn'), 1)
    assert.equal(clientLog.count('warn'), 1)
  })
})

const redisUrl = TEST_REDIS_URL ?? ''

describe('on Redis', NEEDS_REDIS, () => {
  let redis: Redis
  before(() => {
    redis = new Redis(redisUrl)
  })
  after(() => redis.quit())

  async function deleteKeys(prefix: string) {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
  }

  function uniquePrefix(t: TestContext) {
    const prefix = `curio:test:rl:${randomUUID()}:`
    t.after(() => deleteKeys(prefix))
    return prefix
  }

  describeStoreBehaviour('redis rate-limit store', async (t) =>
    createRedisRateLimitStore(redis, { prefix: uniquePrefix(t) }),
  )

  describe('redis rate-limit store across instances', () => {
    test('two limiters on separate connections share one window', async (t) => {
      const prefix = uniquePrefix(t)
      const clock = createManualClock(START)
      const a = createRateLimiter({
        store: createRedisRateLimitStore(new Redis(redisUrl), { prefix, ownsConnection: true }),
        clock,
      })
      const b = createRateLimiter({
        store: createRedisRateLimitStore(new Redis(redisUrl), { prefix, ownsConnection: true }),
        clock,
      })
      t.after(async () => {
        await a.close()
        await b.close()
      })
      for (let expected = 4; expected >= 2; expected--) {
        assert.equal((await a.check('ip:signin', SIGNIN)).remaining, expected)
      }
      assert.deepEqual(await b.check('ip:signin', SIGNIN), {
        success: true,
        limit: 5,
        remaining: 1,
        resetTime: START + SIGNIN.windowMs,
      })
      assert.equal((await b.check('ip:signin', SIGNIN)).remaining, 0)
      assert.equal((await b.check('ip:signin', SIGNIN)).success, false)
      assert.deepEqual(await a.status('ip:signin', SIGNIN), {
        remaining: 0,
        resetTime: START + SIGNIN.windowMs,
      })
    })

    test('windows carry a relative TTL and purge is a no-op', async (t) => {
      const prefix = uniquePrefix(t)
      const store = createRedisRateLimitStore(redis, { prefix })
      await store.hit('ip:signin', SIGNIN, START)
      const ttl = await redis.pttl(`${prefix}ip:signin`)
      assert.ok(ttl > 0 && ttl <= SIGNIN.windowMs, `ttl ${ttl}`)
      assert.equal(await store.purge(START + SIGNIN.windowMs), 0)
    })

    test('default prefix is curio:rl:', async (t) => {
      const key = `${randomUUID()}:signin`
      t.after(() => redis.del(`curio:rl:${key}`))
      await createRedisRateLimitStore(redis).hit(key, SIGNIN, START)
      assert.equal(await redis.exists(`curio:rl:${key}`), 1)
    })
  })

  describe('REDIS_KEY_PREFIX', () => {
    test('a process keys its windows <REDIS_KEY_PREFIX>rl:…, and a deployment with another prefix counts apart', async (t) => {
      const [mine, theirs] = [uniquePrefix(t), uniquePrefix(t)]
      const clock = createManualClock(START)
      const limiterOf = (prefix: string) =>
        createRateLimiterFor(
          loadConfig({ REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix }),
          clock,
          createLogger('silent'),
        )
      const [a, b] = [await limiterOf(mine), await limiterOf(theirs)]
      t.after(async () => {
        await a.close()
        await b.close()
      })
      for (let n = 0; n < SIGNIN.limit; n++) await a.check('ip:signin', SIGNIN)
      assert.equal((await a.check('ip:signin', SIGNIN)).success, false)
      assert.deepEqual(a.health(), { backend: 'redis' })
      assert.deepEqual(await redis.keys(`${mine}*`), [`${mine}rl:ip:signin`])
      assert.equal((await b.check('ip:signin', SIGNIN)).remaining, SIGNIN.limit - 1)
      assert.deepEqual(await redis.keys(`${theirs}*`), [`${theirs}rl:ip:signin`])
    })
  })

  /** A loopback TCP proxy in front of the test Redis that a test can cut, hang and restore. */
  const target = new URL(redisUrl)
  async function startProxy() {
    let mode: 'forward' | 'cut' | 'hang' = 'forward'
    const sockets = new Set<Socket>()
    function track(socket: Socket, peer: () => Socket) {
      sockets.add(socket)
      socket.on('data', (chunk) => peer().write(chunk))
      socket.on('error', () => socket.destroy())
      socket.on('close', () => {
        sockets.delete(socket)
        peer().destroy()
      })
      if (mode === 'hang') socket.pause()
    }
    const server = createServer((downstream) => {
      if (mode === 'cut') {
        downstream.destroy()
        return
      }
      const upstream = connect(Number(target.port || 6379), target.hostname)
      track(downstream, () => upstream)
      track(upstream, () => downstream)
    })
    const url = new URL(target)
    url.hostname = '127.0.0.1'
    url.port = String(await listen(server))
    const proxy = {
      url: url.toString(),
      cut() {
        mode = 'cut'
        for (const socket of sockets) socket.destroy()
      },
      /** Connections stay open and nothing moves: a partition, not a refusal. */
      hang() {
        mode = 'hang'
        for (const socket of sockets) socket.pause()
      },
      restore() {
        mode = 'forward'
        for (const socket of sockets) socket.resume()
      },
      async close() {
        for (const socket of sockets) socket.destroy()
        await new Promise((resolve) => server.close(resolve))
      },
    }
    return proxy
  }

  describe('failover rate-limit store over Redis', () => {
    async function setup(t: TestContext, clientOptions: { commandTimeoutMs?: number } = {}) {
      const prefix = uniquePrefix(t)
      const proxy = await startProxy()
      const clock = createManualClock(START)
      const clientLog = captureLog()
      const storeLog = captureLog()
      const client = await createRedisClient(proxy.url, {
        log: clientLog.log,
        maxReconnectDelayMs: 20,
        ...clientOptions,
      })
      const store = createFailoverRateLimitStore({
        primary: createRedisRateLimitStore(client, { prefix, ownsConnection: true }),
        fallback: createMemoryRateLimitStore(),
        log: storeLog.log,
        clock,
      })
      const limiter = createRateLimiter({ store, clock })
      t.after(async () => {
        await limiter.close()
        await proxy.close()
      })
      await client.connect()
      const redisCount = () => redis.hget(`${prefix}ip:signin`, 'count')
      return { proxy, clock, client, limiter, storeLog, redisCount }
    }

    test('cut off from Redis, calls stay limited from memory and return to Redis after recovery', async (t) => {
      const { proxy, clock, client, limiter, storeLog, redisCount } = await setup(t)
      for (let expected = 4; expected >= 2; expected--) {
        assert.equal((await limiter.check('ip:signin', SIGNIN)).remaining, expected)
      }
      assert.equal(await redisCount(), '3')
      assert.deepEqual(limiter.health(), { backend: 'redis' })

      const closed = once(client, 'close')
      proxy.cut()
      await closed
      await expectLimitedFromMemory(limiter, clock, 'ip:signin')
      assert.equal(limiter.health().backend, 'memory')
      assert.equal(limiter.health().degradedSince, START)

      const ready = once(client, 'ready')
      proxy.restore()
      await ready
      assert.equal((await limiter.check('ip:signin', SIGNIN)).success, false)
      assert.equal(await redisCount(), '3')
      clock.advance(FAILOVER_RETRY_AFTER_MS)
      assert.equal((await limiter.check('ip:signin', SIGNIN)).remaining, 1)
      assert.equal(await redisCount(), '4')
      assert.deepEqual(limiter.health(), { backend: 'redis' })
      assert.equal(storeLog.count('warn'), 1)
      assert.equal(storeLog.count('info'), 1)
    })

    test('a hanging Redis fails over within the command timeout instead of hanging the request', async (t) => {
      const { proxy, limiter } = await setup(t, { commandTimeoutMs: 200 })
      assert.equal((await limiter.check('ip:signin', SIGNIN)).remaining, 4)
      proxy.hang()
      // The request is answered from memory, and the reason is Redis' command timeout, not another failure.
      const result = await limiter.check('ip:signin', SIGNIN)
      assert.equal(result.remaining, 4)
      assert.equal(limiter.health().backend, 'memory')
      assert.match(limiter.health().lastError ?? '', /timed out/i)
    })
  })
})
