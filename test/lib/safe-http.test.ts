import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from 'node:net'
import { after, before, describe, it } from 'node:test'
import ipaddr from 'ipaddr.js'
import {
  BlockedAddressError,
  checkUrl,
  classifyAddress,
  createAddressCheck,
  createSafeFetch,
  resolveAndCheck,
  type SafeRequestOptions,
  safeRequest,
} from '../../src/lib/safe-http.ts'

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

describe('address classification', () => {
  const strict = createAddressCheck({ allowPrivate: false, allowed: [] })

  // [address, range it is refused as, words the reason names it by]
  const refused: [string, string, RegExp][] = [
    ['127.0.0.1', 'loopback', /127\.0\.0\.1 is a loopback address/],
    ['127.255.255.254', 'loopback', /loopback/],
    ['::1', 'loopback', /loopback/],
    ['10.1.2.3', 'private', /private/],
    ['172.16.0.1', 'private', /private/],
    ['172.31.255.255', 'private', /private/],
    ['192.168.1.1', 'private', /private/],
    ['169.254.1.1', 'linkLocal', /link-local/],
    ['fe80::1', 'linkLocal', /link-local/],
    ['febf::1', 'linkLocal', /link-local/],
    ['100.64.0.1', 'carrierGradeNat', /CGNAT/],
    ['100.127.255.255', 'carrierGradeNat', /CGNAT/],
    ['fc00::1', 'uniqueLocal', /unique-local/],
    ['fd12:3456::1', 'uniqueLocal', /unique-local/],
    ['224.0.0.1', 'multicast', /multicast/],
    ['239.255.255.250', 'multicast', /multicast/],
    ['ff02::1', 'multicast', /multicast/],
    ['255.255.255.255', 'broadcast', /broadcast/],
    ['0.0.0.0', 'unspecified', /unspecified/],
    ['0.1.2.3', 'unspecified', /unspecified/],
    ['::', 'unspecified', /unspecified/],
    ['198.18.0.1', 'benchmarking', /benchmarking/],
    ['198.19.255.255', 'benchmarking', /benchmarking/],
    ['2001:2::1', 'benchmarking', /benchmarking/],
    ['192.0.2.1', 'documentation', /documentation/],
    ['198.51.100.7', 'documentation', /documentation/],
    ['203.0.113.9', 'documentation', /documentation/],
    ['2001:db8::1', 'documentation', /documentation/],
    ['3fff::1', 'documentation', /documentation/],
    ['192.0.0.8', 'protocolAssignments', /IETF protocol assignment/],
    ['240.0.0.1', 'reserved', /reserved/],
    ['254.1.2.3', 'reserved', /reserved/],
    ['4000::1', 'reserved', /reserved/],
    ['fec0::1', 'deprecatedSiteLocal', /site-local/],
    ['100::1', 'discard', /discard/],
    ['169.254.169.254', 'cloudMetadata', /cloud metadata/],
    ['100.100.100.200', 'cloudMetadata', /cloud metadata/],
    ['fd00:ec2::254', 'cloudMetadata', /cloud metadata/],
    // IPv6 forms that carry an IPv4: the mapped and well-known NAT64 ones are judged as what they carry
    ['::ffff:127.0.0.1', 'loopback', /IPv4-mapped form of 127\.0\.0\.1, a loopback address/],
    ['::ffff:7f00:1', 'loopback', /IPv4-mapped form of 127\.0\.0\.1/],
    ['::ffff:10.0.0.1', 'private', /private/],
    ['::ffff:169.254.169.254', 'cloudMetadata', /cloud metadata/],
    ['64:ff9b::7f00:1', 'loopback', /NAT64 form of 127\.0\.0\.1, a loopback address/],
    ['64:ff9b::a9fe:a9fe', 'cloudMetadata', /NAT64 form of 169\.254\.169\.254, a cloud metadata address/],
    // ...the others are refused whatever they carry, naming it
    ['64:ff9b:1::808:808', 'nat64Local', /local-use NAT64/],
    ['::7f00:1', 'ipv4Compatible', /IPv4-compatible address \(it carries 127\.0\.0\.1, a loopback address\)/],
    ['::808:808', 'ipv4Compatible', /IPv4-compatible address \(it carries 8\.8\.8\.8\)/],
    ['::ffff:0:7f00:1', 'rfc6145', /IPv4-translated address \(it carries 127\.0\.0\.1/],
    ['2002:7f00:1::1', '6to4', /6to4 address \(it carries 127\.0\.0\.1, a loopback address\)/],
    ['2002:808:808::1', '6to4', /6to4 address \(it carries 8\.8\.8\.8\)/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo', /Teredo address \(it carries 192\.0\.2\.45/],
  ]
  for (const [address, range, named] of refused) {
    it(`${address} is refused as ${range}`, () => {
      const addressClass = classifyAddress(address)
      assert.equal(addressClass.range, range)
      assert.equal(addressClass.public, false)
      const reason = strict.refusal(address) ?? ''
      assert.match(reason, named)
      assert.match(reason, /not a public one$/)
    })
  }

  for (const address of [
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.1',
    '172.32.0.1',
    '198.20.0.1',
    '2a00:1450:4001::1',
    '64:ff9b::808:808',
  ]) {
    it(`${address} is global unicast`, () => {
      assert.deepEqual(
        { range: classifyAddress(address).range, public: classifyAddress(address).public },
        { range: 'unicast', public: true },
      )
      assert.equal(strict.refusal(address), undefined)
    })
  }

  it('ipaddr.js names the ranges the classification relies on', () => {
    const names: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['10.0.0.1', 'private'],
      ['169.254.1.1', 'linkLocal'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['0.1.2.3', 'unspecified'],
      ['240.0.0.1', 'reserved'],
      ['192.88.99.1', 'reserved'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fe80::1', 'linkLocal'],
      ['fc00::1', 'uniqueLocal'],
      ['ff02::1', 'multicast'],
      ['2001:2::1', 'benchmarking'],
      ['::ffff:127.0.0.1', 'ipv4Mapped'],
      ['::ffff:0:7f00:1', 'rfc6145'],
      ['64:ff9b::1', 'rfc6052'],
      ['2002::1', '6to4'],
      ['2001::1', 'teredo'],
      ['fec0::1', 'deprecatedSiteLocal'],
      ['100::1', 'discard'],
      // Not named by ipaddr.js, hence the explicit lists: IPv4-compatible and non-2000::/3 addresses
      ['::7f00:1', 'unicast'],
      ['4000::1', 'unicast'],
    ]
    for (const [address, name] of names) assert.equal(ipaddr.parse(address).range(), name, address)
  })

  it('an allowed CIDR in IPv4-mapped form allows the IPv4 addresses it maps', () => {
    const check = createAddressCheck({ allowPrivate: false, allowed: ['::ffff:10.0.0.0/104'] })
    assert.equal(check.refusal('10.1.2.3'), undefined)
    assert.equal(check.refusal('::ffff:10.1.2.3'), undefined)
    assert.match(check.refusal('11.0.0.1') ?? 'refused', /refused/)
  })
})

describe('checkUrl', () => {
  const strict = { requireHttps: false, policy: { allowPrivate: false, allowed: [] } }

  // WHATWG URL parsing turns every notation into the canonical address, which is what is checked.
  const literals: [string, string, RegExp][] = [
    ['http://2130706433/', '127.0.0.1', /loopback/],
    ['http://0177.0.0.1/', '127.0.0.1', /loopback/],
    ['http://0x7f.1/', '127.0.0.1', /loopback/],
    ['http://0x7f000001/', '127.0.0.1', /loopback/],
    ['http://017700000001/', '127.0.0.1', /loopback/],
    ['http://127.1/', '127.0.0.1', /loopback/],
    ['http://127.0.0.1./', '127.0.0.1', /loopback/],
    ['http://0/', '0.0.0.0', /unspecified/],
    ['http://0xa9fea9fe/latest/meta-data/', '169.254.169.254', /cloud metadata/],
    ['http://0251.0376.0251.0376/', '169.254.169.254', /cloud metadata/],
    ['http://10.1/', '10.0.0.1', /private/],
    ['http://[::1]/', '[::1]', /loopback/],
    ['http://[0:0:0:0:0:0:0:1]/', '[::1]', /loopback/],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]', /IPv4-mapped form of 127\.0\.0\.1/],
    ['http://[0:0:0:0:0:ffff:7f00:0001]/', '[::ffff:7f00:1]', /IPv4-mapped form of 127\.0\.0\.1/],
    ['http://[::ffff:a9fe:a9fe]/', '[::ffff:a9fe:a9fe]', /cloud metadata/],
    ['http://[FD00:EC2::254]/', '[fd00:ec2::254]', /cloud metadata/],
    ['http://[64:ff9b::127.0.0.1]/', '[64:ff9b::7f00:1]', /NAT64 form of 127\.0\.0\.1/],
    ['http://[2002:7f00:1::]/', '[2002:7f00:1::]', /6to4/],
  ]
  for (const [raw, canonical, named] of literals) {
    it(`${raw} is ${canonical} and refused`, () => {
      assert.equal(new URL(raw).hostname, canonical)
      const result = checkUrl(raw, strict)
      assert.equal(result.ok, false)
      assert.match(result.ok ? '' : result.reason, named)
    })
  }

  it('a URL with a user name or password is refused', () => {
    for (const raw of [
      'https://user:pass@example.com/',
      'https://user@example.com/',
      'https://:pass@example.com/',
    ]) {
      assert.deepEqual(checkUrl(raw, strict), {
        ok: false,
        reason: 'the URL must not contain a user name or password',
      })
    }
  })

  it('http is refused when https is required, allowed otherwise', () => {
    const httpsOnly = { ...strict, requireHttps: true }
    assert.deepEqual(checkUrl('http://example.com/hook', httpsOnly), {
      ok: false,
      reason: 'the URL must use https',
    })
    assert.equal(checkUrl('https://example.com/hook', httpsOnly).ok, true)
    assert.equal(checkUrl('http://example.com/hook', strict).ok, true)
  })

  it('other schemes, invalid and over-long URLs are refused', () => {
    for (const raw of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'gopher://example.com/',
      'javascript:alert(1)',
    ]) {
      assert.match((checkUrl(raw, strict) as { reason: string }).reason, /URLs are not allowed/, raw)
    }
    for (const raw of ['', 'not a url', 'https://', 'http://[::1/']) {
      assert.equal(checkUrl(raw, strict).ok, false, raw)
    }
    const base = 'https://example.com/'
    assert.equal(checkUrl(base + 'a'.repeat(2048 - base.length), strict).ok, true)
    assert.match(
      (checkUrl(base + 'a'.repeat(2049 - base.length), strict) as { reason: string }).reason,
      /longer than 2048/,
    )
  })

  it('a public URL passes with its parsed URL (no DNS is asked)', () => {
    const result = checkUrl('https://Hooks.Example.com:8443/in?x=1', strict)
    assert.ok(result.ok)
    assert.equal(result.url.hostname, 'hooks.example.com')
    assert.equal(result.url.port, '8443')
  })

  it('allowed addresses and CIDRs pass on any port', () => {
    const policy = { allowPrivate: false, allowed: ['127.0.0.0/8', '::1', '10.0.0.5'] }
    for (const raw of [
      'http://127.0.0.1:9/',
      'http://2130706433:8080/',
      'http://[::1]:3000/',
      'http://10.0.0.5/',
    ]) {
      assert.equal(checkUrl(raw, { requireHttps: false, policy }).ok, true, raw)
    }
    assert.equal(checkUrl('http://10.0.0.6/', { requireHttps: false, policy }).ok, false)
  })
})

describe('resolveAndCheck', () => {
  const strict = { allowPrivate: false, allowed: [] }

  it('localhost is refused: it resolves to loopback', async () => {
    const result = await resolveAndCheck(new URL('https://localhost/hook'), strict)
    assert.equal(result.ok, false)
    assert.match(result.ok ? '' : result.reason, /^localhost: .* loopback address/)
  })

  it('a host allowed by name passes with its addresses', async () => {
    const result = await resolveAndCheck(new URL('https://LOCALHOST./hook'), {
      allowPrivate: false,
      allowed: ['localhost'],
    })
    assert.ok(result.ok)
    assert.ok(result.addresses.some((address) => address === '127.0.0.1' || address === '::1'))
  })

  it('one lookup, and every address it answers is checked', async () => {
    let calls = 0
    const lookup = async () => {
      calls++
      return [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ]
    }
    const result = await resolveAndCheck(new URL('https://hooks.example.com/'), strict, { lookup })
    assert.deepEqual(result, {
      ok: false,
      reason: 'hooks.example.com: 10.0.0.7 is a private address, not a public one',
    })
    assert.equal(calls, 1)

    const publicOnly = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '2a00:1450:4001::1', family: 6 },
    ]
    assert.deepEqual(
      await resolveAndCheck(new URL('https://hooks.example.com/'), strict, { lookup: publicOnly }),
      {
        ok: true,
        addresses: ['93.184.216.34', '2a00:1450:4001::1'],
      },
    )
  })

  it('an IP literal is checked without a lookup', async () => {
    const lookup = async () => assert.fail('looked up an IP literal')
    assert.deepEqual(await resolveAndCheck(new URL('https://8.8.8.8/'), strict, { lookup }), {
      ok: true,
      addresses: ['8.8.8.8'],
    })
    assert.equal((await resolveAndCheck(new URL('https://[::1]/'), strict, { lookup })).ok, false)
  })

  it('a name that does not resolve is refused with the resolver’s reason', async () => {
    const lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' })
    }
    const result = await resolveAndCheck(new URL('https://nowhere.invalid/'), strict, { lookup })
    assert.deepEqual(result, {
      ok: false,
      reason: 'nowhere.invalid could not be resolved: getaddrinfo ENOTFOUND nowhere.invalid',
    })
    const empty = await resolveAndCheck(new URL('https://nowhere.invalid/'), strict, {
      lookup: async () => [],
    })
    assert.deepEqual(empty, { ok: false, reason: 'nowhere.invalid has no address' })
  })
})

