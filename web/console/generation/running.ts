/**
 * Whether a work's generation is under way (queued or running), and its end as a page following it sees
 * it: a run's end may raise or resolve notifications, so the bell and the banners are told to ask again.
 */
import { useEffect, useRef } from 'preact/hooks'
import { NOTIFICATIONS_CHANGED } from '../../shared/poll.ts'
import type { Work } from '../api.ts'

type Status = Work['generateStatus']['status']

const underWay = (status: Status) => status === 'PENDING' || status === 'GENERATING'

export const isRunning = (work: Work) => underWay(work.generateStatus.status)

/** Calls `onEnd` with how the run ended when the work goes from under way to ended while shown. */
export function useRunEnd(work: Work, onEnd?: (status: Status) => void): void {
  const status = work.generateStatus.status
  const previous = useRef(status)
  useEffect(() => {
    const was = previous.current
    previous.current = status
    if (!underWay(was) || underWay(status)) return
    window.dispatchEvent(new Event(NOTIFICATIONS_CHANGED))
    onEnd?.(status)
  }, [status])
}
