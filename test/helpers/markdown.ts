/** Reading the project's Markdown documentation: which files it is, and the anchors of their headings. */
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The documentation, relative to the repository: the README, every Markdown file of docs/, the benchmarks. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name))
    .sort()
  return ['README.md', ...docs, 'bench/README.md']
}

/** Whether a line opens or closes a fenced code block. */
export const isFence = (line: string) => /^\s*(```|~~~)/.test(line)

/** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces to -. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (isFence(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const text = (heading[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]|<[^>]+>/g, '')
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** What a `<!-- docs-test: … -->` comment right before a shell block says about it. */
export type ShellBlockMarker = { kind: 'start' } | { kind: 'skip'; reason: string }

export interface ShellBlock {
  file: string
  /** The line of the block's first command, 1-based. */
  line: number
  text: string
  marker?: ShellBlockMarker
}

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell'])

function markerOf(comment: string, where: string): ShellBlockMarker {
  const said = /^<!--\s*docs-test:\s*(.*?)\s*-->$/.exec(comment.trim())?.[1] ?? ''
  if (said === 'start') return { kind: 'start' }
  const skip = /^skip:\s*(\S.*)$/.exec(said)
  if (skip) return { kind: 'skip', reason: skip[1] as string }
  throw new Error(`${where}: "${comment.trim()}" is no docs-test marker (start, or skip: <reason>)`)
}

/**
 * The shell blocks of a Markdown file (```sh, ```bash, ```shell), each with the marker of the comment on
 * the line before its fence, if any. An indented block (in a list item) loses its indentation.
 */
export function shellBlocks(file: string, markdown: string): ShellBlock[] {
  const lines = markdown.split('\n')
  const blocks: ShellBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(```|~~~)\s*([\w-]*)/.exec(lines[i] as string)
    if (!fence) continue
    const [, indent = '', mark = '', language = ''] = fence
    const end = lines.findIndex((line, j) => j > i && line.trim().startsWith(mark))
    assert.ok(end > i, `${file}:${i + 1}: a code block that never ends`)
    if (SHELL_LANGUAGES.has(language)) {
      const previous = lines[i - 1] ?? ''
      const marker = previous.includes('docs-test') ? markerOf(previous, `${file}:${i}`) : undefined
      const text = lines
        .slice(i + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
        .join('\n')
      blocks.push({ file, line: i + 2, text: `${text}\n`, ...(marker ? { marker } : {}) })
    }
    i = end
  }
  return blocks
}
