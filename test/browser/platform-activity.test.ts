/**
 * The platform console's notifications and activity in Chromium: the bell's unread count, a notification
 * marked read, dismissed (a banner cannot be), all marked read, a new one appearing while the screen is
 * open; the activity log with its status figures, an action-type filter, an entry's details and its CSV
 * export, and a work's Activity tab holding only that work's entries.
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { screenshot, seriousViolations } from './console.ts'
import { type ConsoleUser, type PlatformConsoleHarness, startPlatformConsole } from './platform.ts'

let h: PlatformConsoleHarness

before(async () => {
  h = await startPlatformConsole()
})
after(async () => {
  await h?.close()
})

/** The bell in the top bar, as a screen reader names it. */
const bell = (page: Page, unread: number) =>
  page.getByRole('link', { name: `Notifications, ${unread} unread` })

/** A plain notification of the user's (not a banner), a minute after the last one. */
const notify = (user: ConsoleUser, title: string) => {
  h.platform.clock.advance(60_000)
  return h.platform.services.notifications.create({
    userId: user.id,
    type: 'WARNING',
    category: 'generation',
    title,
    message: 'Resume it from the work once the problem is fixed.',
    actionUrl: '/works',
    actionLabel: 'Open works',
  })
}

interface Work {
  id: string
  slug: string
}

/** Two works made through the API, the first renamed: three entries of the log besides the account's two. */
async function twoWorks(user: ConsoleUser) {
  // A minute apart, so the log's order (newest first) is theirs.
  h.platform.clock.advance(60_000)
  const coffee = await h.api<Work>(user, 'POST', '/api/works', { name: 'Coffee Guide' })
  h.platform.clock.advance(60_000)
  const tea = await h.api<Work>(user, 'POST', '/api/works', { name: 'Tea Atlas' })
  assert.equal(coffee.status, 201)
  assert.equal(tea.status, 201)
  h.platform.clock.advance(60_000)
  const renamed = await h.api(user, 'PATCH', `/api/works/${coffee.body.id}`, { name: 'Coffee Guide Berlin' })
  assert.equal(renamed.status, 200)
  return { coffee: coffee.body, tea: tea.body }
}

/** Clicks `Export CSV` and answers the downloaded file's name and lines. */
async function exportCsv(page: Page) {
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Export CSV' }).click()
  const file = await download
  const text = await readFile(await file.path(), 'utf8')
  return { name: file.suggestedFilename(), lines: text.split('\r\n').filter(Boolean) }
}

describe('platform console: notifications', () => {
  it('shows the unread count on the bell; marks one read, dismisses one, marks all read', async () => {
    const user = await h.user()
    await notify(user, 'Scheduled generation of "Coffee Guide" is paused')
    await notify(user, 'Scheduled generation of "Tea Atlas" is paused')
    await h.platform.services.notifications.notifyAiCreditsDepleted(user.id, { provider: 'openai' })
    const { page } = await h.signedIn('/notifications', { user })
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor()
    await bell(page, 3).waitFor()
    const table = page.getByRole('table', { name: 'Your notifications' })
    await table.getByText('Scheduled generation of "Coffee Guide" is paused').waitFor()
    await table.getByText('OpenAI credits are used up').waitFor()
    assert.equal(
      await table.getByRole('link', { name: 'Update API key' }).getAttribute('href'),
      '/console/settings/plugins/openai',
    )
    // The credits alert is a banner: it can be read, never dismissed.
    assert.equal(await page.getByRole('button', { name: 'Dismiss OpenAI credits are used up' }).count(), 0)
    await page.getByRole('button', { name: 'Mark read OpenAI credits are used up' }).waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'notifications', 'console')

    await page
      .getByRole('button', { name: 'Mark read Scheduled generation of "Coffee Guide" is paused' })
      .click()
    await bell(page, 2).waitFor()
    await page.getByText('2 unread.').waitFor()
    assert.equal(
      await page
        .getByRole('button', { name: 'Mark read Scheduled generation of "Coffee Guide" is paused' })
        .count(),
      0,
    )

    await page.getByRole('button', { name: 'Dismiss Scheduled generation of "Tea Atlas" is paused' }).click()
    await table.getByText('Scheduled generation of "Tea Atlas" is paused').waitFor({ state: 'detached' })
    await bell(page, 1).waitFor()

    await page.getByRole('button', { name: 'Mark all read' }).click()
    await page.getByText('Everything is read.').waitFor()
    await page.locator('a.bell:not(:has(.badge))').waitFor()
    // The banner above every screen stays until its issue is resolved, read or not.
    await page.getByRole('region', { name: 'Alerts' }).getByText('OpenAI credits are used up').waitFor()

    await page.getByLabel('Unread only').check()
    await page.getByText('No notification matches these filters.').waitFor()
    assert.match(page.url(), /unreadOnly=true/)
  })

  it('a new notification appears while the screen is open, on a phone too', async () => {
    const user = await h.user()
    await notify(user, 'Scheduled generation of "Coffee Guide" is paused')
    const { page } = await h.signedIn('/notifications', { user, width: 375 })
    // The page's own clock, so the minutes of polling pass at once; the session resumes on the reload.
    await page.clock.install()
    await page.reload()
    await page.getByText('Scheduled generation of "Coffee Guide" is paused').waitFor()
    await bell(page, 1).waitFor()

    await notify(user, 'Scheduled generation of "Tea Atlas" is paused')
    await page.clock.fastForward(20_000)
    await page.getByText('Scheduled generation of "Tea Atlas" is paused').waitFor()
    await bell(page, 2).waitFor()
    assert.deepEqual(await seriousViolations(page), [])
  })
})

