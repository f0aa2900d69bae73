/**
 * The awesome list bench/imports.ts imports: written as people write them on GitHub, from a seeded random
 * source so that every run reads the same file. A title with a badge, an intro quote, a Contents list, ~40
 * `##` categories (some with `###` sub-sections), items `- [Name](https://…) - Description` (some `*`
 * bullets, some `:` separators, some nested under a parent item, some with trailing badges or emoji,
 * descriptions of 40–200 characters), Contributing and License sections, and a few lines no importer can
 * read (a bullet without a link, a link to a relative file).
 */

/** A small seeded generator (mulberry32): the same list on every run and machine. */
function seeded(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!,
    chance: (probability: number) => next() < probability,
  }
}

const TOPICS = [
  'Databases',
  'Web Frameworks',
  'Testing',
  'Command Line',
  'Machine Learning',
  'Data Visualization',
  'Networking',
  'Security',
  'Authentication',
  'Logging',
  'Monitoring',
  'Caching',
  'Queues',
  'Search',
  'Static Site Generators',
  'Content Management',
  'Editors',
  'Terminal Tools',
  'Package Managers',
  'Build Tools',
  'Continuous Integration',
  'Containers',
  'Orchestration',
  'Serverless',
  'Email',
  'Payments',
  'Maps & Geo',
  'Images',
  'Audio',
  'Video',
  'Games',
  'Documentation',
  'Internationalization',
  'Accessibility',
  'Date & Time',
  'Parsing',
  'Compression',
]
const SUB_TOPICS = ['Libraries', 'Tools', 'Hosted Services', 'Tutorials', 'Plugins', 'Examples']
const PREFIXES = [
  'fast',
  'tiny',
  'open',
  'hyper',
  'micro',
  'deep',
  'swift',
  'bright',
  'quiet',
  'bold',
  'lazy',
  'neat',
  'pure',
  'smart',
  'super',
  'ultra',
  'easy',
  'flux',
  'nova',
  'zen',
  'rapid',
  'solid',
  'crisp',
  'clever',
]
const STEMS = [
  'query',
  'stream',
  'graph',
  'cache',
  'router',
  'parser',
  'logger',
  'queue',
  'store',
  'proxy',
  'shell',
  'view',
  'form',
  'table',
  'chart',
  'map',
  'mail',
  'pay',
  'auth',
  'lint',
  'test',
  'build',
  'pack',
  'sync',
  'scan',
  'watch',
  'crypt',
  'zip',
  'clock',
  'task',
  'bot',
  'flow',
  'dash',
  'doc',
  'note',
  'grid',
  'pixel',
]
const SUFFIXES = ['', '', '', '.js', '-rs', '-go', 'py', 'kit', 'ly', 'hub', 'io', 'lab', 'er', 'db', 'x']
const HOSTS = ['github.com', 'gitlab.com', 'codeberg.org', 'sr.ht']
const OWNERS = ['acme', 'octo', 'nebula', 'mosaic', 'lighthouse', 'otter', 'pinecone', 'kestrel', 'tundra']
const OPENINGS = [
  'A small library for',
  'Fast and simple',
  'A batteries-included toolkit for',
  'Minimal, dependency-free',
  'A modern take on',
  'Lightweight helpers for',
  'A production-ready service for',
  'Zero-config',
  'An experimental engine for',
  'A friendly command-line tool for',
  'Blazing fast',
  'Type-safe',
]
const SUBJECTS = [
  'building web applications',
  'parsing structured data',
  'streaming logs to the cloud',
  'testing HTTP APIs',
  'rendering charts in the browser',
  'managing background jobs',
  'caching expensive queries',
  'sending transactional email',
  'handling payments and invoices',
  'drawing interactive maps',
  'resizing and optimizing images',
  'scheduling recurring tasks',
  'searching large collections of text',
  'securing APIs with tokens',
  'monitoring servers and containers',
]
const CLAUSES = [
  'with a plugin system',
  'written in Rust',
  'with first-class TypeScript support',
  'that runs anywhere',
  'with a tiny footprint',
  'used in production by many teams',
  'with great documentation',
  'supporting Postgres, MySQL and SQLite',
  'with live reload',
  'with an optional hosted version',
  'that works offline',
  'with `async` iterators',
  'inspired by the Unix philosophy',
  'with **no** dependencies',
]
const EMOJI = ['🚀', '⚡', '🔥', '✨', '🛠️', '📦', '🦀', '🐍', '🧪', '🔒', '☕']
const BADGES = [
  '![GitHub stars](https://img.shields.io/github/stars/{repo}.svg)',
  '[![npm](https://img.shields.io/npm/v/{name}.svg)](https://www.npmjs.com/package/{name})',
  '![Build](https://github.com/{repo}/actions/workflows/ci.yml/badge.svg)',
]

export interface AwesomeList {
  text: string
  /** Items the importer should read (links to http(s) pages), nested ones included. */
  items: number
  /** Lines it should report as errors. */
  unreadable: number
  /** Sections that hold items: the categories an import makes. */
  categories: number
}

