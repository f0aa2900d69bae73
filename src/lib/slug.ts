/**
 * The one slug primitive: `Café Guide!` → `cafe-guide`. Letters lose their diacritics, everything outside
 * `[a-z0-9]` becomes a single dash, and the result is cut to `maxLength` without a trailing dash. It may be
 * empty (a name of only symbols or of another script); callers decide what to use then.
 */
export function slugify(text: string, maxLength: number): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, Math.max(0, maxLength))
    .replace(/-+$/, '')
}
