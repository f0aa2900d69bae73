/**
 * How a console's files are served (src/http/console.ts): its page at the prefix and at every path under it
 * (deep links), its hashed assets cached for good and gzipped, a missing asset 404 in the service's shape,
 * Vite's manifest not served, and a console that has not been built saying how to build it.
 */
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { consoleRoutes } from '../../src/http/console.ts'
import { type DirectoryHarness, startDirectory } from '../helpers/apps.ts'

let h: DirectoryHarness
const built = mkdtempSync(join(tmpdir(), 'curio-console-'))
const script = `console.log(${JSON.stringify('x'.repeat(4000))})`

before(async () => {
  mkdirSync(join(built, 'assets'))
  mkdirSync(join(built, '.vite'))
  writeFileSync(
    join(built, 'index.html'),
    '<!doctype html><script type="module" src="/built/assets/index-abc123.js"></script>',
  )
  writeFileSync(join(built, 'assets', 'index-abc123.js'), script)
  writeFileSync(join(built, '.vite', 'manifest.json'), '{}')
  h = await startDirectory({
    extend: (app) => {
      consoleRoutes(app, { prefix: '/built', name: 'built', title: 'The built console', dir: built })
      consoleRoutes(app, {
        prefix: '/unbuilt',
        name: 'unbuilt',
        title: 'The unbuilt console',
        dir: join(built, 'nothing'),
      })
    },
  })
})
after(async () => {
  await h?.close()
  rmSync(built, { recursive: true, force: true })
})

describe('console files', () => {
  it('answers its page at the prefix and at any path under it, revalidated, with a policy for its own files', async () => {
    for (const url of ['/built', '/built/', '/built/items/42?status=pending', '/built/a/b/c']) {
      const res = await h.app.inject({ url })
      assert.equal(res.statusCode, 200, url)
      assert.match(res.headers['content-type'] as string, /^text\/html/)
      assert.equal(res.headers['cache-control'], 'no-cache')
      assert.match(res.headers['content-security-policy'] as string, /default-src 'self'; script-src 'self'/)
      assert.match(res.body, /index-abc123\.js/)
    }
    const head = await h.app.inject({ method: 'HEAD', url: '/built/items' })
    assert.equal(head.statusCode, 200)
  })

  it('serves a hashed asset for a year, gzipped to a client that takes it', async () => {
    const plain = await h.app.inject({ url: '/built/assets/index-abc123.js' })
    assert.equal(plain.statusCode, 200)
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable')
    assert.match(plain.headers['content-type'] as string, /^text\/javascript/)
    assert.equal(plain.body, script)
    const zipped = await h.app.inject({
      url: '/built/assets/index-abc123.js',
      headers: { 'accept-encoding': 'gzip, br' },
    })
    assert.equal(zipped.headers['content-encoding'], 'gzip')
    assert.equal(zipped.headers.vary, 'accept-encoding')
    assert.equal(gunzipSync(zipped.rawPayload).toString(), script)
    assert.ok(zipped.rawPayload.length < script.length / 10)
  })

  it('answers 404 in the service’s shape for a file it does not have, Vite’s manifest included', async () => {
    for (const url of ['/built/assets/index-000000.js', '/built/.vite/manifest.json', '/built/favicon.ico']) {
      const res = await h.app.inject({ url })
      assert.equal(res.statusCode, 404, url)
      assert.equal(res.json().code, 'NOT_FOUND')
    }
  })

  it('says how to build a console that has not been built', async () => {
    const res = await h.app.inject({ url: '/unbuilt/settings' })
    assert.equal(res.statusCode, 503)
    assert.match(
      res.body,
      /The unbuilt console has not been built\. Run `npm install` \(or `npm run build:web`\)/,
    )
    assert.equal(res.headers['cache-control'], 'no-store')
  })
})
