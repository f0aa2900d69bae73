import { parseCsv } from '../transfer/csv.ts'
import { parseJson } from '../transfer/json.ts'
import { parseMarkdownInTurns } from '../transfer/markdown.ts'
import type { ParsedFile } from '../transfer/records.ts'
import type { ImportFormat } from './tables.ts'

const PARSERS: Record<ImportFormat, (text: string) => ParsedFile | Promise<ParsedFile>> = {
  // A section at a time, the event loop free in between: a large awesome list takes seconds to read.
  markdown: parseMarkdownInTurns,
  csv: parseCsv,
  json: parseJson,
}

/** The file read in its format: its items, what it declares besides, and what could not be read. */
export const parseFile = async (format: ImportFormat, text: string): Promise<ParsedFile> =>
  PARSERS[format](text)
