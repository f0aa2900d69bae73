/**
 * A work's Deploy tab: whether the work can be deployed and, when not, what is missing and where to set
 * it; a deploy (in one of the provider's teams when the token has some); the latest deployment followed
 * live through its verification to its site's address or its error; and the user's past deployments of
 * the work. Viewers are told that only the owner and editors deploy.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { unwrap } from '../../../shared/api.ts'
import { useSubmit } from '../../../shared/form.ts'
import { Button, Notice, useConfirm, useToast } from '../../../shared/ui.tsx'
import { api, type Work } from '../../api.ts'
import { DeploymentHistory, useDeploymentHistory } from '../../deploy/history.tsx'
import { LatestDeployment } from '../../deploy/latest.tsx'
import { useLatestDeployment } from '../../deploy/lookups.ts'
import { type Readiness, ReadinessNotice, useReadiness } from '../../deploy/readiness.tsx'
import { isFinal } from '../../deploy/state.tsx'
import { TeamChoice } from '../../deploy/teams.tsx'
import '../../deploy/deploy.css'
import { canEdit, type WorkTabProps } from '../../work-tab.ts'

export default function DeployTab({ work }: WorkTabProps) {
  return (
    <section class="deploy" aria-labelledby="deploy-title">
      <h2 id="deploy-title">Deploy</h2>
      {canEdit(work) ? (
        <Deploying work={work} />
      ) : (
        <Notice>
          You are a viewer of this work: only its owner and its editors can deploy it and follow its
          deployments.
        </Notice>
      )}
    </section>
  )
}

function Deploying({ work }: { work: Work }) {
  const readiness = useReadiness(work)
  const latest = useLatestDeployment(work.id)
  const { history, emails, page, setPage } = useDeploymentHistory(work.id)
  const deployment = latest.data?.deployment ?? null

  // The history follows the latest deployment: a new one, or one that ended, changes a row.
  const seen = useRef<string | undefined>(undefined)
  const now = latest.data === undefined ? undefined : `${deployment?.id}:${deployment?.state}`
  useEffect(() => {
    if (now === undefined) return
    if (seen.current !== undefined && seen.current !== now) history.reload()
    seen.current = now
  }, [now])

  return (
    <>
      <ReadinessNotice readiness={readiness} />
      <DeployForm
        work={work}
        readiness={readiness.data}
        unchecked={readiness.error !== undefined && !readiness.data}
        running={deployment !== null && !isFinal(deployment.state)}
        onDeployed={latest.reload}
      />
      <LatestDeployment latest={latest} />
      <DeploymentHistory history={history} emails={emails} page={page} setPage={setPage} />
    </>
  )
}

function DeployForm({
  work,
  readiness,
  unchecked,
  running,
  onDeployed,
}: {
  work: Work
  readiness: Readiness | undefined
  /** The check could not be read: deploying is left to the API to refuse, with its reason. */
  unchecked: boolean
  running: boolean
  onDeployed: () => Promise<void>
}) {
  const confirm = useConfirm()
  const toast = useToast()
  const [team, setTeam] = useState('')
  const canDeploy = readiness?.check.canDeploy ?? unchecked
  const providerName = readiness?.providerName ?? 'the hosting provider'
  const form = useSubmit(async () => {
    if (
      running &&
      !(await confirm({
        title: 'Deploy again?',
        message:
          'A deployment of this work is still running. Deploying again stops following it and follows the new one.',
        confirmLabel: 'Deploy again',
      }))
    )
      return
    try {
      const started = await unwrap(
        api.POST('/api/deploy/works/{id}', {
          params: { path: { id: work.id } },
          body: team ? { teamScope: team } : {},
        }),
      )
      toast('success', started.message)
    } finally {
      // A deploy whose pipeline failed is recorded as a failed deployment: it shows as the latest too.
      await onDeployed()
    }
  }, ['teamScope'])

  return (
    <form class="card" onSubmit={form.submit} noValidate aria-labelledby="deploy-form-title">
      <h3 id="deploy-form-title">Deploy the work</h3>
      <p class="muted">
        Curio updates the site’s repository ({work.slug}-website) on GitHub and starts its deploy workflow;{' '}
        {providerName} builds and publishes the site.
        {readiness?.check.isShared ? ' A shared work deploys with its owner’s credentials.' : ''}
      </p>
      {form.error && <Notice kind="error">{form.error}</Notice>}
      {readiness?.check.canDeploy && (
        <TeamChoice
          workId={work.id}
          providerName={providerName}
          value={team}
          onValue={setTeam}
          error={form.fields.teamScope}
        />
      )}
      <div class="actions">
        <Button kind="primary" type="submit" busy={form.busy} disabled={!canDeploy}>
          Deploy
        </Button>
        {!canDeploy && readiness && <span class="muted">Set up what is missing above first.</span>}
      </div>
    </form>
  )
}
