import { Type } from 'typebox'
import type { App } from '../../http/app.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { invalidField } from '../../http/schemas.ts'
import { errors } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'
import { PUBLIC_DOCUMENT_CACHE_CONTROL, sendDocument } from './conditional.ts'
import type { ItemsExport } from './export.ts'
import {
  ATOM_EXAMPLE,
  FEED_MEDIA_TYPES,
  FEED_PATHS,
  FEED_SIZE,
  type FeedFormat,
  FeedQuery,
  ITEMS_EXPORT_CACHE_CONTROL,
  ItemsDocument,
  JSON_FEED_EXAMPLE,
  JsonFeed,
  LLMS_EXAMPLE,
  LLMS_MEDIA_TYPE,
  LLMS_OTHER_SECTION,
  LLMS_PER_SECTION,
  RSS_EXAMPLE,
} from './schemas.ts'
import type { FeedService } from './service.ts'

const tags = ['feeds']

/** The headers every cached public document carries with its 200 and 304. */
const VALIDATOR_HEADERS = {
  ETag: { type: 'string', description: 'a hash of the bytes; send it back as `If-None-Match`' },
  'Last-Modified': {
    type: 'string',
    description: 'when this instance rendered the document after the last change it heard of',
  },
  'Cache-Control': { type: 'string', examples: [PUBLIC_DOCUMENT_CACHE_CONTROL] },
}

const notModified = {
  description:
    'Not modified: the `If-None-Match` names the current ETag (or, without it, `If-Modified-Since` is not ' +
    'before `Last-Modified`). No body.',
  headers: VALIDATOR_HEADERS,
}

const CACHING =
  'Served from a cache every content or settings write clears on every instance, with an `ETag` (a hash of ' +
  'the bytes) and `Last-Modified`: `If-None-Match` or `If-Modified-Since` answer `304` without a body. ' +
  `\`Cache-Control: ${PUBLIC_DOCUMENT_CACHE_CONTROL}\`.`

const FEEDS: Record<FeedFormat, { name: string; example: unknown; schema: unknown }> = {
  rss: { name: 'RSS 2.0', example: RSS_EXAMPLE, schema: Type.String() },
  atom: { name: 'Atom 1.0', example: ATOM_EXAMPLE, schema: Type.String() },
  json: { name: 'JSON Feed 1.1', example: JSON_FEED_EXAMPLE, schema: JsonFeed },
}

/** The site's feeds, llms.txt and the whole published directory as one JSON document: all public. */
export function feedRoutes(
  app: App,
  { feeds, itemsExport, rateLimit }: { feeds: FeedService; itemsExport: ItemsExport; rateLimit: RateLimit },
) {
  for (const format of Object.keys(FEEDS) as FeedFormat[]) {
    const { name, example, schema } = FEEDS[format]
    const path = FEED_PATHS[format]
    const type = FEED_MEDIA_TYPES[format]
    app.get(
      path,
      {
        config: { access: 'public' },
        preHandler: rateLimit(`GET ${path}`, RATE_LIMITS.feeds),
        schema: {
          tags,
          summary: `${name} feed of the newest items`,
          description:
            `The ${FEED_SIZE} most recently published items as ${name} (\`${type}\`), newest first. ` +
            '`category` and `tag` (slugs) narrow it to the items of an active category or carrying a tag; both ' +
            'together, to items with both. An unknown slug, or an inactive category, is a 404. The title, ' +
            'description and home are the site settings’ name and description and `APP_URL`; an item’s link is ' +
            'its own URL (`{APP_URL}/api/items/{slug}` when it has none) and its id `urn:uuid:{id}`. ' +
            `${CACHING} ${describeRule(RATE_LIMITS.feeds)}.`,
          querystring: FeedQuery,
          produces: [type],
          response: {
            200: {
              description: `${name}, \`${type}; charset=utf-8\``,
              headers: VALIDATOR_HEADERS,
              content: { [type]: { schema, example } },
            },
            304: notModified,
            ...errors(
              [400, invalidField('query.category', 'must match pattern "^[a-z0-9-]+$"')],
              [404, 'CATEGORY_NOT_FOUND', 'TAG_NOT_FOUND'],
              429,
            ),
          },
        },
      },
      async (req, reply) => sendDocument(req, reply, await feeds.feed(format, req.query), type),
    )
  }

  app.get(
    '/llms.txt',
    {
      config: { access: 'public' },
      preHandler: rateLimit('GET /llms.txt', RATE_LIMITS.feeds),
      schema: {
        tags,
        summary: 'The directory for language models (llms.txt)',
        description:
          'The llms.txt format (https://llmstxt.org) as `text/plain`: `# ` the site’s name, `> ` its ' +
          'description (or how many items it has), a line with the addresses of `/api/items.json` and the feeds, ' +
          'then one `## ` section per active category in the site’s order, listing `- [name](link): ' +
          `description\` of its ${LLMS_PER_SECTION} newest published items (a longer section ends with a link to ` +
          `all of them), and a last \`## ${LLMS_OTHER_SECTION}\` section for items without an active category. ` +
          `Sections without items are left out. Links as in the feeds. ${CACHING} ` +
          `${describeRule(RATE_LIMITS.feeds)}.`,
        produces: [LLMS_MEDIA_TYPE],
        response: {
          200: {
            description: `llms.txt, \`${LLMS_MEDIA_TYPE}; charset=utf-8\``,
            headers: VALIDATOR_HEADERS,
            content: { [LLMS_MEDIA_TYPE]: { schema: Type.String(), example: LLMS_EXAMPLE } },
          },
          304: notModified,
          ...errors(429),
        },
      },
    },
    async (req, reply) => sendDocument(req, reply, await feeds.llms(), LLMS_MEDIA_TYPE),
  )

  app.get(
    '/api/items.json',
    {
      config: { access: 'public' },
      preHandler: rateLimit('GET /api/items.json', RATE_LIMITS.itemsExport),
      schema: {
        tags,
        summary: 'Every published item, as one JSON document',
        description:
          '`{success, site:{name, description, url}, generatedAt, data, total}`: every published item, each ' +
          'once, in the shape of `GET /api/items`, ordered by id. The document is streamed as the items are ' +
          'read from the database, a thousand at a time, so it costs the server the same memory at any size; ' +
          '`total` comes last and counts the items of `data`. An item published or removed while the ' +
          'document is being sent may or may not be in it. ' +
          `\`Cache-Control: ${ITEMS_EXPORT_CACHE_CONTROL}\`. ${describeRule(RATE_LIMITS.itemsExport)}.`,
        response: { 200: ItemsDocument, ...errors(429) },
      },
    },
    async (_req, reply) => {
      const document = await itemsExport.stream()
      return reply
        .type('application/json; charset=utf-8')
        .header('cache-control', ITEMS_EXPORT_CACHE_CONTROL)
        .send(document as never)
    },
  )
}
