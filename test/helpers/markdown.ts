/** Reading the project's Markdown documentation: which files it is, and the anchors of their headings. */
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
