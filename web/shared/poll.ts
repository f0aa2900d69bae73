/**
 * Live without reloading: runs `tick` every `intervalMs` while `active`, and only while the page is
 * visible. A hidden tab stops asking; coming back asks at once, then on the interval again. A tick never
 * overlaps the previous one.
 */
import { useEffect, useRef } from 'preact/hooks'

export function usePolling(tick: () => Promise<unknown> | unknown, intervalMs: number, active = true): void {
  const latest = useRef(tick)
  latest.current = tick
  useEffect(() => {
    if (!active) return
    let timer: number | undefined
    let stopped = false
    const schedule = () => {
      window.clearTimeout(timer)
      if (!stopped && document.visibilityState === 'visible') timer = window.setTimeout(run, intervalMs)
    }
    const run = async () => {
      try {
        await latest.current()
      } catch {
        // The screen shows its own errors; the next tick tries again.
      }
      schedule()
    }
    const onVisibility = () => {
      if (document.visibilityState === 'visible') run()
      else window.clearTimeout(timer)
    }
    schedule()
    document.addEventListener('visibilitychange', onVisibility)
    return () => {
      stopped = true
      window.clearTimeout(timer)
      document.removeEventListener('visibilitychange', onVisibility)
    }
  }, [active, intervalMs])
}

/** Fired on `window` when notifications change (read, dismissed), so the bell and banners ask again. */
export const NOTIFICATIONS_CHANGED = 'curio:notifications'
