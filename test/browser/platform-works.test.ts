/**
 * Works in the platform console, in Chromium: the list, a new work (a refused slug said at its field), its
 * page and tabs at their own addresses, rename, delete after confirming, and members invited and removed —
 * and what a viewer may not do.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { fieldError, screenshot, seriousViolations } from './console.ts'
import { type PlatformConsoleHarness, startPlatformConsole } from './platform.ts'

let h: PlatformConsoleHarness

before(async () => {
  h = await startPlatformConsole()
})
after(async () => {
  await h?.close()
})

describe('platform console: works', () => {
  it('creates a work from the list, opens its page, and a taken slug is said at the field', async () => {
    const { page, user } = await h.signedIn('/works')
    await page.getByText('No works yet').waitFor()
    assert.deepEqual(await seriousViolations(page), [])

    await page.getByRole('button', { name: 'New work' }).click()
    const dialog = page.getByRole('dialog', { name: 'New work' })
    await dialog.getByLabel('Name').fill('Coffee roasters of Lisbon')
    await dialog.getByLabel('Slug').fill('coffee-lisbon')
    await dialog.getByRole('button', { name: 'Create work' }).click()
    await page.getByRole('heading', { name: 'Coffee roasters of Lisbon', level: 1 }).waitFor()
    assert.match(page.url(), /\/console\/works\/[0-9a-f-]{36}$/)
    // The default tab is Items; each tab is an address of its own.
    assert.equal(await page.getByRole('tab', { name: 'Items' }).getAttribute('aria-selected'), 'true')
    await page.getByRole('tab', { name: 'Members' }).click()
    assert.match(page.url(), /\/members$/)
    await page.reload()
    await page.getByRole('tab', { name: 'Members', selected: true }).waitFor()

    await page.getByRole('link', { name: 'Works', exact: true }).click()
    await page.getByRole('link', { name: 'Coffee roasters of Lisbon' }).waitFor()
    await page.locator('table[aria-busy="false"]').waitFor()
    await screenshot(page, 'works', 'console')
    await page.getByRole('button', { name: 'New work' }).click()
    await dialog.getByLabel('Name').fill('Another')
    await dialog.getByLabel('Slug').fill('coffee-lisbon')
    await dialog.getByRole('button', { name: 'Create work' }).click()
    assert.match(await fieldError(page, dialog.getByLabel('Slug')), /taken|exists|already/i)
    await dialog.getByLabel('Slug').fill('Not A Slug!')
    await dialog.getByRole('button', { name: 'Create work' }).click()
    assert.ok(await fieldError(page, dialog.getByLabel('Slug')))
    const works = await h.api<{ works: { slug: string }[] }>(user, 'GET', '/api/works')
    assert.deepEqual(
      works.body.works.map((work) => work.slug),
      ['coffee-lisbon'],
    )
  })

  it('renames a work and deletes it after confirming', async () => {
    const user = await h.user()
    const created = await h.api<{ id: string }>(user, 'POST', '/api/works', { name: 'Bakeries' })
    const { page } = await h.signedIn(`/works/${created.body.id}/members`, { user })
    await page.getByRole('heading', { name: 'Bakeries', level: 1 }).waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'work-members', 'console')

    await page.getByRole('button', { name: 'Rename' }).click()
    const dialog = page.getByRole('dialog', { name: 'Rename the work' })
    await dialog.getByLabel('Name').fill('')
    await dialog.getByRole('button', { name: 'Save' }).click()
    assert.ok(await fieldError(page, dialog.getByLabel('Name')))
    await dialog.getByLabel('Name').fill('Bakeries of Porto')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { name: 'Bakeries of Porto', level: 1 }).waitFor()

    await page.getByRole('button', { name: 'Delete' }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete this work?' })
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    assert.equal((await h.api(user, 'GET', `/api/works/${created.body.id}`)).status, 200)
    await page.getByRole('button', { name: 'Delete' }).click()
    await confirm.getByRole('button', { name: 'Delete work' }).click()
    await page.getByRole('heading', { name: 'Works', level: 1 }).waitFor()
    assert.equal((await h.api(user, 'GET', `/api/works/${created.body.id}`)).status, 404)
  })

  it('invites a member by email with a role and removes them; the member sees the work as a viewer', async () => {
    const owner = await h.user()
    const viewer = await h.user('Grace Hopper')
    const created = await h.api<{ id: string }>(owner, 'POST', '/api/works', { name: 'Bookshops' })
    const { page } = await h.signedIn(`/works/${created.body.id}/members`, { user: owner })
    await page.getByLabel('Member email').fill('nobody-here@example.com')
    await page.getByRole('button', { name: 'Invite' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: /no user|not found|account/i })
      .waitFor()

    await page.getByLabel('Member email').fill(viewer.email)
    await page.getByLabel('Role').selectOption('viewer')
    await page.getByRole('button', { name: 'Invite' }).click()
    await page.getByRole('cell', { name: viewer.email, exact: true }).waitFor()

    // The viewer's console: the work is listed, its page offers no rename, delete or invitation.
    const seen = await h.signedIn(`/works/${created.body.id}/members`, { user: viewer })
    await seen.page.getByRole('heading', { name: 'Bookshops', level: 1 }).waitFor()
    await seen.page.getByText('Only the owner invites and removes members.').waitFor()
    assert.equal(await seen.page.getByRole('button', { name: 'Rename' }).count(), 0)
    assert.equal(await seen.page.getByRole('button', { name: 'Delete' }).count(), 0)

    await page.getByRole('button', { name: `Remove ${viewer.email}` }).click()
    await page
      .getByRole('dialog', { name: 'Remove this member?' })
      .getByRole('button', { name: 'Remove' })
      .click()
    await page.getByRole('cell', { name: viewer.email, exact: true }).waitFor({ state: 'detached' })
    assert.equal((await h.api(viewer, 'GET', `/api/works/${created.body.id}`)).status, 404)
  })

  it('a work that is not there, or not shared, says so', async () => {
    const { page } = await h.signedIn('/works/00000000-0000-4000-8000-000000000000')
    await page.getByRole('heading', { name: 'Work not found', level: 1 }).waitFor()
    await page.getByRole('link', { name: 'Back to your works' }).click()
    await page.getByRole('heading', { name: 'Works', level: 1 }).waitFor()
  })
})
