/**
 * The dashboard in Chromium: its figures are the API's, its charts' numbers are the activity's day by
 * day, its figures lead to the lists they count, and with the location features on it draws the located
 * items on a map of its own (no tiles from anywhere).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type ConsoleHarness, screenshot, seriousViolations, startConsole } from './console.ts'

let h: ConsoleHarness

interface Stats {
  data: { items: { total: number; published: number }; pendingReviews: number }
}
interface Activity {
  data: {
    series: { date: string; submissions: number; approved: number; rejected: number }[]
    topItems: { name: string }[]
  }
}

before(async () => {
  h = await startConsole()
  const places = [
    { name: 'Berlin roastery', city: 'Berlin', country: 'Germany', latitude: 52.52, longitude: 13.405 },
    { name: 'Lisbon bakery', city: 'Lisbon', country: 'Portugal', latitude: 38.72, longitude: -9.14 },
    { name: 'Oakland coffee', city: 'Oakland', country: 'United States', latitude: 37.8, longitude: -122.27 },
  ]
  const published: { id: string; slug: string; name: string }[] = []
  for (const place of places) {
    const { name, ...location } = place
    const res = await h.api<{ data: { id: string; slug: string; name: string } }>(
      'POST',
      '/api/admin/items',
      {
        name,
        status: 'published',
        location,
      },
    )
    assert.equal(res.status, 201, JSON.stringify(res.body))
    published.push(res.body.data)
  }
  for (let i = 0; i < 4; i++)
    await h.api('POST', '/api/admin/items', { name: `Waiting ${i}`, status: 'pending' })
  const [first] = published
  if (first) await h.api('POST', '/api/favorites', { itemSlug: first.slug, itemName: first.name })
  const settings = await h.api('PUT', '/api/admin/settings', { location: { enabled: true, map: true } })
  assert.equal(settings.status, 200, JSON.stringify(settings.body))
})
after(async () => {
  await h?.close()
})

describe('admin console: dashboard', () => {
  it('shows the API’s figures, the day-by-day numbers, top items and recent activity', async () => {
    const stats = (await h.api<Stats>('GET', '/api/admin/dashboard/stats')).body.data
    const page = await h.signedIn('/')
    const figures = page.getByRole('region', { name: 'Figures' })
    await figures.getByRole('link', { name: `${stats.pendingReviews} Waiting for review` }).waitFor()
    await figures.getByRole('link', { name: `${stats.items.total} Items` }).waitFor()

    // The period is in the address; the numbers under the chart are the activity's, day by day.
    await page.getByLabel('Period').selectOption('7')
    await page.waitForURL(/\/admin\/\?days=7$|\/admin\?days=7$/)
    const activity = (await h.api<Activity>('GET', '/api/admin/dashboard/activity?days=7')).body.data
    const chart = page.getByRole('figure').filter({ hasText: 'Submissions and reviews' })
    await chart.getByText('Show the numbers').click()
    const rows = chart.getByRole('table').getByRole('row')
    assert.equal(await rows.count(), 8, 'a header and seven days')
    const today = activity.series.at(-1)
    const lastRow = (await rows.nth(7).innerText()).split(/\s+/)
    assert.deepEqual(lastRow, [
      today?.date,
      String(today?.submissions),
      String(today?.approved),
      String(today?.rejected),
    ])

    await page
      .getByRole('table', { name: 'The most favorited items' })
      .getByRole('link', { name: 'Berlin roastery' })
      .waitFor()
    await page
      .getByRole('region', { name: 'Recent activity' })
      .getByRole('link', { name: 'Waiting 3' })
      .waitFor()
    assert.deepEqual(await seriousViolations(page), [])

    // A figure leads to what it counts.
    await figures.getByRole('link', { name: /Waiting for review/ }).click()
    await page.getByRole('tab', { name: /Pending/, selected: true }).waitFor()
    const items = page.getByRole('table', { name: 'Items' })
    for (let i = 0; i < 4; i++) await items.getByRole('link', { name: `Waiting ${i}` }).waitFor()
    assert.equal(await items.getByRole('row').count(), 1 + stats.pendingReviews)
  })

  it('draws the located items on its own map when the location features are on', async () => {
    const page = await h.signedIn('/')
    const map = page.getByRole('img', { name: /A world map of 3 located items in 3 countries/ })
    await map.waitFor()
    // The land and the three points are drawn: the canvas is not blank.
    const inked = (await page.evaluate(`(() => {
      const canvas = document.querySelector('canvas.world-map')
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data
      let inked = 0
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) inked++
      return inked
    })()`)) as number
    assert.ok(inked > 1000, `${inked} pixels drawn`)
    await page.getByText('Portugal: 1').waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'dashboard')
  })
})
