import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import { createLogger, type LogFormat } from '../../src/lib/logger.ts'

/** A logger of the given format writing into memory. */
function memoryLogger(format?: LogFormat) {
  let text = ''
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk)
      done()
    },
  })
  return { log: createLogger('info', stream, format), text: () => text }
}

const SECRET = 'svc_live_do-not-log-me'

function logSecrets(log: ReturnType<typeof createLogger>) {
  log.info(
    {
      req: { headers: { authorization: `Bearer ${SECRET}`, 'x-api-key': SECRET, cookie: `s=${SECRET}` } },
      body: { password: SECRET, refreshToken: SECRET },
    },
    'a request with secrets',
  )
}

describe('log formats', () => {
  it('json (the default when writing anywhere but a terminal) writes one JSON object per line', () => {
    for (const format of [undefined, 'json'] as const) {
      const { log, text } = memoryLogger(format)
      log.info({ userId: 'u-1' }, 'hello')
      const line = JSON.parse(text().trim()) as { msg: string; userId: string; level: number }
      assert.equal(line.msg, 'hello')
      assert.equal(line.userId, 'u-1')
    }
  })

  it('pretty writes readable lines: the level and message in words, not a JSON object', () => {
    const { log, text } = memoryLogger('pretty')
    log.warn({ userId: 'u-1' }, 'something to look at')
    assert.match(text(), /WARN/)
    assert.match(text(), /something to look at/)
    assert.match(text(), /userId: "u-1"/)
    assert.throws(() => JSON.parse(text().trim()))
  })

  for (const format of ['json', 'pretty'] as const) {
    it(`${format}: secrets are redacted`, () => {
      const { log, text } = memoryLogger(format)
      logSecrets(log)
      assert.match(text(), /a request with secrets/)
      assert.match(text(), /\[redacted\]/)
      assert.ok(!text().includes(SECRET), text())
    })
  }
})
