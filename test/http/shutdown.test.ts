import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { startPlatform } from '../helpers/apps.ts'

describe('graceful shutdown', () => {
  it('a request in flight when the server closes is answered; the server then stops listening', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let entered: () => void = () => {}
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve
    })
    const h = await startPlatform({
      extend: (app) => {
        app.get('/test/slow', { config: { access: 'public' }, schema: { hide: true } }, async () => {
          entered()
          await gate
          return { finished: true }
        })
      },
    })
    const address = await h.app.listen({ host: '127.0.0.1', port: 0 })
    const inFlight = fetch(`${address}/test/slow`)
    await inHandler

    let closed = false
    const closing = h.app.close().then(() => {
      closed = true
    })
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(closed, false, 'close waits for the request in flight')
    release()

    const res = await inFlight
    assert.equal(res.status, 200)
    assert.deepEqual(await res.json(), { finished: true })
    await closing
    await assert.rejects(fetch(`${address}/healthz`), 'no longer listening')
    await h.jobs.stop(2000)
    await h.rateLimiter.close()
    await h.databases.close()
  })
})
