/**
 * The activity log as a CSV file: the API answers it only with the user's access token, which the console
 * holds in memory, so the file is fetched through `api` and handed to the browser as a download.
 */
import { unwrap } from '../../shared/api.ts'
import { api } from '../api.ts'
import type { ActivityFilters } from './query.ts'

export async function downloadActivityCsv(filters: ActivityFilters, fileName: string): Promise<void> {
  const csv = await unwrap(
    api.GET('/api/activity-log/export', {
      params: { query: filters },
      headers: { accept: 'text/csv' },
      parseAs: 'blob',
    }),
  )
  const url = URL.createObjectURL(csv)
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  document.body.append(link)
  link.click()
  link.remove()
  // Released once the browser has surely taken the file (revoking at once can cancel a slow download).
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000)
}
