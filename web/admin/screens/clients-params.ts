/** How the clients screen turns what the user chose into the API's parameters: known values only, none left undefined. */

/** `value` if it is one of `labels`' keys (a status, plan or account type), else undefined. */
export const pick = <K extends string>(labels: Record<K, string>, value: string | null): K | undefined =>
  value !== null && Object.hasOwn(labels, value) ? (value as K) : undefined

/** Leaves out the keys whose value is undefined, as the API's optional parameters want. */
export function defined<T extends Record<string, unknown>>(
  object: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>
  }
}
