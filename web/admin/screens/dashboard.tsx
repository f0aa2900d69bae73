/**
 * The dashboard: the figures of `/api/admin/dashboard/stats`, what happened day by day (submissions and
 * reviews, and all activity) from `/api/admin/dashboard/activity`, the most favorited items, the latest
 * changes, and, when the location features are on, a map of the located items.
 */
import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { LineChart } from '../../shared/chart.tsx'
import { Figure, Figures } from '../../shared/figures.tsx'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, useQuery } from '../../shared/router.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import { formatDate, Loading, Notice, Select } from '../../shared/ui.tsx'
import type { MapPoint } from '../../shared/world-map.tsx'
import { type Answer, api } from '../api.ts'
import './dashboard.css'

type Activity = Answer<'/api/admin/dashboard/activity'>['data']
type TopItem = Activity['topItems'][number]

const RANGES = [
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
  { value: '365', label: 'Last 12 months' },
]

const ACTIONS: Record<Activity['recent'][number]['action'], string> = {
  created: 'added',
  submitted: 'submitted',
  updated: 'edited',
  approved: 'approved',
  rejected: 'rejected',
  deleted: 'deleted',
}

export default function Dashboard() {
  const [query, setQuery] = useQuery()
  const days = RANGES.some((r) => r.value === query.get('days')) ? Number(query.get('days')) : 30
  const stats = useResource((signal) => unwrap(api.GET('/api/admin/dashboard/stats', { signal })), [])
  const activity = useResource(
    (signal) => unwrap(api.GET('/api/admin/dashboard/activity', { signal, params: { query: { days } } })),
    [days],
  )
  const settings = useResource((signal) => unwrap(api.GET('/api/admin/settings', { signal })), [])
  const figures = stats.data?.data
  const series = activity.data?.data.series ?? []
  const labels = series.map((d) => d.date)

  const topColumns: Column<TopItem>[] = [
    { header: 'Item', cell: (item) => <Link href={`/items/${item.id}`}>{item.name}</Link> },
    { header: 'Favorites', cell: (item) => item.favorites },
    { header: 'Comments', cell: (item) => item.comments },
  ]

  return (
    <Page title="Dashboard">
      {stats.error !== undefined && <Notice kind="error">{(stats.error as Error).message}</Notice>}
      <Figures label="Figures">
        <Figure label="Items" value={figures?.items.total ?? '…'} href="/items" />
        <Figure
          label="Waiting for review"
          value={figures?.pendingReviews ?? '…'}
          href="/items?status=pending"
        />
        <Figure label="Published" value={figures?.items.published ?? '…'} href="/items?status=published" />
        <Figure
          label="Comments to moderate"
          value={figures?.comments.awaitingModeration ?? '…'}
          href="/comments?status=pending"
        />
        <Figure label="Clients" value={figures?.clients.total ?? '…'} href="/clients" />
        <Figure label="New clients this week" value={figures?.clients.newThisWeek ?? '…'} href="/clients" />
        <Figure
          label="Unread notifications"
          value={figures?.notifications.unread ?? '…'}
          href="/notifications"
        />
      </Figures>

      <section class="card" aria-labelledby="activity-title">
        <div class="card-header">
          <h2 id="activity-title">Over time</h2>
          <Select
            label="Period"
            value={String(days)}
            options={RANGES}
            onValue={(value) => setQuery({ days: value === '30' ? undefined : value })}
          />
        </div>
        {activity.error !== undefined && <Notice kind="error">{(activity.error as Error).message}</Notice>}
        {!activity.data && activity.loading && <Loading what="Loading the activity" />}
        {activity.data && (
          <div class="charts" aria-busy={activity.loading ? 'true' : 'false'}>
            <LineChart
              title="Submissions and reviews"
              labels={labels}
              series={[
                { label: 'Submitted', values: series.map((d) => d.submissions) },
                { label: 'Approved', values: series.map((d) => d.approved) },
                { label: 'Rejected', values: series.map((d) => d.rejected) },
              ]}
            />
            <LineChart
              title="Activity"
              labels={labels}
              series={[
                {
                  label: 'Item changes',
                  values: series.map(
                    (d) => d.created + d.updated + d.deleted + d.approved + d.rejected + d.submissions,
                  ),
                },
                { label: 'Comments', values: series.map((d) => d.comments) },
                { label: 'New clients', values: series.map((d) => d.newClients) },
              ]}
            />
          </div>
        )}
      </section>

      <div class="grid-2 dashboard-lists">
        <section class="card" aria-labelledby="top-items">
          <h2 id="top-items">Top items</h2>
          <DataTable
            caption="The most favorited items"
            columns={topColumns}
            rows={activity.data?.data.topItems}
            rowKey={(item) => item.id}
            empty="No item is anyone's favorite yet."
          />
        </section>
        <section class="card" aria-labelledby="recent-activity">
          <h2 id="recent-activity">Recent activity</h2>
          {activity.data && activity.data.data.recent.length === 0 && (
            <p class="muted">Nothing has happened yet.</p>
          )}
          <ol class="recent">
            {activity.data?.data.recent.map((entry) => (
              <li key={entry.id}>
                <span class="muted">{formatDate(entry.createdAt, true)}</span>{' '}
                {entry.actor ? (entry.actor.name ?? entry.actor.email) : 'Someone'} {ACTIONS[entry.action]}{' '}
                {entry.item.deleted ? (
                  <span>a deleted item</span>
                ) : (
                  <Link href={`/items/${entry.item.id}`}>{entry.item.name}</Link>
                )}
                {entry.note && <span class="muted"> · {entry.note}</span>}
              </li>
            ))}
          </ol>
        </section>
      </div>

      {settings.data?.data.location.enabled && <LocatedItems />}
    </Page>
  )
}

/** The map, its figures and the countries with most items; the map's code is loaded only here. */
function LocatedItems() {
  const geo = useResource((signal) => unwrap(api.GET('/api/admin/geo-analytics', { signal })), [])
  const [WorldMap, setWorldMap] = useState<ComponentType<{ points: readonly MapPoint[]; label: string }>>()
  useEffect(() => {
    import('../../shared/world-map.tsx').then((module) => setWorldMap(() => module.default))
  }, [])
  const data = geo.data?.data
  const countries = data?.distributions.byCountry.slice(0, 8) ?? []
  return (
    <section class="card" aria-labelledby="map-title">
      <h2 id="map-title">Located items</h2>
      {geo.error !== undefined && <Notice kind="error">{(geo.error as Error).message}</Notice>}
      {data && (
        <div class="map-layout">
          {WorldMap ? (
            <WorldMap
              points={data.locations}
              label={`A world map of ${data.locations.length} located items in ${data.stats.countriesCount} countries`}
            />
          ) : (
            <Loading what="Loading the map" />
          )}
          <div>
            <p>
              {data.stats.itemsWithLocation} of {data.stats.totalItems} published items have a place (
              {data.stats.coveragePercent}%), in {data.stats.citiesCount} cities and{' '}
              {data.stats.countriesCount} countries; {data.stats.itemsRemote} are remote.
            </p>
            <ul class="countries">
              {countries.map((country) => (
                <li key={country.name}>
                  {country.name}: {country.count}
                </li>
              ))}
            </ul>
          </div>
        </div>
      )}
    </section>
  )
}
