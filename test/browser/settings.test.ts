/**
 * Settings and notifications in Chromium: the site's settings saved and refused field by field, the
 * navigation menus reordered, edited and saved, the location index rebuilt, the CRM connection tested
 * and saved against a stand-in Twenty on 127.0.0.1 (the key never shown), a failed sync retried, and
 * notifications marked read with the bell's count following.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { type ConsoleHarness, fieldError, screenshot, seriousViolations, startConsole } from './console.ts'

const GOOD_KEY = 'good-key-0000-9f2c'

/**
 * A stand-in for Twenty's REST API: the connection test's read answers for the good key, a wrong key
 * is refused with Twenty's own error shape, and people are refused (a 403, which fails a sync at once)
 * until `twenty.writable` is set.
 */
const twenty = { writable: false, server: undefined as Server | undefined, url: '' }

function startTwenty(): Promise<void> {
  const server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(body))
    }
    if (request.headers.authorization !== `Bearer ${GOOD_KEY}`)
      return answer(401, { statusCode: 401, error: 'Unauthorized', messages: ['Token invalid.'] })
    const url = new URL(request.url ?? '/', 'http://twenty')
    if (request.method === 'GET' && url.pathname === '/rest/companies')
      return answer(200, { data: { companies: [] } })
    if (request.method === 'GET' && url.pathname === '/rest/people')
      return answer(200, { data: { people: [] } })
    if (!twenty.writable)
      return answer(403, { statusCode: 403, error: 'Forbidden', messages: ['This API key may only read.'] })
    if (request.method === 'POST' && url.pathname === '/rest/companies')
      return answer(201, { data: { createCompany: { id: 'company-1' } } })
    if (request.method === 'POST' && url.pathname === '/rest/people')
      return answer(201, { data: { createPerson: { id: 'person-1' } } })
    return answer(404, { statusCode: 404, error: 'Not Found', messages: ['No such route'] })
  })
  twenty.server = server
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      if (address && typeof address !== 'string') twenty.url = `http://127.0.0.1:${address.port}`
      resolve()
    }),
  )
}

let h: ConsoleHarness

before(async () => {
  await startTwenty()
  h = await startConsole({ env: { TWENTY_API_URL: twenty.url, CRM_TIMEOUT_MS: '3000' } })
})
after(async () => {
  await h?.close()
  await new Promise((resolve) => twenty.server?.close(resolve))
})

interface Settings {
  data: {
    site: { name: string; description: string; logoUrl: string | null; contactEmail: string | null }
    comments: { enabled: boolean; moderation: 'pre' | 'post' }
  }
}
interface NavEntry {
  label: string
  href: string | null
  children: NavEntry[]
}

