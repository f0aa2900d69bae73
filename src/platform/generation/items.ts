/** What a generation asks the AI provider for, and how its answer becomes a work's items. */

export const ITEM_NAME_MAX_LENGTH = 200
export const ITEM_DESCRIPTION_MAX_LENGTH = 2000
export const ITEM_CATEGORY_MAX_LENGTH = 100
export const ITEM_URL_MAX_LENGTH = 2048
export const ITEM_TAGS_MAX = 10
export const ITEM_TAG_MAX_LENGTH = 50
const UNCATEGORISED = 'Uncategorised'

export interface GeneratedItem {
  name: string
  description: string
  url: string | null
  category: string
  tags: string[]
}

/** The response format: `{items:[{name, description, url, category, tags}]}` (strict structured output). */
export const ITEMS_SCHEMA_NAME = 'directory_items'
export const ITEMS_SCHEMA = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'the listing’s name' },
          description: { type: 'string', description: 'one or two sentences a visitor reads' },
          url: { type: ['string', 'null'], description: 'its website (https), or null' },
          category: { type: 'string', description: 'one short category name' },
          tags: { type: 'array', items: { type: 'string' }, description: 'a few lower-case tags' },
        },
        required: ['name', 'description', 'url', 'category', 'tags'],
        additionalProperties: false,
      },
    },
  },
  required: ['items'],
  additionalProperties: false,
}

export function generationMessages(
  work: { name: string; description: string | null },
  prompt: string | null,
  maxItems: number,
) {
  return {
    system:
      'You curate directory websites: lists of real, useful things (tools, places, companies, resources) ' +
      'with a short description, a website, one category and a few tags each. Answer only with JSON that ' +
      'follows the given schema. Never invent URLs: use null when you do not know one.',
    user: [
      `Directory: ${work.name}`,
      work.description ? `About it: ${work.description}` : undefined,
      prompt ? `Instructions: ${prompt}` : undefined,
      `List the items this directory should contain, at most ${maxItems}.`,
    ]
      .filter(Boolean)
      .join('\n'),
  }
}

export type ParsedItems =
  | { ok: true; items: GeneratedItem[]; skipped: number; cut: number }
  | { ok: false; reason: string }

const text = (value: unknown, max: number): string =>
  typeof value === 'string' ? value.replace(/\s+/g, ' ').trim().slice(0, max) : ''

function webUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > ITEM_URL_MAX_LENGTH) return null
  try {
    const url = new URL(value.trim())
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null
  } catch {
    return null
  }
}

/**
 * The items of an answer: each needs a name; text is trimmed and cut to its column, a URL that is not a web
 * address is dropped, repeated names are kept once, and more than `maxItems` are cut. An answer that is
 * not the schema's JSON, or names no usable item, is a reason to ask again.
 */
export function parseItems(content: string, maxItems: number): ParsedItems {
  let answer: unknown
  try {
    answer = JSON.parse(content)
  } catch {
    const start = content.trimStart().slice(0, 1)
    return {
      ok: false,
      reason:
        start === '{' || start === '['
          ? `the answer is cut-off or malformed JSON (${content.length} characters)`
          : 'the answer is not JSON',
    }
  }
  const list = (answer as { items?: unknown } | null)?.items
  if (!Array.isArray(list)) return { ok: false, reason: 'the answer has no "items" list' }
  if (list.length === 0) return { ok: false, reason: 'the answer lists no items' }

  const items: GeneratedItem[] = []
  const seen = new Set<string>()
  let skipped = 0
  for (const raw of list) {
    const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>
    const name = text(entry.name, ITEM_NAME_MAX_LENGTH)
    if (!name || seen.has(name.toLowerCase())) {
      skipped++
      continue
    }
    if (items.length === maxItems) continue
    seen.add(name.toLowerCase())
    const tags = Array.isArray(entry.tags) ? entry.tags : []
    items.push({
      name,
      description: text(entry.description, ITEM_DESCRIPTION_MAX_LENGTH),
      url: webUrl(entry.url),
      category: text(entry.category, ITEM_CATEGORY_MAX_LENGTH) || UNCATEGORISED,
      tags: [
        ...new Set(tags.map((tag) => text(tag, ITEM_TAG_MAX_LENGTH).toLowerCase()).filter(Boolean)),
      ].slice(0, ITEM_TAGS_MAX),
    })
  }
  if (items.length === 0) return { ok: false, reason: `none of the ${list.length} items has a name` }
  return { ok: true, items, skipped, cut: list.length - skipped - items.length }
}
