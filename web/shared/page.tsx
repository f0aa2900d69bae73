import type { ComponentChildren } from 'preact'
import { useEffect } from 'preact/hooks'

/** A screen's heading and its main actions; names the browser tab after it. */
export function Page({
  title,
  actions,
  children,
  suffix = 'Admin',
}: {
  title: string
  actions?: ComponentChildren
  children: ComponentChildren
  suffix?: string
}) {
  useEffect(() => {
    document.title = `${title} · ${suffix}`
  }, [title, suffix])
  return (
    <section class="page">
      <header class="page-header">
        <h1>{title}</h1>
        {actions && <div class="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  )
}
