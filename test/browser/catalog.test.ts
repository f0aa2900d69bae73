/**
 * The catalog screens in Chromium: categories (create, reorder by keyboard, deactivate, Git sync against
 * a fake GitHub), tags, collections and a collection's items, companies and the featured shelf. Each task
 * is done through the UI as a person would and checked through the API.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { type GitHubFake, startGitHubFake } from '../fakes/github.ts'
import { type ConsoleHarness, screenshot, seriousViolations, startConsole } from './console.ts'

const TOKEN = `ghp_${randomBytes(12).toString('hex')}`
const REPOSITORY = 'acme/awesome-data'

let github: GitHubFake
let h: ConsoleHarness
/** One signed-in page for the whole file: each test opens its screen afresh (the session stays). */
let page: Page

before(async () => {
  github = await startGitHubFake({ token: TOKEN })
  github.addRepo(REPOSITORY, 'main')
  h = await startConsole({
    env: { DATA_REPOSITORY: REPOSITORY, GIT_TOKEN: TOKEN, GITHUB_API_URL: github.url },
  })
  page = await h.signedIn('/')
})
after(async () => {
  await h?.close()
  await github?.close()
})

interface Category {
  id: string
  name: string
  isActive: boolean
}

async function created<T>(method: string, path: string, body: unknown): Promise<T> {
  const res = await h.api<T>(method, path, body)
  assert.ok(res.status === 200 || res.status === 201, `${method} ${path}: ${JSON.stringify(res.body)}`)
  return res.body
}

async function categoriesInOrder(): Promise<Category[]> {
  const res = await h.api<{ categories: Category[] }>(
    'GET',
    '/api/admin/categories?limit=100&includeInactive=true',
  )
  assert.equal(res.status, 200)
  return res.body.categories
}

async function item(name: string, extra: Record<string, unknown> = {}) {
  const body = await created<{ data: { id: string; slug: string; name: string } }>(
    'POST',
    '/api/admin/items',
    { name, status: 'published', description: `${name}, as the directory lists it.`, ...extra },
  )
  return body.data
}

/** A field's error, as a screen reader reaches it: the text its `aria-describedby` names. */
async function errorOf(page: Page, label: string): Promise<string> {
  const field = page.getByLabel(label, { exact: true })
  // The answer comes when it comes: wait until the field is marked invalid.
  await field.and(page.locator('[aria-invalid="true"]')).waitFor()
  const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean)
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))
  return texts.join(' ')
}

/** Opens a screen by its address, as a reload or a shared link would. */
async function open(path: string): Promise<Page> {
  await page.goto(`/admin${path}`)
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  return page
}

/** The screen loaded again, without the toasts of what was just done, for its picture. */
async function reloaded(): Promise<void> {
  await page.reload()
  await page.getByRole('table').first().locator('tbody tr').first().waitFor()
}

async function noOverflow() {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  assert.ok(overflow <= 0, `${page.url()} is ${overflow} px wider than the screen`)
}

