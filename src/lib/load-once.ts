/**
 * A load done the first time it is asked for, then shared: an outside system's SDK is imported when its
 * integration is first called, not when the process starts (each SDK costs tens of milliseconds of CPU,
 * paid by every server and test process that never calls it). Concurrent first calls share one load; a
 * failed load is forgotten, so the next call tries again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined
  return () => {
    loading ??= Promise.resolve()
      .then(load)
      .catch((error: unknown) => {
        loading = undefined
        throw error
      })
    return loading
  }
}