async function noOverflow(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`)
}

describe('admin console: settings', () => {
  it('saves the site’s settings from the form, and keeps them through a reload', async () => {
    const page = await h.signedIn('/settings')
    await page.getByRole('tab', { name: 'Site', selected: true }).waitFor()
    await page.getByLabel('Site name').fill('Coffee Atlas')
    await page.getByLabel('Description').fill('The independent coffee roasters of Europe.')
    await page.getByLabel('Contact email').fill('hello@coffee-atlas.example')
    await page.getByLabel('Logo URL').fill('https://cdn.example.com/coffee-atlas.svg')
    await page.getByLabel('Moderation').selectOption('post')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Settings saved').waitFor()
    await page.getByText(/Last saved/).waitFor()

    const saved = await h.api<Settings>('GET', '/api/admin/settings')
    assert.deepEqual(saved.body.data.site, {
      name: 'Coffee Atlas',
      description: 'The independent coffee roasters of Europe.',
      logoUrl: 'https://cdn.example.com/coffee-atlas.svg',
      contactEmail: 'hello@coffee-atlas.example',
    })
    assert.equal(saved.body.data.comments.moderation, 'post')

    await page.reload()
    await page.getByRole('tab', { name: 'Site', selected: true }).waitFor()
    assert.equal(await page.getByLabel('Site name').inputValue(), 'Coffee Atlas')
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'settings')
  })

  it('shows a refused email and logo URL next to their fields and keeps what was typed', async () => {
    const before = await h.api<Settings>('GET', '/api/admin/settings')
    const page = await h.signedIn('/settings?tab=site')
    await page.getByLabel('Contact email').fill('not an email')
    await page.getByLabel('Logo URL').fill('ftp://cdn.example.com/logo.svg')
    await page.getByRole('button', { name: 'Save settings' }).click()
    assert.match(await fieldError(page, page.getByLabel('Contact email', { exact: true })), /email/i)
    assert.match(await fieldError(page, page.getByLabel('Logo URL', { exact: true })), /form|url|uri/i)
    await page.getByRole('alert').filter({ hasText: 'Some fields need attention' }).waitFor()
    assert.equal(await page.getByLabel('Contact email').inputValue(), 'not an email')
    assert.equal(await page.getByLabel('Logo URL').inputValue(), 'ftp://cdn.example.com/logo.svg')
    assert.deepEqual((await h.api<Settings>('GET', '/api/admin/settings')).body, before.body)
    assert.deepEqual(await seriousViolations(page), [])
  })

  it('reorders, adds, edits and removes navigation entries, then saves them', async () => {
    const arranged = await h.api('PUT', '/api/admin/navigation', {
      header: [
        { label: 'Home', href: '/' },
        { label: 'Submit', href: '/submit' },
        { label: 'About', href: '/about' },
      ],
      footer: [{ label: 'GitHub', href: 'https://github.com/curio-dev/curio' }],
    })
    assert.equal(arranged.status, 200)
    const page = await h.signedIn('/settings?tab=navigation')
    const header = page.getByRole('region', { name: 'Header menu' })
    await header.getByRole('group', { name: 'Header entry 3', exact: true }).waitFor()

    // About goes to the top, two moves up; the focus stays on the button pressed.
    await page.getByRole('button', { name: 'Move up About' }).click()
    await page.getByRole('button', { name: 'Move up About' }).click()
    assert.equal(
      await page
        .getByRole('button', { name: 'Move down About' })
        .evaluate((b) => b === document.activeElement),
      true,
    )
    assert.equal(
      await header
        .getByRole('group', { name: 'Header entry 1', exact: true })
        .getByLabel('Label')
        .inputValue(),
      'About',
    )

    // A new entry, first with a link the API refuses: the message is next to that entry's field.
    await page.getByRole('button', { name: 'Add header entry' }).click()
    const added = header.getByRole('group', { name: 'Header entry 4', exact: true })
    await added.getByLabel('Label').fill('Map')
    await added.getByLabel('Link').fill('javascript:alert(1)')
    // Submit goes, after a confirmation.
    await page.getByRole('button', { name: 'Remove Submit' }).click()
    const dialog = page.getByRole('dialog', { name: 'Remove “Submit”?' })
    await dialog.waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await dialog.getByRole('button', { name: 'Remove' }).click()
    await dialog.waitFor({ state: 'hidden' })
    // A group in the footer, with a link inside it.
    await page.getByRole('button', { name: 'Add sub-entry to GitHub' }).click()
    const inside = page.getByRole('group', { name: 'Footer entry 1.1', exact: true })
    await inside.getByLabel('Label').fill('Releases')
    await inside.getByLabel('Link').fill('https://github.com/curio-dev/curio/releases')

    await page.getByRole('button', { name: 'Save navigation' }).click()
    const map = header.getByRole('group', { name: 'Header entry 3', exact: true })
    await map.locator('.field-invalid').getByLabel('Link').waitFor()
    assert.match((await map.locator('.field-error').textContent()) ?? '', /must/)
    assert.equal(await map.getByLabel('Label').inputValue(), 'Map')
    const unchanged = await h.api<{ data: { header: NavEntry[] } }>('GET', '/api/admin/navigation')
    assert.deepEqual(
      unchanged.body.data.header.map((entry) => entry.label),
      ['Home', 'Submit', 'About'],
    )

    await map.getByLabel('Link').fill('/map')
    await page.getByRole('button', { name: 'Save navigation' }).click()
    await page.getByText('Navigation saved').waitFor()
    await page.getByRole('heading', { name: 'Settings', level: 1 }).scrollIntoViewIfNeeded()
    await screenshot(page, 'settings-navigation')
    const saved = await h.api<{ data: { header: NavEntry[]; footer: NavEntry[] } }>(
      'GET',
      '/api/admin/navigation',
    )
    assert.deepEqual(
      saved.body.data.header.map((entry) => [entry.label, entry.href]),
      [
        ['About', '/about'],
        ['Home', '/'],
        ['Map', '/map'],
      ],
    )
    assert.deepEqual(
      saved.body.data.footer[0]?.children.map((entry) => [entry.label, entry.href]),
      [['Releases', 'https://github.com/curio-dev/curio/releases']],
    )
  })

  it('shows what the location features have and rebuilds the location index to the end', async () => {
    for (const [name, location] of [
      ['Bonanza Coffee', { city: 'Berlin', country: 'DE', latitude: 52.5, longitude: 13.4 }],
      ['Coffee Collective', { city: 'Copenhagen', country: 'DK', latitude: 55.68, longitude: 12.57 }],
      ['Remote Roasters', { isRemote: true }],
      ['Somewhere Roastery', { city: 'Lisbon' }],
    ] as const) {
      const created = await h.api('POST', '/api/admin/items', { name, status: 'published', location })
      assert.equal(created.status, 201, JSON.stringify(created.body))
    }
    const page = await h.signedIn('/settings?tab=location')
    const status = page.getByRole('region', { name: 'Location features' })
    await status.getByText('With coordinates').waitFor()
    await status.locator('.figure', { hasText: 'Items' }).getByText('4').waitFor()
    await page.getByRole('button', { name: 'Rebuild index' }).click()
    const index = page.getByRole('region', { name: 'Location index' })
    await index.getByText('Completed').waitFor()
    await page.getByText('Location index rebuilt').waitFor()
    const read = await h.api<{ data: { entries: number; run: { status: string; total: number } | null } }>(
      'GET',
      '/api/admin/location-index',
    )
    assert.equal(read.body.data.run?.status, 'completed')
    assert.equal(read.body.data.entries, 3)
    assert.equal(await index.locator('dd').first().textContent(), '3')
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'settings-location')
  })

  it('tests the CRM connection, saves the key without ever showing it, and retries a failed sync', async () => {
    const page = await h.signedIn('/settings?tab=crm')
    const form = page.getByRole('form', { name: 'Twenty CRM' })
    await form.getByText('Not set').waitFor()

    // Nothing configured: the API says a key is needed, next to the key's field too.
    await page.getByRole('button', { name: 'Test connection' }).click()
    await page.getByRole('alert').filter({ hasText: 'could not be tried' }).waitFor()
    assert.match(await fieldError(page, page.getByLabel('API key', { exact: true })), /no API key is saved/)

    // A wrong key: what Twenty answered.
    await page.getByLabel('API key').fill('wrong-key-0000-0000')
    await page.getByRole('button', { name: 'Test connection' }).click()
    await page.getByRole('alert').filter({ hasText: 'Token invalid' }).waitFor()
    assert.match(
      (await page.getByRole('alert').filter({ hasText: 'Token invalid' }).textContent()) ?? '',
      /401/,
    )

    await page.getByLabel('API key').fill(GOOD_KEY)
    await page.getByRole('button', { name: 'Test connection' }).click()
    await page.getByText('Connected: Twenty accepted the API key (HTTP 200)').waitFor()
    await screenshot(page, 'settings-crm')

    await page.getByLabel('Send client changes to the CRM').check()
    await page.getByRole('button', { name: 'Save CRM settings' }).click()
    await page.getByText('CRM settings saved').waitFor()
    await form.getByText('Saved', { exact: true }).waitFor()
    const config = await h.api<{ data: { enabled: boolean; apiKeySet: boolean; apiKey: string } }>(
      'GET',
      '/api/admin/crm/config',
    )
    assert.equal(config.body.data.enabled, true)
    assert.equal(config.body.data.apiKeySet, true)
    assert.equal(await page.getByLabel('API key').inputValue(), '')
    assert.ok(!(await page.content()).includes(GOOD_KEY), 'the page shows the saved key')
    await form.getByText('ending 9f2c').waitFor()

    // A client whose person Twenty refuses: the sync fails at once, and is retried once Twenty takes it.
    const client = await h.api<{ data: { id: string } }>('POST', '/api/admin/clients', {
      email: 'ada@example.com',
      displayName: 'Ada Lovelace',
    })
    assert.ok(client.status < 300, JSON.stringify(client.body))
    const sync = page.getByRole('table', { name: 'CRM sync records' })
    await page.getByLabel('Sync status').selectOption('failed')
    await sync.getByRole('button', { name: 'Retry Ada Lovelace' }).waitFor({ timeout: 15_000 })
    await sync.getByText(/This API key may only read/).waitFor()
    assert.match(page.url(), /tab=crm&status=failed/)
    assert.deepEqual(await seriousViolations(page), [])
    // The sync list in view, below the sticky top bar.
    await page
      .getByRole('region', { name: 'Sync', exact: true })
      .evaluate((region) => window.scrollBy(0, region.getBoundingClientRect().top - 64))
    await screenshot(page, 'settings-crm-sync')

    twenty.writable = true
    await sync.getByRole('button', { name: 'Retry Ada Lovelace' }).click()
    await page.getByText('Ada Lovelace queued again').waitFor()
    await page.getByLabel('Sync status').selectOption('synced')
    await sync.getByRole('link', { name: 'Ada Lovelace' }).waitFor({ timeout: 15_000 })
    const records = await h.api<{ data: { clientId: string; status: string; personId: string | null }[] }>(
      'GET',
      '/api/admin/crm/sync',
    )
    const record = records.body.data.find((r) => r.clientId === client.body.data.id)
    assert.equal(record?.status, 'synced')
    assert.equal(record?.personId, 'person-1')
  })

  it('keeps the tab in the address and fits a phone’s width', async () => {
    const page = await h.signedIn('/settings', { width: 375 })
    await page.getByRole('tab', { name: 'Navigation' }).click()
    await page.getByRole('heading', { name: 'Header menu' }).waitFor()
    assert.match(page.url(), /\/admin\/settings\?tab=navigation$/)
    await noOverflow(page)
    await page.goBack()
    await page.getByRole('tab', { name: 'Site', selected: true }).waitFor()
    await page.getByLabel('Site name').waitFor()
    await noOverflow(page)
    await page.getByRole('tab', { name: 'CRM' }).click()
    await page.getByRole('heading', { name: 'Sync' }).waitFor()
    await noOverflow(page)
  })
})

describe('admin console: notifications', () => {
  /** A member's submission and a visitor's contact message: two notifications for the admins. */
  async function arrange(): Promise<{ itemId: string }> {
    await h.api('POST', '/api/admin/notifications/mark-all-read')
    const email = `member-${Date.now()}@example.com`
    const headers = { 'content-type': 'application/json', origin: h.url }
    const registered = await fetch(`${h.url}/api/auth/register`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Grace Hopper', email, password: 'member-password-1' }),
    })
    assert.ok(registered.status < 300, await registered.text())
    const signedIn = await fetch(`${h.url}/api/auth/signin`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email, password: 'member-password-1' }),
    })
    const cookie = signedIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ')
    const submitted = await fetch(`${h.url}/api/submit`, {
      method: 'POST',
      headers: { ...headers, cookie },
      body: JSON.stringify({ name: 'Sightglass Coffee', url: 'https://sightglasscoffee.com' }),
    })
    const item = (await submitted.json()) as { data: { id: string } }
    assert.equal(submitted.status, 201, JSON.stringify(item))
    const contact = await fetch(`${h.url}/api/contact`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'Ann Visitor',
        email: 'ann@example.com',
        message: 'Could you list our roastery in Porto?',
      }),
    })
    assert.equal(contact.status, 201, await contact.text())
    return { itemId: item.data.id }
  }

  it('marks one read from its row and the bell counts one less; filters stay in the address', async () => {
    const { itemId } = await arrange()
    const page = await h.signedIn('/')
    await page.getByRole('link', { name: 'Notifications, 2 unread' }).click()
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor()
    const table = page.getByRole('table', { name: 'Notifications' })
    await table.getByText('New submission: Sightglass Coffee').waitFor()
    assert.equal(
      await table.getByRole('link', { name: 'Review the item' }).getAttribute('href'),
      `/admin/items/${itemId}`,
    )
    assert.equal(
      await table.getByRole('link', { name: 'Reply to ann@example.com' }).getAttribute('href'),
      'mailto:ann@example.com',
    )
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'notifications')

    await table.getByRole('button', { name: 'Mark read New submission: Sightglass Coffee' }).click()
    await page.getByText('“New submission: Sightglass Coffee” marked read').waitFor()
    await page.getByRole('link', { name: 'Notifications, 1 unread' }).waitFor()
    const read = await h.api<{ data: { type: string; readAt: string | null }[]; unreadCount: number }>(
      'GET',
      '/api/admin/notifications',
    )
    assert.equal(read.body.unreadCount, 1)
    assert.notEqual(read.body.data.find((n) => n.type === 'item_submitted')?.readAt, null)

    await page.getByLabel('Unread only').check()
    await table.getByText('New submission: Sightglass Coffee').waitFor({ state: 'detached' })
    await table.getByText('Message from Ann Visitor').waitFor()
    await page.getByLabel('Type').selectOption('item_submitted')
    await table.getByText('No notification matches these filters.').waitFor()
    assert.match(page.url(), /\/admin\/notifications\?(?=.*unread=true)(?=.*type=item_submitted)/)
    await page.reload()
    await table.getByText('No notification matches these filters.').waitFor()
    assert.equal(await page.getByLabel('Unread only').isChecked(), true)
  })

  it('marks all read, and opening what one is about reads it', async () => {
    const { itemId } = await arrange()
    // Two submissions of this file share a time (the harness's clock stands still): the unread one is found by the filter.
    const page = await h.signedIn('/notifications?unread=true', { width: 375 })
    const table = page.getByRole('table', { name: 'Notifications' })
    await page.getByRole('link', { name: 'Notifications, 2 unread' }).waitFor()
    await noOverflow(page)

    await table.getByRole('link', { name: 'Review the item' }).click()
    await page.getByRole('heading', { name: 'Sightglass Coffee', level: 1 }).waitFor()
    assert.match(page.url(), new RegExp(`/admin/items/${itemId}$`))
    await page.getByRole('link', { name: 'Notifications, 1 unread' }).waitFor()

    await page.getByRole('link', { name: /^Notifications/ }).click()
    await page.getByRole('button', { name: 'Mark all read' }).click()
    await page.getByText('1 notification marked read').waitFor()
    await page.getByRole('link', { name: 'Notifications', exact: true }).waitFor()
    await page.getByText('Everything is read.').waitFor()
    const after = await h.api<{ unreadCount: number }>('GET', '/api/admin/notifications')
    assert.equal(after.body.unreadCount, 0)
    assert.equal(await page.getByRole('button', { name: 'Mark all read' }).isDisabled(), true)
  })
})
