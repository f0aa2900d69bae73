/**
 * The documentation's links lead somewhere: every relative link of README.md, docs/ and bench/README.md
 * names a file of the repository (never one beside it, such as ../shared/) and, when it has an anchor, a
 * heading of that file, spelled as GitHub spells heading anchors.
 */
import assert from 'node:assert/strict'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { documentationFiles, headingAnchors, isFence, ROOT } from '../helpers/markdown.ts'

/** The text outside fenced code blocks, inline code and HTML comments, line by line (numbers kept). */
function prose(markdown: string): string[] {
  let fenced = false
  return markdown
    .replace(/<!--[\s\S]*?-->/g, (comment) => comment.replace(/[^\n]/g, ' '))
    .split('\n')
    .map((line) => {
      if (isFence(line)) {
        fenced = !fenced
        return ''
      }
      return fenced ? '' : line.replace(/`[^`]*`/g, '``')
    })
}

interface Link {
  line: number
  target: string
}

function linksOf(markdown: string): Link[] {
  return prose(markdown).flatMap((text, index) =>
    [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|<((?:https?|mailto):[^>\s]+)>/g)].map(
      (match) => ({ line: index + 1, target: (match[1] ?? match[2]) as string }),
    ),
  )
}

describe('the documentation’s links', () => {
  const files = documentationFiles()

  it('covers the README, every guide and the benchmarks', () => {
    for (const file of ['README.md', 'docs/platform-api.md', 'docs/configuration.md', 'bench/README.md']) {
      assert.ok(files.includes(file), `${file} is checked`)
    }
  })

  for (const file of files) {
    it(`${file}: every relative link names a file of the repository and an existing heading`, () => {
      const text = readFileSync(join(ROOT, file), 'utf8')
      const problems: string[] = []
      let relativeLinks = 0
      for (const { line, target } of linksOf(text)) {
        const where = `${file}:${line} → ${target}`
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
        relativeLinks++
        const [path = '', anchor] = target.split('#') as [string, string | undefined]
        const full = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURI(path))
        const inside = relative(ROOT, full)
        if (inside.startsWith('..') || path.startsWith('/')) {
          problems.push(`${where}: outside the repository`)
          continue
        }
        if (!existsSync(full)) {
          problems.push(`${where}: no such file`)
          continue
        }
        if (anchor === undefined) continue
        if (statSync(full).isDirectory() || !full.endsWith('.md')) {
          problems.push(`${where}: an anchor into a file that is not Markdown`)
        } else if (!headingAnchors(readFileSync(full, 'utf8')).has(anchor)) {
          problems.push(`${where}: ${inside} has no heading with that anchor`)
        }
      }
      assert.deepEqual(problems, [])
      if (file === 'README.md')
        assert.ok(relativeLinks >= 10, `the README links its guides: ${relativeLinks}`)
    })
  }

  it('nothing names the specification beside the repository (../shared)', () => {
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      assert.doesNotMatch(text, /\.\.\/shared|shared\/(SPEC|CONTRACT)\.md/, file)
    }
  })

  it('reads anchors as GitHub makes them', () => {
    const anchors = headingAnchors(
      '# Curio\n## CRM (Twenty)\n## The shared code (`bench:spine`)\n```\n# not a heading\n```\n## CRM (Twenty)\n',
    )
    assert.deepEqual([...anchors], ['curio', 'crm-twenty', 'the-shared-code-benchspine', 'crm-twenty-1'])
  })
})
