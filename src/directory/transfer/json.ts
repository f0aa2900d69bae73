/**
 * The JSON format: the export's own document, `{version, site, categories, tags, items}`, one item per line.
 * Parsing checks each item field by field and skips a bad one with an issue naming it; rendering streams the
 * document as it reads the items.
 */
import { ITEM_STATUSES, type ItemStatus } from '../items/tables.ts'
import type { ExportItem, ExportSource, ParsedFile, TransferItem, TransferLocation } from './records.ts'

export const JSON_VERSION = 1

const ITEM_FIELDS = [
  'slug',
  'name',
  'description',
  'url',
  'iconUrl',
  'imageUrl',
  'category',
  'tags',
  'company',
  'status',
  'location',
  'publishedAt',
] as const
const LOCATION_FIELDS = [
  'address',
  'city',
  'country',
  'latitude',
  'longitude',
  'isRemote',
  'serviceArea',
] as const

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A field that does not hold what it must: the item is reported with this and skipped. */
class FieldError extends Error {}

function textOrNull(value: unknown, field: string): string | null {
  if (value === null || typeof value === 'string') return value
  throw new FieldError(`${field} must be a string or null`)
}

function numberOrNull(value: unknown, field: string): number | null {
  if (value === null || (typeof value === 'number' && Number.isFinite(value))) return value
  throw new FieldError(`${field} must be a number or null`)
}

function locationOf(value: unknown): TransferLocation {
  if (!isObject(value)) throw new FieldError('location must be an object')
  const location: TransferLocation = {}
  for (const field of ['address', 'city', 'country', 'serviceArea'] as const) {
    if (value[field] !== undefined) location[field] = textOrNull(value[field], `location.${field}`)
  }
  for (const field of ['latitude', 'longitude'] as const) {
    if (value[field] !== undefined) location[field] = numberOrNull(value[field], `location.${field}`)
  }
  if (value.isRemote !== undefined) {
    if (typeof value.isRemote !== 'boolean') throw new FieldError('location.isRemote must be true or false')
    location.isRemote = value.isRemote
  }
  return location
}

/** The item a JSON object gives: each field it has, checked. */
function itemOf(value: Json): TransferItem {
  if (typeof value.name !== 'string' || value.name.trim() === '') {
    throw new FieldError('name must be a string that is not empty')
  }
  const item: TransferItem = { name: value.name.trim() }
  if (value.slug !== undefined) {
    if (typeof value.slug !== 'string') throw new FieldError('slug must be a string')
    if (value.slug !== '') item.slug = value.slug
  }
  for (const field of ['description', 'url', 'iconUrl', 'imageUrl', 'category', 'company'] as const) {
    if (value[field] !== undefined) item[field] = textOrNull(value[field], field)
  }
  if (value.tags !== undefined) {
    if (!Array.isArray(value.tags) || !value.tags.every((tag) => typeof tag === 'string')) {
      throw new FieldError('tags must be a list of names')
    }
    item.tags = value.tags
  }
  if (value.status !== undefined) {
    if (!(ITEM_STATUSES as readonly unknown[]).includes(value.status)) {
      throw new FieldError(`status must be one of ${ITEM_STATUSES.join(', ')}`)
    }
    item.status = value.status as ItemStatus
  }
  if (value.location !== undefined && value.location !== null) item.location = locationOf(value.location)
  if (value.publishedAt !== undefined) {
    const publishedAt = textOrNull(value.publishedAt, 'publishedAt')
    if (publishedAt !== null && Number.isNaN(new Date(publishedAt).getTime())) {
      throw new FieldError('publishedAt must be an ISO 8601 date or null')
    }
    item.publishedAt = publishedAt === null ? null : new Date(publishedAt).toISOString()
  }
  return item
}

const names = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : []

/** Parses the export's JSON document: its site, declared categories and tags, and its items. */
export function parseJson(text: string): ParsedFile {
  const parsed: ParsedFile = { site: {}, categories: [], tags: [], items: [], issues: [] }
  let document: unknown
  try {
    document = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    parsed.issues.push({ message: `not a JSON document: ${(error as Error).message}` })
    return parsed
  }
  if (!isObject(document) || !Array.isArray(document.items)) {
    parsed.issues.push({ message: 'not an export: an object with an "items" list is expected' })
    return parsed
  }
  if (document.version !== undefined && document.version !== JSON_VERSION) {
    parsed.issues.push({ message: `version ${JSON.stringify(document.version)} is not one this reads (1)` })
    return parsed
  }
  if (isObject(document.site)) {
    if (typeof document.site.name === 'string') parsed.site.name = document.site.name
    if (typeof document.site.description === 'string') parsed.site.description = document.site.description
  }
  parsed.categories = names(document.categories)
  parsed.tags = names(document.tags)
  const unknownFields = new Set<string>()
  document.items.forEach((value, index) => {
    const place =
      isObject(value) && typeof value.name === 'string'
        ? `items[${index}] "${value.name}"`
        : `items[${index}]`
    if (!isObject(value)) {
      parsed.issues.push({ item: place, message: 'not an object' })
      return
    }
    const location = isObject(value.location)
      ? Object.keys(value.location).map((key) => `location.${key}`)
      : []
    for (const field of [...Object.keys(value), ...location]) {
      const known = field.startsWith('location.')
        ? (LOCATION_FIELDS as readonly string[]).includes(field.slice('location.'.length))
        : (ITEM_FIELDS as readonly string[]).includes(field)
      if (!known && !unknownFields.has(field)) {
        unknownFields.add(field)
        parsed.issues.push({ item: place, message: `unknown field "${field}": ignored` })
      }
    }
    try {
      parsed.items.push({ item: itemOf(value) })
    } catch (error) {
      if (!(error instanceof FieldError)) throw error
      parsed.issues.push({ item: place, message: error.message })
    }
  })
  return parsed
}

/** An item's JSON with its fields always in the same order. */
const itemJson = (item: ExportItem): string => {
  const { location } = item
  return JSON.stringify({
    slug: item.slug,
    name: item.name,
    description: item.description,
    url: item.url,
    iconUrl: item.iconUrl,
    imageUrl: item.imageUrl,
    category: item.category,
    tags: item.tags,
    company: item.company,
    status: item.status,
    location: {
      address: location.address,
      city: location.city,
      country: location.country,
      latitude: location.latitude,
      longitude: location.longitude,
      isRemote: location.isRemote,
      serviceArea: location.serviceArea,
    },
    publishedAt: item.publishedAt,
  } satisfies ExportItem)
}

/** The document goes out in pieces of about this many characters. */
const CHUNK_CHARACTERS = 32 * 1024

/** The directory as the export's JSON document, one item per line. */
export async function* renderJson(source: ExportSource): AsyncGenerator<string> {
  const site = JSON.stringify({ name: source.site.name, description: source.site.description })
  const categories = JSON.stringify(source.categories.map(({ name }) => name))
  const tags = JSON.stringify(source.tags.map(({ name }) => name))
  let chunk = `{\n  "version": ${JSON_VERSION},\n  "site": ${site},\n  "categories": ${categories},\n  "tags": ${tags},\n  "items": [`
  let first = true
  for await (const item of source.items) {
    chunk += `${first ? '' : ','}\n    ${itemJson(item)}`
    first = false
    if (chunk.length >= CHUNK_CHARACTERS) {
      yield chunk
      chunk = ''
    }
  }
  yield `${chunk}${first ? '' : '\n  '}]\n}\n`
}
