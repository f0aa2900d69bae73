/**
 * The work's latest deployment as it moves through verification: the steps on the way to Ready with the
 * current one marked, what is happening in words (read out as it changes), and at the end the site's
 * address or why it failed.
 */
import { messageOf } from '../../shared/api.ts'
import type { Resource } from '../../shared/resource.ts'
import { formatDate, Loading, Notice } from '../../shared/ui.tsx'
import { type Deployment, isFinal, STEPS, StateBadge, stateLabel, stateMeaning } from './state.tsx'

/** The site's address as a link that opens it. */
export function SiteLink({ url }: { url: string }) {
  const href = /^https?:\/\//.test(url) ? url : `https://${url}`
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {href.replace(/^https?:\/\//, '')}
    </a>
  )
}

function Steps({ deployment }: { deployment: Deployment }) {
  const reached = STEPS.indexOf(deployment.state)
  return (
    <ol class="deploy-steps" aria-label="Verification steps">
      {STEPS.map((step, index) => {
        const current = step === deployment.state
        return (
          <li
            key={step}
            class={current ? 'current' : reached > index ? 'done' : undefined}
            aria-current={current ? 'step' : undefined}
          >
            {stateLabel(step)}
          </li>
        )
      })}
    </ol>
  )
}

export function LatestDeployment({ latest }: { latest: Resource<{ deployment: Deployment | null }> }) {
  const deployment = latest.data?.deployment
  return (
    <section class="card" aria-labelledby="latest-title">
      <h3 id="latest-title">Latest deployment</h3>
      {latest.error !== undefined && (
        <Notice kind="error">The latest deployment could not be read: {messageOf(latest.error)}</Notice>
      )}
      {deployment === undefined ? (
        latest.error === undefined && <Loading what="Reading the latest deployment" />
      ) : deployment === null ? (
        <p class="muted">This work has not been deployed yet.</p>
      ) : (
        <>
          <p class="deploy-state" aria-live="polite">
            <StateBadge state={deployment.state} /> {stateMeaning(deployment)}
          </p>
          {!['ERROR', 'CANCELED', 'TIMEOUT'].includes(deployment.state) && <Steps deployment={deployment} />}
          {!isFinal(deployment.state) && deployment.error && (
            <p class="muted small">Last check: {deployment.error}</p>
          )}
          {deployment.state === 'READY' && deployment.url && (
            <p>
              Site: <SiteLink url={deployment.url} />
            </p>
          )}
          {isFinal(deployment.state) && deployment.state !== 'READY' && (
            <Notice kind="error">{deployment.error ?? `The deployment ended as ${deployment.state}.`}</Notice>
          )}
          <dl class="facts">
            <dt>Provider</dt>
            <dd>{deployment.providerName}</dd>
            <dt>Repository</dt>
            <dd>{deployment.repository}</dd>
            {deployment.teamScope && (
              <>
                <dt>Team</dt>
                <dd>{deployment.teamScope}</dd>
              </>
            )}
            <dt>Started</dt>
            <dd>{formatDate(deployment.dispatchedAt, true)}</dd>
            {deployment.finishedAt && (
              <>
                <dt>Finished</dt>
                <dd>{formatDate(deployment.finishedAt, true)}</dd>
              </>
            )}
          </dl>
        </>
      )}
    </section>
  )
}
