/**
 * What a console loads before its first screen shows, from Vite's manifest of its build in
 * dist/web/<name>: the page's own script and style, the chunks they import, and the first screen's chunks
 * with theirs, each file counted once and gzipped at level 9, as the services serve them.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { WEB_BUILD_DIR } from '../src/http/console.ts'
import { round, table } from './lib.ts'

export const TARGET_KB = 150

interface ManifestChunk {
  file: string
  imports?: string[]
  css?: string[]
  name?: string
  isEntry?: boolean
}

export interface Weight {
  files: number
  jsKb: number
  cssKb: number
  totalKb: number
}

/** `weightOf(['screens/items.tsx'])`: the files and gzipped kilobytes the page needs to show those chunks. */
export function consoleWeigher(name: string): { weightOf: (screens: string[]) => Weight } {
  const dir = join(WEB_BUILD_DIR, name)
  const manifest = JSON.parse(readFileSync(join(dir, '.vite', 'manifest.json'), 'utf8')) as Record<
    string,
    ManifestChunk
  >
  const gzipped = (file: string) => gzipSync(readFileSync(join(dir, file)), { level: 9 }).length

  /** The files a chunk needs before it runs: itself, its static imports (transitively) and their CSS. */
  const closure = (key: string, seen = new Set<string>()): Set<string> => {
    const chunk = manifest[key]
    if (!chunk) throw new Error(`${key} is not in the ${name} build's manifest: run npm run build:web`)
    seen.add(chunk.file)
    for (const css of chunk.css ?? []) seen.add(css)
    for (const imported of chunk.imports ?? [])
      if (!seen.has(manifest[imported]?.file ?? '')) closure(imported, seen)
    return seen
  }
  /** A screen's chunk: under its source's name, or (shared with another screen) under the chunk's name. */
  const chunkOf = (screen: string) => {
    const key = manifest[screen]
      ? screen
      : Object.keys(manifest).find((k) => manifest[k]?.name === screen.replace(/^.*\/|\.tsx$/g, ''))
    if (!key) throw new Error(`${screen} is not in the ${name} build's manifest`)
    return key
  }
  const entry = Object.keys(manifest).find((key) => manifest[key]?.isEntry)
  if (!entry) throw new Error(`no entry in the ${name} build's manifest: run npm run build:web`)

  return {
    weightOf(screens) {
      const files = new Set<string>()
      for (const key of [entry, ...screens.map(chunkOf)]) for (const file of closure(key)) files.add(file)
      const sum = (ending: string) =>
        [...files].filter((f) => f.endsWith(ending)).reduce((total, f) => total + gzipped(f), 0)
      const js = sum('.js')
      const css = sum('.css')
      return {
        files: files.size,
        jsKb: round(js / 1024, 1),
        cssKb: round(css / 1024, 1),
        totalKb: round((js + css) / 1024, 1),
      }
    },
  }
}

/** The weights as a table, against the 150 KB target. */
export function printWeights(weights: Record<string, Weight>): void {
  console.log(`Initial JavaScript and CSS, gzipped (target ≤ ${TARGET_KB} KB):`)
  console.log(
    table([
      ['first screen', 'files', 'JS KB', 'CSS KB', 'total KB', 'target'],
      ...Object.entries(weights).map(([screen, w]) => [
        screen,
        w.files,
        w.jsKb,
        w.cssKb,
        w.totalKb,
        w.totalKb <= TARGET_KB ? 'met' : 'MISSED',
      ]),
    ]),
  )
}
