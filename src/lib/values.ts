/** `text` cut to `max` characters, the last of them an ellipsis when it was longer. */
export const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`

/** A plain JSON object (not null, not an array): what an outside system's answer is checked for. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
