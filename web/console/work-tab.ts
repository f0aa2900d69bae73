/** What each tab of a work's page is given (web/console/screens/work/*.tsx). */
import type { Work } from './api.ts'

export interface WorkTabProps {
  work: Work
  /** Reads the work again (after a change its header shows: a rename, a generation's end). */
  reload: () => Promise<void>
}

/** Whether the user may change the work (owner or editor); viewers only look. */
export const canEdit = (work: Work) => work.role !== 'viewer'
