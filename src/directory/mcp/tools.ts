import { Type } from 'typebox'
import { type McpTool, mcpTool } from '../../http/mcp.ts'
import { HttpError } from '../../lib/errors.ts'
import { Category } from '../categories/schemas.ts'
import type { CategoryService } from '../categories/service.ts'
import { ShelfAnswer, ShelfQuery } from '../featured/schemas.ts'
import type { FeaturedService } from '../featured/service.ts'
import { metaOf } from '../http/schemas.ts'
import type { PublicItems } from '../items/public.ts'
import { PublicItemAnswer, PublicItemQuery, PublicListAnswer, SlugParams } from '../items/schemas.ts'

export interface DirectoryToolServices {
  site: Pick<PublicItems, 'list' | 'get'>
  categories: Pick<CategoryService, 'all'>
  featured: Pick<FeaturedService, 'shelf'>
}

/** What a visitor learns of a category: the public listing's name and published item count. */
const PublicCategories = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(
      Type.Object({
        id: Category.properties.id,
        name: Category.properties.name,
        itemCount: Category.properties.itemCount,
      }),
    ),
  },
  { description: 'The active categories, in the site’s order' },
)

/** The categories' one listing, in one language for every reader (categories carry no translations). */
const CATEGORY_LOCALE = 'en'

/** The directory's public, read-only tools, each over the service its public read uses. */
export function directoryTools({ site, categories, featured }: DirectoryToolServices): McpTool<void>[] {
  return [
    mcpTool({
      name: 'search_items',
      title: 'Search the directory',
      description:
        'Searches the directory’s published items: `search` matches words of the name and description (each ' +
        'as a prefix), `category` and `tag` filter by id (see list_categories), `sort` is `newest` or ' +
        '`name`, paged with `page` and `limit` (1–100, default 20). Returns `{success, data: [items], meta: ' +
        '{page, limit, total, totalPages}}`, as GET /api/items; each item has its slug for get_item.',
      input: PublicItemQuery,
      output: PublicListAnswer,
      readOnly: true,
      call: async (query) => {
        const page = await site.list(query)
        return { success: true, data: page.items, meta: metaOf(page.meta) }
      },
    }),
    mcpTool({
      name: 'get_item',
      title: 'Get an item',
      description:
        'One published item by its slug (from search_items or list_featured_items): name, description, URL, ' +
        'category, tags, company, location. An unknown or unpublished slug is the error ITEM_NOT_FOUND ' +
        '(404). Returns `{success, data}`, as GET /api/items/:slug.',
      input: SlugParams,
      output: PublicItemAnswer,
      readOnly: true,
      call: async ({ slug }) => ({ success: true, data: await site.get(slug) }),
    }),
    mcpTool({
      name: 'list_categories',
      title: 'List categories',
      description:
        'The directory’s active categories in the site’s order, each with its id (the `category` filter of ' +
        'search_items), name and number of published items. Returns `{success, data: [{id, name, itemCount}]}`.',
      input: Type.Object({}),
      output: PublicCategories,
      readOnly: true,
      call: async () => ({ success: true, data: await categories.all(CATEGORY_LOCALE) }),
    }),
    mcpTool({
      name: 'list_featured_items',
      title: 'List featured items',
      description:
        'The items the directory features, most prominent first, `limit` 1–50 (default 6); entries past ' +
        'their end are left out unless `includeExpired` is "true". Returns `{success, data, count}`, as ' +
        'GET /api/featured-items; each entry has the item’s slug for get_item.',
      input: ShelfQuery,
      output: ShelfAnswer,
      readOnly: true,
      call: async (query) => {
        try {
          const data = await featured.shelf(query)
          return { success: true, data, count: data.length }
        } catch {
          // As the REST route answers it: the shelf's reason is the server's log, not the caller's.
          throw new HttpError(500, 'FEATURED_ITEMS_UNAVAILABLE', 'Failed to fetch featured items')
        }
      },
    }),
  ]
}