describe('admin console: categories', () => {
  it('creates a category in a dialog, names a short name next to its field, and lists it', async () => {
    for (const name of ['Developer Tools', 'Design', 'Productivity'])
      await created('POST', '/api/admin/categories', { name })
    await open('/categories')
    const table = page.getByRole('table', { name: 'Categories' })
    await table.getByText('Developer Tools', { exact: true }).waitFor()

    await page.getByRole('button', { name: 'New category' }).click()
    const dialog = page.getByRole('dialog', { name: 'New category' })
    await dialog.getByLabel('name', { exact: true }).fill('A')
    await dialog.getByRole('button', { name: 'Create category' }).click()
    await dialog.locator('.field-error').first().waitFor()
    assert.match(await errorOf(page, 'name'), /characters/)
    assert.deepEqual(await seriousViolations(page), [])

    await dialog.getByLabel('name', { exact: true }).fill('Analytics & Data')
    await dialog.getByLabel('id', { exact: true }).fill('analytics')
    await dialog.getByRole('button', { name: 'Create category' }).click()
    await page.getByText('“Analytics & Data” created').waitFor()
    await table.getByText('Analytics & Data', { exact: true }).waitFor()
    const stored = (await categoriesInOrder()).find((c) => c.id === 'analytics')
    assert.deepEqual(stored && { name: stored.name, isActive: stored.isActive }, {
      name: 'Analytics & Data',
      isActive: true,
    })

    // The same name again is the API's 409, shown in the form, which keeps what was typed.
    await page.getByRole('button', { name: 'New category' }).click()
    await dialog.getByLabel('name', { exact: true }).fill('analytics & data')
    await dialog.getByRole('button', { name: 'Create category' }).click()
    await dialog.getByRole('alert').waitFor()
    assert.equal(await dialog.getByLabel('name', { exact: true }).inputValue(), 'analytics & data')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
  })

  it('moves a category up with the keyboard, saves the order, and keeps the focus on it', async () => {
    await created('POST', '/api/admin/categories', { name: 'Reorder Alpha', id: 'reorder-alpha' })
    await created('POST', '/api/admin/categories', { name: 'Reorder Beta', id: 'reorder-beta' })
    const before = (await categoriesInOrder()).filter((c) => c.isActive).map((c) => c.id)
    assert.ok(before.indexOf('reorder-alpha') < before.indexOf('reorder-beta'))
    await open('/categories')
    const moveUp = page.getByRole('button', { name: 'Move up Reorder Beta' })
    await moveUp.focus()
    await page.keyboard.press('Enter')
    await page.getByText(/“Reorder Beta” moved up/).waitFor()

    const after = (await categoriesInOrder()).filter((c) => c.isActive).map((c) => c.id)
    assert.equal(after.indexOf('reorder-beta'), before.indexOf('reorder-alpha'))
    assert.equal(after.indexOf('reorder-alpha'), before.indexOf('reorder-beta'))
    await page.waitForFunction(() =>
      document.activeElement?.getAttribute('aria-label')?.endsWith('Reorder Beta'),
    )
    // The table shows the new order too: Beta's row now comes before Alpha's.
    const names = await page
      .getByRole('table', { name: 'Categories' })
      .locator('tbody strong')
      .allTextContents()
    assert.ok(names.indexOf('Reorder Beta') < names.indexOf('Reorder Alpha'), names.join(', '))
  })

  it('deactivates a category after asking, and shows it again with the inactive ones', async () => {
    await created('POST', '/api/admin/categories', { name: 'Retired Things', id: 'retired-things' })
    await open('/categories')
    await page.getByRole('button', { name: 'Deactivate Retired Things' }).click()
    const confirm = page.getByRole('dialog', { name: 'Deactivate this category?' })
    assert.deepEqual(await seriousViolations(page), [])
    await confirm.getByRole('button', { name: 'Deactivate' }).click()
    await page.getByText('“Retired Things” deactivated').waitFor()
    const stored = (await categoriesInOrder()).find((c) => c.id === 'retired-things')
    assert.equal(stored?.isActive, false)
    await page.getByRole('button', { name: 'Deactivate Retired Things' }).waitFor({ state: 'detached' })
    await page.getByLabel('Show').selectOption('all')
    await page.getByRole('row', { name: /Retired Things.*Inactive/ }).waitFor()
    assert.match(page.url(), /show=all/)
  })

  it('shows the Git data repository and sends a missing category to it', async () => {
    await open('/categories')
    const git = page.getByRole('region', { name: 'Git sync' })
    await git.getByText(REPOSITORY).waitFor()
    await git.getByText('Out of sync').waitFor()
    const differences = git.getByRole('table', { name: 'Differences with the data repository' })
    await differences.getByRole('button', { name: 'Add to Git Developer Tools' }).waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'categories')

    await differences.getByRole('button', { name: 'Add to Git Developer Tools' }).click()
    await page.getByText('“Developer Tools” added to Git').waitFor()
    await differences
      .getByRole('button', { name: 'Add to Git Developer Tools' })
      .waitFor({ state: 'detached' })
    const file = JSON.parse(github.readFile(REPOSITORY, 'categories.json') ?? '[]') as Category[]
    assert.ok(file.some((entry) => entry.id === 'developer-tools' && entry.name === 'Developer Tools'))

    await git.getByRole('button', { name: 'Send all to Git' }).click()
    await git.getByText('Up to date').waitFor()
    const status = await h.api<{ status: { isUpToDate: boolean } }>('GET', '/api/admin/categories/git')
    assert.equal(status.body.status.isUpToDate, true)
  })

  it('says plainly when Git sync is not configured, as the API answers', async () => {
    // This directory has a data repository; its answer without one is the documented 500.
    await page.route('**/api/admin/categories/git', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({
          success: false,
          error: 'Data repository or Git token not configured',
          code: 'GIT_NOT_CONFIGURED',
        }),
      }),
    )
    try {
      await open('/categories')
      const git = page.getByRole('region', { name: 'Git sync' })
      await git.getByText('Git sync is not configured.').waitFor()
      await git.getByText(/Data repository or Git token not configured/).waitFor()
      assert.equal(await git.getByRole('alert').count(), 0)
      assert.equal(await git.getByRole('button', { name: 'Send all to Git' }).count(), 0)
      assert.deepEqual(await seriousViolations(page), [])
    } finally {
      await page.unroute('**/api/admin/categories/git')
    }
  })
})

