/**
 * The activity log's view in the query string: its filters (`actionType`, `status`, `dateFrom`, `dateTo`,
 * `search`, and on the global screen `workId`), its page, and the entry whose details are open
 * (`entry`), so a filtered page of the log can be reloaded and shared. A work's tab fixes `workId`.
 */
import { useList } from '../../shared/list.ts'
import { type ActivityQuery, isActionType, isStatus } from './labels.tsx'

/** Entries per page. */
export const PAGE_SIZE = 25

/** The filters the list and the export share (the API's names and values). */
export type ActivityFilters = Omit<ActivityQuery, 'limit' | 'offset'>

export function useActivityQuery(fixedWorkId?: string) {
  const list = useList()
  const { query } = list
  const actionType = query.get('actionType')
  const status = query.get('status')
  const text = (key: string) => query.get(key) ?? ''
  const workId = fixedWorkId ?? text('workId')
  const filters: ActivityFilters = {
    ...(isActionType(actionType) ? { actionType } : {}),
    ...(isStatus(status) ? { status } : {}),
    ...(workId ? { workId } : {}),
    ...(text('dateFrom') ? { dateFrom: text('dateFrom') } : {}),
    ...(text('dateTo') ? { dateTo: text('dateTo') } : {}),
    ...(list.search ? { search: list.search } : {}),
  }
  return {
    ...list,
    filters,
    /** Whether the user narrowed the list (the work a tab is about is no filter of theirs). */
    filtered: Object.keys(filters).some((key) => key !== 'workId' || fixedWorkId === undefined),
    /** The entry whose details are open, if any. */
    entry: query.get('entry'),
    openEntry: (id: string | undefined) => list.setQuery({ entry: id }, { push: id !== undefined }),
  }
}
