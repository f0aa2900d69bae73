import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { BlockedAddressError, createAddressCheck, createSafeFetch } from '../../src/lib/safe-http.ts'

let server: Server
let port: number
let hits = 0

before(async () => {
  server = createServer((req, res) => {
    hits++
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` }).end()
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as AddressInfo).port
})
after(() => server.close())

/** The cause a refused fetch carries (fetch wraps it in a TypeError, as for any connection failure). */
async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => assert.fail('the request was sent'),
    (caught: Error) => caught,
  )
  let current: unknown = error
  while (current instanceof Error && !(current instanceof BlockedAddressError) && current.cause) {
    current = current.cause
  }
  assert.ok(current instanceof BlockedAddressError, `refused as a blocked address: ${error}`)
  return current
}

describe('address policy', () => {
  const strict = createAddressCheck({ allowPrivate: false, allowed: [] })

  for (const address of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fc00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ]) {
    it(`${address} is refused`, () => {
      assert.match(strict.refusal(address) ?? '', /not a public one/)
    })
  }

  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    it(`${address} is allowed`, () => assert.equal(strict.refusal(address), undefined))
  }

  it('allowed addresses, CIDRs and host names pass although private', () => {
    const check = createAddressCheck({
      allowPrivate: false,
      allowed: ['10.0.0.0/8', '192.168.1.7', 'ollama.internal', 'fd00::/8'],
    })
    assert.equal(check.refusal('10.200.3.4'), undefined)
    assert.equal(check.refusal('192.168.1.7'), undefined)
    assert.match(check.refusal('192.168.1.8') ?? '', /private/)
    assert.equal(check.refusal('fd12::1'), undefined)
    assert.equal(check.hostAllowed('Ollama.Internal'), true)
    assert.equal(check.hostAllowed('other.internal'), false)
  })

  it('a local instance allows every address', () => {
    const open = createAddressCheck({ allowPrivate: true, allowed: [] })
    assert.equal(open.refusal('127.0.0.1'), undefined)
    assert.equal(open.hostAllowed('anything'), true)
  })
})

describe('safe fetch', () => {
  it('refuses an IP literal of a private address before sending anything', async () => {
    const fetch = createSafeFetch({ allowPrivate: false, allowed: [] })
    const before = hits
    const error = await refusal(fetch(`http://127.0.0.1:${port}/ok`))
    assert.match(error.message, /127\.0\.0\.1 is a loopback address/)
    assert.equal(hits, before)
  })

  it('refuses a host name that resolves to a private address, checked at connection time', async () => {
    const fetch = createSafeFetch({ allowPrivate: false, allowed: [] })
    const before = hits
    const error = await refusal(fetch(`http://localhost:${port}/ok`))
    assert.match(error.message, /localhost: .* loopback address/)
    assert.equal(hits, before)
  })

  it('reaches an allowed address, and refuses to follow a redirect', async () => {
    const fetch = createSafeFetch({ allowPrivate: false, allowed: ['127.0.0.1'] })
    const res = await fetch(`http://127.0.0.1:${port}/ok`)
    assert.deepEqual(await res.json(), { ok: true })
    await assert.rejects(fetch(`http://127.0.0.1:${port}/redirect`), /fetch failed/)
  })

  it('reaches an allowed host name whatever it resolves to', async () => {
    const fetch = createSafeFetch({ allowPrivate: false, allowed: ['localhost'] })
    const res = await fetch(`http://localhost:${port}/ok`)
    assert.equal(res.status, 200)
  })

  it('on a local instance is the plain fetch', () => {
    assert.equal(createSafeFetch({ allowPrivate: true, allowed: [] }), globalThis.fetch)
  })
})
