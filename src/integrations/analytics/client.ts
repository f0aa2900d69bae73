/** An analytics collector speaking PostHog's capture API (`POST {host}/capture/`). */
export interface AnalyticsEvent {
  event: string
  distinctId: string
  properties: Record<string, unknown>
  timestamp: string
}

export interface AnalyticsClient {
  /** Sends one event; throws when the collector does not accept it, so the job retries. */
  capture(event: AnalyticsEvent): Promise<void>
}

export function createAnalyticsClient({
  host,
  writeKey,
  timeoutMs = 10_000,
}: {
  host: string
  writeKey: string
  timeoutMs?: number
}): AnalyticsClient {
  const url = `${host.replace(/\/+$/, '')}/capture/`
  return {
    async capture(event) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          api_key: writeKey,
          event: event.event,
          distinct_id: event.distinctId,
          properties: event.properties,
          timestamp: event.timestamp,
        }),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      })
      await res.body?.cancel()
      if (!res.ok) throw new Error(`analytics collector answered ${res.status}`)
    },
  }
}
