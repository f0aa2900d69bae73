/**
 * The awesome-list Markdown format. Parsing walks the document's syntax tree (mdast), never regular
 * expressions over the text: `##` and deeper headings are categories, list items that start with a link are
 * items, and a list item that cannot be read is an issue with its line. Rendering writes an awesome list that
 * parses back to the same names, links, descriptions, categories and order.
 */
import { setImmediate } from 'node:timers/promises'
import GithubSlugger from 'github-slugger'
import type { Definition, List, ListItem, Paragraph, PhrasingContent, RootContent } from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { itemLink } from '../feeds/render.ts'
import type { ExportItem, ExportSource, ParsedFile, ParsedItem, ParseIssue } from './records.ts'

/** A section with this title is the list's table of contents, not a category. */
const CONTENTS_TITLE = /^(table of )?contents$/i

/** The separator awesome lists put between an item's link and its description. */
const LEADING_SEPARATOR = /^[-–—:]/

/** The section the Markdown export puts published items without a category in. */
export const UNCATEGORIZED_SECTION = 'Other'

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

const isHttpUrl = (raw: string): boolean => {
  try {
    const { protocol } = new URL(raw)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

type Inline = PhrasingContent

/** A link or link reference whose content is only images: a badge. */
const isBadge = (node: Inline): boolean =>
  (node.type === 'link' || node.type === 'linkReference') &&
  node.children.length > 0 &&
  node.children.every(
    (child) =>
      child.type === 'image' ||
      child.type === 'imageReference' ||
      (child.type === 'text' && child.value.trim() === ''),
  )

/** Plain text of inline content, without images, badges or inline HTML. */
function textOf(nodes: readonly Inline[]): string {
  let text = ''
  for (const node of nodes) {
    if (node.type === 'text' || node.type === 'inlineCode') text += node.value
    else if (node.type === 'break') text += ' '
    else if (isBadge(node)) continue
    else if ('children' in node) text += textOf(node.children as Inline[])
  }
  return text
}

/** Plain text of a block (a paragraph, a blockquote's paragraphs), on one line. */
function blockText(node: RootContent): string {
  if (node.type === 'paragraph' || node.type === 'heading') return oneLine(textOf(node.children))
  if (node.type === 'blockquote') return oneLine(node.children.map(blockText).join(' '))
  return ''
}

/** The link a list item starts with, through bold or italic around it, with its destination resolved. */
function leadingLink(
  paragraph: Paragraph,
  definitions: Map<string, Definition>,
): { url: string | undefined; name: string; rest: Inline[] } | undefined {
  let [first, ...rest] = paragraph.children
  if (
    (first?.type === 'strong' || first?.type === 'emphasis') &&
    first.children.length === 1 &&
    (first.children[0]!.type === 'link' || first.children[0]!.type === 'linkReference')
  ) {
    first = first.children[0]
  }
  if (first?.type === 'link') return { url: first.url, name: oneLine(textOf(first.children)), rest }
  if (first?.type === 'linkReference') {
    const url = definitions.get(first.identifier)?.url
    return { url, name: oneLine(textOf(first.children)), rest }
  }
  return undefined
}

/** A list whose items all link to `#anchors`: a table of contents. */
function isContentsList(list: List): boolean {
  const links = list.children.flatMap((item) => {
    const paragraph = item.children[0]
    const first = paragraph?.type === 'paragraph' ? paragraph.children[0] : undefined
    return first?.type === 'link' ? [first.url] : []
  })
  return links.length === list.children.length && links.every((url) => url.startsWith('#'))
}

/** A piece of the file that starts at a heading (or the file's start), and the line it starts on. */
interface Section {
  text: string
  /** Lines before it in the file. */
  offset: number
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/
const DEFINITION = /^ {0,3}\[[^\]]+\]:[ \t]*\S/

/**
 * The file cut before each heading that starts a line (a heading ends any list or paragraph before it, so
 * each piece parses as it would in the whole), never inside a fenced code block or an HTML comment, with the
 * lines of link reference definitions, which hold for the whole file, to add to each piece. This is line
 * splitting only: each piece is read by the Markdown parser.
 */
function sectionsOf(text: string): { sections: Section[]; definitions: string } {
  const lines = text.split(/\r?\n/)
  const sections: Section[] = []
  const definitions: string[] = []
  let start = 0
  let fence: string | undefined
  let inComment = false
  lines.forEach((line, index) => {
    const opened = FENCE.exec(line)?.[1]
    if (fence !== undefined) {
      if (opened && opened[0] === fence[0] && opened.length >= fence.length && line.trim() === opened) {
        fence = undefined
      }
      return
    }
    if (inComment) {
      if (line.includes('-->')) inComment = false
      return
    }
    if (opened) {
      fence = opened
      return
    }
    if (line.lastIndexOf('<!--') > line.lastIndexOf('-->')) {
      inComment = true
      return
    }
    if (DEFINITION.test(line)) definitions.push(line)
    else if (ATX_HEADING.test(line) && index > start) {
      sections.push({ text: lines.slice(start, index).join('\n'), offset: start })
      start = index
    }
  })
  sections.push({ text: lines.slice(start).join('\n'), offset: start })
  return { sections, definitions: definitions.join('\n') }
}

/**
 * Parses an awesome list: its title and intro, its categories, its items, and what it could not read. The
 * file is read a section at a time (cut at its headings): a large list costs the memory of its largest
 * section, not of the whole syntax tree.
 */
export function parseMarkdown(text: string): ParsedFile {
  const steps = readMarkdown(text)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/** `parseMarkdown`, giving the event loop a turn after each section: a large file never holds it for long. */
export async function parseMarkdownInTurns(text: string): Promise<ParsedFile> {
  const steps = readMarkdown(text)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
    await setImmediate()
  }
}

/** The reading of an awesome list, a section at a time: it yields after each. */
function* readMarkdown(text: string): Generator<undefined, ParsedFile> {
  const { sections, definitions: definitionLines } = sectionsOf(text)
  const definitions = new Map<string, Definition>()
  if (definitionLines) {
    for (const node of fromMarkdown(definitionLines).children) {
      if (node.type === 'definition') definitions.set(node.identifier, node)
    }
  }
  /** Lines before the section being read. */
  let offset = 0

  const site: ParsedFile['site'] = {}
  const categories: string[] = []
  const items: ParsedItem[] = []
  const issues: ParseIssue[] = []
  let category: string | null = null
  let beforeSections = true
  /** The depth of the Contents heading while in its section. */
  let skippingDepth: number | undefined

  const readItem = (listItem: ListItem) => {
    const start = listItem.position?.start.line
    const line = start === undefined ? undefined : start + offset
    const [paragraph, ...blocks] = listItem.children
    const nested = blocks.filter((block): block is List => block.type === 'list')
    const link = paragraph?.type === 'paragraph' ? leadingLink(paragraph, definitions) : undefined
    if (!link) {
      // A label over a nested list groups items; it is not an item that was dropped.
      if (nested.length === 0) {
        const shown = paragraph ? blockText(paragraph).slice(0, 60) : ''
        issues.push({ line, message: `list item does not start with a link: "${shown}"` })
      }
    } else if (link.url === undefined) {
      issues.push({ line, message: `link "${link.name}" has no definition` })
    } else if (!isHttpUrl(link.url)) {
      issues.push({ line, message: `link "${link.name}" is not an http(s) URL: ${link.url}` })
    } else if (link.name === '') {
      issues.push({ line, message: `link to ${link.url} has no name` })
    } else {
      const rest = oneLine(textOf(link.rest))
      const description = oneLine(rest.replace(LEADING_SEPARATOR, ''))
      items.push({
        line,
        item: {
          name: link.name,
          url: link.url,
          description: description === '' ? null : description,
          category,
        },
      })
      if (category !== null && !categories.includes(category)) categories.push(category)
    }
    for (const list of nested) readList(list)
  }
  const readList = (list: List) => {
    if (isContentsList(list)) return
    for (const listItem of list.children) readItem(listItem)
  }

  for (const section of sections) {
    offset = section.offset
    // The file's link definitions after a blank line: references in the section resolve, its lines stay.
    const text = definitionLines ? `${section.text}\n\n${definitionLines}\n` : section.text
    for (const node of fromMarkdown(text).children) visit(node)
    yield
  }
  return { site, categories, tags: [], items, issues }

  function visit(node: RootContent) {
    if (node.type === 'heading' && node.depth === 1 && site.name === undefined) {
      site.name = blockText(node)
    } else if (node.type === 'heading' && node.depth >= 2) {
      if (skippingDepth !== undefined && node.depth > skippingDepth) return
      beforeSections = false
      const title = blockText(node)
      skippingDepth = CONTENTS_TITLE.test(title) ? node.depth : undefined
      category = title
    } else if (skippingDepth !== undefined) {
    } else if (node.type === 'list') {
      readList(node)
    } else if (
      beforeSections &&
      site.description === undefined &&
      (node.type === 'paragraph' || node.type === 'blockquote')
    ) {
      const description = blockText(node)
      if (description !== '') site.description = description
    }
  }
}

/** Text escaped so that Markdown reads it back as the same text, on one line. */
export function markdownText(text: string): string {
  return oneLine(text)
    .replace(/[\\`*_[\]<#]/g, '\\$&')
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&')
}

/** A link destination Markdown reads back as the same URL: in `<…>` when it holds spaces or parentheses. */
export function markdownUrl(url: string): string {
  const escaped = url.replace(/\\/g, '\\\\').replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&')
  return /[\s()<>]/.test(url) ? `<${escaped.replace(/[<>]/g, '\\$&')}>` : escaped
}

/** The document goes out in pieces of about this many characters. */
const CHUNK_CHARACTERS = 32 * 1024

/** An item's own link as stored (items' URLs are http(s) when written); no `URL` made for each item. */
const HTTP_URL = /^https?:\/\/[^\s]/i

const itemLine = (item: ExportItem, siteUrl: string): string => {
  const url =
    item.url && HTTP_URL.test(item.url) ? item.url : itemLink({ url: null, slug: item.slug }, siteUrl)
  const description = item.description ? oneLine(item.description) : ''
  return `- [${markdownText(item.name)}](${markdownUrl(url)})${description ? ` - ${markdownText(description)}` : ''}\n`
}

/**
 * The directory as an awesome list: its title, description and contents, then a section per category with
 * published items, in the order `source.items` gives them (grouped by category, those without one last).
 */
export async function* renderMarkdown(source: ExportSource): AsyncGenerator<string> {
  const { site } = source
  const slugger = new GithubSlugger()
  slugger.slug(oneLine(site.name))
  slugger.slug('Contents')
  const sections = source.categories.filter((category) => category.published > 0).map(({ name }) => name)
  if ((source.uncategorized ?? 0) > 0) sections.push(UNCATEGORIZED_SECTION)
  let chunk = `# ${markdownText(site.name)}\n\n`
  if (oneLine(site.description) !== '') chunk += `> ${markdownText(site.description)}\n\n`
  chunk += '## Contents\n\n'
  for (const name of sections) chunk += `- [${markdownText(name)}](#${slugger.slug(oneLine(name))})\n`
  let current: string | null | undefined
  for await (const item of source.items) {
    if (item.category !== current || current === undefined) {
      current = item.category
      chunk += `\n## ${markdownText(current ?? UNCATEGORIZED_SECTION)}\n\n`
    }
    chunk += itemLine(item, site.url)
    if (chunk.length >= CHUNK_CHARACTERS) {
      yield chunk
      chunk = ''
    }
  }
  yield chunk
}
