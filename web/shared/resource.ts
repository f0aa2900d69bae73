/**
 * Loads what a screen shows and keeps it with its state: `loading` while the first answer is awaited,
 * `data` once it came (kept while a reload is in flight, so a table does not blink), `error` if it failed.
 * A newer load supersedes an older one: an answer that arrives late is dropped, never shown.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'

export interface Resource<T> {
  data: T | undefined
  error: unknown
  loading: boolean
  /** Loads again (after an action changed what is shown); resolves when the new answer is in. */
  reload: () => Promise<void>
}

export function useResource<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: readonly unknown[],
): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  })
  const latest = useRef(0)
  const controller = useRef<AbortController | null>(null)

  const run = useCallback(async () => {
    const ticket = ++latest.current
    controller.current?.abort()
    const abort = new AbortController()
    controller.current = abort
    setState((previous) => ({ ...previous, loading: true }))
    try {
      const data = await load(abort.signal)
      if (ticket === latest.current) setState({ data, error: undefined, loading: false })
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') return
      if (ticket === latest.current) setState((previous) => ({ ...previous, error, loading: false }))
    }
  }, deps)

  useEffect(() => {
    run()
    return () => controller.current?.abort()
  }, [run])

  return { ...state, reload: run }
}
