import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createLinkChecker } from '../../src/directory/links/checker.ts'
import { createPoliteness, type Timer } from '../../src/directory/links/politeness.ts'
import type { AddressPolicy } from '../../src/lib/safe-http.ts'
import { closedPort, type LinkTarget, startLinkTarget } from '../fakes/link-target.ts'

let site: LinkTarget

before(async () => {
  site = await startLinkTarget()
})
after(() => site.close())

const checkerFor = (policy: AddressPolicy = { allowPrivate: true, allowed: [] }, timeoutMs = 300) =>
  createLinkChecker({
    timeoutMs,
    policy,
    userAgent: 'Curio-LinkChecker/test (+http://localhost:3001)',
    politeness: createPoliteness({ perHost: 2, delayMs: 0, concurrency: 10 }),
  })

describe('one link check against a local site', () => {
  const checker = checkerFor()

  it('a 200 is ok, asked with HEAD alone, with the checker’s user agent', async () => {
    const before = site.calls('/ok')
    assert.deepEqual(await checker.check(site.url('/ok')), {
      ok: true,
      status: 'ok',
      httpStatus: 200,
      finalUrl: null,
    })
    assert.equal(site.calls('/ok') - before, 1)
    const last = site.requests.at(-1)
    assert.equal(last?.method, 'HEAD')
    assert.equal(last?.userAgent, 'Curio-LinkChecker/test (+http://localhost:3001)')
  })

  it('a HEAD answered 405 is asked again with GET', async () => {
    assert.deepEqual(await checker.check(site.url('/head-405')), {
      ok: true,
      status: 'ok',
      httpStatus: 200,
      finalUrl: null,
    })
    assert.deepEqual(
      site.requests.filter((request) => request.path === '/head-405').map((request) => request.method),
      ['HEAD', 'GET'],
    )
  })

  it('a chain of 301, 302, 307 and 308 to a 200 is redirected, with where it led; 5 hops are allowed', async () => {
    assert.deepEqual(await checker.check(site.url('/redirect/3')), {
      ok: true,
      status: 'redirected',
      httpStatus: 200,
      finalUrl: site.url('/redirect/0'),
    })
    const five = await checker.check(site.url('/redirect/5'))
    assert.equal(five.ok && five.status, 'redirected')
  })

  it('a sixth redirect, and a redirect loop, fail as too many redirects', async () => {
    const six = await checker.check(site.url('/redirect/6'))
    assert.deepEqual(six, {
      ok: false,
      httpStatus: 302,
      finalUrl: site.url('/redirect/1'),
      reason: 'too many redirects (more than 5)',
    })
    const before = site.calls('/loop')
    const loop = await checker.check(site.url('/loop'))
    assert.equal(!loop.ok && loop.reason, 'too many redirects (more than 5)')
    assert.equal(site.calls('/loop') - before, 6, 'the first request and five redirects')
  })

  it('a 404 and a 500 fail with their status, after a GET', async () => {
    assert.deepEqual(await checker.check(site.url('/404')), {
      ok: false,
      httpStatus: 404,
      finalUrl: null,
      reason: 'HTTP 404',
    })
    assert.deepEqual(await checker.check(site.url('/500')), {
      ok: false,
      httpStatus: 500,
      finalUrl: null,
      reason: 'HTTP 500',
    })
    assert.equal(site.calls('/500', 'GET'), 1, 'HEAD failed: GET asked')
  })

  it('a site that never answers times out, once (no GET after a timeout)', async () => {
    const started = performance.now()
    assert.deepEqual(await checker.check(site.url('/hang')), {
      ok: false,
      httpStatus: null,
      finalUrl: null,
      reason: 'timeout',
    })
    assert.ok(performance.now() - started < 2000)
    assert.equal(site.calls('/hang', 'GET'), 0)
  })

  it('a closed port is a refused connection; an unknown name a DNS failure', async () => {
    const port = await closedPort()
    const refused = await checker.check(`http://127.0.0.1:${port}/`)
    assert.deepEqual(refused, { ok: false, httpStatus: null, finalUrl: null, reason: 'connection refused' })
    const unknown = await createLinkChecker({
      timeoutMs: 1000,
      policy: { allowPrivate: true, allowed: [] },
      userAgent: 'test',
      politeness: createPoliteness({ perHost: 2, delayMs: 0, concurrency: 10 }),
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' })
      },
    }).check('http://nowhere.invalid/')
    assert.equal(unknown.ok, false)
    assert.match(!unknown.ok ? unknown.reason : '', /^DNS: nowhere\.invalid could not be resolved/)
  })

  it('a URL that is not one fails without a request', async () => {
    assert.deepEqual(await checker.check('not a url'), {
      ok: false,
      httpStatus: null,
      finalUrl: null,
      reason: 'not a valid URL',
    })
  })
})

