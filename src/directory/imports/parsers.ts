import { parseCsv } from '../transfer/csv.ts'
import { parseJson } from '../transfer/json.ts'
import { parseMarkdown } from '../transfer/markdown.ts'
import type { ParsedFile } from '../transfer/records.ts'
import type { ImportFormat } from './tables.ts'

const PARSERS: Record<ImportFormat, (text: string) => ParsedFile> = {
  markdown: parseMarkdown,
  csv: parseCsv,
  json: parseJson,
}

/** The file read in its format: its items, what it declares besides, and what could not be read. */
export const parseFile = (format: ImportFormat, text: string): ParsedFile => PARSERS[format](text)
