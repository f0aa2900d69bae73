import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseMarkdown, renderMarkdown } from '../../../src/directory/transfer/markdown.ts'
import { exportItem, exportSource, rendered } from './sources.ts'

const AWESOME_LIST = `# Awesome Coffee [![Awesome](https://awesome.re/badge.svg)](https://awesome.re)

> A curated list of *coffee* roasters, cafés and tools ☕.

Another paragraph that is not the description.

## Contents

- [Roasters](#roasters)
- [Tools](#tools)
  - [Grinders](#grinders)

## Roasters

- [Bonanza](https://bonanza.de) - Berlin roaster. ![Stars](https://img.shields.io/github/stars/x.svg) 🔥
* [Five Elephant](https://five-elephant.de): Cakes   too.
  [![Build](https://ci.example/badge.svg)](https://ci.example)
+ [The Barn](https://thebarn.de)
- Not a link here
- [Guidelines](CONTRIBUTING.md) - relative
- [Write us](mailto:hello@coffee.example)
- [![Logo](https://logo.svg)](https://empty-name.example)
- Berlin
  - [Father Carpenter](https://fathercarpenter.com) — hidden in a courtyard.

Some prose between lists, [with a link](https://prose.example).

| Roaster | City |
| ------- | ---- |
| Bonanza | Berlin |

\`\`\`
- [In code](https://code.example)
\`\`\`

<p>- [In HTML](https://html.example)</p>

## Tools

### Grinders

- **[Comandante](https://comandante.com)** – Hand grinder.
- [Niche Zero][niche]-Single dose.

## Empty section

Nothing yet.

## Contributing

Contributions welcome! Read the [contribution guidelines](CONTRIBUTING.md) first.

## License

[![CC0](https://licensebuttons.net/p/zero/1.0/88x31.png)](https://creativecommons.org/publicdomain/zero/1.0/)

[niche]: https://nichecoffee.co.uk
`

describe('parseMarkdown', () => {
  const parsed = parseMarkdown(AWESOME_LIST)

  it('takes the title without its badges as the site name, and the first quote after it as its description', () => {
    assert.deepEqual(parsed.site, {
      name: 'Awesome Coffee',
      description: 'A curated list of coffee roasters, cafés and tools ☕.',
    })
  })

  it('reads list items that start with an http(s) link, in order, under the innermost heading', () => {
    assert.deepEqual(
      parsed.items.map(({ line, item }) => ({ line, ...item })),
      [
        {
          line: 15,
          name: 'Bonanza',
          url: 'https://bonanza.de',
          description: 'Berlin roaster. 🔥',
          category: 'Roasters',
        },
        {
          line: 16,
          name: 'Five Elephant',
          url: 'https://five-elephant.de',
          description: 'Cakes too.',
          category: 'Roasters',
        },
        { line: 18, name: 'The Barn', url: 'https://thebarn.de', description: null, category: 'Roasters' },
        {
          line: 24,
          name: 'Father Carpenter',
          url: 'https://fathercarpenter.com',
          description: 'hidden in a courtyard.',
          category: 'Roasters',
        },
        {
          line: 42,
          name: 'Comandante',
          url: 'https://comandante.com',
          description: 'Hand grinder.',
          category: 'Grinders',
        },
        {
          line: 43,
          name: 'Niche Zero',
          url: 'https://nichecoffee.co.uk',
          description: 'Single dose.',
          category: 'Grinders',
        },
      ],
    )
  })

  it('lists the categories that got items, in file order, flat', () => {
    assert.deepEqual(parsed.categories, ['Roasters', 'Grinders'])
  })

  it('reports each list item it cannot read with its line and why', () => {
    assert.deepEqual(parsed.issues, [
      { line: 19, message: 'list item does not start with a link: "Not a link here"' },
      { line: 20, message: 'link "Guidelines" is not an http(s) URL: CONTRIBUTING.md' },
      { line: 21, message: 'link "Write us" is not an http(s) URL: mailto:hello@coffee.example' },
      { line: 22, message: 'link to https://empty-name.example has no name' },
    ])
  })

  it('gives items before any section no category, and skips a contents list of anchors wherever it is', () => {
    const file = parseMarkdown(
      '# List\n\n- [Intro](#intro)\n- [More](#more)\n\nThe tools:\n\n- [Loose](https://loose.example) - first\n\n## Tools\n\n- [Kept](https://kept.example)\n',
    )
    assert.deepEqual(
      file.items.map(({ item }) => [item.name, item.category]),
      [
        ['Loose', null],
        ['Kept', 'Tools'],
      ],
    )
    assert.deepEqual(file.issues, [])
    assert.deepEqual(file.site, { name: 'List', description: 'The tools:' })
  })
})

