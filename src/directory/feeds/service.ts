import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { createInvalidatedCache, type InvalidatedCache } from '../../db/invalidated-cache.ts'
import type { Clock } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import { categories } from '../categories/tables.ts'
import {
  CATEGORIES_CONTENT,
  COMPANIES_CONTENT,
  CONTENT_CHANGED_CHANNEL,
  ITEMS_CONTENT,
  SETTINGS_CONTENT,
  TAGS_CONTENT,
} from '../content.ts'
import { hasTag, publicItemOf, selectPublicItems } from '../items/read.ts'
import { items } from '../items/tables.ts'
import type { Settings } from '../site/schemas.ts'
import { tags } from '../tags/tables.ts'
import { type Rendered, rendered } from './conditional.ts'
import { type LlmsSection, renderLlms } from './llms.ts'
import { type FeedFilter, type FeedSite, itemLink, renderJsonFeed, renderXmlFeed } from './render.ts'
import {
  FEED_SIZE,
  type FeedFormat,
  type FeedQuery,
  LLMS_OTHER_SECTION,
  LLMS_PER_SECTION,
} from './schemas.ts'

/** What the feeds and llms.txt show: items, the names of their category, tags and company, the site's name. */
const SHOWN = new Set([ITEMS_CONTENT, CATEGORIES_CONTENT, TAGS_CONTENT, COMPANIES_CONTENT, SETTINGS_CONTENT])

/** A document, or which slug of the query names nothing (not kept, so misses cannot crowd out feeds). */
export type FeedDocument = Rendered | { missing: 'category' | 'tag' }

/**
 * The rendered feeds and llms.txt, each instance's own, cleared on every instance by each write of what
 * they show. Keys are a format and a filter of existing slugs, so they are few; the bound is for safety.
 */
export function createFeedCache(clock: Pick<Clock, 'nowMs'>): InvalidatedCache<FeedDocument> {
  return createInvalidatedCache<FeedDocument>({
    name: 'feeds',
    channel: CONTENT_CHANGED_CHANNEL,
    invalidates: (payload) => (SHOWN.has(payload) ? 'all' : 'none'),
    keep: (value) => 'body' in value,
    maxEntries: 500,
    maxSize: { total: 16 * 1024 * 1024, sizeOf: (value) => ('body' in value ? value.body.length : 0) },
    clock,
  })
}

/** The site's settings as the feeds read them. */
export type SiteSettings = () => Promise<{ data: Pick<Settings, 'site'>; updatedAt: Date | null }>

export interface FeedServiceDeps {
  db: Db
  clock: Pick<Clock, 'nowMs'>
  cache: InvalidatedCache<FeedDocument>
  settings: SiteSettings
  /** `APP_URL`: the site's address, which every link is made from. */
  appUrl: string
}

const published = eq(items.status, 'published')

