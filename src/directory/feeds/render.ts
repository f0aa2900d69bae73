import { Feed, type Item as FeedItem } from 'feed'
import type { PublicItem } from '../items/schemas.ts'
import { FEED_PATHS, type FeedFormat, type JsonFeed } from './schemas.ts'

/** What a feed says about the site: from the settings, and `APP_URL` for the addresses. */
export interface FeedSite {
  name: string
  description: string
  /** `APP_URL` with its trailing slash: the site's home. */
  url: string
  /** When the settings were last saved, if ever. */
  updatedAt: Date | null
}

/** The feed's filter, by the names of what it names. */
export interface FeedFilter {
  category?: { id: string; name: string }
  tag?: { id: string; name: string }
}

/** Characters XML 1.0 cannot carry at all (controls but tab, newline, return; lone surrogates; U+FFFE/F). */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML refuses
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

const xmlText = (text: string) => text.replace(NOT_XML, '')

/**
 * Text the library puts in a CDATA section: `]]>` would end it, and the library escapes only its first
 * occurrence, so each is broken by a space.
 */
const cdataText = (text: string) => xmlText(text).replaceAll(']]>', ']] >')

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

/** An http(s) URL as the feed writes it, or undefined for anything else (the library would throw on it). */
function httpUrl(raw: string | null): string | undefined {
  if (!raw) return undefined
  try {
    const url = new URL(raw)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined
  } catch {
    return undefined
  }
}

/** An item's link: its own URL, else its public JSON on this site. */
export const itemLink = (item: Pick<PublicItem, 'url' | 'slug'>, siteUrl: string): string =>
  httpUrl(item.url) ?? new URL(`api/items/${item.slug}`, siteUrl).href

/** An item's id in every format: stable across edits of its name, slug or link. */
export const itemId = (item: Pick<PublicItem, 'id'>) => `urn:uuid:${item.id}`

const dateOf = (value: Date | string | null): Date | null =>
  value === null ? null : value instanceof Date ? value : new Date(value)

/** The item's publication date (its creation when it has none), and its last change. */
function datesOf(item: PublicItem) {
  const updated = dateOf(item.updatedAt) ?? new Date(0)
  return { published: dateOf(item.publishedAt) ?? dateOf(item.createdAt) ?? updated, updated }
}

/**
 * When the feed last changed, as far as its bytes tell: its newest item change or the settings' save. A
 * function of the content only, so every instance renders the same bytes (and the same ETag).
 */
function feedUpdated(site: FeedSite, items: readonly PublicItem[]): Date {
  let newest = site.updatedAt?.getTime() ?? 0
  for (const item of items) newest = Math.max(newest, datesOf(item).updated.getTime())
  return new Date(newest)
}

export function feedTitle(site: FeedSite, filter: FeedFilter): string {
  const names = [filter.category?.name, filter.tag?.name].filter((name) => name !== undefined)
  return names.length === 0 ? site.name : `${site.name}: ${names.join(' · ')}`
}

/** The address of one format's feed with the same filter. */
export function feedUrl(site: FeedSite, format: FeedFormat, filter: FeedFilter): string {
  const url = new URL(FEED_PATHS[format].slice(1), site.url)
  if (filter.category) url.searchParams.set('category', filter.category.id)
  if (filter.tag) url.searchParams.set('tag', filter.tag.id)
  return url.href
}

/** RSS 2.0 or Atom 1.0 of `items` (newest first), through the `feed` library. */
export function renderXmlFeed(
  format: 'rss' | 'atom',
  site: FeedSite,
  filter: FeedFilter,
  items: readonly PublicItem[],
): string {
  const feed = new Feed({
    id: site.url,
    title: xmlText(feedTitle(site, filter)),
    description: xmlText(site.description),
    link: site.url,
    updated: feedUpdated(site, items),
    generator: 'Curio',
    feedLinks: { [format]: feedUrl(site, format, filter) },
  })
  for (const item of items) {
    const { published, updated } = datesOf(item)
    // Atom's title and summary are declared HTML, so the plain text is escaped for it; RSS's title is text.
    const html = (text: string) => (format === 'atom' ? escapeHtml(text) : text)
    const entry: FeedItem = {
      id: itemId(item),
      title: cdataText(html(item.name)),
      link: itemLink(item, site.url),
      date: updated,
      published,
      ...(item.description ? { description: cdataText(escapeHtml(item.description)) } : {}),
      category: [...(item.category ? [item.category] : []), ...item.tags].map(({ id, name }) =>
        // Atom's label is an attribute, which the library does not escape: the slug alone is safe there.
        format === 'atom' ? { term: id } : { name: xmlText(name) },
      ),
    }
    feed.addItem(entry)
  }
  return format === 'rss' ? feed.rss2() : feed.atom1()
}

/**
 * JSON Feed 1.1 of `items`. Written here rather than by the library, whose JSON output is version 1 with
 * `content_html`; this one is plain JSON, serialized by the route's schema.
 */
export function renderJsonFeed(site: FeedSite, filter: FeedFilter, items: readonly PublicItem[]): JsonFeed {
  return {
    version: 'https://jsonfeed.org/version/1.1',
    title: feedTitle(site, filter),
    home_page_url: site.url,
    feed_url: feedUrl(site, 'json', filter),
    ...(site.description ? { description: site.description } : {}),
    items: items.map((item) => {
      const { published, updated } = datesOf(item)
      const image = httpUrl(item.imageUrl)
      const tags = [...(item.category ? [item.category.name] : []), ...item.tags.map((tag) => tag.name)]
      return {
        id: itemId(item),
        url: itemLink(item, site.url),
        title: item.name,
        content_text: item.description || item.name,
        ...(image ? { image } : {}),
        date_published: published.toISOString(),
        date_modified: updated.toISOString(),
        ...(tags.length > 0 ? { tags } : {}),
      }
    }),
  }
}
