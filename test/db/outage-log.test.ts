import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DatabaseUnavailableError } from '../../src/db/errors.ts'
import { failureLogger } from '../../src/db/outage-log.ts'

function collector() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = []
  return {
    lines,
    log: {
      error: (fields: Record<string, unknown>, message: string) =>
        lines.push({ level: 'error', fields, message }),
      warn: (fields: Record<string, unknown>, message: string) =>
        lines.push({ level: 'warn', fields, message }),
    },
  }
}

describe('failureLogger', () => {
  it('says an outage once per interval, with how many failures went unsaid', () => {
    const { lines, log } = collector()
    let now = 0
    const failed = failureLogger(log, { intervalMs: 30_000, nowMs: () => now })
    const outage = new DatabaseUnavailableError('connection refused')
    for (let poll = 0; poll < 100; poll++) {
      failed(outage, { job: 'deliveries' }, 'job fetch failed')
      now += 500
    }
    // 50 s of polls every half second: a line at 0 s and one at 30 s.
    assert.equal(lines.length, 2)
    assert.deepEqual(lines[0], {
      level: 'warn',
      fields: { job: 'deliveries', reason: 'connection refused', failuresSinceLastLine: 0 },
      message: 'job fetch failed: database unavailable',
    })
    assert.equal(lines[1]!.fields.failuresSinceLastLine, 59)
  })

  it('logs every other error at once, with the error', () => {
    const { lines, log } = collector()
    const failed = failureLogger(log, { nowMs: () => 0 })
    const bug = new Error('a bug')
    failed(bug, { job: 'q' }, 'job failed')
    failed(bug, { job: 'q' }, 'job failed')
    assert.equal(lines.length, 2)
    assert.deepEqual(lines[0], { level: 'error', fields: { err: bug, job: 'q' }, message: 'job failed' })
  })
})
