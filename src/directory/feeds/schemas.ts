import { type Static, Type } from 'typebox'
import { Query, Timestamp } from '../../http/schemas.ts'
import { EXAMPLE_PUBLIC, PublicItem } from '../items/schemas.ts'

/** How many items a feed shows: the newest published. */
export const FEED_SIZE = 50

/** How many items each section of llms.txt lists at most, the newest; a longer section ends with a link. */
export const LLMS_PER_SECTION = 100

/** The title of llms.txt's last section: published items without a category, or in an inactive one. */
export const LLMS_OTHER_SECTION = 'Other'

const Slug = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[a-z0-9-]+$',
    description: `a ${what}’s slug (its id)`,
    examples: [what === 'tag' ? 'espresso' : 'coffee-roasters'],
  })

export const FeedQuery = Query(
  {
    category: Type.Optional(Slug('category')),
    tag: Type.Optional(Slug('tag')),
  },
  { additionalProperties: false },
)
export type FeedQuery = Static<typeof FeedQuery>

export const FEED_FORMATS = ['rss', 'atom', 'json'] as const
export type FeedFormat = (typeof FEED_FORMATS)[number]

export const FEED_MEDIA_TYPES: Record<FeedFormat, string> = {
  rss: 'application/rss+xml',
  atom: 'application/atom+xml',
  json: 'application/feed+json',
}

export const FEED_PATHS: Record<FeedFormat, string> = {
  rss: '/feed.xml',
  atom: '/feed.atom',
  json: '/feed.json',
}

export const LLMS_MEDIA_TYPE = 'text/plain'

/** A JSON Feed 1.1 document (https://www.jsonfeed.org/version/1.1/), as `GET /feed.json` answers it. */
export const JsonFeed = Type.Object({
  version: Type.Literal('https://jsonfeed.org/version/1.1'),
  title: Type.String(),
  home_page_url: Type.String(),
  feed_url: Type.String(),
  description: Type.Optional(Type.String()),
  language: Type.Optional(Type.String()),
  items: Type.Array(
    Type.Object({
      id: Type.String({ description: '`urn:uuid:` and the item’s id: stable across edits' }),
      url: Type.String({ description: 'the item’s own link, else its public JSON' }),
      title: Type.String(),
      content_text: Type.String({ description: 'the description, or the name when it has none' }),
      image: Type.Optional(Type.String()),
      date_published: Type.String(),
      date_modified: Type.String(),
      tags: Type.Optional(Type.Array(Type.String())),
    }),
  ),
})
export type JsonFeed = Static<typeof JsonFeed>

const EXAMPLE_SITE = { name: 'Coffee Atlas', url: 'https://coffee-atlas.example' }

export const RSS_EXAMPLE = `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
    <channel>
        <title>${EXAMPLE_SITE.name}</title>
        <link>${EXAMPLE_SITE.url}/</link>
        <description>The independent coffee roasters of Europe.</description>
        <lastBuildDate>Fri, 20 Nov 2026 09:00:00 GMT</lastBuildDate>
        <docs>https://validator.w3.org/feed/docs/rss2.html</docs>
        <generator>Curio</generator>
        <atom:link href="${EXAMPLE_SITE.url}/feed.xml" rel="self" type="application/rss+xml"/>
        <item>
            <title><![CDATA[${EXAMPLE_PUBLIC.name}]]></title>
            <link>${EXAMPLE_PUBLIC.url}/</link>
            <guid isPermaLink="false">urn:uuid:${EXAMPLE_PUBLIC.id}</guid>
            <pubDate>Fri, 20 Nov 2026 09:00:00 GMT</pubDate>
            <description><![CDATA[${EXAMPLE_PUBLIC.description}]]></description>
            <category>${EXAMPLE_PUBLIC.category.name}</category>
        </item>
    </channel>
</rss>`