/** The categories' sizes: a few big ones, many small ones (a gentle power law), summing to `items`. */
function sectionSizes(items: number, sections: number, random: ReturnType<typeof seeded>): number[] {
  const weights = Array.from(
    { length: sections },
    (_, index) => 1 / (1 + index) ** 0.8 + random.next() * 0.05,
  )
  const total = weights.reduce((sum, weight) => sum + weight, 0)
  const sizes = weights.map((weight) => Math.max(1, Math.floor((weight / total) * items)))
  let left = items - sizes.reduce((sum, size) => sum + size, 0)
  for (let index = 0; left !== 0; index = (index + 1) % sections) {
    if (left > 0) {
      sizes[index]! += 1
      left--
    } else if (sizes[index]! > 1) {
      sizes[index]! -= 1
      left++
    }
  }
  // Big sections scattered through the list, not all at its top.
  for (let index = sizes.length - 1; index > 0; index--) {
    const other = random.int(index + 1)
    ;[sizes[index], sizes[other]] = [sizes[other]!, sizes[index]!]
  }
  return sizes
}

/** An awesome list of `items` items (and a few unreadable lines), the same for the same `items`. */
export function awesomeList(items: number, seed = 20261127): AwesomeList {
  const random = seeded(seed)
  const usedNames = new Set<string>()
  const nameOf = () => {
    while (true) {
      const base = `${random.pick(PREFIXES)}${random.pick(STEMS)}${random.pick(SUFFIXES)}`
      const styled = random.chance(0.4) ? base[0]!.toUpperCase() + base.slice(1) : base
      const name = usedNames.has(styled.toLowerCase()) ? `${styled} ${random.int(10_000)}` : styled
      const key = name.toLowerCase()
      if (!usedNames.has(key)) {
        usedNames.add(key)
        return name
      }
    }
  }
  const description = (slug: string, repo: string) => {
    let text = `${random.pick(OPENINGS)} ${random.pick(SUBJECTS)}`
    const clauses = new Set<string>()
    while (text.length < 40 || (text.length < 150 && random.chance(0.5))) {
      const clause = random.pick(CLAUSES)
      if (clauses.has(clause)) continue
      clauses.add(clause)
      text += `, ${clause}`
    }
    text = `${text.slice(0, 198)}.`
    if (random.chance(0.08)) text += ` ${random.pick(EMOJI)}`
    if (random.chance(0.06)) {
      text += ` ${random.pick(BADGES).replaceAll('{repo}', repo).replaceAll('{name}', slug)}`
    }
    return text
  }
  const itemLine = (indent: string) => {
    const name = nameOf()
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-')
    const repo = `${random.pick(OWNERS)}/${slug}`
    const url = random.chance(0.8)
      ? `https://${random.pick(HOSTS)}/${repo}`
      : `https://${name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.dev/`
    const bullet = random.chance(0.1) ? '*' : '-'
    const separator = random.chance(0.1) ? ':' : ' -'
    const link = random.chance(0.03) ? `**[${name}](${url})**` : `[${name}](${url})`
    return `${indent}${bullet} ${link}${separator} ${description(slug, repo)}`
  }

  // ~40 sections: one topic in eight split into two `###` sub-sections, the `##` itself keeping a few.
  const layout: { title: string; depth: 2 | 3 }[] = []
  TOPICS.forEach((topic, index) => {
    layout.push({ title: topic, depth: 2 })
    if (index % 8 === 3) {
      const first = random.int(SUB_TOPICS.length)
      for (const offset of [0, 1]) {
        const sub = SUB_TOPICS[(first + offset) % SUB_TOPICS.length]!
        layout.push({ title: `${topic.split(' ')[0]} ${sub}`, depth: 3 })
      }
    }
  })
  const sizes = sectionSizes(items, layout.length, random)
  const anchor = (title: string) =>
    title
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, '')
      .replace(/ /g, '-')

  const lines = [
    '# Awesome Everything [![Awesome](https://awesome.re/badge.svg)](https://awesome.re)',
    '',
    '> A curated list of delightful libraries, tools and services for people who build software. 🧰',
    '',
    'Contributions welcome! Read the [contribution guidelines](CONTRIBUTING.md) first.',
    '',
    '## Contents',
    '',
  ]
  for (const { title, depth } of layout) {
    lines.push(`${depth === 3 ? '  ' : ''}- [${title}](#${anchor(title)})`)
  }
  lines.push('- [Contributing](#contributing)', '- [License](#license)', '')

  let unreadable = 0
  let written = 0
  layout.forEach(({ title, depth }, index) => {
    lines.push(`${'#'.repeat(depth)} ${title}`, '')
    if (random.chance(0.3)) lines.push(`*Things for ${title.toLowerCase()}, roughly by popularity.*`, '')
    let left = sizes[index]!
    while (left > 0) {
      // Now and then a parent item with two or three nested items under it.
      if (left >= 4 && random.chance(0.01)) {
        lines.push(itemLine(''))
        const nested = 2 + random.int(2)
        for (let child = 0; child < nested; child++) lines.push(itemLine('  '))
        left -= nested + 1
        written += nested + 1
        continue
      }
      lines.push(itemLine(''))
      left--
      written++
    }
    // A few lines no importer can read, in a few sections.
    if (index % 9 === 4) {
      lines.push(
        index % 2
          ? '- See also the list of lists below'
          : `- [${title} guide](docs/${anchor(title)}.md) - Read me first.`,
      )
      unreadable++
    }
    lines.push('')
  })
  lines.push(
    '## Contributing',
    '',
    'Your contributions are always welcome! Please read the [contribution guidelines](CONTRIBUTING.md) first.',
    '',
    '## License',
    '',
    '[![CC0](https://licensebuttons.net/p/zero/1.0/88x31.png)](https://creativecommons.org/publicdomain/zero/1.0/)',
    '',
    'To the extent possible under law, the authors have waived all copyright to this work.',
    '',
  )
  return {
    text: lines.join('\n'),
    items: written,
    unreadable,
    categories: sizes.filter((size) => size > 0).length,
  }
}
