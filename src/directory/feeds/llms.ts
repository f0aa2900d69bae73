import { clip } from '../../lib/values.ts'
import type { FeedSite } from './render.ts'
import { LLMS_PER_SECTION } from './schemas.ts'

/** One `## ` section of llms.txt: up to LLMS_PER_SECTION items, and how many the section has in all. */
export interface LlmsSection {
  title: string
  items: { name: string; link: string; description: string | null }[]
  total: number
  /** Where the rest of a longer section is. */
  more: string
}

/** A description in one line, short enough for an index. */
const DESCRIPTION_MAX = 300

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

/** Link text in Markdown: brackets and backslashes escaped. */
const linkText = (text: string) => oneLine(text).replace(/[\\[\]]/g, (char) => `\\${char}`)

/** A link target in Markdown: parentheses and spaces would end it. */
const linkTarget = (url: string) => url.replaceAll('(', '%28').replaceAll(')', '%29').replaceAll(' ', '%20')

/**
 * llms.txt (https://llmstxt.org): `# ` the site's name, `> ` its description, a line saying where the
 * whole directory and the feeds are, then one `## ` section per category.
 */
export function renderLlms(site: FeedSite, sections: readonly LlmsSection[], publishedTotal: number): string {
  const at = (path: string) => new URL(path, site.url).href
  const summary = oneLine(site.description) || `A directory of ${publishedTotal} published items.`
  const lines = [
    `# ${oneLine(site.name)}`,
    '',
    `> ${summary}`,
    '',
    `Every published item as one JSON document: ${at('api/items.json')}. Feeds of the newest: ` +
      `${at('feed.xml')} (RSS), ${at('feed.atom')} (Atom), ${at('feed.json')} (JSON Feed).`,
  ]
  for (const section of sections) {
    lines.push('', `## ${oneLine(section.title)}`, '')
    for (const item of section.items) {
      const description = item.description ? oneLine(item.description) : ''
      lines.push(
        `- [${linkText(item.name)}](${linkTarget(item.link)})` +
          (description ? `: ${clip(description, DESCRIPTION_MAX)}` : ''),
      )
    }
    if (section.total > section.items.length) {
      lines.push(
        `- [All ${section.total} items](${linkTarget(section.more)}): the ${LLMS_PER_SECTION} newest are above`,
      )
    }
  }
  return `${lines.join('\n')}\n`
}
