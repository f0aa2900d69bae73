import type { ComponentChildren } from 'preact'
import { useEffect } from 'preact/hooks'

let defaultSuffix = 'Admin'

/** What each console adds to its screens' titles (`Works · Curio`); main.tsx sets it once. */
export function setTitleSuffix(suffix: string): void {
  defaultSuffix = suffix
}

/** A screen's heading and its main actions; names the browser tab after it. */
export function Page({
  title,
  actions,
  children,
  suffix = defaultSuffix,
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
