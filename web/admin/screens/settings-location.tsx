/**
 * What the location features have to work with (`map-status`: whether they and the map are on, which
 * geocoding providers have credentials, how many items can be placed) and the location index: its size,
 * its latest rebuild followed while it runs, and `Rebuild index`.
 */
import { useEffect, useRef } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { Button, formatDate, Loading, Notice, useToast } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'

type MapStatus = Answer<'/api/admin/settings/map-status'>['data']
type IndexRun = NonNullable<Answer<'/api/admin/location-index'>['data']['run']>

/** How often a running rebuild is read again. */
const POLL_MS = 1500

const RUN_LABELS: Record<IndexRun['status'], string> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
}

const active = (run: IndexRun | null | undefined) => run?.status === 'queued' || run?.status === 'running'

export function LocationSettings() {
  const toast = useToast()
  const status = useResource((signal) => unwrap(api.GET('/api/admin/settings/map-status', { signal })), [])
  const index = useResource((signal) => unwrap(api.GET('/api/admin/location-index', { signal })), [])
  const run = index.data?.data.run
  const wasActive = useRef(false)

  // A rebuild in progress is followed until it ends; its end is announced and the figures read again.
  useEffect(() => {
    if (active(run)) {
      wasActive.current = true
      const timer = window.setTimeout(index.reload, POLL_MS)
      return () => window.clearTimeout(timer)
    }
    if (wasActive.current && run) {
      wasActive.current = false
      if (run.status === 'completed') toast('success', 'Location index rebuilt')
      else toast('error', `The location index rebuild failed${run.error ? `: ${run.error}` : ''}`)
      status.reload()
    }
    return undefined
  }, [run?.id, run?.status, run?.processed, run?.updatedAt])

  const rebuild = async () => {
    try {
      const answer = await unwrap(api.POST('/api/admin/location-index'))
      toast('success', answer.message)
      wasActive.current = true
      await index.reload()
    } catch (error) {
      toast.failed(error)
    }
  }

  return (
    <>
      <section class="card" aria-labelledby="location-status">
        <h2 id="location-status">Location features</h2>
        {status.error !== undefined && !status.data && (
          <Notice kind="error">
            What the location features have could not be read: {messageOf(status.error)}
          </Notice>
        )}
        {status.data ? (
          <MapStatusView status={status.data.data} />
        ) : (
          status.error === undefined && <Loading />
        )}
      </section>
      <section class="card" aria-labelledby="location-index">
        <h2 id="location-index">Location index</h2>
        <p class="muted">
          The index holds the published items with coordinates, and the remote ones, for the map and searches
          near a place. It follows every item change; a rebuild also geocodes the published items that have an
          address but no coordinates.
        </p>
        {index.error !== undefined && !index.data && (
          <Notice kind="error">The location index could not be read: {messageOf(index.error)}</Notice>
        )}
        {!index.data && index.error === undefined && <Loading what="Reading the location index" />}
        {index.data && (
          <>
            <dl class="settings-facts">
              <div>
                <dt>Entries</dt>
                <dd>{index.data.data.entries}</dd>
              </div>
              <div>
                <dt>Last brought up to date</dt>
                <dd>{formatDate(index.data.data.lastIndexedAt, true)}</dd>
              </div>
            </dl>
            {run ? <RunView run={run} /> : <p>The index has never been rebuilt.</p>}
          </>
        )}
        <div class="actions">
          <Button kind="primary" onClick={rebuild} busy={active(run)}>
            Rebuild index
          </Button>
        </div>
      </section>
    </>
  )
}

function onOff(on: boolean) {
  return <span class={`status ${on ? 'status-active' : 'status-off'}`}>{on ? 'On' : 'Off'}</span>
}

function MapStatusView({ status }: { status: MapStatus }) {
  const { items, geocoding } = status
  return (
    <>
      <dl class="settings-facts">
        <div>
          <dt>Location features</dt>
          <dd>{onOff(status.locationEnabled)}</dd>
        </div>
        <div>
          <dt>Map</dt>
          <dd>{onOff(status.mapEnabled)}</dd>
        </div>
        <div>
          <dt>Geocoding</dt>
          <dd>
            {geocoding.configured ? (
              <span class="status status-active">Configured</span>
            ) : (
              <span class="status status-off">Not configured</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Providers with credentials</dt>
          <dd>{geocoding.providers.length > 0 ? geocoding.providers.join(', ') : 'None'}</dd>
        </div>
      </dl>
      <p class="field-hint">
        Location features need the instance’s LOCATION_ENABLED and the site’s setting; geocoding providers are
        the instance’s GEOCODING_PROVIDER and their keys. The site’s own switches are in{' '}
        <Link href="/settings?tab=site">the Site settings</Link>.
      </p>
      <h3 class="settings-subheading">Items</h3>
      <div class="figures">
        <Figure value={items.total} label="Items" />
        <Figure value={items.withCoordinates} label="With coordinates" />
        <Figure value={items.remote} label="Remote" />
        <Figure value={items.missingLocation} label="Missing a location" />
      </div>
    </>
  )
}

function Figure({ value, label }: { value: number; label: string }) {
  return (
    <div class="figure">
      <span class="figure-value">{value.toLocaleString()}</span>
      <span class="figure-label">{label}</span>
    </div>
  )
}

function RunView({ run }: { run: IndexRun }) {
  const percent = Math.round(run.progressPercent)
  return (
    <div class="settings-run">
      <h3 class="settings-subheading">
        Latest rebuild <span class={`status status-${run.status}`}>{RUN_LABELS[run.status]}</span>
      </h3>
      <div class="settings-progress">
        <label for="location-run-progress">Progress</label>
        <progress id="location-run-progress" max={100} value={run.progressPercent}>
          {percent}%
        </progress>
        <span>
          {percent}% · {run.processed.toLocaleString()} of {run.total.toLocaleString()} items
        </span>
      </div>
      {run.error && <Notice kind="error">{run.error}</Notice>}
      <dl class="settings-facts">
        <div>
          <dt>Geocoded</dt>
          <dd>{run.geocoded}</dd>
        </div>
        <div>
          <dt>Could not be placed</dt>
          <dd>{run.geocodeFailed}</dd>
        </div>
        <div>
          <dt>Skipped</dt>
          <dd>{run.skipped}</dd>
        </div>
        <div>
          <dt>Asked for</dt>
          <dd>{formatDate(run.createdAt, true)}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{run.finishedAt ? formatDate(run.finishedAt, true) : '—'}</dd>
        </div>
      </dl>
    </div>
  )
}
