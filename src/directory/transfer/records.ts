/**
 * What the import and export formats (Markdown, CSV, JSON) exchange: a directory as its site, categories,
 * tags and items, each item by the names of what it points at, never by ids the other directory would not
 * have. Parsers return what a file gives, leaving out what it does not say (an update leaves those fields as
 * they are); exporters write every field their format carries.
 */
import type { ItemStatus } from '../items/tables.ts'

export type TransferFormat = 'markdown' | 'csv' | 'json'

/** An item's location; each field left out is not given. */
export interface TransferLocation {
  address?: string | null
  city?: string | null
  country?: string | null
  latitude?: number | null
  longitude?: number | null
  isRemote?: boolean
  serviceArea?: string | null
}

/**
 * One item as a file gives it. `name` is always there; every other field left out (`undefined`) was not
 * given and is left as it is on update. `slug` left out is made from the name, as item create makes it.
 */
export interface TransferItem {
  name: string
  slug?: string
  url?: string | null
  description?: string | null
  iconUrl?: string | null
  imageUrl?: string | null
  /** The category's name (or id); null for none. */
  category?: string | null
  /** Tag names (or ids). */
  tags?: string[]
  /** The company's name; null for none. */
  company?: string | null
  status?: ItemStatus
  location?: TransferLocation
  /** ISO 8601; when it was published, kept on import so the site's order survives a round trip. */
  publishedAt?: string | null
}

/** An item a parser read, with the line it starts on (1-based) where the format has lines. */
export interface ParsedItem {
  line?: number
  item: TransferItem
}

/** Something a parser could not read: its line, or the item's name or place, and why. */
export interface ParseIssue {
  line?: number
  item?: string
  message: string
}

/** A parsed file: its items in order, what it declares besides, and what it could not read. */
export interface ParsedFile {
  /** The site's name and description as the file gives them (a Markdown title and intro). */
  site: { name?: string; description?: string }
  /** Category names in the file's order, with those no item uses (JSON declares them). */
  categories: string[]
  /** Tag names the file declares, with those no item uses (JSON). */
  tags: string[]
  items: ParsedItem[]
  issues: ParseIssue[]
}

/** The site as an export starts it. */
export interface ExportSite {
  name: string
  description: string
  /** The public site's address, for links to item pages (Markdown items without a URL). */
  url: string
}

/** An item as an export writes it: every field. */
export interface ExportItem {
  slug: string
  name: string
  description: string | null
  url: string | null
  iconUrl: string | null
  imageUrl: string | null
  category: string | null
  tags: string[]
  company: string | null
  status: ItemStatus
  location: Required<TransferLocation>
  publishedAt: string | null
}

/** What an export renderer is given: the site, categories and tags in the site's order, and the items as read. */
export interface ExportSource {
  site: ExportSite
  /** Every category by `sortOrder`, then name; `published` counts its published items. */
  categories: { id: string; name: string; published: number }[]
  /** Every tag by name. */
  tags: { id: string; name: string }[]
  /** Published items without a category (the Markdown export's last section, listed in its contents). */
  uncategorized?: number
  /**
   * The items in the format's order, read in batches as the renderer asks: for Markdown the published ones
   * by category (the categories' order, items without one last), each category's newest first, then by
   * slug; for CSV and JSON every item, whatever its status, by slug.
   */
  items: AsyncIterable<ExportItem>
}
