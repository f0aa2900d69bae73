/**
 * The CSV format: RFC 4180 with a header row naming item fields, one row per item. Parsing reads what the
 * columns give (a column left out is not given; an empty cell clears its field), reports unknown columns
 * once and bad rows by their first line. Rendering writes every field, through `csvRow`, which defuses
 * cells a spreadsheet would run as formulas; parsing restores them.
 */
import { parse } from 'csv-parse/sync'
import { csvRow } from '../../lib/csv.ts'
import { ITEM_STATUSES, type ItemStatus } from '../items/tables.ts'
import type { ExportItem, ExportSource, ParsedFile, ParsedItem, ParseIssue, TransferItem } from './records.ts'

/** The export's columns, in its order. */
export const CSV_COLUMNS = [
  'slug',
  'name',
  'url',
  'description',
  'category',
  'tags',
  'status',
  'company',
  'iconUrl',
  'imageUrl',
  'address',
  'city',
  'country',
  'latitude',
  'longitude',
  'isRemote',
  'serviceArea',
  'publishedAt',
] as const
type Column = (typeof CSV_COLUMNS)[number]

/** A header as matched: lower case, without spaces, underscores or dashes. */
const headerKey = (header: string) => header.toLowerCase().replace(/[\s_-]/g, '')

const COLUMN_OF = new Map<string, Column>([
  ...CSV_COLUMNS.map((column) => [headerKey(column), column] as const),
  ['title', 'name'],
  ['link', 'url'],
  ['website', 'url'],
  ['tag', 'tags'],
  ['icon', 'iconUrl'],
  ['image', 'imageUrl'],
  ['lat', 'latitude'],
  ['lng', 'longitude'],
  ['lon', 'longitude'],
  ['remote', 'isRemote'],
])

/** A cell `csvCell` defused against CSV injection: its leading quote mark goes. */
const restored = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell)

/** A bad cell: the row is reported with this and gives no item. */
class CellError extends Error {}

const textOrNull = (cell: string) => (cell.trim() === '' ? null : cell.trim())

function numberOrNull(cell: string, column: Column): number | null {
  if (cell.trim() === '') return null
  const value = Number(cell.trim())
  if (!Number.isFinite(value)) throw new CellError(`${column} is not a number: "${cell}"`)
  return value
}

function isoDateOrNull(cell: string): string | null {
  if (cell.trim() === '') return null
  const date = new Date(cell.trim())
  if (!/^\d{4}-\d{2}-\d{2}/.test(cell.trim()) || Number.isNaN(date.getTime())) {
    throw new CellError(`publishedAt is not an ISO 8601 date: "${cell}"`)
  }
  return date.toISOString()
}

const BOOLEANS = new Map([
  ['true', true],
  ['yes', true],
  ['1', true],
  ['false', false],
  ['no', false],
  ['0', false],
])

/** The item one row gives, from the cells of the columns the file has. */
function itemOf(cells: Map<Column, string>): TransferItem {
  const cell = (column: Column) => cells.get(column)
  const name = cell('name')?.trim() ?? ''
  if (name === '') throw new CellError('no name')
  const item: TransferItem = { name }
  const slug = cell('slug')
  if (slug !== undefined && slug.trim() !== '') item.slug = slug.trim()
  for (const column of ['url', 'iconUrl', 'imageUrl', 'category', 'company'] as const) {
    const value = cell(column)
    if (value !== undefined) item[column] = textOrNull(value)
  }
  const description = cell('description')
  if (description !== undefined) item.description = description.trim() === '' ? null : description
  const tags = cell('tags')
  if (tags !== undefined) {
    item.tags = tags
      .split(/[;|]/)
      .map((tag) => tag.trim())
      .filter((tag) => tag !== '')
  }
  const status = cell('status')?.trim().toLowerCase()
  if (status) {
    if (!(ITEM_STATUSES as readonly string[]).includes(status)) {
      throw new CellError(`status must be one of ${ITEM_STATUSES.join(', ')}: "${cell('status')}"`)
    }
    item.status = status as ItemStatus
  }
  const location: NonNullable<TransferItem['location']> = {}
  for (const column of ['address', 'city', 'country', 'serviceArea'] as const) {
    const value = cell(column)
    if (value !== undefined) location[column] = textOrNull(value)
  }
  for (const column of ['latitude', 'longitude'] as const) {
    const value = cell(column)
    if (value !== undefined) location[column] = numberOrNull(value, column)
  }
  const isRemote = cell('isRemote')?.trim().toLowerCase()
  if (isRemote) {
    const value = BOOLEANS.get(isRemote)
    if (value === undefined) throw new CellError(`isRemote must be true or false: "${cell('isRemote')}"`)
    location.isRemote = value
  }
  if (Object.keys(location).length > 0) item.location = location
  const publishedAt = cell('publishedAt')
  if (publishedAt !== undefined) item.publishedAt = isoDateOrNull(publishedAt)
  return item
}

