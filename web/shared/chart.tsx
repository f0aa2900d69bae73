/**
 * A line chart in SVG for a few series over days, drawn without a charting library. The picture is for
 * the eye; the same numbers are a table under "Show the numbers", for screen readers and for copying.
 */
import { useId } from 'preact/hooks'

export interface Series {
  label: string
  values: readonly number[]
}

const WIDTH = 640
const HEIGHT = 220
const PAD = { top: 12, right: 12, bottom: 26, left: 36 }

/** A round upper bound for the axis: 1, 2, 5 × a power of ten. */
function niceMax(value: number): number {
  if (value <= 4) return 4
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power
  return 10 * power
}

export function LineChart({
  title,
  labels,
  series,
}: {
  title: string
  /** One label per point (a day, `YYYY-MM-DD`). */
  labels: readonly string[]
  series: readonly Series[]
}) {
  const id = useId()
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)))
  const plotWidth = WIDTH - PAD.left - PAD.right
  const plotHeight = HEIGHT - PAD.top - PAD.bottom
  const x = (i: number) => PAD.left + (labels.length <= 1 ? 0 : (i * plotWidth) / (labels.length - 1))
  const y = (v: number) => PAD.top + plotHeight - (v / max) * plotHeight
  const ticks = [0, max / 2, max]
  const every = Math.max(1, Math.ceil(labels.length / 6))
  const totals = series.map((s) => `${s.label}: ${s.values.reduce((a, b) => a + b, 0)}`).join(', ')
  return (
    <figure class="chart-figure">
      <figcaption id={`${id}-title`}>
        <strong>{title}</strong>
      </figcaption>
      <div class="legend" aria-hidden="true">
        {series.map((s, i) => (
          <span key={s.label}>
            <span class={`legend-swatch swatch-${i}`} />
            {s.label}
          </span>
        ))}
      </div>
      <svg
        class="chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-summary`}
      >
        <title>{title}</title>
        {ticks.map((tick) => (
          <g key={tick}>
            <line class="grid-line" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} />
            <text x={PAD.left - 6} y={y(tick) + 4} text-anchor="end">
              {Math.round(tick)}
            </text>
          </g>
        ))}
        {labels.map((label, i) =>
          i % every === 0 || i === labels.length - 1 ? (
            <text key={label} x={x(i)} y={HEIGHT - 8} text-anchor="middle">
              {label.slice(5)}
            </text>
          ) : null,
        )}
        {series.map((s, i) => (
          <polyline
            key={s.label}
            class={`series-${i}`}
            points={s.values.map((v, j) => `${x(j).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}
          />
        ))}
      </svg>
      <p id={`${id}-summary`} class="visually-hidden">
        From {labels[0]} to {labels.at(-1)}. Totals: {totals}.
      </p>
      <details class="chart-data">
        <summary>Show the numbers</summary>
        {/* Focusable, so the numbers can be scrolled with the keyboard (WCAG 2.1.1). */}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to be scrolled by keys */}
        <section class="table-wrap" tabIndex={0} aria-label={`${title}, day by day`}>
          <table class="table">
            <caption class="visually-hidden">{title}</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th key={s.label} scope="col">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {labels.map((label, i) => (
                <tr key={label}>
                  <th scope="row">{label}</th>
                  {series.map((s) => (
                    <td key={s.label}>{s.values[i]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </details>
    </figure>
  )
}