describe('parseMarkdown, a section at a time', () => {
  const LIST = [
    '# Big list',
    '',
    '## Tools',
    '',
    '- [Hammer](https://hammer.example) - Hits.',
    '',
    '```md',
    '## Not a section',
    '- [Inside code](https://code.example)',
    '```',
    '',
    '<!--',
    '## Not a section either',
    '-->',
    '- [Saw][saw] - Cuts.',
    '',
    '### Small tools',
    '',
    '- [Pin](https://pin.example)',
    '- no link',
    '',
    '[saw]: https://saw.example',
  ].join('\n')

  it('cuts only at headings outside code and comments, keeps line numbers and the file’s link definitions', () => {
    const parsed = parseMarkdown(LIST)
    assert.deepEqual(parsed.categories, ['Tools', 'Small tools'])
    assert.deepEqual(
      parsed.items.map(({ line, item }) => [line, item.name, item.url, item.category]),
      [
        [5, 'Hammer', 'https://hammer.example', 'Tools'],
        [15, 'Saw', 'https://saw.example', 'Tools'],
        [19, 'Pin', 'https://pin.example', 'Small tools'],
      ],
    )
    assert.deepEqual(parsed.issues, [
      { line: 20, message: 'list item does not start with a link: "no link"' },
    ])
  })
})

describe('renderMarkdown', () => {
  const items = [
    exportItem({
      slug: 'bonanza',
      name: 'Bonanza',
      url: 'https://bonanza.de',
      description: 'Berlin  roaster,\nsince 2006.',
      category: 'Roasters',
    }),
    exportItem({ slug: 'the-barn', name: 'The Barn', url: 'https://thebarn.de', category: 'Roasters' }),
    exportItem({
      slug: 'comandante',
      name: 'Comandante',
      url: 'https://comandante.com',
      category: 'Grinders & Mills',
    }),
    exportItem({ slug: 'no-link', name: 'No Link', description: 'Only on the site.' }),
  ]

  it('writes an awesome list: title, description, contents, a section per category, Other last', async () => {
    const text = await rendered(renderMarkdown(exportSource(items)))
    assert.equal(
      text,
      `# Awesome Coffee

> Roasters, cafés and tools.

## Contents

- [Roasters](#roasters)
- [Grinders & Mills](#grinders--mills)
- [Other](#other)

## Roasters

- [Bonanza](https://bonanza.de) - Berlin roaster, since 2006.
- [The Barn](https://thebarn.de)

## Grinders & Mills

- [Comandante](https://comandante.com)

## Other

- [No Link](https://coffee.example/api/items/no-link) - Only on the site.
`,
    )
  })

  it('leaves out the description quote when the site has none', async () => {
    const text = await rendered(renderMarkdown(exportSource(items.slice(1, 2), { description: ' ' })))
    assert.equal(
      text,
      '# Awesome Coffee\n\n## Contents\n\n- [Roasters](#roasters)\n\n## Roasters\n\n- [The Barn](https://thebarn.de)\n',
    )
  })

  it('parses back to the same names, links, descriptions, categories and order, whatever they hold', async () => {
    const nasty = [
      '[brackets] and ](half',
      '*stars* and **strong**',
      '_under_ snake_case',
      'back`tick` ``two``',
      '<html> <b>bold</b> <https://auto.link>',
      'emoji ☕🔥 ü',
      'dash - inside - name',
      'C# and ## hashes #',
      'back\\slash\\ and &amp; &#35; &copy',
      '![not an image](x)',
      '1. numbered',
      '> quoted',
    ]
    const source = nasty.map((name, index) =>
      exportItem({
        slug: `item-${index}`,
        name,
        url: [
          'https://a.example/x_(y)',
          'https://b.example/a b',
          'https://c.example/?q=1&amp;r=2',
          'https://d.example/\\',
        ][index % 4]!,
        description: index % 3 === 0 ? null : `${nasty[(index + 1) % nasty.length]} - : trailing`,
        category: index < 6 ? '*Odd* [category] #1' : 'C# `tools`',
      }),
    )
    const text = await rendered(renderMarkdown(exportSource(source, { name: '*Awesome* [list]' })))
    const parsed = parseMarkdown(text)
    assert.deepEqual(parsed.issues, [])
    assert.deepEqual(parsed.site, { name: '*Awesome* [list]', description: 'Roasters, cafés and tools.' })
    assert.deepEqual(parsed.categories, ['*Odd* [category] #1', 'C# `tools`'])
    assert.deepEqual(
      parsed.items.map(({ item }) => item),
      source.map(({ name, url, description, category }) => ({ name, url, description, category })),
    )
  })
})