describe('safeRequest', () => {
  const TIMEOUT_MS = 300
  let receiver: Server
  let origin: string
  let receiverPort: number
  let slowHeaders: NetServer
  let slowHeadersPort: number
  const received: { method: string; url: string; host: string; body: string }[] = []
  const hangingSockets: Socket[] = []
  /** When each trickling answer's connection closed, and each slow status line's (errors or not). */
  const trickles: Promise<unknown>[] = []
  const slowHeadersClosed: Promise<unknown>[] = []
  const huge = { written: 0, finished: false, closed: undefined as Promise<unknown> | undefined }

  before(async () => {
    receiver = createServer(async (req, res) => {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const body = Buffer.concat(chunks).toString('utf8')
      received.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host ?? '', body })
      switch (req.url) {
        case '/echo':
          res.writeHead(200, { 'content-type': 'application/json', 'x-receiver': 'yes' })
          res.end(JSON.stringify({ method: req.method, body, signature: req.headers['x-signature'] }))
          return
        case '/redirect':
          res.writeHead(302, { location: `${origin}/target` }).end()
          return
        case '/missing':
          res.writeHead(404).end('no such hook')
          return
        case '/broken':
          res.writeHead(503).end('down')
          return
        case '/hang':
          hangingSockets.push(req.socket)
          return
        case '/trickle': {
          res.writeHead(200, { 'content-type': 'text/plain' })
          const tick = setInterval(() => res.write('x'), 100)
          trickles.push(new Promise((resolve) => res.on('close', resolve)))
          res.on('close', () => clearInterval(tick))
          return
        }
        case '/huge': {
          const chunk = Buffer.alloc(64 * 1024, 'x')
          res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) })
          const closed = once(res, 'close')
          huge.closed = closed
          res.on('finish', () => {
            huge.finished = true
          })
          while (huge.written < 50 * 1024 * 1024 && !res.destroyed) {
            huge.written += chunk.length
            if (!res.write(chunk)) await Promise.race([once(res, 'drain'), closed])
          }
          res.end()
          return
        }
        case '/cut':
          res.writeHead(200, { 'content-length': '1000' })
          res.write('only part of it', () => req.socket.destroy())
          return
        default:
          res.writeHead(200).end('ok')
      }
    })
    receiver.listen(0, '127.0.0.1')
    await once(receiver, 'listening')
    receiverPort = (receiver.address() as AddressInfo).port
    origin = `http://127.0.0.1:${receiverPort}`

    // Answers the status line one byte every 100 ms: headers never complete in time.
    slowHeaders = createNetServer((socket) => {
      const line = Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
      let sent = 0
      const tick = setInterval(() => socket.write(line.subarray(sent, ++sent)), 100)
      slowHeadersClosed.push(new Promise((resolve) => socket.on('close', resolve)))
      socket.on('close', () => clearInterval(tick))
      socket.on('error', () => clearInterval(tick))
    })
    slowHeaders.listen(0, '127.0.0.1')
    await once(slowHeaders, 'listening')
    slowHeadersPort = (slowHeaders.address() as AddressInfo).port
  })
  after(() => {
    receiver.closeAllConnections()
    receiver.close()
    slowHeaders.close()
  })

  const loopback = { allowPrivate: false, allowed: ['127.0.0.1'] }
  const request = (url: string, extra: Partial<SafeRequestOptions> = {}) =>
    safeRequest({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"event":"item.created"}',
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: 64 * 1024,
      policy: loopback,
      requireHttps: false,
      ...extra,
    })
  const hitsOf = (path: string) => received.filter(({ url }) => url === path).length

  it('2xx: the answer with its status, headers and body', async () => {
    const result = await request(`${origin}/echo`, { headers: { 'x-signature': 'sha256=abc' } })
    assert.equal(result.kind, 'response')
    assert.ok(result.kind === 'response')
    assert.equal(result.status, 200)
    assert.equal(result.headers['x-receiver'], 'yes')
    assert.deepEqual(JSON.parse(result.body), {
      method: 'POST',
      body: '{"event":"item.created"}',
      signature: 'sha256=abc',
    })
    assert.equal(result.bodyTruncated, false)
    assert.ok(result.durationMs >= 0)
  })

  it('a Buffer body and GET are sent as given', async () => {
    const posted = await request(`${origin}/echo`, { body: Buffer.from('raw bytes') })
    assert.equal(posted.kind === 'response' && JSON.parse(posted.body).body, 'raw bytes')
    const got = await request(`${origin}/echo`, { method: 'GET', body: undefined })
    assert.equal(got.kind === 'response' && JSON.parse(got.body).method, 'GET')
  })

  it('3xx is returned as the answer, never followed', async () => {
    const result = await request(`${origin}/redirect`)
    assert.equal(result.kind === 'response' && result.status, 302)
    assert.equal(result.kind === 'response' && result.headers.location, `${origin}/target`)
    assert.equal(hitsOf('/target'), 0)
  })

  it('4xx and 5xx are answers with their bodies', async () => {
    const missing = await request(`${origin}/missing`)
    assert.deepEqual(missing.kind === 'response' && [missing.status, missing.body], [404, 'no such hook'])
    const broken = await request(`${origin}/broken`)
    assert.deepEqual(broken.kind === 'response' && [broken.status, broken.body], [503, 'down'])
  })

  it('a receiver that never answers is a timeout, and its connection is closed', async () => {
    const result = await request(`${origin}/hang`)
    assert.equal(result.kind, 'timeout')
    const socket = hangingSockets.at(-1)!
    if (!socket.destroyed) await once(socket, 'close')
  })

  it('a receiver that trickles its body one byte every 100 ms is a timeout', async () => {
    const result = await request(`${origin}/trickle`)
    assert.equal(result.kind, 'timeout')
    // The receiver would trickle forever: its answer ends only because the client gave up on it.
    await trickles.at(-1)
  })

  it('a receiver that trickles its headers one byte every 100 ms is a timeout', async () => {
    const result = await request(`http://127.0.0.1:${slowHeadersPort}/`)
    assert.equal(result.kind, 'timeout')
    await slowHeadersClosed.at(-1)
  })

  it('a 50 MB answer is cut at maxResponseBytes and the rest is never downloaded', async () => {
    const result = await request(`${origin}/huge`, { timeoutMs: 5000 })
    assert.equal(result.kind, 'response')
    assert.ok(result.kind === 'response')
    assert.equal(result.bodyTruncated, true)
    assert.equal(result.body.length, 64 * 1024)
    await huge.closed
    assert.equal(huge.finished, false, 'the receiver could not send it all')
    assert.ok(huge.written < 50 * 1024 * 1024)
  })

  it('an answer exactly maxResponseBytes long is whole', async () => {
    const result = await request(`${origin}/missing`, { maxResponseBytes: 'no such hook'.length })
    assert.deepEqual(result.kind === 'response' && [result.body, result.bodyTruncated], [
      'no such hook',
      false,
    ])
  })

  it('a socket closed mid-answer is failed', async () => {
    const result = await request(`${origin}/cut`)
    assert.equal(result.kind, 'failed')
    assert.equal(result.kind === 'failed' && result.reason, 'UND_ERR_SOCKET: other side closed')
  })

  it('a closed port is failed (connection refused)', async () => {
    const closed = createServer()
    closed.listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const { port } = closed.address() as AddressInfo
    closed.close()
    await once(closed, 'close')
    const result = await request(`http://127.0.0.1:${port}/`)
    assert.equal(result.kind, 'failed')
    assert.match(result.kind === 'failed' ? result.reason : '', /ECONNREFUSED/)
  })

  it('a TLS handshake with a receiver that does not speak TLS is failed', async () => {
    const result = await request(`https://127.0.0.1:${receiverPort}/echo`, { requireHttps: true })
    assert.equal(result.kind, 'failed')
    assert.match(result.kind === 'failed' ? result.reason : '', /^ERR_SSL_\w+: TLS handshake failed \(.+\)$/)
  })

  it('a name that does not resolve is failed', async () => {
    const lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND receiver.invalid'), { code: 'ENOTFOUND' })
    }
    const result = await request('http://receiver.invalid/', { lookup })
    assert.equal(result.kind, 'failed')
    assert.match(result.kind === 'failed' ? result.reason : '', /ENOTFOUND/)
  })

  it('a lookup that never answers is a timeout', async () => {
    const result = await request('http://receiver.test/', { lookup: () => new Promise(() => {}) })
    assert.equal(result.kind, 'timeout')
  })

  it('without the allow-list every local receiver is blocked and receives nothing', async () => {
    const strict = { allowPrivate: false, allowed: [] }
    const before = received.length
    for (const url of [
      `${origin}/echo`,
      `http://localhost:${receiverPort}/echo`,
      `http://2130706433:${receiverPort}/echo`,
      `http://[::ffff:127.0.0.1]:${receiverPort}/echo`,
      `http://[::1]:${receiverPort}/echo`,
    ]) {
      const result = await request(url, { policy: strict })
      assert.equal(result.kind, 'blocked', url)
      assert.match(result.kind === 'blocked' ? result.reason : '', /loopback/, url)
    }
    assert.equal(received.length, before)
  })

  it('a name resolving to a private address is blocked before anything is sent', async () => {
    const before = received.length
    const result = await request(`http://localhost:${receiverPort}/echo`, {
      policy: { allowPrivate: false, allowed: [] },
    })
    assert.equal(result.kind, 'blocked')
    assert.match(result.kind === 'blocked' ? result.reason : '', /^localhost: .*loopback address/)
    assert.equal(received.length, before)
  })

  it('URL refusals are blocked: http when https is required, userinfo', async () => {
    const httpsOnly = await request(`${origin}/echo`, { requireHttps: true })
    assert.deepEqual(httpsOnly.kind === 'blocked' && httpsOnly.reason, 'the URL must use https')
    const userinfo = await request(`http://user:pass@127.0.0.1:${receiverPort}/echo`)
    assert.equal(userinfo.kind, 'blocked')
  })

  it('a host allowed by name is reached whatever it resolves to', async () => {
    const result = await request(`http://localhost:${receiverPort}/echo`, {
      policy: { allowPrivate: false, allowed: ['localhost'] },
    })
    assert.equal(result.kind === 'response' && result.status, 200)
  })

  it('an allowed CIDR reaches its receiver', async () => {
    const result = await request(`${origin}/echo`, {
      policy: { allowPrivate: false, allowed: ['127.0.0.0/8'] },
    })
    assert.equal(result.kind === 'response' && result.status, 200)
  })

  it('looks the name up once per request and connects to the address it checked', async () => {
    // receiver.test has no DNS record: reaching the receiver proves the connection used this answer.
    const answers = ['127.0.0.1', '10.0.0.1']
    let calls = 0
    const lookup = async (hostname: string) => {
      assert.equal(hostname, 'receiver.test')
      return [{ address: answers[Math.min(calls++, answers.length - 1)]!, family: 4 }]
    }
    const result = await request(`http://receiver.test:${receiverPort}/echo`, { lookup })
    assert.equal(result.kind === 'response' && result.status, 200)
    assert.equal(calls, 1)
    assert.equal(received.at(-1)!.host, `receiver.test:${receiverPort}`)

    // The next request asks again, and a rebound answer is refused before connecting.
    const before = received.length
    const rebound = await request(`http://receiver.test:${receiverPort}/echo`, { lookup })
    assert.equal(calls, 2)
    assert.equal(rebound.kind, 'blocked')
    assert.match(rebound.kind === 'blocked' ? rebound.reason : '', /10\.0\.0\.1 is a private address/)
    assert.equal(received.length, before)
  })

  it('one refused address among several blocks the request', async () => {
    const lookup = async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ]
    const result = await request(`http://receiver.test:${receiverPort}/echo`, { lookup })
    assert.equal(result.kind, 'blocked')
    assert.match(result.kind === 'blocked' ? result.reason : '', /cloud metadata/)
  })
})
