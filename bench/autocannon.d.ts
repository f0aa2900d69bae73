/** The part of autocannon v9's API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  /** One request of a sequence; each connection goes round the sequence in order. */
  export interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
    /** Called before each send of this request: returns the request to send (rebuilt every time). */
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request | undefined
    /** Called with each answer to this request. */
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
  }

  export interface Options {
    url: string
    connections?: number
    duration?: number
    /** Stop after this many requests in all (instead of after `duration`). */
    amount?: number
    pipelining?: number
    method?: string
    headers?: Record<string, string>
    timeout?: number
    title?: string
    requests?: Request[]
  }

  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    p50: number
    p90: number
    p99: number
    [percentile: `p${string}`]: number
  }

  export interface Result {
    url: string
    connections: number
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    resets: number
    '2xx': number
    statusCodeStats: Record<string, { count: number }>
    latency: Histogram
    requests: Histogram & { sent: number }
    throughput: Histogram
  }

  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
