/**
 * The Link health section of an item's page: how its URL answered when last checked (status, HTTP code,
 * failures in a row).
 */
import { unwrap } from '../../shared/api.ts'
import { Button, formatDate, useToast } from '../../shared/ui.tsx'
import { type AdminItem, api } from '../api.ts'

/** The last check of the item's link, and `Check link` to check it now. */
export function LinkHealth({ item, onChecked }: { item: AdminItem; onChecked: () => Promise<void> }) {
  const toast = useToast()
  const link = item.link
  const check = async () => {
    try {
      const answer = await unwrap(
        api.POST('/api/admin/items/{id}/check-link', { params: { path: { id: item.id } } }),
      )
      toast(
        'success',
        `Link checked: ${answer.data.status}${answer.data.httpStatus ? ` (HTTP ${answer.data.httpStatus})` : ''}`,
      )
      await onChecked()
    } catch (error) {
      toast.failed(error)
    }
  }
  return (
    <section class="card" aria-labelledby="link-health">
      <h2 id="link-health">Link health</h2>
      {item.url ? (
        <>
          <p>
            <span class={`status link-${link.status}`}>{link.status}</span>{' '}
            {link.checkedAt ? `checked ${formatDate(link.checkedAt, true)}` : 'not checked yet'}
            {link.httpStatus ? ` · HTTP ${link.httpStatus}` : ''}
            {link.failures
              ? ` · ${link.failures} failed ${link.failures === 1 ? 'check' : 'checks'} in a row`
              : ''}
          </p>
          {link.finalUrl && link.finalUrl !== item.url && <p class="muted">Ends at {link.finalUrl}</p>}
          <Button onClick={check}>Check link</Button>
        </>
      ) : (
        <p class="muted">This item has no URL to check.</p>
      )}
    </section>
  )
}
