/**
 * One CSV cell, RFC 4180: quoted when it holds a comma, quote, CR or LF, quotes doubled. A cell that a
 * spreadsheet would run as a formula (starting with = + - @, tab or CR) is defused with a leading quote
 * mark, as OWASP recommends for CSV injection.
 */
export function csvCell(value: string | number | boolean | Date | null | undefined): string {
  if (value === null || value === undefined) return ''
  let text = value instanceof Date ? value.toISOString() : String(value)
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** One CSV record, CRLF-terminated as RFC 4180 writes them. */
export function csvRow(cells: readonly Parameters<typeof csvCell>[0][]): string {
  return `${cells.map(csvCell).join(',')}\r\n`
}
