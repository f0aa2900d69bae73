/** A row's action: ask first (when there is a question), run it, say so, then reload; a refusal is a toast. */
import { useConfirm, useToast } from './ui.tsx'

/** The confirmation asked before a destructive action (as `useConfirm` takes it). */
export type Question = Parameters<ReturnType<typeof useConfirm>>[0]

export interface RowAction {
  /** Asked first, when given; nothing happens unless confirmed. */
  ask?: Question | undefined
  /** The API call. */
  run: () => Promise<unknown>
  /** What the success toast says. */
  done: string
  /** What to load again after it succeeded. */
  reload?: () => Promise<unknown>
  /** Load again after a refusal too (what the row shows may have changed meanwhile). */
  reloadOnFailure?: boolean
}

/** Returns `act(action)`, which resolves true once the action succeeded. */
export function useRowAction(): (action: RowAction) => Promise<boolean> {
  const confirm = useConfirm()
  const toast = useToast()
  return async ({ ask, run, done, reload, reloadOnFailure }) => {
    if (ask && !(await confirm(ask))) return false
    try {
      await run()
      toast('success', done)
      await reload?.()
      return true
    } catch (error) {
      toast.failed(error)
      if (reloadOnFailure) await reload?.()
      return false
    }
  }
}
