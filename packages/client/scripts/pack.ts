/**
 * `npm pack` / `npm publish` of @curio/client. In this repository the package is its TypeScript source
 * (`exports` → `src/index.ts`, which Node 24 runs by stripping types, outside node_modules only). A
 * consumer's Node does not strip types under node_modules, so the tarball carries JavaScript and
 * declarations instead: `prepack` compiles `src/` to `dist/` and points the manifest at `dist/` for the
 * tarball; `postpack` puts the repository's manifest back and removes `dist/`.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = fileURLToPath(new URL('..', import.meta.url))
const manifest = join(dir, 'package.json')
const kept = join(dir, '.package.repository.json')

function prepack() {
  rmSync(join(dir, 'dist'), { recursive: true, force: true })
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const build = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.build.json')], {
    stdio: 'inherit',
  })
  if (build.status !== 0) throw new Error('tsc -p tsconfig.build.json failed')
  const text = readFileSync(manifest, 'utf8')
  writeFileSync(kept, text)
  const published = JSON.parse(text)
  published.exports = { '.': { types: './dist/index.d.ts', default: './dist/index.js' } }
  published.files = ['dist', 'src', 'openapi']
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`)
}

function postpack() {
  if (existsSync(kept)) renameSync(kept, manifest)
  rmSync(join(dir, 'dist'), { recursive: true, force: true })
}

if (process.argv[2] === 'prepack') prepack()
else if (process.argv[2] === 'postpack') postpack()
else throw new Error('usage: node scripts/pack.ts prepack|postpack')
