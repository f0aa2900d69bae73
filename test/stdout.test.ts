import assert from 'node:assert/strict'
import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

/**
 * A service whose stdout nobody reads (a supervisor that stopped, a terminal that went away) keeps
 * answering, and stops within SHUTDOWN_TIMEOUT_MS of a SIGTERM: a log line never waits for its reader.
 */

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url))
const SHUTDOWN_TIMEOUT_MS = 3000

type Service = ChildProcessByStdio<null, Readable, Readable>
const children = new Set<Service>()
after(() => {
  for (const child of children) child.kill('SIGKILL')
})

/** The directory service, logging every request (debug), with its address once it has printed it. */
async function startLoudService(): Promise<{ child: Service; url: string }> {
  const child = spawn(process.execPath, [main, 'start', 'directory'], {
    // A folder of its own: a developer's .env in the project never changes the test's settings.
    cwd: mkdtempSync(join(tmpdir(), 'curio-stdout-')),
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: 'memory',
      DIRECTORY_PORT: '0',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let output = ''
  const onData = (chunk: Buffer) => {
    output += chunk
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const url = output.match(/directory\s+(http:\/\/\S+)/)?.[1]
    if (url) {
      child.stdout.off('data', onData)
      return { child, url }
    }
    if (child.exitCode !== null) throw new Error(`start exited ${child.exitCode}: ${output}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the service did not print its address: ${output}`)
}

/** Requests that each write a log line; all must be answered although nobody reads those lines. */
async function logALot(url: string, requests: number): Promise<void> {
  for (let batch = 0; batch < requests; batch += 50) {
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) }).then((res) => res.status),
      ),
    )
    assert.deepEqual(new Set(answers), new Set([200]))
  }
}

/**
 * The exit code after SIGTERM. The process must be gone within 20 s: far past its deadline
 * (SHUTDOWN_TIMEOUT_MS), so only a shutdown that waits for its log reader fails this, not a slow machine.
 */
async function stopped(child: Service): Promise<{ code: number | null }> {
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.kill('SIGTERM')
  const code = await Promise.race([
    exit,
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 20_000)),
  ])
  assert.notEqual(code, 'still running', 'the process exited after SIGTERM')
  return { code: code as number | null }
}

describe('a stdout nobody reads never holds the process', () => {
  it('a reader that stops reading: requests are still answered, and SIGTERM still stops it in time', async () => {
    const { child, url } = await startLoudService()
    // From now on nothing reads the pipe: once its buffer is full (64 KB), every write would wait.
    child.stdout.pause()
    // 2,000 request lines of ~300 bytes: ten times what the pipe holds.
    await logALot(url, 2000)
    const { code } = await stopped(child)
    assert.equal(code, 0)
  })

  it('a reader that is gone: requests are still answered, and SIGTERM still stops it in time', async () => {
    const { child, url } = await startLoudService()
    child.stdout.destroy()
    await logALot(url, 1000)
    const { code } = await stopped(child)
    assert.equal(code, 0)
  })
})
