/** The part of parse-prometheus-text-format's API the tests use (the package ships no types). */
declare module 'parse-prometheus-text-format' {
  type Labels = Record<string, string>

  /** A counter's, gauge's or untyped metric's series. */
  export interface ValueSeries {
    value: string
    labels?: Labels
  }

  /** A histogram's series: cumulative counts by upper bound (`le`), the count and the sum. */
  export interface HistogramSeries {
    buckets: Record<string, string>
    count: string
    sum: string
    labels?: Labels
  }

  /** A summary's series. */
  export interface SummarySeries {
    quantiles: Record<string, string>
    count: string
    sum: string
    labels?: Labels
  }

  export interface MetricFamily {
    name: string
    help: string
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'
    metrics: (ValueSeries | HistogramSeries | SummarySeries)[]
  }

  export default function parsePrometheusTextFormat(text: string): MetricFamily[]
}