/**
 * A round trip of the page's own: the request events of every call the page started before it have come in
 * by the time it answers.
 */
const settled = (page: Page) => page.evaluate('fetch("/healthz").then((response) => response.text())')

describe('platform console: polling', () => {
  it('asks nothing while the tab is hidden, and asks at once when it shows again', async () => {
    const user = await h.user()
    const { page } = await h.signedIn('/notifications', { user })
    await page.clock.install()
    await page.reload()
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor()
    const asked: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/api/notifications')) asked.push(new URL(request.url()).pathname)
    })
    await page.clock.fastForward(30_000)
    await page.waitForResponse((response) => response.url().includes('/api/notifications'))
    assert.ok(asked.length > 0, 'a visible tab polls')

    // Hidden, as when the user switches to another tab: ten minutes pass without a request.
    await page.evaluate(`Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'))`)
    await page.clock.runFor(1_000)
    await settled(page)
    asked.length = 0
    await page.clock.runFor(10 * 60_000)
    await settled(page)
    assert.deepEqual(asked, [])

    // Shown again: the screen, the bell and the banners ask at once, without waiting for their interval.
    const back = page.waitForRequest((request) => request.url().includes('/api/notifications/unread-count'))
    await page.evaluate(`Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange'))`)
    await back
  })
})

describe('platform console: activity', () => {
  it('lists the activity with its figures, filters it by action, opens an entry and exports it as CSV', async () => {
    const user = await h.user()
    await twoWorks(user)
    const { page } = await h.signedIn('/activity', { user })
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor()
    const table = page.getByRole('table', { name: 'Your activity' })
    await table.getByText('Updated work "Coffee Guide Berlin"').waitFor()
    await table.getByText('Created work "Tea Atlas"').waitFor()
    // Signing up (through the API) and signing in (in the console) are the account's two entries.
    await table.getByText(`Signed up as ${user.email}`).waitFor()
    await table.getByText('Signed in with password').waitFor()
    const figures = page.getByRole('region', { name: 'Activity by status' })
    const figure = (label: string) =>
      figures.locator('.figure').filter({ hasText: label }).locator('.figure-value')
    assert.equal(await figure('All entries').textContent(), '5')
    assert.equal(await figure('Completed').textContent(), '5')
    assert.equal(await figure('Failed').textContent(), '0')
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'activity', 'console')

    await page.getByLabel('Action').selectOption({ label: 'Work updated' })
    await table.getByText('Created work "Tea Atlas"').waitFor({ state: 'detached' })
    await table.getByText('Updated work "Coffee Guide Berlin"').waitFor()
    assert.match(page.url(), /actionType=work_updated/)
    assert.equal(await table.locator('tbody tr').count(), 1)

    await page.getByRole('button', { name: 'Details Updated work "Coffee Guide Berlin"' }).click()
    const dialog = page.getByRole('dialog', { name: 'Activity details' })
    await dialog.getByText('work.updated').waitFor()
    await dialog.getByText('["name"]').waitFor()
    assert.match(page.url(), /entry=/)
    assert.deepEqual(await seriousViolations(page), [])
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'hidden' })

    const filtered = await exportCsv(page)
    assert.equal(filtered.name, 'activity-log.csv')
    assert.equal(filtered.lines[0], 'id,createdAt,actionType,action,status,summary')
    assert.equal(filtered.lines.length, 2)
    assert.match(
      filtered.lines[1] ?? '',
      /,work_updated,work\.updated,completed,"Updated work ""Coffee Guide Berlin"""$/,
    )

    await page.getByRole('button', { name: 'Clear filters' }).click()
    await table.getByText('Created work "Tea Atlas"').waitFor()
    const everything = await exportCsv(page)
    assert.equal(everything.lines.length, 6)
    assert.ok(everything.lines.some((line) => line.includes(',user_signup,')))
  })

  it('a work’s Activity tab lists only that work’s entries', async () => {
    const user = await h.user()
    const { coffee } = await twoWorks(user)
    const { page } = await h.signedIn(`/works/${coffee.id}/activity`, { user })
    await page.getByRole('heading', { name: 'Activity', level: 2 }).waitFor()
    const table = page.getByRole('table', { name: 'Activity of this work' })
    await table.getByText('Updated work "Coffee Guide Berlin"').waitFor()
    await table.getByText('Created work "Coffee Guide"').waitFor()
    assert.equal(await table.locator('tbody tr').count(), 2)
    assert.equal(await table.getByText('Tea Atlas').count(), 0)
    assert.equal(await table.getByText('Signed up as').count(), 0)
    assert.equal(await table.getByText('Signed in with').count(), 0)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'work-activity', 'console')

    const csv = await exportCsv(page)
    assert.equal(csv.name, `activity-${coffee.slug}.csv`)
    assert.equal(csv.lines.length, 3)
    assert.ok(csv.lines.slice(1).every((line) => /,work_(created|updated),/.test(line)))
  })
})
