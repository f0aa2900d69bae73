/** Figures: a value over its label, in a row (`.figures`); a figure with an `href` is a link. */
import type { ComponentChildren } from 'preact'
import { Link } from './router.tsx'

/** One figure: a `div.figure`, or a link to what it counts. */
export function Figure({
  value,
  label,
  href,
}: {
  value: ComponentChildren
  label: ComponentChildren
  href?: string
}) {
  const content = (
    <>
      <span class="figure-value">{value}</span>
      <span class="figure-label">{label}</span>
    </>
  )
  return href === undefined ? (
    <div class="figure">{content}</div>
  ) : (
    <Link class="figure" href={href}>
      {content}
    </Link>
  )
}

/** Figures as a labelled list (`ul.figures` of `li.figure`); a figure not yet known shows `—`. */
export function FigureList({
  label,
  figures,
  class: extra,
}: {
  label: string
  figures: readonly { label: string; value: number | string | undefined }[]
  class?: string
}) {
  return (
    <ul class={extra ? `figures ${extra}` : 'figures'} aria-label={label}>
      {figures.map((figure) => (
        <li class="figure" key={figure.label}>
          <span class="figure-value">{figure.value ?? '—'}</span>
          <span class="figure-label">{figure.label}</span>
        </li>
      ))}
    </ul>
  )
}

/** A labelled row of figures (`section.figures`), each a `Figure`. */
export function Figures({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <section class="figures" aria-label={label}>
      {children}
    </section>
  )
}
