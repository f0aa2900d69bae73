/** `text` cut to `max` characters, the last of them an ellipsis when it was longer. */
export const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`

/** A plain JSON object (not null, not an array): what an outside system's answer is checked for. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A word for a command line a user pastes into a POSIX shell: as it is when plain, else single-quoted. */
export const shellWord = (word: string): string =>
  /^[\w.@%+=:,/-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
