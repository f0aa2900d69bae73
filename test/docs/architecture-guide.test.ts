/**
 * docs/architecture.md describes the house as the code keeps it: every file and folder it names exists,
 * every interface it names is declared where it says, every owner method it lists is the owner's, and
 * every command it shows is one this project has. Checked here so that the guide cannot drift from the
 * code when a file moves.
 */
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const GUIDE = read('docs/architecture.md')
const README = read('README.md')
const CODE_MAP = read('docs/code-map.md')

/**
 * A path the guide names, relative to the project, to src/ (as the code map writes them) or to
 * a service's folder (`sponsor-ads/billing.ts`).
 */
function resolve(path: string): string | undefined {
  return [path, `src/${path}`, `src/directory/${path}`, `src/platform/${path}`].find(
    (candidate) => path !== '' && existsSync(join(ROOT, candidate)),
  )
}

/** Every source text below a folder (or the one file). */
function sourceOf(path: string): string {
  const full = join(ROOT, path)
  if (!statSync(full).isDirectory()) return readFileSync(full, 'utf8')
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => readFileSync(join(full, name), 'utf8'))
    .join('\n')
}

/** The rows of the Markdown table that follows `heading` text, as cells. */
function tableAfter(text: string, marker: string): string[][] {
  const start = text.indexOf(marker)
  assert.ok(start >= 0, `the guide has "${marker}"`)
  const lines = text.slice(start).split('\n')
  const first = lines.findIndex((line) => line.startsWith('|'))
  const rows: string[][] = []
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    )
  }
  assert.ok(rows.length > 0, `a table follows "${marker}"`)
  return rows
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string)

describe('the architecture guide (docs/architecture.md)', () => {
  it('is linked from the README, as is the code map', () => {
    assert.match(README, /\]\(docs\/architecture\.md\)/)
    assert.match(README, /\]\(docs\/code-map\.md\)/)
  })

  for (const [name, text] of [
    ['the guide', GUIDE],
    ['the code map (docs/code-map.md)', CODE_MAP],
  ] as const) {
    it(`${name} names only files and folders that exist`, () => {
      // A bare `tables.ts` is any module's; a name with a folder or at the root is one place.
      const named = new Set(
        [...text.matchAll(/`([\w./-]+\/[\w./-]*|\.[\w.-]+\.cjs)`/g)]
          .map((match) => match[1] as string)
          .filter((path) => !path.startsWith('/') && !path.includes('<')),
      )
      assert.ok(named.size >= 30, `${name} names files: ${named.size}`)
      const missing = [...named].filter((path) => resolve(path) === undefined)
      assert.deepEqual(missing, [])
    })
  }

  it('names each handed-in interface where it is declared, and its implementation uses it', () => {
    const rows = tableAfter(GUIDE, '| Interface |')
    for (const [interfaces = '', declaredBy = '', implementedBy = ''] of rows) {
      const declaring = resolve(ticked(declaredBy)[0] ?? '')
      assert.ok(declaring, `${declaredBy} exists`)
      const declared = sourceOf(declaring)
      const implementations = ticked(implementedBy)
        .map((path) => resolve(path))
        .filter((path) => path !== undefined)
      for (const name of ticked(interfaces)) {
        assert.match(declared, new RegExp(`(interface|type) ${name}\\b`), `${declaring} declares ${name}`)
        // Where the implementation is named by file, that file names the interface it implements.
        for (const path of implementations) {
          if (path.endsWith('.ts'))
            assert.match(sourceOf(path), new RegExp(`\\b${name}\\b`), `${path} implements ${name}`)
        }
      }
    }
  })

  it('lists owner methods that the owner module has', () => {
    const rows = tableAfter(GUIDE, '| Owner |')
    for (const [owner = '', methods = ''] of rows) {
      const folder = resolve(ticked(owner)[0] ?? '')
      assert.ok(folder, `${owner} is a module folder`)
      const source = sourceOf(folder)
      for (const call of ticked(methods)) {
        // `sessions.revokeAll(tx, userId)` → revokeAll, `lock` → lock
        const name = /(\w+)(?:\(.*)?$/.exec(call)?.[1]
        assert.ok(name, `${call} names a method`)
        assert.match(source, new RegExp(`\\b${name}\\b`), `${folder} has ${name} (from ${call})`)
      }
    }
  })

  it('shows only commands this project has', () => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>
    const commands = [...GUIDE.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((match) =>
      (match[1] as string).trim().split('\n'),
    )
    assert.ok(commands.length >= 2)
    for (const command of commands) {
      const run = /^npm run ([\w:-]+)$/.exec(command)
      const test = /^npm test -- ([\w./-]+)$/.exec(command)
      assert.ok(run || test, `"${command}" is an npm script call`)
      if (run) assert.ok(run[1]! in scripts, `npm run ${run[1]} exists`)
      if (test) assert.ok(existsSync(join(ROOT, test[1]!)), `${test[1]} exists`)
    }
  })
})
