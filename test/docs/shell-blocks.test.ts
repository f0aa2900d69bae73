/**
 * Every shell block of the documentation (```sh, ```bash, ```shell in README.md, docs/ and
 * bench/README.md) runs as pasted, in order, on a new instance started as the README's "Following the
 * guides" says: the block marked `<!-- docs-test: start -->` gives the settings, and the instance is
 * started with them the way `npm start` starts it, in a folder of its own that holds the project (links
 * to its files, a copy of docs/) and a new `./data`. Each file's blocks run in one bash, in order, under
 * `set -euo pipefail`, so the first command that fails ends the file and names its line.
 *
 * What differs from a reader's terminal: the instance listens on free ports, so the addresses of the
 * docs (`localhost:3000`, `localhost:3001`, and `4000` for a local webhook receiver) are rewritten to
 * them before a block runs. A block marked `<!-- docs-test: skip: <reason> -->` is not run and shows as
 * skipped with its reason (it needs a real provider account, a Postgres server, or it installs or starts
 * Curio itself). Blocks in other languages (text, json, dotenv …) are output or files, never run.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { documentationFiles, ROOT, type ShellBlock, shellBlocks } from '../helpers/markdown.ts'
import { freePort } from '../helpers/ports.ts'

/** How long one file's blocks may take, all together, before its bash and everything it started die. */
const FILE_TIMEOUT_MS = 60_000
/** How long the instance may take to print its addresses (a cold start on a loaded machine included). */
const START_TIMEOUT_MS = 60_000
/** The project's files a folder must not share with the instance's: its data, settings and history. */
const NOT_LINKED = new Set(['.git', 'data', '.env'])

const blocks = documentationFiles().flatMap((file) =>
  shellBlocks(file, readFileSync(join(ROOT, file), 'utf8')),
)
const starts = blocks.filter((block) => block.marker?.kind === 'start')
const skipped = blocks.filter((block) => block.marker?.kind === 'skip')
const runnable = blocks.filter((block) => block.marker === undefined)
const files = [...new Set(blocks.map((block) => block.file))]

/** `NAME=value … npm start` as its settings, or an error naming what else the start block holds. */
function startSettings(block: ShellBlock): Record<string, string> {
  const words = block.text.replace(/\\\n/g, ' ').trim().split(/\s+/)
  const settings: Record<string, string> = {}
  while (words.length > 0 && /^[A-Z][A-Z0-9_]*=/.test(words[0] as string)) {
    const [name, ...value] = (words.shift() as string).split('=')
    settings[name as string] = value.join('=').replace(/^'(.*)'$|^"(.*)"$/, '$1$2')
  }
  assert.deepEqual(words, ['npm', 'start'], `${block.file}:${block.line} is settings followed by npm start`)
  return settings
}

/** A block's first line as a test's name shows it. */
const clip = (line: string) => (line.length > 60 ? `${line.slice(0, 59)}…` : line)

/** The last `lines` lines of a process's output, for a failure message. */
const tail = (text: string, lines = 60) => text.split('\n').slice(-lines).join('\n')

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal)
  } catch {
    // Already gone.
  }
}

/**
 * The folder the blocks run in and the instance starts from: the project's files and nothing else. docs/
 * is a copy, not a link, so that its examples see themselves run from where they are (a script compares
 * its own path with the one it was started by); the rest is linked.
 */
function projectFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'curio-docs-'))
  for (const name of readdirSync(ROOT)) {
    if (NOT_LINKED.has(name)) continue
    if (name === 'docs') cpSync(join(ROOT, name), join(folder, name), { recursive: true })
    else symlinkSync(join(ROOT, name), join(folder, name))
  }
  return folder
}

