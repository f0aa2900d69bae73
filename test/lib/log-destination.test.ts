import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { streamDestination } from '../../src/lib/log-destination.ts'
import { logLinesDropped } from '../../src/lib/metrics.ts'

/**
 * A connected pair of Unix sockets, as a child process's stdout is (Node makes it a socket pair): the
 * writer, and the reader's end, paused (it reads nothing until resumed).
 */
async function socketPair(): Promise<{ writer: Socket; reader: Socket; close(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'curio-log-'))
  const path = join(dir, 'stdout.sock')
  const server = createServer()
  server.listen(path)
  await once(server, 'listening')
  const accepted = once(server, 'connection') as Promise<[Socket]>
  const writer = createConnection(path)
  await once(writer, 'connect')
  const [reader] = await accepted
  reader.pause()
  return {
    writer,
    reader,
    close() {
      writer.destroy()
      reader.destroy()
      server.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const closers: (() => void)[] = []
after(() => {
  for (const close of closers) close()
})

const line = (n: number) => `${JSON.stringify({ level: 30, n, msg: 'x'.repeat(200) })}\n`

describe('the log destination never blocks on stdout', () => {
  it('a reader that stops reading: lines wait in a bounded buffer, then are dropped and counted', async () => {
    const pair = await socketPair()
    closers.push(pair.close)
    const destination = streamDestination(pair.writer, { maxBufferedBytes: 64 * 1024 })
    const before = (await logLinesDropped.get()).values[0]?.value ?? 0
    // 20,000 lines of 230 bytes (4.6 MB) against a reader that takes nothing. The writes are synchronous:
    // that the loop ends at all shows none waited for the reader (the old destination waited for ever).
    for (let n = 0; n < 20_000; n++) destination.write(line(n))
    assert.ok(pair.writer.writableLength <= 64 * 1024, `buffered ${pair.writer.writableLength} bytes`)
    // The socket's own buffers take a few hundred KB; the rest of 4.6 MB cannot wait anywhere.
    assert.ok(destination.dropped > 10_000, `dropped ${destination.dropped}`)
    const after = (await logLinesDropped.get()).values[0]?.value ?? 0
    assert.equal(
      after - before,
      destination.dropped,
      'every drop is counted in curio_log_lines_dropped_total',
    )
  })

  it('once the reader reads again, the next line is preceded by how many were dropped', async () => {
    const pair = await socketPair()
    closers.push(pair.close)
    const destination = streamDestination(pair.writer, { maxBufferedBytes: 8 * 1024 })
    for (let n = 0; n < 5000; n++) destination.write(line(n))
    const dropped = destination.dropped
    assert.ok(dropped > 0)
    let received = ''
    pair.reader.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk
    })
    pair.reader.resume()
    await destination.flush(5000)
    assert.equal(pair.writer.writableLength, 0, 'flush waited until the buffer was written')
    destination.write(line(-1))
    await destination.flush(5000)
    await new Promise((resolve) => setImmediate(resolve))
    const lines = received.trim().split('\n')
    const note = JSON.parse(lines.at(-2)!) as { level: number; msg: string }
    assert.equal(note.level, 40)
    assert.equal(note.msg, `${dropped} log lines were dropped: the log reader did not keep up`)
    assert.equal((JSON.parse(lines.at(-1)!) as { n: number }).n, -1)
  })

  it('a reader that is gone (EPIPE): lines are dropped, the error never reaches the process', async () => {
    const pair = await socketPair()
    closers.push(pair.close)
    const destination = streamDestination(pair.writer)
    pair.reader.destroy()
    // Writes to a closed peer fail asynchronously; keep writing until the destination has noticed.
    for (let n = 0; n < 200 && destination.dropped === 0; n++) {
      destination.write(line(n))
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    assert.ok(destination.dropped > 0, 'lines after the reader left are dropped')
    await destination.flush(1000)
  })

  it('flush gives up after its timeout when the reader never reads', async () => {
    const pair = await socketPair()
    closers.push(pair.close)
    const destination = streamDestination(pair.writer)
    for (let n = 0; n < 2000; n++) destination.write(line(n))
    assert.ok(pair.writer.writableLength > 0)
    await destination.flush(200)
    // It returned although the reader took nothing: it gave up, with lines still waiting in the buffer.
    assert.ok(pair.writer.writableLength > 0, 'flush returned with lines still buffered')
  })
})