describe('the address policy, each hop checked', () => {
  it('with private addresses refused, a redirect to the metadata address fails as blocked', async () => {
    // The site itself is allowed by name, as an operator allows a host; where it redirects is not.
    const strict = checkerFor({ allowPrivate: false, allowed: ['127.0.0.1'] })
    const outcome = await strict.check(site.url('/to-metadata'))
    assert.equal(outcome.ok, false)
    assert.equal(outcome.httpStatus, null)
    assert.equal(outcome.finalUrl, 'http://169.254.169.254/latest/meta-data/')
    assert.match(!outcome.ok ? outcome.reason : '', /^blocked address: 169\.254\.169\.254 .*cloud metadata/)
  })

  it('with private addresses refused, a loopback URL is not requested at all', async () => {
    const before = site.requests.length
    const outcome = await checkerFor({ allowPrivate: false, allowed: [] }).check(site.url('/ok'))
    assert.match(!outcome.ok ? outcome.reason : '', /^blocked address: .*loopback/)
    assert.equal(site.requests.length, before)
  })
})

/**
 * Virtual time: `sleep` resolves in order of wake time, each after everything already runnable has run;
 * `lateness` makes every timer fire that much late, as on a busy event loop.
 */
function virtualTimer(lateness = () => 0): Timer & { readonly elapsed: number } {
  let now = 0
  const sleepers: { wake: number; resolve: () => void }[] = []
  const drain = () =>
    setImmediate(() => {
      sleepers.sort((a, b) => a.wake - b.wake)
      const next = sleepers.shift()
      if (!next) return
      now = Math.max(now, next.wake)
      next.resolve()
      if (sleepers.length > 0) drain()
    })
  return {
    now: () => now,
    sleep(ms) {
      return new Promise((resolve) => {
        sleepers.push({ wake: now + ms + lateness(), resolve })
        if (sleepers.length === 1) drain()
      })
    },
    get elapsed() {
      return now
    },
  }
}

describe('politeness', () => {
  it('one host: at most 2 requests at once, their starts the delay apart; another host in parallel', async () => {
    const timer = virtualTimer()
    const politeness = createPoliteness({ perHost: 2, delayMs: 1000, concurrency: 10 }, timer)
    const starts: Record<string, number[]> = { a: [], b: [] }
    const running: Record<string, number> = { a: 0, b: 0 }
    let most = 0
    const request = (host: 'a' | 'b', durationMs: number) =>
      politeness.run(host, async () => {
        starts[host]?.push(timer.now())
        running[host] = (running[host] ?? 0) + 1
        most = Math.max(most, running[host] ?? 0)
        await timer.sleep(durationMs)
        running[host] = (running[host] ?? 0) - 1
      })
    // Slow answers (2.5 s): the per-host limit holds them back, not only the delay.
    await Promise.all([
      ...Array.from({ length: 6 }, () => request('a', 2500)),
      ...Array.from({ length: 3 }, () => request('b', 100)),
    ])
    assert.equal(most, 2, 'never more than 2 at once to one host')
    const gaps = (list: number[]) => list.slice(1).map((at, index) => at - (list[index] as number))
    assert.ok(
      gaps(starts.a ?? []).every((gap) => gap >= 1000),
      `a's starts: ${starts.a?.join(', ')}`,
    )
    assert.deepEqual(starts.b, [0, 1000, 2000], 'b is not held up by a')
    // a: 0, 1000, then each start waits for a free slot (2500 s each): 2500, 3500, 5000, 6000.
    assert.deepEqual(starts.a, [0, 1000, 2500, 3500, 5000, 6000])
  })

  it('late timers never bring two starts at one host closer than the delay', async () => {
    let call = 0
    // Every other timer fires 700 ms late: a start made late must push the next one back.
    const timer = virtualTimer(() => (call++ % 2 === 0 ? 700 : 0))
    const politeness = createPoliteness({ perHost: 2, delayMs: 1000, concurrency: 10 }, timer)
    const starts: number[] = []
    await Promise.all(
      Array.from({ length: 8 }, () => politeness.run('host', async () => starts.push(timer.now()))),
    )
    const gaps = starts.slice(1).map((at, index) => at - (starts[index] as number))
    assert.ok(
      gaps.every((gap) => gap >= 1000),
      `starts: ${starts.join(', ')}`,
    )
  })

  it('an urgent request goes first in its host’s queue', async () => {
    const timer = virtualTimer()
    const politeness = createPoliteness({ perHost: 1, delayMs: 100, concurrency: 10 }, timer)
    const order: string[] = []
    const request = (name: string, urgent = false) =>
      politeness.run('host', async () => order.push(name), { urgent })
    await Promise.all([request('first'), request('second'), request('third'), request('admin', true)])
    assert.deepEqual(order, ['first', 'admin', 'second', 'third'])
  })

  it('the global limit holds across hosts', async () => {
    const timer = virtualTimer()
    const politeness = createPoliteness({ perHost: 2, delayMs: 0, concurrency: 3 }, timer)
    let running = 0
    let most = 0
    await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        politeness.run(`host-${index}`, async () => {
          running++
          most = Math.max(most, running)
          await timer.sleep(10)
          running--
        }),
      ),
    )
    assert.equal(most, 3)
  })
})
