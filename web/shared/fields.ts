/** A form's values kept in one state, with a setter per field (`onValue={set('name')}`). */
import { useState } from 'preact/hooks'

/** `[values, set, setValues]`: `set(key)` is the `onValue` of that field's input. */
export function useFields<T extends object>(initial: T | (() => T)) {
  const [values, setValues] = useState<T>(initial)
  const set =
    <K extends keyof T>(key: K) =>
    (value: T[K]) =>
      setValues((current) => ({ ...current, [key]: value }))
  return [values, set, setValues] as const
}

/** Text as the API takes an optional field: trimmed, or `null` when empty. */
export function orNull(value: string): string | null {
  return value.trim() === '' ? null : value.trim()
}
