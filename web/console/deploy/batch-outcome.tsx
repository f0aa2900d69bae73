/**
 * What a batch deploy did, work by work: whether its deployment started (and why not), then its latest
 * deployment followed live until it is final, with its site or its error. After a reload the batch's
 * answer is gone, and each work's latest deployment is what is shown.
 */
import { useEffect, useRef } from 'preact/hooks'
import { messageOf } from '../../shared/api.ts'
import { Link } from '../../shared/router.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import { Button, formatDate, Notice } from '../../shared/ui.tsx'
import type { Answer, Work } from '../api.ts'
import { SiteLink } from './latest.tsx'
import { type Lookup, useLatestDeployments } from './lookups.ts'
import { isFinal, StateBadge, stateMeaning } from './state.tsx'

export type BatchResult = Answer<'/api/deploy/batch', 'post'>
type WorkOutcome = BatchResult['results'][number]

interface Row {
  workId: string
  name: string
  outcome: WorkOutcome | undefined
  lookup: Lookup | undefined
}

const deploymentOf = (row: Row) =>
  row.lookup && 'deployment' in row.lookup && row.outcome?.status !== 'error' ? row.lookup.deployment : null

function Status({ row }: { row: Row }) {
  if (row.outcome?.status === 'error') return <span class="status status-failed">Not started</span>
  if (!row.lookup) return <span class="muted">Reading…</span>
  if ('error' in row.lookup) return <span class="muted">Unknown</span>
  if (!row.lookup.deployment) return <span class="muted">Not deployed</span>
  return <StateBadge state={row.lookup.deployment.state} />
}

function Details({ row }: { row: Row }) {
  if (row.outcome?.status === 'error') return <>{row.outcome.message}</>
  if (row.lookup && 'error' in row.lookup) return <>Could not be read: {messageOf(row.lookup.error)}</>
  const deployment = deploymentOf(row)
  if (!deployment) return null
  if (deployment.state === 'READY' && deployment.url) return <SiteLink url={deployment.url} />
  if (isFinal(deployment.state)) return <>{deployment.error ?? stateMeaning(deployment)}</>
  return <>{stateMeaning(deployment)}</>
}

const columns: Column<Row>[] = [
  {
    header: 'Work',
    cell: (row) => <Link href={`/works/${row.workId}/deploy`}>{row.name}</Link>,
  },
  { header: 'Status', cell: (row) => <Status row={row} /> },
  { header: 'Site or error', cell: (row) => <Details row={row} /> },
  {
    header: 'Started',
    secondary: true,
    cell: (row) => formatDate(deploymentOf(row)?.dispatchedAt, true),
  },
]

const tone = (status: BatchResult['status']) =>
  status === 'success' ? 'success' : status === 'error' ? 'error' : 'info'

export function BatchOutcome({
  workIds,
  works,
  result,
  onClear,
}: {
  workIds: readonly string[]
  works: readonly Work[]
  /** The batch's answer, while the screen that sent it is open. */
  result: BatchResult | null
  onClear: () => void
}) {
  const lookups = useLatestDeployments(workIds)
  const heading = useRef<HTMLHeadingElement>(null)
  // After sending, focus moves to the outcome, where the user follows what happens.
  useEffect(() => {
    if (result) heading.current?.focus()
  }, [result])

  const outcomes = new Map(result?.results.map((outcome) => [outcome.workId, outcome]))
  const rows: Row[] = workIds.map((workId) => {
    const outcome = outcomes.get(workId)
    return {
      workId,
      name: works.find((work) => work.id === workId)?.name ?? outcome?.slug ?? 'A work you no longer see',
      outcome,
      lookup: lookups.data?.get(workId),
    }
  })

  return (
    <section class="card" aria-labelledby="outcome-title">
      <h2 id="outcome-title" ref={heading} tabIndex={-1}>
        Deployments
      </h2>
      {result ? (
        <Notice kind={tone(result.status)}>{result.message}</Notice>
      ) : (
        <p class="muted">The latest deployment of each of these works.</p>
      )}
      <DataTable
        caption="Deployments of the works deployed together"
        columns={columns}
        rows={rows}
        rowKey={(row) => row.workId}
        busy={lookups.loading}
        empty="No works."
      />
      <div class="actions">
        <Button onClick={onClear}>Hide these deployments</Button>
      </div>
    </section>
  )
}
