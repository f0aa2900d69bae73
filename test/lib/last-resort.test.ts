import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, it } from 'node:test'

const lastResort = new URL('../../src/lib/last-resort.ts', import.meta.url).href
const logger = new URL('../../src/lib/logger.ts', import.meta.url).href

/** A process that installs the last resort, serves on (a timer), then meets `fault`. */
async function runWith(fault: string) {
  const script = `
    import { installLastResort } from ${JSON.stringify(lastResort)}
    import { createLogger, flushLogs } from ${JSON.stringify(logger)}
    installLastResort(createLogger('info', undefined, 'json'), flushLogs)
    setInterval(() => {}, 1000)
    setTimeout(() => { ${fault} }, 10)
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  const [code] = (await once(child, 'exit')) as [number | null]
  const lines = stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } })
  return { code, lines }
}

describe('the last resort', () => {
  it('an uncaught exception is logged as fatal with its cause, and the process exits 1', async () => {
    const { code, lines } = await runWith(`throw new Error('a bug nobody handled')`)
    assert.equal(code, 1)
    assert.equal(lines.length, 1)
    assert.equal(lines[0]!.level, 60)
    assert.equal(lines[0]!.msg, 'uncaught exception: exiting so that a clean process takes over')
    assert.equal(lines[0]!.err?.message, 'a bug nobody handled')
  })

  it('an unhandled promise rejection is logged as fatal, and the process exits 1', async () => {
    const { code, lines } = await runWith(`Promise.reject(new Error('a promise nobody awaited'))`)
    assert.equal(code, 1)
    assert.equal(lines[0]!.level, 60)
    assert.equal(lines[0]!.msg, 'unhandled promise rejection: exiting so that a clean process takes over')
    assert.equal(lines[0]!.err?.message, 'a promise nobody awaited')
  })
})