/** Counts the lines up to each record's first character, from where each record ends. */
function lineCounter(bytes: Buffer) {
  let offset = 0
  let line = 1
  return (end: number): number => {
    for (; offset < end; offset++) if (bytes[offset] === 0x0a) line++
    return line
  }
}

/** Parses a CSV file with a header row: its items in order and the rows and columns it could not read. */
export function parseCsv(text: string): ParsedFile {
  const parsed: ParsedFile = { site: {}, categories: [], tags: [], items: [], issues: [] }
  const issues: ParseIssue[] = parsed.issues
  const bytes = Buffer.from(text)
  let records: { record: string[]; info: { bytes: number } }[]
  try {
    records = parse(bytes, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
    }) as unknown as typeof records
  } catch (error) {
    const line = (error as { lines?: number }).lines
    issues.push({ line, message: `not a CSV file: ${(error as Error).message}` })
    return parsed
  }
  const [header, ...rows] = records
  if (!header) {
    issues.push({ line: 1, message: 'no header row' })
    return parsed
  }
  const columns = header.record.map((name): Column | undefined => {
    const column = COLUMN_OF.get(headerKey(name))
    if (!column) issues.push({ line: 1, message: `unknown column "${name}": ignored` })
    return column
  })
  columns.forEach((column, index) => {
    if (column && columns.indexOf(column) !== index) {
      issues.push({ line: 1, message: `column "${header.record[index]}" repeats ${column}: ignored` })
      columns[index] = undefined
    }
  })
  if (!columns.includes('name')) {
    issues.push({ line: 1, message: 'no name column: a name is what every item needs' })
    return parsed
  }
  const lineAt = lineCounter(bytes)
  let end = header.info.bytes
  for (const { record, info } of rows) {
    let line = lineAt(end)
    // Empty lines between rows are skipped by the parser; the row starts after them.
    while (bytes[end] === 0x0a || (bytes[end] === 0x0d && bytes[end + 1] === 0x0a)) {
      end += bytes[end] === 0x0d ? 2 : 1
      line++
    }
    lineAt(end)
    end = info.bytes
    const cells = new Map<Column, string>()
    columns.forEach((column, index) => {
      if (column) cells.set(column, restored(record[index] ?? ''))
    })
    const name = cells.get('name')?.trim() || undefined
    if (record.length !== columns.length) {
      const message = `has ${record.length} cells where the header has ${columns.length}`
      issues.push({ line, item: name, message })
      continue
    }
    try {
      parsed.items.push({ line, item: itemOf(cells) } satisfies ParsedItem)
    } catch (error) {
      if (!(error instanceof CellError)) throw error
      issues.push({ line, item: name, message: error.message })
    }
  }
  return parsed
}

const cellsOf = (item: ExportItem): Parameters<typeof csvRow>[0] => {
  const { location } = item
  const values: Record<Column, string | number | boolean | null> = {
    slug: item.slug,
    name: item.name,
    url: item.url,
    description: item.description,
    category: item.category,
    tags: item.tags.join('; '),
    status: item.status,
    company: item.company,
    iconUrl: item.iconUrl,
    imageUrl: item.imageUrl,
    address: location.address,
    city: location.city,
    country: location.country,
    latitude: location.latitude,
    longitude: location.longitude,
    isRemote: location.isRemote,
    serviceArea: location.serviceArea,
    publishedAt: item.publishedAt,
  }
  return CSV_COLUMNS.map((column) => values[column])
}

/** The document goes out in pieces of about this many characters. */
const CHUNK_CHARACTERS = 32 * 1024

/** Every item as a CSV row, under the header of `CSV_COLUMNS`. */
export async function* renderCsv(source: ExportSource): AsyncGenerator<string> {
  let chunk = csvRow(CSV_COLUMNS)
  for await (const item of source.items) {
    chunk += csvRow(cellsOf(item))
    if (chunk.length >= CHUNK_CHARACTERS) {
      yield chunk
      chunk = ''
    }
  }
  yield chunk
}
