/**
 * The consoles' building blocks. Each is a plain HTML control with its label, role and state set the way a
 * person with a screen reader and a test both find it: fields are labelled and carry their error
 * (`aria-invalid`, `aria-describedby`; inputs.tsx), buttons say what they do and are disabled while busy,
 * dialogs are native `<dialog>`s (focus moves in and back, Escape closes; dialogs.tsx), messages are live
 * regions (toasts.tsx). Screens import them all from here.
 */
import type { ComponentChildren } from 'preact'

export * from './button.tsx'
export * from './dialogs.tsx'
export * from './inputs.tsx'
export * from './list-controls.tsx'
export * from './toasts.tsx'

/** A message in the page: errors are alerts (read out at once), the rest polite status. */
export function Notice({
  kind = 'info',
  children,
}: {
  kind?: 'info' | 'error' | 'success'
  children: ComponentChildren
}) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  )
}

/** A loading line for a region that is fetching (`aria-busy` is on the region itself). */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="loading" role="status">
      {what}…
    </p>
  )
}

/** Formats an ISO date-time for a table cell, in the user's locale. */
export function formatDate(value: string | null | undefined, withTime = false): string {
  if (!value) return '—'
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return value
  return withTime
    ? date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
    : date.toLocaleDateString(undefined, { dateStyle: 'medium' })
}