describe('admin console: tags', () => {
  it('creates, finds, renames and deletes a tag, with its figures', async () => {
    for (const name of ['Open source', 'Free tier', 'Self-hosted', 'AI'])
      await created('POST', '/api/admin/tags', { name })
    await item('Tagged Tool', { tagIds: ['open-source', 'ai'] })
    await open('/tags')
    await page.getByRole('list', { name: 'Tag figures' }).getByText('Carried by an item').waitFor()
    const table = page.getByRole('table', { name: 'Tags' })
    await table.getByText('Open source', { exact: true }).waitFor()

    await page.getByRole('button', { name: 'New tag' }).click()
    const dialog = page.getByRole('dialog', { name: 'New tag' })
    await dialog.getByLabel('name', { exact: true }).fill('Privacy first')
    await dialog.getByLabel('id', { exact: true }).fill('Not A Slug')
    await dialog.getByRole('button', { name: 'Create tag' }).click()
    await dialog.locator('.field-error').waitFor()
    assert.match(await errorOf(page, 'id'), /pattern|match|must/i)
    assert.deepEqual(await seriousViolations(page), [])
    await dialog.getByLabel('id', { exact: true }).fill('')
    await dialog.getByRole('button', { name: 'Create tag' }).click()
    await page.getByText('“Privacy first” created').waitFor()
    const tag = await h.api<{ data: { name: string } }>('GET', '/api/admin/tags/privacy-first')
    assert.equal(tag.body.data.name, 'Privacy first')

    await page.getByLabel('Search').fill('privacy')
    await page.waitForURL(/search=privacy/)
    await table.getByText('Open source', { exact: true }).waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Edit Privacy first' }).click()
    const rename = page.getByRole('dialog', { name: 'Rename “Privacy first”' })
    await rename.getByLabel('name', { exact: true }).fill('Privacy by design')
    await rename.getByRole('button', { name: 'Save' }).click()
    await page.getByText('“Privacy by design” saved').waitFor()
    const renamed = await h.api<{ data: { name: string } }>('GET', '/api/admin/tags/privacy-first')
    assert.equal(renamed.body.data.name, 'Privacy by design')

    await page.getByRole('button', { name: 'Delete Privacy by design' }).click()
    await page
      .getByRole('dialog', { name: 'Delete this tag?' })
      .getByRole('button', { name: 'Delete' })
      .click()
    await page.getByText('“Privacy by design” deleted').waitFor()
    assert.equal((await h.api('GET', '/api/admin/tags/privacy-first')).status, 404)

    // A tag that items carry is refused by the API, and the refusal is said.
    await page.getByLabel('Search').fill('')
    await page.getByRole('button', { name: 'Delete AI' }).click()
    await page
      .getByRole('dialog', { name: 'Delete this tag?' })
      .getByRole('button', { name: 'Delete' })
      .click()
    await page.locator('.toast-error').waitFor()
    assert.equal((await h.api('GET', '/api/admin/tags/ai')).status, 200)
    assert.deepEqual(await seriousViolations(page), [])
    await reloaded()
    await screenshot(page, 'tags')
  })
})

