/**
 * Deploy several works at once: the user picks, from the works they may deploy (owned, or shared with
 * them as an editor), the ones to deploy, optionally in one provider team, and sends them in one request.
 * Each work's outcome follows: started or why not, then its deployment live through verification to its
 * site or its error. The works deployed are in the address (`?works=…`), so a reload keeps following them.
 */
import { useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, useQuery } from '../../shared/router.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import { Button, Notice, TextField } from '../../shared/ui.tsx'
import { api, type Work } from '../api.ts'
import { BatchOutcome, type BatchResult } from '../deploy/batch-outcome.tsx'
import '../deploy/deploy.css'
import { GenerationStatus } from '../work-status.tsx'
import { canEdit } from '../work-tab.ts'

const columns: Column<Work>[] = [
  {
    header: 'Work',
    cell: (work) => (
      <>
        <Link href={`/works/${work.id}/deploy`}>
          <strong>{work.name}</strong>
        </Link>
        <div class="muted small">{work.slug}</div>
      </>
    ),
  },
  { header: 'Your role', cell: (work) => work.role },
  {
    header: 'Generation',
    secondary: true,
    cell: (work) => <GenerationStatus status={work.generateStatus} />,
  },
  { header: 'Items', secondary: true, cell: (work) => work.generateStatus.itemsCount },
]

export default function BatchDeploy() {
  const [query, setQuery] = useQuery()
  const deployed = (query.get('works') ?? '').split(',').filter(Boolean)
  const [result, setResult] = useState<BatchResult | null>(null)
  const list = useResource((signal) => unwrap(api.GET('/api/works', { signal })), [])
  const works = list.data?.works
  const deployable = works?.filter(canEdit)
  const viewing = (works?.length ?? 0) - (deployable?.length ?? 0)

  return (
    <Page title="Deploy several works" actions={<Link href="/works">Back to works</Link>}>
      <div class="deploy">
        {list.error !== undefined && <Notice kind="error">{messageOf(list.error)}</Notice>}
        {deployed.length > 0 && (
          <BatchOutcome
            workIds={deployed}
            works={works ?? []}
            result={result}
            onClear={() => {
              setResult(null)
              setQuery({ works: undefined })
            }}
          />
        )}
        <Picker
          works={deployable}
          loading={list.loading}
          viewing={viewing}
          onDeployed={(answer, ids) => {
            setResult(answer)
            setQuery({ works: ids.join(',') }, { push: true })
          }}
        />
      </div>
    </Page>
  )
}

function Picker({
  works,
  loading,
  viewing,
  onDeployed,
}: {
  works: Work[] | undefined
  loading: boolean
  viewing: number
  onDeployed: (result: BatchResult, workIds: string[]) => void
}) {
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [team, setTeam] = useState('')
  // Only works still listed count: one deleted meanwhile drops out of the selection.
  const chosen = (works ?? []).filter((work) => selected.has(work.id)).map((work) => work.id)
  const form = useSubmit(async () => {
    const answer = await unwrap(
      api.POST('/api/deploy/batch', {
        body: {
          works: chosen.map((workId) => ({ workId })),
          ...(team.trim() ? { teamScope: team.trim() } : {}),
        },
      }),
    )
    setSelected(new Set())
    onDeployed(answer, chosen)
  }, ['teamScope'])

  return (
    <section aria-labelledby="pick-title">
      <h2 id="pick-title">Choose the works to deploy</h2>
      <p class="muted">
        Each work deploys as its Deploy tab would: with its owner’s hosting provider and GitHub credentials.
        {viewing > 0 &&
          ` ${viewing} ${viewing === 1 ? 'work is' : 'works are'} not listed: shared with you as a viewer, and viewers cannot deploy.`}
      </p>
      <DataTable
        caption="Works you can deploy"
        columns={columns}
        rows={works}
        rowKey={(work) => work.id}
        busy={loading}
        empty="You have no works you can deploy. Create one under Works."
        selection={{ selected, onChange: setSelected, rowLabel: (work) => work.name }}
      />
      <form class="card" onSubmit={form.submit} noValidate aria-label="Deploy the selected works">
        {form.error && <Notice kind="error">{form.error}</Notice>}
        <TextField
          label="Team (optional)"
          hint="A hosting provider team’s slug or id for every selected work; empty: each work’s default."
          value={team}
          onValue={setTeam}
          error={form.fields.teamScope}
          maxLength={100}
        />
        <div class="actions">
          <Button kind="primary" type="submit" busy={form.busy} disabled={chosen.length === 0}>
            {chosen.length === 0
              ? 'Deploy works'
              : chosen.length === 1
                ? 'Deploy 1 work'
                : `Deploy ${chosen.length} works`}
          </Button>
          {chosen.length === 0 && <span class="muted">Select the works to deploy in the table.</span>}
        </div>
      </form>
    </section>
  )
}
