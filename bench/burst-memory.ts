/**
 * What bench:burst reads of a server's memory: its RSS, its process.memoryUsage() (through
 * bench/memory-preload.mjs) and its resident memory by kind of mapping (/proc/<pid>/smaps).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type Child, memoryOf, REPO_ROOT, round, sleep } from './lib.ts'

/** process.memoryUsage() of the server in MB, as bench/memory-preload.mjs prints it. */
export interface Usage {
  rss: number
  heapTotal: number
  heapUsed: number
  external: number
  arrayBuffers: number
  /** Resident memory by kind of mapping, read at the same moment. */
  mappings: Mappings
}

/** Resident memory by kind of mapping, in MB, from /proc/<pid>/smaps. */
export interface Mappings {
  /** glibc's main heap (`[heap]`) and its other arenas (anonymous mappings of 64 MB reserved). */
  malloc: number
  /** V8's heap pages: anonymous mappings of 256 KB each. */
  v8Pages: number
  /** WebAssembly memory: the mapping right before its guard region (an anonymous reservation of GBs). */
  wasm: number
  /** The node binary, shared libraries and other files. */
  files: number
  other: number
}

const ARENA_RESERVE = 64 * 1024 * 1024
const GUARD_MIN = 4 * 1024 * 1024 * 1024

export function mappingsOf(pid: number): Mappings {
  const found: { start: number; end: number; name: string; rssKb: number }[] = []
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head) {
      found.push({
        start: Number.parseInt(head[1]!, 16),
        end: Number.parseInt(head[2]!, 16),
        name: head[3]!,
        rssKb: 0,
      })
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss && found.length > 0) found.at(-1)!.rssKb = Number(rss[1])
  }
  const totals: Mappings = { malloc: 0, v8Pages: 0, wasm: 0, files: 0, other: 0 }
  for (const [index, mapping] of found.entries()) {
    const size = mapping.end - mapping.start
    const next = found[index + 1]
    const kind: keyof Mappings =
      mapping.name === '[heap]'
        ? 'malloc'
        : mapping.name.startsWith('/')
          ? 'files'
          : mapping.name !== ''
            ? 'other'
            : next && next.start === mapping.end && next.name === '' && next.end - next.start >= GUARD_MIN
              ? 'wasm'
              : size === 256 * 1024
                ? 'v8Pages'
                : mapping.start % ARENA_RESERVE === 0 && size <= ARENA_RESERVE
                  ? 'malloc'
                  : 'other'
    totals[kind] += mapping.rssKb / 1024
  }
  for (const key of Object.keys(totals) as (keyof Mappings)[]) totals[key] = round(totals[key], 1)
  return totals
}

/** `--import` this into the server (NODE_OPTIONS) for usageOf to work. */
export const MEMORY_PRELOAD = pathToFileURL(join(REPO_ROOT, 'bench', 'memory-preload.mjs')).href

/** Asks the server for its process.memoryUsage() (SIGUSR2 to the preload) and reads the answer. */
export async function usageOf(child: Child): Promise<Usage> {
  const before = child.tail()
  child.process.kill('SIGUSR2')
  for (let waited = 0; waited < 5000; waited += 50) {
    await sleep(50)
    const lines = child.tail().split('\n')
    const line = lines.findLast((text) => text.startsWith('bench-memory '))
    if (line && child.tail() !== before) {
      return { ...JSON.parse(line.slice('bench-memory '.length)), mappings: mappingsOf(child.pid) } as Usage
    }
  }
  throw new Error(`the server did not print its memory use. Last output:\n${child.tail()}`)
}

export const rssOf = (child: Child) => {
  const memory = memoryOf(child.pid)
  if (!memory) throw new Error(`the server (pid ${child.pid}) is gone. Last output:\n${child.tail()}`)
  return memory.rssMb
}