export function createFeedService({ db, clock, cache, settings, appUrl }: FeedServiceDeps) {
  const siteUrl = new URL('/', appUrl).href

  async function site(): Promise<FeedSite> {
    const { data, updatedAt } = await settings()
    return { name: data.site.name, description: data.site.description, url: siteUrl, updatedAt }
  }

  /** The filter's names, or which of its slugs names no public category or tag. */
  async function filterOf(query: FeedQuery): Promise<FeedFilter | { missing: 'category' | 'tag' }> {
    const filter: FeedFilter = {}
    if (query.category !== undefined) {
      const [category] = await db
        .select({ id: categories.id, name: categories.name })
        .from(categories)
        .where(and(eq(categories.id, query.category), eq(categories.isActive, true)))
      if (!category) return { missing: 'category' }
      filter.category = category
    }
    if (query.tag !== undefined) {
      const [tag] = await db.select({ id: tags.id, name: tags.name }).from(tags).where(eq(tags.id, query.tag))
      if (!tag) return { missing: 'tag' }
      filter.tag = tag
    }
    return filter
  }

  async function renderFeed(format: FeedFormat, query: FeedQuery): Promise<FeedDocument> {
    const filter = await filterOf(query)
    if ('missing' in filter) return filter
    const where: SQL | undefined = and(
      published,
      filter.category ? eq(items.categoryId, filter.category.id) : undefined,
      filter.tag ? hasTag(filter.tag.id) : undefined,
    )
    const rows = await selectPublicItems(db)
      .where(where)
      .orderBy(desc(items.publishedAt), desc(items.id))
      .limit(FEED_SIZE)
    const newest = rows.map(publicItemOf)
    const about = await site()
    const text =
      format === 'json'
        ? JSON.stringify(renderJsonFeed(about, filter, newest))
        : renderXmlFeed(format, about, filter, newest)
    return rendered(text, clock.nowMs())
  }

  async function renderLlmsText(): Promise<Rendered> {
    // Items of an inactive category are listed with those without one: the site shows no such category.
    const section = sql<string | null>`case when ${categories.isActive} then ${items.categoryId} end`
    const ranked = db
      .select({
        slug: sql<string>`${items.slug}`.as('slug'),
        name: sql<string>`${items.name}`.as('name'),
        description: sql<string | null>`${items.description}`.as('description'),
        url: sql<string | null>`${items.url}`.as('url'),
        section: section.as('section'),
        rank: sql<number>`row_number() over (partition by ${section} order by ${items.publishedAt} desc nulls last, ${items.id} desc)`.as(
          'rank',
        ),
        total: sql<number>`count(*) over (partition by ${section})`.as('total'),
      })
      .from(items)
      .leftJoin(categories, eq(categories.id, items.categoryId))
      .where(published)
      .as('ranked')
    const [rows, sections] = await Promise.all([
      db
        .select()
        .from(ranked)
        .where(sql`${ranked.rank} <= ${LLMS_PER_SECTION}`)
        .orderBy(asc(ranked.section), asc(ranked.rank)),
      db
        .select({ id: categories.id, name: categories.name })
        .from(categories)
        .where(eq(categories.isActive, true))
        .orderBy(asc(categories.sortOrder), asc(categories.name)),
    ])
    const bySection = new Map<string | null, LlmsSection>()
    const at = (path: string) => new URL(path, siteUrl).href
    for (const { id, name } of sections) {
      bySection.set(id, { title: name, items: [], total: 0, more: at(`api/items?category=${id}&limit=100`) })
    }
    const other: LlmsSection = { title: LLMS_OTHER_SECTION, items: [], total: 0, more: at('api/items.json') }
    bySection.set(null, other)
    let publishedTotal = 0
    for (const row of rows) {
      const target = bySection.get(row.section) ?? other
      if (Number(row.rank) === 1) {
        target.total = Number(row.total)
        publishedTotal += target.total
      }
      target.items.push({ name: row.name, link: itemLink(row, siteUrl), description: row.description })
    }
    const shown = [...bySection.values()].filter((entry) => entry !== other && entry.items.length > 0)
    if (other.items.length > 0) shown.push(other)
    return rendered(renderLlms(await site(), shown, publishedTotal), clock.nowMs())
  }

  return {
    /** A feed of the newest published items, or 404 for a slug that names no public category or tag. */
    async feed(format: FeedFormat, query: FeedQuery): Promise<Rendered> {
      const key = `${format}:${query.category ?? ''}:${query.tag ?? ''}`
      const document = await cache.get(key, () => renderFeed(format, query))
      if ('missing' in document) {
        throw document.missing === 'category'
          ? notFound('Category not found', 'CATEGORY_NOT_FOUND')
          : notFound('Tag not found', 'TAG_NOT_FOUND')
      }
      return document
    },

    /** llms.txt: the site, then its categories' newest published items. */
    async llms(): Promise<Rendered> {
      return (await cache.get('llms', renderLlmsText)) as Rendered
    },

    site,
  }
}

export type FeedService = ReturnType<typeof createFeedService>
