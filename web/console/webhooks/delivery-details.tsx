/**
 * One delivery in full: its id (the `X-Service-Delivery` header the endpoint got), its last attempt, its job,
 * and the body it sends, as sent (the bytes the signature covers), laid out to read.
 */
import { Button, Dialog, formatDate } from '../../shared/ui.tsx'
import { type Delivery, DeliveryStatus, OUTCOME } from './model.tsx'

export function DeliveryDetails({ delivery, onClose }: { delivery: Delivery | null; onClose: () => void }) {
  return (
    <Dialog title="Delivery" open={delivery !== null} onClose={onClose} wide>
      {delivery && (
        <>
          <dl class="facts">
            <dt>Event</dt>
            <dd>{delivery.event}</dd>
            <dt>Status</dt>
            <dd>
              <DeliveryStatus status={delivery.status} />
            </dd>
            <dt>Created</dt>
            <dd>{formatDate(delivery.createdAt, true)}</dd>
            <dt>Attempts</dt>
            <dd>{delivery.attempts}</dd>
            <dt>Last outcome</dt>
            <dd>{delivery.lastOutcome ? OUTCOME[delivery.lastOutcome] : 'Not attempted yet'}</dd>
            <dt>HTTP status</dt>
            <dd>{delivery.lastResponseStatus ?? 'None'}</dd>
            <dt>Endpoint’s answer or error</dt>
            <dd class="break">
              {delivery.lastError ?? (delivery.lastOutcome === 'success' ? 'None: accepted' : '—')}
            </dd>
            <dt>Duration</dt>
            <dd>{delivery.durationMs === null ? '—' : `${delivery.durationMs} ms`}</dd>
            <dt>Delivery id</dt>
            <dd>
              <code class="break">{delivery.id}</code>
            </dd>
            <dt>Job run</dt>
            <dd>{delivery.triggerRunId ? <code class="break">{delivery.triggerRunId}</code> : '—'}</dd>
          </dl>
          <section aria-labelledby="delivery-body-title">
            <h3 id="delivery-body-title">Body sent</h3>
            <pre class="delivery-body">{pretty(delivery.body)}</pre>
          </section>
          <p class="muted small">
            The endpoint received the delivery id as <code>X-Service-Delivery</code> and the event as{' '}
            <code>X-Service-Event</code>.
          </p>
          <div class="actions">
            <Button onClick={onClose}>Done</Button>
          </div>
        </>
      )}
    </Dialog>
  )
}

/** The body with its JSON laid out; as stored when it is not JSON. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}