describe('the documentation’s shell blocks run as pasted', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'curio-docs-blocks-'))
  const folder = projectFolder()
  const ports = { platform: 0, directory: 0, receiver: 0 }
  let instance: ChildProcess | undefined
  let instanceOutput = ''
  const running = new Set<ChildProcess>()

  before(async () => {
    assert.equal(starts.length, 1, 'one block, in the README, says how to start the instance the guides use')
    const settings = startSettings(starts[0] as ShellBlock)
    ports.platform = await freePort()
    ports.directory = await freePort()
    ports.receiver = await freePort()
    // As `npm start` runs it: package.json's start script, on the Node that runs the tests.
    const [node, ...args] = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string
    ).split(' ')
    assert.equal(node, 'node')
    instance = spawn(process.execPath, args, {
      cwd: folder,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? folder,
        ...settings,
        PLATFORM_PORT: String(ports.platform),
        DIRECTORY_PORT: String(ports.directory),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const output = (chunk: Buffer) => {
      instanceOutput = (instanceOutput + chunk.toString('utf8')).slice(-200_000)
    }
    instance.stdout?.on('data', output)
    instance.stderr?.on('data', output)
    const deadline = Date.now() + START_TIMEOUT_MS
    while (!/Curio is running[\s\S]*directory\s+http:\/\/\S+/.test(instanceOutput)) {
      if (instance.exitCode !== null)
        assert.fail(`the instance exited ${instance.exitCode}:\n${tail(instanceOutput)}`)
      if (Date.now() > deadline) assert.fail(`the instance printed no addresses:\n${tail(instanceOutput)}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })

  /** Kills what this file started, at once: for an exit or a signal that leaves no time to stop it. */
  function killEverything() {
    for (const child of running) killGroup(child, 'SIGKILL')
    instance?.kill('SIGKILL')
  }
  process.once('exit', killEverything)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killEverything()
      process.kill(process.pid, signal)
    })
  }

  after(async () => {
    for (const child of running) killGroup(child, 'SIGKILL')
    if (instance && instance.exitCode === null && instance.signalCode === null) {
      const exited = once(instance, 'exit')
      instance.kill('SIGTERM')
      const timer = setTimeout(() => instance?.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    }
    rmSync(folder, { recursive: true, force: true })
    rmSync(scratch, { recursive: true, force: true })
  })

  /** The block as it runs here: the documented ports replaced by the instance's and the receiver's. */
  function localised(text: string): string {
    const port: Record<string, number> = {
      '3000': ports.platform,
      '3001': ports.directory,
      '4000': ports.receiver,
    }
    return text
      .replace(
        /\b(localhost|127\.0\.0\.1|\[::1\]):(3000|3001|4000)\b/g,
        (_, host, from) => `${host}:${port[from]}`,
      )
      .replace(/\bPORT=4000\b/g, `PORT=${ports.receiver}`)
  }

  /** Runs `file`'s blocks in one bash; resolves with its exit code and output. */
  async function runBlocks(file: string, fileBlocks: ShellBlock[]) {
    const dir = join(scratch, file.replaceAll('/', '_'))
    mkdirSync(dir)
    const script = [
      'set -euo pipefail',
      // Names the failing command's block (its file name is the block's index) and line.
      `trap 'echo "::docs-test failed: block \${BASH_SOURCE[0]##*/} line $LINENO: $BASH_COMMAND" >&2' ERR`,
      ...fileBlocks.map((block, index) => {
        writeFileSync(join(dir, String(index)), localised(block.text))
        return `echo "::docs-test block ${index}" >&2\nsource ${JSON.stringify(join(dir, String(index)))}`
      }),
    ].join('\n')
    writeFileSync(join(dir, 'run.sh'), `${script}\n`)
    const bash = spawn('bash', [join(dir, 'run.sh')], {
      cwd: folder,
      detached: true,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? folder, LANG: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    running.add(bash)
    let output = ''
    bash.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    bash.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(bash, 'SIGKILL')
    }, FILE_TIMEOUT_MS)
    const [code] = (await once(bash, 'exit')) as [number | null]
    clearTimeout(timer)
    // Whatever a block left running (a webhook receiver) ends with its file.
    killGroup(bash, 'SIGKILL')
    running.delete(bash)
    return { code, output, timedOut }
  }

  it(`finds the blocks: ${runnable.length} to run in ${new Set(runnable.map((b) => b.file)).size} files, ${skipped.length} marked to skip`, () => {
    assert.ok(runnable.length >= 10, `${runnable.length} blocks to run`)
    for (const block of runnable) {
      assert.doesNotMatch(
        block.text,
        /^\s*(npm (start|install|ci)\b)/m,
        `${block.file}:${block.line} installs or starts Curio: mark it (the test starts the instance itself)`,
      )
    }
  })

  for (const file of files) {
    const fileBlocks = blocks.filter((block) => block.file === file)
    for (const block of fileBlocks) {
      if (block.marker?.kind === 'skip') {
        it(`${file}:${block.line} (${clip(block.text.split('\n')[0] as string)})`, {
          skip: block.marker.reason,
        }, () => {})
      }
    }
    const toRun = fileBlocks.filter((block) => block.marker === undefined)
    if (toRun.length === 0) continue
    it(`${file}: ${toRun.length === 1 ? 'its shell block runs' : `its ${toRun.length} shell blocks run in order`}`, async () => {
      const { code, output, timedOut } = await runBlocks(file, toRun)
      const failed = /::docs-test failed: block (\d+) line (\d+): (.*)/.exec(output)
      const started = [...output.matchAll(/::docs-test block (\d+)/g)].at(-1)?.[1]
      const at = (index: string | undefined, line = 1) => {
        const block = toRun[Number(index ?? 0)] as ShellBlock
        return `${file}:${block.line + line - 1}`
      }
      if (timedOut) {
        assert.fail(
          `${file}: still running after ${FILE_TIMEOUT_MS} ms, in the block at ${at(started)}:\n${tail(output)}`,
        )
      }
      if (code !== 0) {
        const where = failed
          ? `${at(failed[1], Number(failed[2]))}: ${failed[3]}`
          : `the block at ${at(started)}`
        assert.fail(
          `${where} failed (bash exited ${code}):\n${tail(output)}\n--- the instance's last lines:\n${tail(instanceOutput, 20)}`,
        )
      }
    })
  }
})