export const ATOM_EXAMPLE = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
    <id>${EXAMPLE_SITE.url}/</id>
    <title>${EXAMPLE_SITE.name}</title>
    <updated>2026-11-20T09:00:00.000Z</updated>
    <generator>Curio</generator>
    <link rel="alternate" href="${EXAMPLE_SITE.url}/"/>
    <link rel="self" href="${EXAMPLE_SITE.url}/feed.atom"/>
    <subtitle>The independent coffee roasters of Europe.</subtitle>
    <entry>
        <title type="html"><![CDATA[${EXAMPLE_PUBLIC.name}]]></title>
        <id>urn:uuid:${EXAMPLE_PUBLIC.id}</id>
        <link href="${EXAMPLE_PUBLIC.url}/"/>
        <updated>2026-11-20T09:00:00.000Z</updated>
        <summary type="html"><![CDATA[${EXAMPLE_PUBLIC.description}]]></summary>
        <category label="${EXAMPLE_PUBLIC.category.name}" term="${EXAMPLE_PUBLIC.category.id}"/>
        <published>2026-11-20T09:00:00.000Z</published>
    </entry>
</feed>`

export const JSON_FEED_EXAMPLE: JsonFeed = {
  version: 'https://jsonfeed.org/version/1.1',
  title: EXAMPLE_SITE.name,
  home_page_url: `${EXAMPLE_SITE.url}/`,
  feed_url: `${EXAMPLE_SITE.url}/feed.json`,
  description: 'The independent coffee roasters of Europe.',
  items: [
    {
      id: `urn:uuid:${EXAMPLE_PUBLIC.id}`,
      url: `${EXAMPLE_PUBLIC.url}/`,
      title: EXAMPLE_PUBLIC.name,
      content_text: EXAMPLE_PUBLIC.description,
      image: EXAMPLE_PUBLIC.imageUrl,
      date_published: EXAMPLE_PUBLIC.publishedAt,
      date_modified: EXAMPLE_PUBLIC.updatedAt,
      tags: [EXAMPLE_PUBLIC.category.name, ...EXAMPLE_PUBLIC.tags.map((tag) => tag.name)],
    },
  ],
}

export const LLMS_EXAMPLE = `# ${EXAMPLE_SITE.name}

> The independent coffee roasters of Europe.

Every published item as one JSON document: ${EXAMPLE_SITE.url}/api/items.json. Feeds of the newest: ${EXAMPLE_SITE.url}/feed.xml (RSS), ${EXAMPLE_SITE.url}/feed.atom (Atom), ${EXAMPLE_SITE.url}/feed.json (JSON Feed).

## ${EXAMPLE_PUBLIC.category.name}

- [${EXAMPLE_PUBLIC.name}](${EXAMPLE_PUBLIC.url}/): ${EXAMPLE_PUBLIC.description}
`

/** The site as the whole-directory document names it. */
export const ExportSite = Type.Object({
  name: Type.String({ examples: [EXAMPLE_SITE.name] }),
  description: Type.String({ examples: ['The independent coffee roasters of Europe.'] }),
  url: Type.String({ description: 'the site’s address (`APP_URL`)', examples: [`${EXAMPLE_SITE.url}/`] }),
})

/** `GET /api/items.json`: every published item, streamed. */
export const ItemsDocument = Type.Object(
  {
    success: Type.Literal(true),
    site: ExportSite,
    generatedAt: Timestamp,
    data: Type.Array(PublicItem, { description: 'every published item, each once, by id' }),
    total: Type.Integer({
      description: 'how many items `data` holds; written after them, as the list is read while it is sent',
    }),
  },
  {
    description: 'The whole published directory',
    examples: [
      {
        success: true,
        site: {
          name: EXAMPLE_SITE.name,
          description: 'The independent coffee roasters of Europe.',
          url: `${EXAMPLE_SITE.url}/`,
        },
        generatedAt: '2026-11-20T09:30:00.000Z',
        data: [EXAMPLE_PUBLIC],
        total: 1,
      },
    ],
  },
)

/** The whole directory changes with every write, and weighs too much to fetch often. */
export const ITEMS_EXPORT_CACHE_CONTROL = 'public, max-age=60'