describe('admin console: collections', () => {
  it('creates a collection, then assigns, orders and removes its items', async () => {
    const first = await item('Picker Notebook')
    const second = await item('Picker Whiteboard')
    await item('Picker Calendar')
    await open('/collections')
    await page.getByRole('button', { name: 'New collection' }).click()
    const dialog = page.getByRole('dialog', { name: 'New collection' })
    assert.deepEqual(await seriousViolations(page), [])
    await dialog.getByLabel('name', { exact: true }).fill('Remote work kit')
    await dialog.getByLabel('description', { exact: true }).fill('Everything a distributed team needs.')
    await dialog.getByRole('button', { name: 'Create collection' }).click()
    await page.getByRole('heading', { name: 'Remote work kit', level: 1 }).waitFor()
    const id = /\/collections\/([^/?]+)$/.exec(page.url())?.[1]
    assert.ok(id, page.url())

    await page.getByLabel('Find items').fill('picker')
    await page.getByRole('button', { name: 'Add Picker Notebook' }).click()
    await page.getByText('“Picker Notebook” added to “Remote work kit”').waitFor()
    await page.getByRole('button', { name: 'Add Picker Whiteboard' }).click()
    await page.getByText('“Picker Whiteboard” added to “Remote work kit”').waitFor()
    await page.getByRole('button', { name: 'Added Picker Whiteboard' }).waitFor()
    const members = async () =>
      (
        await h.api<{ data: { item: { id: string } }[] }>('GET', `/api/admin/collections/${id}/items`)
      ).body.data.map((m) => m.item.id)
    assert.deepEqual(await members(), [first.id, second.id])

    await page.getByRole('button', { name: 'Move up Picker Whiteboard' }).click()
    await page.getByText(/“Picker Whiteboard” moved up/).waitFor()
    assert.deepEqual(await members(), [second.id, first.id])
    assert.deepEqual(await seriousViolations(page), [])
    await reloaded()
    await screenshot(page, 'collection')

    await page.getByRole('button', { name: 'Remove Picker Notebook' }).click()
    await page
      .getByRole('dialog', { name: 'Remove this item from the collection?' })
      .getByRole('button', { name: 'Remove' })
      .click()
    await page.getByText('“Picker Notebook” removed from “Remote work kit”').waitFor()
    assert.deepEqual(await members(), [second.id])
  })

  it('lists collections with their figures, filters them and hides one from the site', async () => {
    for (const [name, description] of [
      ['Design essentials', 'Tools our designers reach for every day.'],
      ['Open data', 'Datasets and the tools to read them.'],
      ['Security basics', null],
    ] as const)
      await created('POST', '/api/admin/collections', { name, description })
    await open('/collections')
    const table = page.getByRole('table', { name: 'Collections' })
    await table.getByRole('link', { name: 'Open data', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Deactivate Open data' }).click()
    await page.getByText('“Open data” hidden from the site').waitFor()
    const list = await h.api<{ data: { name: string; isActive: boolean }[] }>(
      'GET',
      '/api/admin/collections?search=open%20data',
    )
    assert.equal(list.body.data[0]?.isActive, false)
    await page.getByLabel('State').selectOption('false')
    await table.getByRole('link', { name: 'Design essentials', exact: true }).waitFor({ state: 'detached' })
    await table.getByRole('link', { name: 'Open data', exact: true }).waitFor()
    await page.getByLabel('State').selectOption('')
    await table.getByRole('link', { name: 'Design essentials', exact: true }).waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await reloaded()
    await screenshot(page, 'collections')
  })
})

describe('admin console: companies', () => {
  it('names an invalid website next to its field, keeps the form, then creates the company', async () => {
    for (const [name, website] of [
      ['Acme Corporation', 'https://acme.example.com'],
      ['Globex', 'https://globex.example.com'],
      ['Initech', null],
    ] as const)
      await created('POST', '/api/admin/companies', { name, website })
    const acme = await h.api<{ data: { id: string }[] }>('GET', '/api/admin/companies?search=acme')
    await item('Acme Rocket Skates', { companyId: acme.body.data[0]?.id })
    await open('/companies')
    await page
      .getByRole('table', { name: 'Companies' })
      .getByText('Globex', { exact: true })
      .first()
      .waitFor()
    await page.getByRole('button', { name: 'New company' }).click()
    const dialog = page.getByRole('dialog', { name: 'New company' })
    await dialog.getByLabel('name', { exact: true }).fill('Umbrella Labs')
    await dialog.getByLabel('website', { exact: true }).fill('not a website')
    await dialog.getByRole('button', { name: 'Create company' }).click()
    await dialog.locator('.field-error').first().waitFor()
    assert.ok((await errorOf(page, 'website')).length > 0)
    assert.equal(await dialog.getByLabel('name', { exact: true }).inputValue(), 'Umbrella Labs')
    assert.equal(await dialog.getByLabel('website', { exact: true }).inputValue(), 'not a website')
    const none = await h.api<{ data: unknown[] }>('GET', '/api/admin/companies?search=umbrella')
    assert.equal(none.body.data.length, 0)
    assert.deepEqual(await seriousViolations(page), [])

    await dialog.getByLabel('website', { exact: true }).fill('https://umbrella.example.com')
    await dialog.getByRole('button', { name: 'Create company' }).click()
    await page.getByText('“Umbrella Labs” created').waitFor()
    const made = await h.api<{ data: { name: string; website: string; isActive: boolean }[] }>(
      'GET',
      '/api/admin/companies?search=umbrella',
    )
    assert.deepEqual(
      made.body.data.map((c) => [c.name, c.website, c.isActive]),
      [['Umbrella Labs', 'https://umbrella.example.com', true]],
    )

    await page.getByLabel('Search').fill('umbrella')
    await page.waitForURL(/search=umbrella/)
    await page.getByRole('button', { name: 'Deactivate Umbrella Labs' }).click()
    await page.getByText('“Umbrella Labs” deactivated').waitFor()
    const after = await h.api<{ data: { isActive: boolean }[] }>(
      'GET',
      '/api/admin/companies?search=umbrella',
    )
    assert.equal(after.body.data[0]?.isActive, false)
    await page.getByLabel('Search').fill('')
    await page
      .getByRole('table', { name: 'Companies' })
      .getByText('Acme Corporation', { exact: true })
      .waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await reloaded()
    await screenshot(page, 'companies')
  })
})

describe('admin console: featured', () => {
  it('features an item found by search with an order and an end date', async () => {
    const chosen = await item('Shelf Lamp Pro')
    await created('POST', '/api/admin/featured-items', {
      itemSlug: (await item('Shelf Radio')).slug,
      featuredOrder: 3,
    })
    await open('/featured')
    await page.getByRole('table', { name: 'Featured items' }).getByText('Shelf Radio').waitFor()
    await page.getByRole('button', { name: 'Feature an item' }).click()
    const dialog = page.getByRole('dialog', { name: 'Feature an item' })
    await dialog.getByLabel('Find items').fill('shelf lamp')
    await dialog.getByRole('button', { name: 'Choose Shelf Lamp Pro' }).click()
    await dialog.getByText('Shelf Lamp Pro').waitFor()
    await dialog.getByLabel('featuredOrder', { exact: true }).fill('7')
    await dialog.getByLabel('featuredUntil', { exact: true }).fill('2031-03-15T18:30')
    assert.deepEqual(await seriousViolations(page), [])
    await dialog.getByRole('button', { name: 'Feature', exact: true }).click()
    await page.getByText('“Shelf Lamp Pro” featured').waitFor()

    const until = await page.evaluate(() => new Date('2031-03-15T18:30').toISOString())
    const list = await h.api<{
      data: { itemSlug: string; featuredOrder: number; featuredUntil: string; isActive: boolean }[]
    }>('GET', '/api/admin/featured-items?limit=100')
    const entry = list.body.data.find((e) => e.itemSlug === chosen.slug)
    assert.deepEqual(entry && [entry.featuredOrder, entry.featuredUntil, entry.isActive], [7, until, true])
    // Shelf order: the higher featuredOrder comes first.
    assert.equal(list.body.data[0]?.itemSlug, chosen.slug)

    // An end before the start is named next to its field.
    await page.getByRole('button', { name: 'Edit Shelf Lamp Pro' }).click()
    const edit = page.getByRole('dialog', { name: 'Edit “Shelf Lamp Pro”' })
    await edit.getByLabel('featuredUntil', { exact: true }).fill('2001-01-01T10:00')
    await edit.getByRole('button', { name: 'Save' }).click()
    await edit.locator('.field-error').waitFor()
    assert.match(await errorOf(page, 'featuredUntil'), /after featuredAt/)
    await edit.getByLabel('featuredUntil', { exact: true }).fill('')
    await edit.getByLabel('featuredOrder', { exact: true }).fill('9')
    await edit.getByRole('button', { name: 'Save' }).click()
    await page.getByText('“Shelf Lamp Pro” saved').waitFor()
    const saved = await h.api<{ data: { featuredOrder: number; featuredUntil: string | null }[] }>(
      'GET',
      '/api/admin/featured-items?limit=100',
    )
    assert.deepEqual(
      saved.body.data.map((e) => [e.featuredOrder, e.featuredUntil]).find(([order]) => order === 9),
      [9, null],
    )
    assert.deepEqual(await seriousViolations(page), [])
    await reloaded()
    await screenshot(page, 'featured')

    await page.getByRole('button', { name: 'Remove Shelf Radio' }).click()
    await page
      .getByRole('dialog', { name: 'Remove from the featured shelf?' })
      .getByRole('button', { name: 'Remove' })
      .click()
    await page.getByText('“Shelf Radio” removed from the shelf').waitFor()
    const left = await h.api<{ data: { itemName: string }[] }>('GET', '/api/admin/featured-items?limit=100')
    assert.deepEqual(
      left.body.data.map((e) => e.itemName),
      ['Shelf Lamp Pro'],
    )
  })
})

describe('admin console: catalog screens on a phone', () => {
  it('fits every catalog screen in 375 px', async () => {
    const collection = await h.api<{ data: { id: string }[] }>('GET', '/api/admin/collections?limit=1')
    await page.setViewportSize({ width: 375, height: 800 })
    for (const [path, heading] of [
      ['/categories', 'Categories'],
      ['/tags', 'Tags'],
      ['/collections', 'Collections'],
      [`/collections/${collection.body.data[0]?.id}`, null],
      ['/companies', 'Companies'],
      ['/featured', 'Featured'],
    ] as const) {
      await open(path)
      if (heading) await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
      await page.getByRole('table').first().locator('tbody tr').first().waitFor()
      await noOverflow()
    }
  })
})
