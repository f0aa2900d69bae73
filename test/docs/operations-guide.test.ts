/**
 * docs/operations.md tells operators what to set, how to balance, and what each metric means: checked
 * against the configuration, deploy/haproxy.cfg and the metrics registry, so the guide cannot drift from
 * the code.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { configurationTable } from '../../src/config.ts'
import { ERROR_CODES } from '../../src/lib/error-codes.ts'
import { metricsRegistry } from '../../src/lib/metrics.ts'

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8')
const GUIDE = read('docs/operations.md')
const README = read('README.md')
const HAPROXY = read('deploy/haproxy.cfg')

/** The text of a `## ` section of `text`, from its heading to the next. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`${heading}\n`)
  assert.ok(start >= 0, `there is a section "${heading}"`)
  const level = heading.split(' ')[0] as string
  const end = text.indexOf(`\n${level} `, start + 1)
  return text.slice(start, end > 0 ? end : text.length)
}

describe('the operators’ guide (docs/operations.md)', () => {
  it('is linked from the README', () => {
    assert.match(README, /\]\(docs\/operations\.md\)/)
  })

  it('lists every metric Curio registers with its type, and explains each', () => {
    const metrics = metricsRegistry.getMetricsAsArray()
    assert.ok(
      metrics.length >= 9,
      `the registry holds Curio's metrics: ${metrics.map((m) => m.name).join(', ')}`,
    )
    const guide = section(GUIDE, '## Metrics')
    const typed = guide.slice(guide.indexOf('| Metric | Type |'))
    const explained = guide.slice(guide.indexOf('| Metric | What it means |'))
    for (const { name, type } of metrics) {
      assert.match(
        typed,
        new RegExp(`^\\| [^|]*\`${name}\`[^|]* \\| ${type} \\|`, 'm'),
        `${name} is a ${type}`,
      )
      assert.match(explained, new RegExp(`^\\| [^|]*\`${name}\``, 'm'), `the guide explains ${name}`)
    }
  })

  /** Names the guide may cite that are Postgres's statements or Node's own variables, not Curio settings. */
  const OUTSIDE_NAMES = ['LISTEN', 'NOTIFY', 'ANALYZE', 'CHECKPOINT', 'NODE_OPTIONS']

  it('names only settings that exist (and error codes that exist)', () => {
    const table = configurationTable()
    const named = new Set([...GUIDE.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map((match) => match[1] as string))
    const unknown = [...named].filter(
      (name) => !table.includes(`| \`${name}\` |`) && !(name in ERROR_CODES) && !OUTSIDE_NAMES.includes(name),
    )
    assert.deepEqual(unknown, [])
  })

  it('shows the HAProxy backend that deploy/haproxy.cfg (the scale-out check’s) has', () => {
    const sample = /```haproxy\n([\s\S]*?)```/.exec(GUIDE)?.[1] ?? ''
    const backend = sample.slice(sample.search(/^backend /m))
    const directives = backend
      .split('\n')
      .slice(1)
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('server '))
    assert.ok(directives.length >= 4, backend)
    for (const directive of directives) {
      assert.ok(HAPROXY.includes(`    ${directive}`), `deploy/haproxy.cfg has "${directive}"`)
    }
    assert.match(HAPROXY, /option forwardfor/)
  })
})
